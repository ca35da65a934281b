//! A person in a real browser plays a round through node B in a room held by node A: the
//! page is B's, the join is forwarded, and the page's socket goes to A (`ws_url`).

use crate::browser::{self, Browser};
use crate::postgres;
use crate::server;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_through_node_b_hosted_on_node_a_in_a_browser() {
    if !browser::available() || !postgres::available() {
        return;
    }
    // Given nodes A and B on one database and one key,
    let url = postgres::database();
    let key = std::env::temp_dir().join(format!("uc-cluster-{}-browser.key", std::process::id()));
    let key = key.display().to_string();
    let env = [
        ("UNDERCOOKED_DB", url.as_str()),
        ("UNDERCOOKED_SESSION_KEY_FILE", key.as_str()),
    ];
    let mut a_node = server::start(&env).await;
    let mut b_node = server::start(&env).await;
    // when Ann creates a room on A's page,
    let ann = Browser::open(&format!("http://{}", a_node.addr), 1024, 700).await;
    ann.goto("/").await;
    ann.fill("Name", "Ann").await;
    ann.click("Create room").await;
    ann.wait_screen("lobby", 10).await;
    let link = ann.eval("document.getElementById('link').value").await;
    let code = link
        .as_str()
        .and_then(|l| l.rsplit('/').next())
        .expect("a room link")
        .to_string();
    // and Bob opens the room's link on B's page and joins,
    let bob = Browser::open(&format!("http://{}", b_node.addr), 1024, 700).await;
    bob.goto(&format!("/r/{code}")).await;
    bob.wait_screen("join", 10).await;
    bob.fill("Name", "Bob").await;
    bob.click("Join").await;
    bob.wait_screen("lobby", 10).await;
    // then Bob's page (B's) holds its socket on A, and both lobbies show both cooks.
    let socket = bob
        .eval(&format!("sessionStorage.getItem('uc.ws.{code}')"))
        .await;
    assert_eq!(socket, json!(format!("ws://{}/ws/{code}", a_node.addr)));
    for page in [&ann, &bob] {
        page.wait_until(
            "document.querySelectorAll('li.seat:not(.empty)').length === 2",
            10,
        )
        .await;
    }
    bob.screenshot("cluster-lobby-on-b").await;
    // When Ann adds a bot (through B), Bob is ready, and Ann starts the quick level,
    let token = ann.eval("localStorage.getItem('uc.token')").await;
    let auth = format!("Bearer {}", token.as_str().unwrap_or(""));
    let (status, bot) = server::http(
        b_node.addr,
        "POST",
        &format!("/api/rooms/{code}/bots"),
        Some("{}"),
        &[("Authorization", auth.as_str())],
    )
    .await;
    assert_eq!(status, 201, "{bot}");
    bob.click("Ready").await;
    ann.wait_until(
        "[...document.querySelectorAll('.tag.ok')].some((t) => t.textContent === 'ready')",
        10,
    )
    .await;
    ann.select("#level", "01_quick_soup").await;
    ann.wait_until("!document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue.disabled", 10)
        .await;
    ann.click("Start").await;
    // then the round runs to its results on both pages (40 s), Bob's from node B.
    bob.wait_screen("game", 10).await;
    bob.wait_until(
        "/Score/.test(document.getElementById('score').textContent)",
        10,
    )
    .await;
    bob.screenshot("cluster-game-on-b").await;
    bob.wait_screen("results", 90).await;
    ann.wait_screen("results", 30).await;
    bob.screenshot("cluster-results-on-b").await;
    for page in [&ann, &bob] {
        let errors = page.page_errors().await;
        assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    }
    ann.close().await;
    bob.close().await;
    a_node.stop().await;
    b_node.stop().await;
}
