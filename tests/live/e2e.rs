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
    // Nor are there emotes in the lobby: the bots would be the only ones to get them.
    assert_eq!(
        b.eval("document.querySelectorAll('main .emotes').length")
            .await,
        0
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
    b.eval("(window.__track = [], (function f() { const g = window.__game; if (g && g.drawnMine) __track.push([g.drawnMine.x, g.drawnMine.y, performance.now()]); if (__track.length < 150) requestAnimationFrame(f); })(), 1)")
        .await;
    b.hold_key('s', 250).await;
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    // Your own cook, predicted and reconciled at 100 ms round trip: it walks a tile down and
    // never jumps between two drawn frames. Walking is 4 tiles/s (0.07 tile a frame at 60 Hz);
    // a loaded machine may skip frames, so each step is judged against the time it spanned:
    // what a step covers beyond 5 tiles/s × its time is a jump, and a reconciliation snap
    // (0.4 tile at 100 ms) would show as one.
    let track = b.eval("window.__track").await;
    let track: Vec<(f64, f64, f64)> = track
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_f64().unwrap(),
                p[1].as_f64().unwrap(),
                p[2].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(track.len() > 30, "{} drawn frames sampled", track.len());
    let biggest = track
        .windows(2)
        .map(|w| {
            let step = ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt();
            step - 5.0 * (w[1].2 - w[0].2) / 1000.0
        })
        .fold(0.0, f64::max);
    assert!(
        biggest < 0.25,
        "a drawn jump of {biggest:.2} tile beyond walking"
    );
    let walked = track[track.len() - 1].1 - track[0].1;
    assert!(
        walked > 0.5,
        "the cook walked {walked:.2} tile down on screen"
    );
    eprintln!(
        "drawn track: {} frames, largest step beyond walking {biggest:.3} tile, walked {walked:.2}",
        track.len()
    );
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(b.canvas_colours().await > 20, "the kitchen is drawn");
    b.screenshot("game").await;
    b.wait_screen("results", 60).await;
    let verdict = b.text("#verdict").await;
    assert_eq!(verdict, "Round won", "the results say won");
    // An input that crossed the round's end is no error to show over the results.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let notice = b
        .eval("(() => { const n = document.getElementById('notice'); return n.hidden || n.dataset.kind !== 'error' ? '' : n.textContent; })()")
        .await;
    assert_eq!(notice, "", "an error over the results");
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
        row.contains("Open Kitchen") && !row.contains("01_open_kitchen") && row.contains("won"),
        "the row names the level, not its id: {row}"
    );
    b.screenshot("replays").await;
    b.click("Watch replay").await;
    b.wait_screen("viewer", 10).await;
    b.wait_until("document.getElementById('score').textContent !== ''", 10)
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(b.canvas_colours().await > 20, "the replay is drawn");
    b.screenshot("viewer").await;
    b.select("#speed", "8").await;
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
    // The host's highest unlocked level is picked for them: Start waits for a ready guest.
    assert_eq!(
        a.text("#start-why").await,
        "Start waits for another player to press Ready."
    );
    a.screenshot("lobby-waiting").await;
    b.click("Ready").await;
    // The lobby is drawn anew on each `lobby` frame: wait for the one with Bob ready, so
    // the level picker is not replaced between finding it and choosing from it.
    a.wait_until(
        "[...document.querySelectorAll('.tag.ok')].some((t) => t.textContent === 'ready')",
        10,
    )
    .await;
    a.select("#level", "01_open_kitchen").await;
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
    // Given a solo room on the one-level campaign (so the results' primary button replays
    // the last level, and says so: "Play again").
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
            // Play again after the last level (Retry after a loss: the same message).
            1 => {
                b.click(if verdict == "Round won" {
                    "Play again"
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

// ---- The kitchen view: the highlight, denied reasons, tickets, the recipe key, reduced
// motion, the camera and minimap of a big kitchen. Helpers here are this block's own. ----

/// A level folder holding one shipped level as the first of its campaign (so a new player
/// may pick it), its text passed through `edit`.
fn kitchen_level_dir(file: &str, edit: &dyn Fn(String) -> String) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-kitchen-{}-{file}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("levels")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("order = ") {
                "order = 1\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(dir.join(file), edit(text)).unwrap();
    dir
}

/// Waits until the round is on and your cook is drawn (past the countdown).
async fn kitchen_round_on(b: &Browser) {
    b.wait_screen("game", 15).await;
    b.wait_until(
        "/Score/.test(document.getElementById('score').textContent) && window.__game && window.__game.drawnMine && window.__game.countdown === null",
        15,
    )
    .await;
}

/// Creates a room alone, picks `level` and starts the round.
async fn kitchen_start_alone(b: &Browser, level: &str) {
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Create room").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until(
        &format!("document.querySelector('#level option[value=\"{level}\"]')"),
        10,
    )
    .await;
    b.select("#level", level).await;
    start_when_ready(b).await;
    kitchen_round_on(b).await;
}

/// Holds a key (a keydown on the page, as the keyboard sends it) until `until` (a JS
/// expression; `m` is your cook as drawn, in tiles) holds or 4 s pass, then lets go.
async fn kitchen_walk(b: &Browser, code: &str, until: &str) {
    b.eval(&format!(
        "(() => {{ window.__walked = false; window.dispatchEvent(new KeyboardEvent('keydown', {{code: '{code}'}}));
           const t0 = performance.now();
           (function f() {{ const m = window.__game && window.__game.drawnMine;
             if ((m && ({until})) || performance.now() - t0 > 8000) {{
               window.dispatchEvent(new KeyboardEvent('keyup', {{code: '{code}'}})); window.__walked = true; return; }}
             requestAnimationFrame(f); }})(); return 1; }})()"
    ))
    .await;
    b.wait_until("window.__walked", 12).await;
}

