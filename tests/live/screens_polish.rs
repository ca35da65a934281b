//! Issue 34's polish, in Chromium: the focus after each screen change (never the page's
//! body), and the quest toast, which floats over the page (never making it taller) and
//! goes when the next round starts.

use crate::browser;
use crate::server;

use browser::Browser;

/// What has the keyboard's focus: its tag (BODY is the bug).
async fn focused(b: &Browser) -> String {
    b.eval("document.activeElement ? document.activeElement.tagName : 'none'")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Waits for the lobby to be drawn a few times over (every `lobby` frame redraws it).
async fn lobby_settled(b: &Browser) {
    b.wait_screen("lobby", 10).await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn focus_lands_on_each_new_screen_and_the_quest_toast_clears_next_round() {
    if !browser::available() {
        return;
    }
    let dir = crate::e2e::two_levels_in("polish");
    let mut server = server::start_levels(&dir, &[]).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 800).await;

    // Create room: the lobby's heading has the focus, also after the lobby is redrawn.
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Create room").await;
    lobby_settled(&b).await;
    assert_eq!(focused(&b).await, "H1", "after Create room");
    b.click("Leave").await;
    b.wait_screen("home", 10).await;

    // Play solo: the same, with three bots joining (three more redraws).
    b.click("Play solo").await;
    b.wait_until("[...document.querySelectorAll('li.seat .tag')].filter(t => t.textContent === 'bot').length === 3", 10)
        .await;
    lobby_settled(&b).await;
    assert_eq!(focused(&b).await, "H1", "after Play solo");

    // A won round in which Ann chopped: three stars, a quest done, told in a toast.
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    crate::e2e::chop_a_tomato(&b).await;
    b.wait_screen("results", 60).await;
    b.wait_until("document.getElementById('notice').dataset.kind === 'quest' && !document.getElementById('notice').hidden", 10)
        .await;
    let toast = b.text("#notice").await;
    assert!(toast.contains("complete:"), "{toast}");
    // The toast does not make the page any taller: the page measures the same without it.
    let grows = b
        .eval("(() => { const n = document.getElementById('notice'); const a = document.documentElement.scrollHeight; n.hidden = true; const c = document.documentElement.scrollHeight; n.hidden = false; return a - c; })()")
        .await;
    assert_eq!(grows, 0, "the toast grew the page by {grows} px");
    b.screenshot("results-toast").await;

    // Results → Lobby: the heading, redraws and all.
    b.click("Lobby").await;
    lobby_settled(&b).await;
    assert_eq!(focused(&b).await, "H1", "after Results → Lobby");
    assert_eq!(
        b.text("#notice").await,
        toast,
        "the toast stays until the next round"
    );

    // The next round's countdown clears it.
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    b.wait_until("document.getElementById('notice').hidden", 10)
        .await;

    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
