//! `cargo bench --bench client`: the web client's figures for docs/PERFORMANCE.md, in
//! Debian's Chromium (headless, through chromedriver).
//!
//! - the time one drawn frame takes on the campaign's 64×64 level (four cooks, carts, fire): a bot round is simulated, indexed into a real server's history and played in
//!   the replay viewer (the live renderer) at 1× for 10 s; `window.__drawStats` holds every
//!   draw's time;
//! - the first load: every byte a fresh browser transfers to show the home page.
//!
//! It reports; it asserts nothing about timings.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../server/mod.rs"]
mod server;

use std::time::Duration;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if !browser::available() {
        eprintln!("no Chromium: nothing measured");
        return;
    }
    let mut server = server::start_campaign(&[]).await;
    let base = format!("http://{}", server.addr);

    // First load, fresh profile.
    let b = browser::Browser::open(&base, 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let bytes = b
        .eval(
            "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
               .reduce((n, e) => n + (e.transferSize || 0), 0)",
        )
        .await;
    let files = b
        .eval("performance.getEntriesByType('resource').length + 1")
        .await;
    println!("first load: {bytes} bytes transferred in {files} files (gzip)");
    b.close().await;

    // The 64×64 level in the viewer.
    let levels = undercooked::levels::load_dir(std::path::Path::new("levels")).unwrap();
    let hall = levels
        .iter()
        .find(|l| (l.level.grid.width(), l.level.grid.height()) == (64, 64))
        .unwrap();
    let sim = undercooked::simulate::simulate(hall, 3, 4, 20).unwrap();
    let dir = server.data.join("imported");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hall-bench.ucr"), &sim.bytes).unwrap();
    undercooked::store::reindex::reindex(
        server.shared.store().unwrap(),
        &dir,
        undercooked::verify::refusal,
        |_, _| {},
    )
    .await
    .unwrap();
    for (w, h) in [(1280u32, 800u32), (1920, 1080)] {
        let b = browser::Browser::open(&base, w, h).await;
        // The viewer's address names the round by its id in the history, not its file.
        b.goto("/").await;
        let id = b
            .eval("fetch('/api/replays').then((r) => r.json()).then((j) => j.replays[0].id)")
            .await;
        let id = id.as_str().expect("the indexed round's id").to_string();
        b.goto(&format!("/replays/{id}")).await;
        b.wait_screen("viewer", 20).await;
        b.wait_until("document.getElementById('score').textContent !== ''", 20)
            .await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        b.eval(
            "(window.__drawStats = Object.assign(window.__drawStats, {n: 0, total: 0, max: 0}), 1)",
        )
        .await;
        let start = std::time::Instant::now();
        tokio::time::sleep(Duration::from_secs(10)).await;
        let secs = start.elapsed().as_secs_f64();
        let stats = b.eval("window.__drawStats").await;
        let n = stats["n"].as_f64().unwrap_or(0.0);
        let total = stats["total"].as_f64().unwrap_or(0.0);
        let max = stats["max"].as_f64().unwrap_or(0.0);
        println!(
            "{} (64x64) in the viewer at {w}x{h}: {:.2} ms per drawn frame (mean of {n}), max {max:.1} ms, {:.0} frames/s",
            hall.level.id,
            total / n.max(1.0),
            n / secs
        );
        b.screenshot(&format!("hall-{w}x{h}")).await;
        let errors = b.page_errors().await;
        if !errors.is_empty() {
            println!("page errors: {errors:?}");
        }
        b.close().await;
    }
    server.stop().await;
}
