//! The web client in a real browser (Debian's Chromium, through chromedriver), against a
//! real server on 127.0.0.1:0 with the short, roomy test level of `tests/fixtures/solo`.
//! Screenshots of every screen go to `target/e2e/`.

use crate::browser;
use crate::server;

use browser::Browser;
use undercooked::log::Record;

fn base(s: &server::TestServer) -> String {
    format!("http://{}", s.addr)
}

/// Seat 0's positions in a recorded round's frames (tile units).
fn seat0_positions(bytes: &[u8]) -> Vec<(f64, f64)> {
    let read = undercooked::log::read_replay(bytes).expect("the replay reads");
    let frames = undercooked::log::frames::recorded(&read.records).expect("frames");
    let mut merged = None;
    let mut out = Vec::new();
    for f in frames {
        let v: serde_json::Value = serde_json::from_str(&f).unwrap();
        undercooked::wire::merge::apply_frame(&mut merged, &v).unwrap();
        let p = &merged.as_ref().unwrap()["p"][0];
        out.push((p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap()));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_solo_moves_with_the_keyboard_and_wins() {
    if !browser::available() {
        return;
    }
    // 100 ms on every frame the server sends: a round trip like a far-away server's.
    let mut server = server::start_solo(&[
        ("UNDERCOOKED_TEST_MODE", "1"),
        ("UNDERCOOKED_SIM_LATENCY_MS", "100"),
    ])
    .await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    assert!(
        b.canvas_colours().await == 0,
        "the home screen has no canvas"
    );
    b.screenshot("home").await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("[...document.querySelectorAll('li.seat .tag')].filter(t => t.textContent === 'bot').length === 3", 10)
        .await;
    b.wait_until("!document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue.disabled", 10)
        .await;
    // Nobody can join a room of bots: no room link, no Ready, no ready flags.
    let extra = b
        .eval("[!!document.getElementById('link'), !!document.evaluate(\"//button[normalize-space()='Ready']\", document, null, 9, null).singleNodeValue, document.querySelectorAll('li.seat .tag').length]")
        .await;
    assert_eq!(
        extra,
        serde_json::json!([false, false, 5]),
        "host, 3 × bot, you"
    );
    b.screenshot("lobby").await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    // Past the countdown, then down (S) for a moment: one tile, out of the bots' way.
    b.wait_until(
        "/Score/.test(document.getElementById('score').textContent)",
        10,
    )
    .await;
    b.wait_until("window.__game && window.__game.drawnMine", 10)
        .await;
    b.eval("(window.__track = [], (function f() { const g = window.__game; if (g && g.drawnMine) __track.push([g.drawnMine.x, g.drawnMine.y]); if (__track.length < 150) requestAnimationFrame(f); })(), 1)")
        .await;
    b.hold_key('s', 250).await;
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    // Your own cook, predicted and reconciled at 100 ms round trip: it walks a tile down and
    // never jumps between two drawn frames (walking is about 0.08 tile a frame at 60 Hz).
    let track = b.eval("window.__track").await;
    let track: Vec<(f64, f64)> = track
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    assert!(track.len() > 30, "{} drawn frames sampled", track.len());
    let biggest = track
        .windows(2)
        .map(|w| ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt())
        .fold(0.0, f64::max);
    assert!(biggest < 0.3, "a drawn jump of {biggest:.2} tile");
    let walked = track[track.len() - 1].1 - track[0].1;
    assert!(
        walked > 0.5,
        "the cook walked {walked:.2} tile down on screen"
    );
    eprintln!(
        "drawn track: {} frames, largest step {biggest:.3} tile, walked {walked:.2}",
        track.len()
    );
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(b.canvas_colours().await > 20, "the kitchen is drawn");
    b.screenshot("game").await;
    b.wait_screen("results", 60).await;
    let verdict = b.text("#verdict").await;
    assert_eq!(verdict, "Round won", "the results say won");
    b.screenshot("results").await;
    let final_score = b.text("#final-score").await;

    // The round is in the replay list, and the viewer plays it to the same final score.
    b.click("Home").await;
    b.wait_screen("home", 10).await;
    b.click("Replays").await;
    b.wait_screen("replays", 10).await;
    b.wait_until(
        "document.querySelectorAll('table.list tbody tr').length === 1",
        10,
    )
    .await;
    let row = b.text("table.list tbody tr").await;
    assert!(
        row.contains("01_open_kitchen") && row.contains("won"),
        "{row}"
    );
    b.screenshot("replays").await;
    b.click("Watch replay").await;
    b.wait_screen("viewer", 10).await;
    b.wait_until("document.getElementById('score').textContent !== ''", 10)
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(b.canvas_colours().await > 20, "the replay is drawn");
    b.screenshot("viewer").await;
    b.client
        .find(fantoccini::Locator::Css("#speed"))
        .await
        .unwrap()
        .select_by_value("8")
        .await
        .unwrap();
    b.wait_until("document.getElementById('play').textContent === 'Play'", 30)
        .await;
    assert_eq!(
        b.text("#score").await,
        final_score,
        "the replay ends where the round did"
    );
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;

    let replays = server.replays();
    let bytes = std::fs::read(&replays[0]).unwrap();
    let read = undercooked::log::read_replay(&bytes).unwrap();
    let moves = read
        .records
        .iter()
        .filter(|r| matches!(r, Record::InputAccepted { seat: 0, mv, .. } if *mv != (0, 0)))
        .count();
    assert!(moves > 0, "the keyboard's inputs are in the log");
    let path = seat0_positions(&bytes);
    let (first, last) = (path[0], path[path.len() - 1]);
    assert!(
        (last.1 - first.1) > 0.5,
        "seat 0 walked down: {first:?} → {last:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_join_by_link_a_reload_and_a_dropped_socket_come_back() {
    if !browser::available() {
        return;
    }
    let mut server = server::start_solo(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let a = Browser::open(&base(&server), 1024, 700).await;
    a.goto("/").await;
    a.fill("Name", "Ann").await;
    a.click("Create room").await;
    a.wait_screen("lobby", 10).await;
    let link = a.eval("document.getElementById('link').value").await;
    let link = link.as_str().unwrap().to_string();
    let code = link.rsplit('/').next().unwrap().to_string();

    let b = Browser::open(&base(&server), 1024, 700).await;
    b.client.goto(&link).await.unwrap();
    b.wait_screen("join", 10).await;
    b.fill("Name", "Bob").await;
    b.click("Join").await;
    b.wait_screen("lobby", 10).await;
    // A disabled Start says what it waits for.
    assert_eq!(b.text("#start-why").await, "The host starts the round.");
    a.wait_until(
        "document.querySelectorAll('li.seat:not(.empty)').length === 2",
        10,
    )
    .await;
    assert_eq!(a.text("#start-why").await, "Pick a level to start.");
    a.screenshot("lobby-waiting").await;
    b.click("Ready").await;
    // The lobby is drawn anew on each `lobby` frame: wait for the one with Bob ready, so
    // the level picker is not replaced between finding it and choosing from it.
    a.wait_until(
        "[...document.querySelectorAll('.tag.ok')].some((t) => t.textContent === 'ready')",
        10,
    )
    .await;
    a.client
        .find(fantoccini::Locator::Css("#level"))
        .await
        .unwrap()
        .select_by_value("01_open_kitchen")
        .await
        .unwrap();
    a.wait_until("!document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue.disabled", 10)
        .await;
    assert_eq!(
        a.text("#start-why").await,
        "",
        "an enabled Start needs no reason"
    );
    a.click("Start").await;
    a.wait_screen("game", 10).await;
    b.wait_screen("game", 10).await;
    b.wait_until(
        "/Score/.test(document.getElementById('score').textContent)",
        10,
    )
    .await;
    let seat = b.text(".hud .who").await;
    assert_eq!(seat, "You are seat 2");

    // A reload mid-round: back in the same seat, in the game.
    b.client.refresh().await.unwrap();
    b.wait_screen("game", 10).await;
    b.wait_until(
        "/Score/.test(document.getElementById('score').textContent)",
        10,
    )
    .await;
    assert_eq!(b.text(".hud .who").await, "You are seat 2");

    // A socket dropped by the server: the client comes back by itself.
    let token = b.eval("localStorage.getItem('uc.token')").await;
    let token = token.as_str().unwrap().to_string();
    let (status, _) = server::http(
        server.addr,
        "POST",
        &format!("/api/test/kill_socket/{code}/{token}"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200);
    b.wait_until(
        "document.getElementById('notice').textContent.includes('Connection lost')",
        5,
    )
    .await;
    b.wait_until("document.getElementById('notice').hidden", 10)
        .await;
    let room = server::http(server.addr, "GET", &format!("/api/rooms/{code}"), None, &[])
        .await
        .1;
    assert_eq!(room["seats"][1]["connected"], true, "{room}");
    let before = b.text("#clock").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_ne!(b.text("#clock").await, before, "frames flow again");
    assert!(b.canvas_colours().await > 20);

    // A third browser watches the round.
    let c = Browser::open(&base(&server), 900, 600).await;
    c.goto(&format!("/watch/{code}")).await;
    c.wait_screen("game", 10).await;
    assert_eq!(c.text(".hud .who").await, "Watching");
    c.wait_until(
        "/Score/.test(document.getElementById('score').textContent)",
        10,
    )
    .await;
    assert!(c.canvas_colours().await > 20);
    c.screenshot("watch").await;

    for browser in [&a, &b, &c] {
        let errors = browser.page_errors().await;
        assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    }
    a.close().await;
    b.close().await;
    c.close().await;
    server.stop().await;
}

/// Clicks Start once the lobby enables it.
async fn start_when_ready(b: &Browser) {
    b.wait_screen("lobby", 10).await;
    b.wait_until("(() => { const s = document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; })()", 15)
        .await;
    b.click("Start").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_rounds_in_a_row_each_show_their_own_game() {
    if !browser::available() {
        return;
    }
    // Given a solo room on the one-level campaign (so "Next level" replays the last level).
    let mut server = server::start_solo(&[]).await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    start_when_ready(&b).await;
    for round in 1..=3 {
        // Each round shows a live game screen of its own, then its results.
        b.wait_screen("game", 15).await;
        b.wait_until(
            "/Score/.test(document.getElementById('score').textContent)",
            15,
        )
        .await;
        b.wait_screen("results", 90).await;
        let verdict = b.text("#verdict").await;
        match round {
            // Next level after the last level (Retry after a loss: the same message).
            1 => {
                b.click(if verdict == "Round won" {
                    "Next level"
                } else {
                    "Retry"
                })
                .await
            }
            // Lobby, then Start on the same level.
            2 => {
                b.click("Lobby").await;
                start_when_ready(&b).await;
            }
            _ => {}
        }
    }
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    assert_eq!(server.replays().len(), 3, "three rounds were played");
    server.stop().await;
}
