//! A round outlives its server: `kill -9` (or a SIGTERM handoff) in the middle of a round
//! with two players and two bots, the server started again on the same data dir, and the
//! round goes on from its log — both players back in their seats with their tokens, the
//! round ending `won` or `lost` on its own, its one file verifying from the first record to
//! the last, one row in the history. Real processes, real signals.

use crate::server;

use serde_json::{Value, json};
use server::{Client, Stop, play_on as play};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use undercooked::log::Record;
use undercooked::verify::Verdict;

const LEVEL: &str = "01_first_kitchen";

fn serve(port: u16, data: &Path, env: &[(&str, &str)]) -> Child {
    let levels = Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_undercooked"));
    cmd.args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--levels"])
        .arg(levels)
        .arg("--data-dir")
        .arg(data)
        .env("UNDERCOOKED_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(data.with_extension(format!("{port}.log"))).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

fn level() -> undercooked::sim::Level {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    undercooked::levels::find(&dir, LEVEL).unwrap().level
}

/// A room with Ann and Bob and two bots, on the tutorial level, its round started.
async fn four_cook_round(addr: std::net::SocketAddr) -> (String, [String; 2], [Client; 2]) {
    let (code, host) = server::create_room(addr, "Ann").await;
    let (_, joined) = server::join_room(addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let auth = format!("Bearer {host}");
    for _ in 0..2 {
        let (status, v) = server::http(
            addr,
            "POST",
            &format!("/api/rooms/{code}/bots"),
            Some(""),
            &[("Authorization", &auth)],
        )
        .await;
        assert_eq!(status, 201, "{v}");
    }
    let mut a = Client::hello(addr, &code, &host).await;
    let mut b = Client::hello(addr, &code, &guest).await;
    server::start_round(&mut a, &mut [&mut b], LEVEL).await;
    (code, [host, guest], [a, b])
}

/// Plays both seats for `secs`, then stops the server with `stop`; each seat's last tick.
async fn play_then(
    clients: [Client; 2],
    secs: u64,
    server: &mut Child,
    stop: impl FnOnce(&mut Child),
) -> [(Option<u16>, u32); 2] {
    let level = level();
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(seat, mut c)| {
            let level = level.clone();
            tokio::spawn(async move {
                match play(&mut c, seat as u8, &level).await {
                    Stop::Closed(code, tick) => (code, tick),
                    Stop::Round(_) => panic!("the round ended before the fault"),
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop(server);
    let mut out = [(None, 0); 2];
    for (i, t) in tasks.into_iter().enumerate() {
        out[i] = t.await.unwrap();
    }
    out
}

/// Both players come back with their tokens and play the round to its end; the `round`
/// frames, the `resumed` notices.
async fn come_back(
    addr: std::net::SocketAddr,
    code: &str,
    tokens: &[String; 2],
) -> (Vec<Value>, Vec<Value>, Duration) {
    let began = Instant::now();
    let (status, room) = server::http(addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(status, 200, "the room is open again under its code: {room}");
    assert_eq!(room["state"], "playing");
    assert_eq!(room["resuming"], true, "{room}");
    let level = level();
    let tasks: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(seat, token)| {
            let (level, token, code) = (level.clone(), token.clone(), code.to_string());
            tokio::spawn(async move {
                let mut c = Client::connect(addr, &code).await;
                c.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
                    .await;
                let welcome = c.expect("welcome").await;
                assert_eq!(welcome["you"]["seat"], seat, "back in its own seat");
                assert_eq!(welcome["rejoined"], true);
                assert_eq!(welcome["state"], "playing");
                let resumed = c.expect("resumed").await;
                let back = began.elapsed();
                match play(&mut c, seat as u8, &level).await {
                    Stop::Round(r) => (r, resumed, back),
                    Stop::Closed(code, _) => {
                        panic!("seat {seat} closed ({code:?}) after the resume")
                    }
                }
            })
        })
        .collect();
    let (mut rounds, mut notices, mut back) = (Vec::new(), Vec::new(), Duration::ZERO);
    for t in tasks {
        let (r, n, b) = t.await.unwrap();
        rounds.push(r);
        notices.push(n);
        back = back.max(b);
    }
    (rounds, notices, back)
}

/// The round's one file: verified whole, with its `Resumed` records.
fn the_file(data: &Path) -> (PathBuf, Vec<Record>) {
    let replays: Vec<PathBuf> = std::fs::read_dir(data.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(replays.len(), 1, "one file for the round: {replays:?}");
    let bytes = std::fs::read(&replays[0]).unwrap();
    assert_eq!(
        undercooked::verify::replay_bytes(&bytes).verdict,
        Verdict::Identical,
        "the resumed round's file verifies from its first record to its last"
    );
    let records = undercooked::log::read_replay(&bytes).unwrap().records;
    let resumed = records
        .iter()
        .filter(|r| matches!(r, Record::Resumed { .. }))
        .cloned()
        .collect();
    (replays[0].clone(), resumed)
}

/// The history's rows for the room: (round key, result).
async fn rows(data: &Path, code: &str) -> Vec<(String, Option<String>)> {
    let db = format!("sqlite://{}", data.join("undercooked.db").display());
    let store = undercooked::store::Store::open(&db).await.unwrap();
    let pool = store.sqlite().expect("a SQLite store").clone();
    sqlx::query_as("SELECT round_key, result FROM rounds WHERE room_code = ?")
        .bind(code)
        .fetch_all(&pool)
        .await
        .unwrap()
}

/// Stops the server and checks what the round left: its file resumed once, one row in
/// `rounds` with the round's real result; then removes the data dir.
async fn recorded_once(mut child: Child, data: &Path, code: &str, round: &serde_json::Value) {
    let _ = child.kill();
    let _ = child.wait();
    let (_, resumed) = the_file(data);
    assert_eq!(resumed.len(), 1);
    let rows = rows(data, code).await;
    assert_eq!(rows.len(), 1, "one row in rounds: {rows:?}");
    assert_eq!(rows[0].1.as_deref(), round["result"].as_str());
    let _ = std::fs::remove_dir_all(data);
}

fn data_dir(name: &str) -> PathBuf {
    let data = std::env::temp_dir().join(format!("undercooked-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    data
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_20_s_and_a_restart_resume_the_round_with_both_players() {
    let addr = server::free_addr();
    let data = data_dir("resume-kill9");
    let mut child = serve(addr.port(), &data, &[]);
    server::wait_up(addr).await;
    let (code, tokens, clients) = four_cook_round(addr).await;
    let last = play_then(clients, 20, &mut child, |c| {
        c.kill().unwrap();
        let _ = c.wait();
    })
    .await;

    let restarted = Instant::now();
    let child = serve(addr.port(), &data, &[]);
    server::wait_up(addr).await;
    let up = restarted.elapsed();
    let (rounds, notices, back) = come_back(addr, &code, &tokens).await;
    for r in &rounds {
        assert!(
            r["result"] == "won" || r["result"] == "lost",
            "the round ends on its own: {r}"
        );
    }
    let resumed_at = notices[0]["tick"].as_u64().unwrap() as u32;
    let seen = last.iter().map(|l| l.1).max().unwrap();
    assert!(
        resumed_at <= seen + 1 && resumed_at + 21 >= seen,
        "the round resumes within the second before the kill (seen {seen}, resumed {resumed_at})"
    );
    eprintln!(
        "kill -9 at 20 s: resumed at tick {resumed_at}, the players had seen {seen} ({} ticks lost); the restarted server answered in {} ms, both players were back in their seats {} ms later",
        seen.saturating_sub(resumed_at),
        up.as_millis(),
        back.as_millis()
    );
    recorded_once(child, &data, &code, &rounds[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigterm_handoff_exits_at_once_and_the_restart_loses_no_tick() {
    let addr = server::free_addr();
    let data = data_dir("resume-handoff");
    let handoff = [("UNDERCOOKED_HANDOFF", "1")];
    let mut child = serve(addr.port(), &data, &handoff);
    server::wait_up(addr).await;
    let (code, tokens, clients) = four_cook_round(addr).await;
    let mut exit = Duration::ZERO;
    let last = play_then(clients, 20, &mut child, |c| {
        let t = Instant::now();
        let pid = c.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let status = c.wait().unwrap();
        exit = t.elapsed();
        assert!(status.success(), "a handoff exits 0: {status}");
    })
    .await;
    assert!(
        exit < Duration::from_secs(1),
        "a handoff exits in under a second: {exit:?}"
    );
    for (code, _) in &last {
        assert_eq!(
            *code,
            Some(1012),
            "the sockets close 1012 (service restart)"
        );
    }

    let child = serve(addr.port(), &data, &handoff);
    server::wait_up(addr).await;
    let (rounds, notices, _) = come_back(addr, &code, &tokens).await;
    let resumed_at = notices[0]["tick"].as_u64().unwrap() as u32;
    let seen = last.iter().map(|l| l.1).max().unwrap();
    assert!(
        resumed_at >= seen,
        "a handoff loses no tick the players saw (seen {seen}, resumed {resumed_at})"
    );
    eprintln!(
        "handoff: exit in {} ms; resumed at tick {resumed_at}, the players had seen {seen}",
        exit.as_millis()
    );
    for r in &rounds {
        assert!(r["result"] == "won" || r["result"] == "lost", "{r}");
    }
    recorded_once(child, &data, &code, &rounds[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_log_is_refused_by_name_and_its_round_is_aborted() {
    let addr = server::free_addr();
    let data = data_dir("resume-corrupt");
    let mut child = serve(addr.port(), &data, &[]);
    server::wait_up(addr).await;
    let (code, _, clients) = four_cook_round(addr).await;
    play_then(clients, 5, &mut child, |c| {
        c.kill().unwrap();
        let _ = c.wait();
    })
    .await;
    // One byte flipped inside a block of frames halfway through: a complete record whose
    // checksum fails.
    let file = std::fs::read_dir(data.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let read = undercooked::log::read_replay(&bytes).unwrap();
    let blocks: Vec<usize> = (1..read.records.len())
        .filter(|&i| matches!(read.records[i], Record::FramesSent { .. }))
        .collect();
    let i = blocks[blocks.len() / 2];
    bytes[(read.ends[i - 1] + read.ends[i]) / 2] ^= 0x55;
    std::fs::write(&file, &bytes).unwrap();

    let mut child = serve(addr.port(), &data, &[]);
    server::wait_up(addr).await;
    let (status, _) = server::http(addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(
        status, 404,
        "nothing half-resumed: the room is not reopened"
    );
    let mut result = None;
    for _ in 0..100 {
        result = rows(&data, &code).await.first().and_then(|r| r.1.clone());
        if result.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        result.as_deref(),
        Some("aborted"),
        "recorded aborted as before"
    );
    let log = std::fs::read_to_string(data.with_extension(format!("{}.log", addr.port()))).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("is not resumed"))
        .unwrap_or_else(|| panic!("the refusal is logged: {log}"));
    assert!(
        line.contains(&file.display().to_string()) && line.contains("unreadable"),
        "the refusal names the file and why: {line}"
    );
    let _ = std::fs::remove_dir_all(&data);
}

/// The same in Chromium: a player alone with three bots, the server handed over in the
/// middle of the round and started again; the page says the kitchen moved, comes back to
/// its seat by itself, and the game goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_follows_its_round_through_a_handoff_and_plays_on() {
    use crate::browser::{self, Browser};
    if !browser::available() {
        return;
    }
    let addr = server::free_addr();
    let data = data_dir("resume-browser");
    let handoff = [("UNDERCOOKED_HANDOFF", "1")];
    let mut child = serve(addr.port(), &data, &handoff);
    server::wait_up(addr).await;
    let b = Browser::open(&format!("http://{addr}"), 1280, 800).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    b.fill("Name", "Ann").await;
    b.click("Play solo").await;
    b.wait_screen("lobby", 10).await;
    b.wait_until("!document.evaluate(\"//button[normalize-space()='Start']\", document, null, 9, null).singleNodeValue.disabled", 10)
        .await;
    b.click("Start").await;
    b.wait_screen("game", 10).await;
    tokio::time::sleep(Duration::from_secs(8)).await;
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(child.wait().unwrap().success());
    let moved = b.notice_with("The kitchen moved", 10).await;
    b.screenshot("resume-moved").await;
    assert_eq!(
        b.screen().await,
        "game",
        "the page stays on the game: {moved}"
    );

    let mut child = serve(addr.port(), &data, &handoff);
    server::wait_up(addr).await;
    let back = b.notice_with("Back in the kitchen", 20).await;
    eprintln!("the page said: {back}");
    // The round plays on: the clock moves again.
    let clock = "document.getElementById('clock') && document.getElementById('clock').textContent";
    let before = b.eval(clock).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after = b.eval(clock).await;
    b.screenshot("resume-back").await;
    assert_ne!(before, after, "the clock runs again after the resume");
    assert_eq!(b.screen().await, "game");
    assert!(
        b.page_errors().await.is_empty(),
        "{:?}",
        b.page_errors().await
    );
    b.close().await;
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
}
