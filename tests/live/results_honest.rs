//! The results screen tells the truth (issue 34, "Honest screens"): "Next level" names where
//! it goes, and when it stays says why — the next level is still locked for a cook who did
//! no work, or that was the last level — and the round's clock adds up (the time left
//! floored, the time used the rest of the limit).

use crate::browser;
use crate::server;

use browser::Browser;
use std::path::PathBuf;

/// A two-level campaign of the solo fixture (three bots win it in seconds).
fn two_levels() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-honest-levels-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let first = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/solo/01_open_kitchen.toml"),
    )
    .expect("the fixture level");
    let second = first
        .replace("id = \"01_open_kitchen\"", "id = \"02_second_kitchen\"")
        .replace("order = 1", "order = 2")
        .replace("name = \"Open Kitchen\"", "name = \"Second Kitchen\"");
    std::fs::write(dir.join("01_open_kitchen.toml"), first).expect("write level 1");
    std::fs::write(dir.join("02_second_kitchen.toml"), second).expect("write level 2");
    dir
}

/// Play solo beside three bots, start, stand still until the results: what they say.
async fn idle_round(b: &Browser) {
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    b.wait_screen("results", 60).await;
    assert_eq!(
        b.text("#verdict").await,
        "Round won",
        "three bots win the open kitchen"
    );
}

/// "Time 0:23 of 1:00 · 0:37 left at the target": used + left = the limit.
fn adds_up(line: &str, limit_s: u32) {
    let secs = |t: &str| {
        let (m, s) = t.split_once(':').expect("m:ss");
        m.trim().parse::<u32>().unwrap() * 60 + s.trim().parse::<u32>().unwrap()
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let used = secs(words[1]);
    let limit = secs(words[3]);
    let left = secs(words[5]);
    assert_eq!(limit, limit_s, "{line}");
    assert_eq!(used + left, limit, "one clock rule: {line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_level_says_where_it_goes_and_why_it_stays() {
    if !browser::available() {
        return;
    }
    // Given two levels and a person who stands still while three bots win level 1,
    let dir = two_levels();
    let mut server = server::start_levels(&dir, &[]).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 900).await;
    idle_round(&b).await;
    // then the results say level 2 is still locked for her, and what opens it,
    let why = b.text("#next-why").await;
    assert!(
        why.contains("Level 2: Second Kitchen is still locked for you")
            && why.contains("piece of work"),
        "{why}"
    );
    assert_eq!(b.eval("document.activeElement.textContent").await, "Retry");
    assert!(b.text("#unlocked").await.is_empty(), "nothing unlocked");
    adds_up(&b.text("#round-time").await, 60);
    b.screenshot("results-locked").await;
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);

    // and on a server whose only level that was, they say it was the last level.
    let mut server = server::start_solo(&[]).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 900).await;
    idle_round(&b).await;
    let why = b.text("#next-why").await;
    assert!(why.starts_with("That was the last level"), "{why}");
    assert_eq!(
        b.eval("document.activeElement.textContent").await,
        "Play again"
    );
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}
