//! A round outlives its node, seen in a browser: Bob plays on node C's page in a room held
//! by node A (his socket on A, through `ws_url`), with Ann (a scripted player) and two bots.
//! A is killed (`kill -9`) in the middle of the round; the page says the kitchen moved,
//! asks C where the room went, comes back to its seat on the adopter, and the round plays
//! on to its results.

use super::adopt::new_home;
use super::fleet::Node;
use crate::browser::{self, Browser};
use crate::postgres;
use crate::server::{self, Client, Stop, play_on};
use serde_json::json;
use std::time::Duration;

const LEVEL: &str = "01_quick_soup";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_follows_its_round_to_the_node_that_adopts_it() {
    if !browser::available() || !postgres::available() {
        return;
    }
    let url = postgres::database();
    let dir = crate::nodes::folder("browser-adopt");
    let key = dir.join("session.key");
    let mut nodes = Vec::new();
    for n in ["a", "b", "c"] {
        let (addr, levels) = (server::free_addr(), "tests/fixtures/levels");
        nodes.push(Node::start_on(addr, &dir, n, &url, &key, levels, &[]).await);
    }
    let (a, c) = (nodes[0].addr, nodes[2].addr);

    // Ann makes the room on A and adds two bots; Bob opens its link on C's page and joins.
    let (code, ann_token) = server::create_room(a, "Ann").await;
    let auth = format!("Bearer {ann_token}");
    for _ in 0..2 {
        let path = format!("/api/rooms/{code}/bots");
        let (status, v) =
            server::http(a, "POST", &path, Some(""), &[("Authorization", &auth)]).await;
        assert_eq!(status, 201, "{v}");
    }
    let mut ann = Client::hello(a, &code, &ann_token).await;
    let bob = Browser::open(&format!("http://{c}"), 1280, 800).await;
    bob.goto(&format!("/r/{code}")).await;
    bob.wait_screen("join", 10).await;
    bob.fill("Name", "Bob").await;
    bob.click("Join").await;
    bob.wait_screen("lobby", 10).await;
    let socket = bob
        .eval(&format!("sessionStorage.getItem('uc.ws.{code}')"))
        .await;
    assert_eq!(
        socket,
        json!(format!("ws://{a}/ws/{code}")),
        "Bob's socket is on A"
    );
    bob.click("Ready").await;
    ann.send(json!({"type": "set_level", "level": LEVEL})).await;
    loop {
        if ann.expect("lobby").await["can_start"] == true {
            break;
        }
    }
    ann.send(json!({"type": "start"})).await;
    bob.wait_screen("game", 10).await;

    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/levels");
    let level = undercooked::levels::find(&fixtures, LEVEL).unwrap().level;
    let ann_plays = {
        let level = level.clone();
        tokio::spawn(async move {
            match play_on(&mut ann, 0, &level).await {
                Stop::Closed(..) => {}
                Stop::Round(r) => panic!("the round ended before the kill: {r}"),
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(6)).await;
    nodes[0].signal("KILL");
    ann_plays.await.unwrap();
    // Ann comes back the way the adopt test's players do; Bob's page finds its own way.
    let ann_back = {
        let (level, code) = (level.clone(), code.clone());
        tokio::spawn(async move {
            let (home, _) = new_home(c, &code, a).await;
            let mut ann = Client::connect(home, &code).await;
            ann.send(json!({"type": "hello", "p": 1, "token": ann_token, "name": null}))
                .await;
            ann.expect("welcome").await;
            match play_on(&mut ann, 0, &level).await {
                Stop::Round(r) => (home, r),
                Stop::Closed(code, _) => panic!("Ann's socket closed ({code:?}) on the adopter"),
            }
        })
    };

    let moved = bob.notice_with("The kitchen moved", 30).await;
    bob.screenshot("adopt-moved").await;
    assert_eq!(
        bob.screen().await,
        "game",
        "the page stays on the game: {moved}"
    );
    let back = bob.notice_with("Back in the kitchen", 30).await;
    eprintln!("Bob's page said: {moved} / {back}");
    let clock = "document.getElementById('clock') && document.getElementById('clock').textContent";
    let before = bob.eval(clock).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_ne!(
        before,
        bob.eval(clock).await,
        "the clock runs again on the adopter"
    );
    bob.screenshot("adopt-back").await;
    let (home, round) = ann_back.await.unwrap();
    assert_ne!(home, a);
    let socket = bob
        .eval(&format!("sessionStorage.getItem('uc.ws.{code}')"))
        .await;
    assert_eq!(
        socket,
        json!(format!("ws://{home}/ws/{code}")),
        "Bob's page plays on the adopter"
    );
    bob.wait_screen("results", 30).await;
    bob.screenshot("adopt-results").await;
    let notice_now = "(() => { const n = document.getElementById('notice'); return n.hidden ? '' : n.textContent; })()";
    let said = bob.eval(notice_now).await;
    assert!(
        !said
            .as_str()
            .unwrap_or_default()
            .contains("Back in the kitchen"),
        "the results do not keep the resume's notice: {said}"
    );
    assert!(
        round["result"] == "won" || round["result"] == "lost",
        "{round}"
    );
    let errors = bob.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    bob.close().await;
}