/// A press of the act key (Space).
async fn kitchen_press(b: &Browser) {
    b.eval("(window.dispatchEvent(new KeyboardEvent('keydown', {code: 'Space'})), window.dispatchEvent(new KeyboardEvent('keyup', {code: 'Space'})), 1)")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_station_your_cook_faces_is_highlighted_and_a_denied_press_says_why() {
    if !browser::available() {
        return;
    }
    // Given a room of one on the open kitchen (shelves at (1,1) and (1,5), stoves at (4,5)
    // and (6,5)), with its cook on spawn (2,3).
    let mut server = server::start_solo(&[]).await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    kitchen_start_alone(&b, "01_open_kitchen").await;
    let highlight = "document.getElementById('kitchen').dataset.highlight";

    // Walking into the corner above the lower shelf: the shelf in front is highlighted.
    kitchen_walk(&b, "ArrowLeft", "m.x < 1.6").await;
    kitchen_walk(&b, "ArrowDown", "m.y > 4.5").await;
    b.wait_until(&format!("{highlight} === '1,5'"), 15).await;
    assert_eq!(
        b.eval("window.__uc.highlight.k").await,
        "spawn_shelf",
        "the highlight names the shelf"
    );
    // Along to the stove's column facing right (floor ahead): no highlight; then turning to
    // face down: the stove.
    kitchen_walk(&b, "ArrowRight", "m.x > 4.4").await;
    b.wait_until(&format!("{highlight} === ''"), 15).await;
    // A busy machine draws late, so the walk may carry past the stove's column (x < 5):
    // step back into it (a tap, when it did not).
    kitchen_walk(&b, "ArrowLeft", "m.x < 4.8").await;
    kitchen_walk(&b, "ArrowDown", "window.__uc.highlight").await;
    b.wait_until(&format!("{highlight} === '4,5'"), 15).await;
    assert_eq!(b.eval("window.__uc.highlight.k").await, "stove");
    b.screenshot("game-highlight").await;
    // Your name is drawn over the highlight, not under it (it sits on the tile you face
    // when that is the station above you): a few frames' canvas calls, the text drawn
    // first after each highlight outline is the name.
    b.eval(
        "(() => { const P = CanvasRenderingContext2D.prototype; const sr = P.strokeRect, ft = P.fillText; const log = (window.__calls = []);
           P.strokeRect = function (...a) { log.push('rect:' + this.strokeStyle); return sr.apply(this, a); };
           P.fillText = function (t, ...a) { log.push('text:' + t); return ft.call(this, t, ...a); };
           setTimeout(() => { P.strokeRect = sr; P.fillText = ft; window.__callsDone = true; }, 300); return 1; })()",
    )
    .await;
    b.wait_until("window.__callsDone", 5).await;
    let after = b
        .eval("(() => { const l = window.__calls; const out = []; l.forEach((c, i) => { if (c !== 'rect:#ffe066') return; const t = l.slice(i + 1).find((x) => x.startsWith('text:')); if (t) out.push(t); }); return out; })()")
        .await;
    let after = after.as_array().cloned().unwrap_or_default();
    assert!(!after.is_empty(), "no highlight drawn in 300 ms");
    assert!(
        after.iter().all(|t| t == "text:Ann"),
        "drawn after the highlight: {after:?}"
    );

    // Facing the floor, a press is denied: its reason is drawn by the cook and said in the
    // live region.
    kitchen_walk(&b, "ArrowRight", "m.x > 4.6").await;
    b.wait_until(&format!("{highlight} === ''"), 15).await;
    kitchen_press(&b).await;
    b.wait_until(
        "window.__game.effects.list.some((f) => f.mine && f.text === 'nothing here')",
        15,
    )
    .await;
    b.wait_until(
        "document.getElementById('announce').textContent.includes('nothing here')",
        5,
    )
    .await;
    assert_eq!(
        b.eval("document.getElementById('announce').getAttribute('aria-live')")
            .await,
        "polite"
    );
    b.screenshot("game-denied").await;

    // The ticket names its recipe, and the new order was said with its time.
    b.wait_until(
        "(window.__uc.tickets || []).some((t) => t.startsWith('Tomato soup'))",
        10,
    )
    .await;
    b.wait_until(
        "window.__game.announcer.said.some((s) => s.includes('New order: Tomato soup, 60 s'))",
        10,
    )
    .await;
    // The recipe key: the HUD button opens it, R closes it.
    b.click("Recipes (R)").await;
    b.wait_until(
        "!document.getElementById('recipe-key').hidden && document.getElementById('recipe-key').textContent.includes('Tomato soup: 3 tomato (chopped, cooked)')",
        5,
    )
    .await;
    b.screenshot("game-recipe-key").await;
    b.eval("(window.dispatchEvent(new KeyboardEvent('keydown', {code: 'KeyR', key: 'r'})), 1)")
        .await;
    b.wait_until("document.getElementById('recipe-key').hidden", 5)
        .await;

    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reduced_motion_keeps_the_screen_still_on_a_denied_press() {
    if !browser::available() {
        return;
    }
    let mut server = server::start_solo(&[]).await;
    let b = Browser::open(&base(&server), 1024, 700).await;
    kitchen_start_alone(&b, "01_open_kitchen").await;
    // `prefers-reduced-motion: reduce` as the page's matchMedia answers it (the renderer
    // asks every frame), switched by `__reduce`; the largest shake drawn since reset.
    b.eval(
        "(() => { const orig = window.matchMedia.bind(window); window.__reduce = true;
           window.matchMedia = (q) => /reduced-motion/.test(q)
             ? { matches: window.__reduce, media: q, addEventListener() {}, removeEventListener() {} } : orig(q);
           window.__shakeMax = 0;
           (function f() { window.__shakeMax = Math.max(window.__shakeMax, Math.abs(window.__uc.shakePx || 0)); requestAnimationFrame(f); })();
           return 1; })()",
    )
    .await;
    // Facing the wall on the left, a press is denied.
    kitchen_walk(&b, "ArrowLeft", "m.x < 1.6").await;
    b.wait_until(
        "document.getElementById('kitchen').dataset.highlight === ''",
        5,
    )
    .await;
    kitchen_press(&b).await;
    b.wait_until("window.__uc.denied === 'nothing here'", 5)
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        b.eval("window.__shakeMax").await,
        0,
        "reduced motion: no shake"
    );
    // The same press without reduced motion shakes the screen.
    b.eval("(window.__reduce = false, window.__uc.denied = null, window.__shakeMax = 0, 1)")
        .await;
    kitchen_press(&b).await;
    b.wait_until("window.__uc.denied === 'nothing here'", 5)
        .await;
    b.wait_until("window.__shakeMax > 0", 3).await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grand_hall_follows_your_cook_with_a_minimap() {
    if !browser::available() {
        return;
    }
    let dir = kitchen_level_dir("10_grand_hall.toml", &|t| t);
    let mut server = server::start_levels(&dir, &[]).await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    kitchen_start_alone(&b, "10_grand_hall").await;
    // Too big to show whole at a readable size: a camera and a minimap.
    let camera = b.eval("window.__uc.camera").await;
    assert_eq!(camera["follows"], true, "{camera}");
    assert_eq!(camera["minimap"], true, "{camera}");
    assert!(camera["tile"].as_f64().unwrap() >= 40.0, "{camera}");
    // Walking right for a while, your cook stays on screen every frame.
    b.eval(
        "(() => { window.__inView = 0; window.__outOfView = 0; const t0 = performance.now();
           (function f() { const m = window.__game.drawnMine, v = window.__uc.camera.view;
             if (m.x > v.x0 + 0.3 && m.x < v.x1 - 0.3 && m.y > v.y0 + 0.3 && m.y < v.y1 - 0.3) window.__inView++; else window.__outOfView++;
             if (performance.now() - t0 < 2500) requestAnimationFrame(f); })(); return 1; })()",
    )
    .await;
    let start = b.eval("window.__game.drawnMine.x").await.as_f64().unwrap();
    kitchen_walk(&b, "ArrowRight", "false").await;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let end = b.eval("window.__game.drawnMine.x").await.as_f64().unwrap();
    assert!(end - start > 5.0, "the cook walked from x {start} to {end}");
    let seen = b.eval("[window.__inView, window.__outOfView]").await;
    assert!(seen[0].as_u64().unwrap() > 30, "{seen}");
    assert_eq!(seen[1], 0, "frames with your cook off screen: {seen}");
    // The carts' routes come with the layout (the renderer draws them).
    let (status, layout) =
        server::http(server.addr, "GET", "/api/levels/10_grand_hall", None, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(layout["carts"].as_array().map(|c| c.len()), Some(2));
    b.screenshot("game-level10").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rush_order_shows_its_bonus_and_levels_are_screenshotted() {
    if !browser::available() {
        return;
    }
    // Level 1 with three bots, mid-round.
    let dir1 = kitchen_level_dir("01_first_kitchen.toml", &|t| t);
    let mut server = server::start_levels(&dir1, &[]).await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    start_when_ready(&b).await;
    kitchen_round_on(&b).await;
    b.wait_until(
        "window.__game.view.s > 0 && window.__game.view.o.length > 0 && window.__game.view.st.some((s) => s.k === 'stove' && s.g)",
        60,
    )
    .await;
    b.screenshot("game-level01").await;
    b.close().await;
    server.stop().await;

    // Dinner Rush with its first rush moved to 3 s: a rush order's ticket says its bonus.
    let dir7 = kitchen_level_dir("07_dinner_rush.toml", &|t| {
        t.replace("rush_at_s = [40, 100]", "rush_at_s = [3, 100]")
    });
    let mut server = server::start_levels(&dir7, &[]).await;
    let b = Browser::open(&base(&server), 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    start_when_ready(&b).await;
    kitchen_round_on(&b).await;
    b.wait_until(
        "(window.__uc.tickets || []).some((t) => t.endsWith(' rush'))",
        40,
    )
    .await;
    b.screenshot("game-level07").await;
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir1);
    let _ = std::fs::remove_dir_all(&dir7);
}

// ---------------------------------------------------------------------------------------
// The screens around the kitchen: the lobby's briefing, the level picked for the host,
// progression on the results, the quests, focus across lobby updates, and axe-core on
// every screen. (Helpers are local to this block.)

/// The axe-core check, for the other screens' browser tests.
pub(crate) use around_the_kitchen::{assert_axe, axe_source, chop_a_tomato, two_levels_in};

mod around_the_kitchen {
    use super::{Browser, base, browser, kitchen_press, kitchen_walk, server};
    use serde_json::Value;
    use std::path::PathBuf;

    /// axe-core's `axe.min.js`, installed from the npm registry into `target/axe` on first
    /// use. `None` (skip) when npm cannot get it, unless `CI` is set: then that fails.
    pub(crate) fn axe_source() -> Option<String> {
        static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/axe");
        let file = root.join("node_modules/axe-core/axe.min.js");
        if !file.exists() {
            let status = std::process::Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&root)
                .arg("axe-core@4")
                .status();
            eprintln!("npm install axe-core@4: {status:?}");
        }
        match std::fs::read_to_string(&file) {
            Ok(src) => Some(src),
            Err(e) if std::env::var_os("CI").is_some() => {
                panic!(
                    "CI is set but axe-core could not be installed ({}): {e}",
                    file.display()
                )
            }
            Err(e) => {
                eprintln!("skipped axe: no {} ({e})", file.display());
                None
            }
        }
    }

    /// The serious and critical axe violations of the page as it is now, one line each.
    async fn axe(b: &Browser, src: &str) -> Vec<String> {
        b.client
            .execute(
                "if (!window.axe) { const s = document.createElement('script'); s.textContent = arguments[0]; document.head.appendChild(s); } return !!window.axe;",
                vec![Value::String(src.to_string())],
            )
            .await
            .expect("axe-core injects");
        let out = b
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations
                   .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                   .map((v) => `${v.impact} ${v.id}: ${v.help} [${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')}]`)),
                   (e) => done([`axe failed: ${e}`]));",
                vec![],
            )
            .await
            .expect("axe runs");
        out.as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) async fn assert_axe(b: &Browser, src: &Option<String>, screen: &str) {
        let Some(src) = src else { return };
        let found = axe(b, src).await;
        eprintln!("axe on {screen}: {} serious or critical", found.len());
        assert!(found.is_empty(), "axe on the {screen} screen: {found:#?}");
    }

    /// A two-level campaign: the solo fixture, and a second kitchen its win unlocks.
    pub(crate) fn two_levels() -> PathBuf {
        two_levels_in("e2e")
    }

    /// `two_levels` in a folder of its own for each `tag` (tests running at once each
    /// remove their own).
    pub(crate) fn two_levels_in(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("uc-two-levels-{tag}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let first = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/solo/01_open_kitchen.toml"),
        )
        .expect("the fixture level")
        // Two soups to win, so the person's chop lands before the bots' serves; a shelf left
        // of spawn 1 and a board below it, so Ann chops without walking among the bots.
        .replace("target_score = 30", "target_score = 60")
        .replace("#.1.2.3.4.#\n#.........#", "#t1.2.3.4.#\n#.C.......#");
        let second = first
            .replace("id = \"01_open_kitchen\"", "id = \"02_second_kitchen\"")
            .replace("order = 1", "order = 2")
            .replace("name = \"Open Kitchen\"", "name = \"Second Kitchen\"");
        std::fs::write(dir.join("01_open_kitchen.toml"), first).expect("write level 1");
        std::fs::write(dir.join("02_second_kitchen.toml"), second).expect("write level 2");
        dir
    }

    /// From spawn (2,3) of the test copy of the open kitchen: a tomato from the shelf on its
    /// left (1,3), set down on the board below (2,4) and chopped there. Bots leave a board a
    /// person faces alone; each step is pressed again until it shows.
    pub(crate) async fn chop_a_tomato(b: &Browser) {
        let held = "((window.__game.view.p.find((p) => p.i === window.__game.me) || {}).h || '')";
        let board = "((window.__game.view.st.find((s) => s.x === 2 && s.y === 4) || {}).g || '')";
        b.wait_until(
            "window.__game && window.__game.countdown === null && window.__game.drawnMine",
            10,
        )
        .await;
        for _ in 0..10 {
            kitchen_walk(
                b,
                "ArrowLeft",
                "window.__uc.highlight && window.__uc.highlight.x === 1",
            )
            .await;
            kitchen_press(b).await;
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            if b.eval(held).await == "tomato_raw" {
                break;
            }
        }
        b.wait_until(&format!("{held} === 'tomato_raw'"), 5).await;
        for _ in 0..10 {
            kitchen_walk(
                b,
                "ArrowDown",
                "window.__uc.highlight && window.__uc.highlight.y === 4",
            )
            .await;
            if b.eval(held).await == "tomato_raw" {
                kitchen_press(b).await; // set it down
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                continue;
            }
            if b.eval(board).await == "tomato_raw" {
                kitchen_press(b).await; // chop it
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                continue;
            }
            return;
        }
        panic!(
            "Ann's tomato was not chopped: she holds {}, the board {}",
            b.eval(held).await,
            b.eval(board).await
        );
    }

    fn enabled(label: &str) -> String {
        format!(
            "(() => {{ const s = document.evaluate(\"//button[normalize-space()='{label}']\", document, null, 9, null).singleNodeValue; return s && !s.disabled; }})()"
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_lobby_briefs_the_level_and_a_win_shows_progress() {
        if !browser::available() {
            return;
        }
        let axe_src = axe_source();
        let dir = two_levels();
        let mut server = server::start_levels(&dir, &[]).await;
        let b = Browser::open(&base(&server), 1280, 900).await;
        b.goto("/").await;
        b.wait_screen("home", 10).await;
        assert_axe(&b, &axe_src, "home").await;
        b.fill("Name", "Ann").await;
        // Quick play with no room open: host of an empty room, told so, offered bots.
        b.click("Quick play").await;
        b.wait_screen("lobby", 10).await;
        b.wait_until("document.getElementById('briefing-title') && document.getElementById('briefing-title').textContent.includes('Open Kitchen')", 10)
            .await;
        // Given nothing picked, the host's highest unlocked level is picked.
        assert_eq!(
            b.eval("document.getElementById('level').value").await,
            "01_open_kitchen"
        );
        assert!(b.text("#waiting").await.contains("Waiting for others"));
        // The briefing: name, time, target, stars as clock times, recipes with their steps.
        assert_eq!(b.text("#briefing-title").await, "Level 1: Open Kitchen");
        assert_eq!(b.text("#brief-time").await, "1:00");
        assert_eq!(b.text("#brief-target").await, "60 points");
        let stars = b.text("#brief-stars").await;
        assert!(
            stars.contains("★★★ by 0:30 left") && stars.contains("★★☆ by 0:15 left"),
            "{stars}"
        );
        let recipes = b.text("#brief-recipes").await;
        assert!(
            recipes.contains("Tomato soup") && recipes.contains("put all 3 in one pot"),
            "{recipes}"
        );
        assert!(b.text("#brief-hazards").await.contains("Fire:"));
        assert_axe(&b, &axe_src, "lobby").await;
        b.screenshot("lobby-briefing").await;

        b.click("Add bots (3)").await;
        b.wait_until("[...document.querySelectorAll('li.seat .tag')].filter(t => t.textContent === 'bot').length === 3", 10)
            .await;
        b.wait_until(&enabled("Start"), 10).await;
        b.click("Start").await;
        b.wait_screen("game", 10).await;
        b.wait_until(
            "/Score/.test(document.getElementById('score').textContent)",
            10,
        )
        .await;
        assert_axe(&b, &axe_src, "game").await;
        // A round is credited to the seats that worked in it (GAME.md): Ann chops a tomato.
        chop_a_tomato(&b).await;
        b.wait_screen("results", 60).await;
        assert_eq!(b.text("#verdict").await, "Round won");
        // Focus moved to the results' first control, not dropped to the page.
        assert_eq!(
            b.eval("document.activeElement.textContent").await,
            "Next level"
        );
        assert_eq!(
            b.text("#unlocked").await,
            "Level 2 unlocked: Second Kitchen"
        );
        assert!(b.text("#round-time").await.contains("of 1:00"));
        assert_eq!(
            b.eval("document.querySelectorAll('#thresholds tbody tr').length")
                .await,
            3
        );
        assert_axe(&b, &axe_src, "results").await;
        b.screenshot("results-progress").await;

        // Back in the lobby the picker shows the best stars won on level 1.
        b.click("Lobby").await;
        b.wait_screen("lobby", 10).await;
        b.wait_until("document.querySelector('#level option[value=\"01_open_kitchen\"]') && document.querySelector('#level option[value=\"01_open_kitchen\"]').textContent.includes('best ★')", 10)
            .await;

        // The quests panel: titles, what counts, progress after that round.
        b.click("Leave").await;
        b.wait_screen("home", 10).await;
        b.click("Quests").await;
        b.wait_screen("quests", 10).await;
        b.wait_until("document.querySelectorAll('li.quest').length > 0", 10)
            .await;
        let clean = b.text("li.quest[data-quest=\"clean_run\"]").await;
        assert!(
            clean.contains("Serve 5 dishes in a row without a miss")
                && clean.contains("a miss starts it over"),
            "{clean}"
        );
        let progress = b
            .eval("Number(document.querySelector(\"li.quest[data-quest='clean_run'] progress\").value)")
            .await;
        assert!(
            progress.as_f64().unwrap_or(0.0) > 0.0,
            "clean_run moved: {progress}"
        );
        assert_axe(&b, &axe_src, "quests").await;
        b.screenshot("quests").await;

        // The replay list names the level and dates the round today, not 1970.
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
            row.contains("1. Open Kitchen") && !row.contains("1970"),
            "{row}"
        );
        assert_axe(&b, &axe_src, "replays").await;
        b.screenshot("replays-names").await;
        b.click("Watch replay").await;
        b.wait_screen("viewer", 10).await;
        b.wait_until("document.getElementById('score').textContent !== ''", 10)
            .await;
        b.select("#speed", "8").await;
        // At its end the viewer says how the round ended.
        b.wait_until("!document.getElementById('replay-result').hidden", 30)
            .await;
        let said = b.text("#replay-result").await;
        assert!(
            said.starts_with("Round won · score") && said.contains("★"),
            "{said}"
        );

        let errors = b.page_errors().await;
        assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
        b.close().await;
        server.stop().await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn focus_stays_on_ready_when_another_cook_readies() {
        if !browser::available() {
            return;
        }
        let mut server = server::start_solo(&[]).await;
        let a = Browser::open(&base(&server), 1024, 800).await;
        a.goto("/").await;
        a.wait_screen("home", 10).await;
        a.fill("Name", "Ann").await;
        a.click("Create room").await;
        a.wait_screen("lobby", 10).await;
        let link = a.eval("document.getElementById('link').value").await;
        let b = Browser::open(&base(&server), 1024, 800).await;
        b.client.goto(link.as_str().unwrap()).await.unwrap();
        b.wait_screen("join", 10).await;
        b.fill("Name", "Bob").await;
        b.click("Join").await;
        b.wait_screen("lobby", 10).await;
        a.wait_until(
            "document.querySelectorAll('li.seat:not(.empty)').length === 2",
            10,
        )
        .await;
        // The reason a disabled Start gives comes from the lobby frame.
        a.wait_until("document.getElementById('start-why') && document.getElementById('start-why').textContent === 'Start waits for another player to press Ready.'", 10)
            .await;
        // Ann is on Ready (by keyboard) when Bob readies: the lobby is drawn anew, and her
        // focus is still on Ready.
        a.eval("(document.getElementById('ready').focus(), 1)")
            .await;
        b.click("Ready").await;
        a.wait_until(
            "[...document.querySelectorAll('.tag.ok')].some((t) => t.textContent === 'ready')",
            10,
        )
        .await;
        assert_eq!(a.eval("document.activeElement.id").await, "ready");
        assert_eq!(a.text("#start-why").await, "", "Start is enabled now");
        for x in [&a, &b] {
            let errors = x.page_errors().await;
            assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
        }
        a.close().await;
        b.close().await;
        server.stop().await;
    }
}
