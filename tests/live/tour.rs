//! Every campaign level in a real browser: each is played solo (you and three bots) from the
//! home screen, and a few seconds into the round the kitchen must be drawn with no page
//! error. The screenshots (`target/e2e/level-NN.png`) are the ones `scripts/screenshots.sh`
//! copies into `docs/screenshots/`, so the pictures in the docs are of the code that passed.

use crate::browser;
use crate::server;

use browser::Browser;

/// A folder holding only `file`, made campaign level 1 (so a new session may play it).
fn only_level(file: &std::path::Path) -> std::path::PathBuf {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a level file name");
    let dir = std::env::temp_dir().join(format!("uc-tour-{}-{stem}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("tour folder");
    let text = std::fs::read_to_string(file).expect("level file");
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("order =") {
                "order = 1"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join(file.file_name().expect("name")), text + "\n").expect("write level");
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_campaign_level_is_drawn_in_a_real_browser() {
    if !browser::available() {
        return;
    }
    let mut files: Vec<_> = std::fs::read_dir("levels")
        .expect("levels/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the campaign has {} levels", files.len());
    for file in files {
        let dir = only_level(&file);
        let mut server = server::start_levels(&dir, &[]).await;
        let b = Browser::open(&format!("http://{}", server.addr), 1280, 800).await;
        b.goto("/").await;
        b.wait_screen("home", 10).await;
        b.fill("Name", "Ann").await;
        b.click("Play solo").await;
        b.wait_screen("lobby", 10).await;
        b.wait_until("!document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue.disabled", 10)
            .await;
        b.click("Start").await;
        b.wait_screen("game", 10).await;
        b.wait_until("window.__game && window.__game.drawnMine", 10)
            .await;
        // Past the 3-2-1 and a few seconds of bots at work: orders open, things in hands.
        tokio::time::sleep(std::time::Duration::from_secs(6)).await;
        let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("level");
        assert!(
            b.canvas_colours().await > 20,
            "{name}: the kitchen is drawn"
        );
        b.screenshot(&format!("level-{}", &name[..2])).await;
        let errors = b.page_errors().await;
        assert!(errors.is_empty(), "{name}: page errors {errors:?}");
        b.close().await;
        server.stop().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}
