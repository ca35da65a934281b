//! Issue 34 in Chromium, where a person sees it: the level picker says which levels need a
//! team or bots; a room whose people all went away is handed to whoever comes by its link
//! with the bot offer at once; a bot a person blocks says "Let me through!" over its head;
//! and beside bots the person is the one who serves (the screenshot of that kitchen).

use crate::browser;
use crate::server::{self, Client};

use browser::Browser;
use serde_json::json;
use std::path::PathBuf;

/// A levels folder holding one level, `text`, as `01_<tag>.toml`.
fn one_level(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-you-cook-{tag}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(dir.join(format!("01_{tag}.toml")), text).expect("write the level");
    dir
}

/// Holds a key down until `until` (JS; `m` is your cook as drawn, in tiles) or 4 s.
async fn walk(b: &Browser, code: &str, until: &str) {
    b.eval(&format!(
        "(() => {{ window.__walked = false; window.dispatchEvent(new KeyboardEvent('keydown', {{code: '{code}'}}));
           const t0 = performance.now();
           (function f() {{ const m = window.__game && window.__game.drawnMine;
             if ((m && ({until})) || performance.now() - t0 > 4000) {{
               window.dispatchEvent(new KeyboardEvent('keyup', {{code: '{code}'}})); window.__walked = true; return; }}
             requestAnimationFrame(f); }})(); return 1; }})()"
    ))
    .await;
    b.wait_until("window.__walked", 8).await;
}

async fn press(b: &Browser) {
    b.eval("(window.dispatchEvent(new KeyboardEvent('keydown', {code: 'Space'})), window.dispatchEvent(new KeyboardEvent('keyup', {code: 'Space'})), 1)")
        .await;
}

/// Play solo on the only level there is, up to the round's first frame drawn.
async fn solo_round(b: &Browser) {
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    b.wait_until(
        "window.__game && window.__game.countdown === null && window.__game.drawnMine",
        15,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_picker_says_which_levels_need_a_team_and_a_deserted_room_is_handed_over() {
    if !browser::available() {
        return;
    }
    let mut server = server::start_campaign(&[]).await;
    let addr = server.addr;
    let b = Browser::open(&format!("http://{addr}"), 1280, 900).await;

    // The picker: level 1 is for one cook, level 2 says it needs a team or bots.
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Create room").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until(
        "document.querySelector('#level option[value=\"02_chop_and_salad\"]')",
        10,
    )
    .await;
    let one = b.text("#level option[value=\"01_first_kitchen\"]").await;
    let two = b.text("#level option[value=\"02_chop_and_salad\"]").await;
    assert!(!one.contains("team"), "{one}");
    assert!(two.contains("needs a team or bots"), "{two}");
    b.click("Leave").await;
    b.wait_screen("home", 10).await;

    // Zed opens a room, picks level 1 and closes the tab.
    let (code, zed) = server::create_room(addr, "Zed").await;
    let mut z = Client::hello(addr, &code, &zed).await;
    z.send(json!({"type": "set_level", "level": "01_first_kitchen"}))
        .await;
    while z.expect("lobby").await["level"] != "01_first_kitchen" {}
    drop(z);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // Ann comes by the link: the room is hers, Start is on, bots are offered at once.
    b.goto(&format!("/r/{code}")).await;
    b.wait_screen("join", 10).await;
    b.click("Join").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("document.getElementById('waiting')", 10).await;
    let waiting = b.text("#waiting").await;
    assert!(waiting.contains("gone away"), "{waiting}");
    assert!(waiting.contains("Add bots (2)"), "{waiting}");
    b.wait_until(
        "(() => { const s = document.getElementById('start'); return s && !s.disabled; })()",
        10,
    )
    .await;
    assert_eq!(
        b.eval("!document.getElementById('start-why')").await,
        true,
        "Start waits for nobody"
    );
    crate::e2e::assert_axe(&b, &crate::e2e::axe_source(), "deserted lobby").await;
    b.screenshot("lobby-deserted").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_you_block_in_the_doorway_says_let_me_through_over_its_head() {
    if !browser::available() {
        return;
    }
    // Two Rooms with the person's spawn in the one-tile doorway.
    let two_rooms = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("levels/08_two_rooms.toml"),
    )
    .expect("Two Rooms")
    .replace("id = \"08_two_rooms\"", "id = \"01_doorway\"")
    .replace("order = 8", "order = 1")
    .replace("#.1..2.....3..4.#", "#....2.1...3..4.#");
    let dir = one_level("doorway", &two_rooms);
    let mut server = server::start_levels(&dir, &[]).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 800).await;
    solo_round(&b).await;
    assert_eq!(
        b.eval("[Math.floor(window.__game.drawnMine.x), Math.floor(window.__game.drawnMine.y)]")
            .await,
        json!([7, 3]),
        "Ann stands in the doorway"
    );
    // A bot cut off from its jobs asks, in a bubble over its head.
    b.wait_until(
        "window.__game.effects.list.some((f) => f.kind === 'bubble' && f.text === 'Let me through!' && f.cook !== window.__game.me)",
        40,
    )
    .await;
    b.screenshot("game-let-me-through").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beside_bots_you_take_the_dish_they_leave_you_and_serve_it() {
    if !browser::available() {
        return;
    }
    // A quick soup kitchen; Ann's spawn between the prep counter (left) and the window (right).
    let level = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/solo/01_open_kitchen.toml"),
    )
    .expect("the fixture level")
    .replace("id = \"01_open_kitchen\"", "id = \"01_your_serve\"")
    .replace("target_score = 30", "target_score = 90")
    .replace("time_limit_s = 60", "time_limit_s = 90")
    .replace(
        "#t..C.C..S#\n#.........#\n#.1.2.3.4.#\n#.........#\n#t..K.K.PW#",
        "#t..C.C..W#\n#.........#\n#.2.3.4...#\n#.........#\n#t..K.KP1S#",
    );
    assert!(level.contains("KP1S"), "the grid was rewritten");
    let dir = one_level("your_serve", &level);
    let mut server = server::start_levels(&dir, &[]).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 800).await;
    solo_round(&b).await;
    let held = "((window.__game.view.p.find((p) => p.i === window.__game.me) || {}).h || '')";
    let counter = "((window.__game.view.st.find((s) => s.x === 7 && s.y === 5) || {}).g || '')";
    let served = "window.__game.effects.list.some((f) => /^\\+/.test(f.text) && f.cook === window.__game.me)";
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no dish was left for Ann: the counter holds {}",
            b.eval(counter).await
        );
        let on_counter = b.eval(counter).await;
        if on_counter.as_str().is_some_and(|g| g.starts_with("dish")) {
            walk(
                &b,
                "ArrowLeft",
                "window.__uc.highlight && window.__uc.highlight.x === 7",
            )
            .await;
            press(&b).await;
            b.wait_until(&format!("{held}.startsWith('dish')"), 5).await;
            walk(
                &b,
                "ArrowRight",
                "window.__uc.highlight && window.__uc.highlight.x === 9",
            )
            .await;
            press(&b).await;
            b.wait_until(served, 5).await;
            break;
        }
        // At work (a person who stands 10 s is an empty seat): a step up and back, facing
        // the window, not the counter the bots bring the dish to.
        walk(&b, "ArrowUp", "m.y < 4.7").await;
        walk(&b, "ArrowDown", "m.y > 5.3").await;
        walk(
            &b,
            "ArrowRight",
            "window.__uc.highlight && window.__uc.highlight.x === 9",
        )
        .await;
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    }
    b.screenshot("game-you-serve").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
