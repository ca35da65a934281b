//! `kill -9` in the middle of a round: the database stays sound, finished rounds are intact,
//! the interrupted replay reads and verifies up to where it stops, and `reindex` brings the
//! database in line with the replay files.

use crate::kitchen;
use crate::server;

use serde_json::json;
use server::{Client, Got};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn start(port: u16, data: &std::path::Path) -> Child {
    server::serve_child(port, "tests/fixtures/levels", data, &[], Stdio::null())
}

/// The fixtures' quick level, as the bots that play it need it.
fn quick_soup() -> undercooked::sim::Level {
    let dir = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/levels"
    ));
    undercooked::levels::find(&dir, "01_quick_soup")
        .unwrap()
        .level
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_round_leaves_a_sound_database_and_reindex_repairs_it() {
    let addr = server::free_addr();
    let port = addr.port();
    let data = std::env::temp_dir().join(format!("undercooked-kill9-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = start(port, &data);
    server::wait_up(([127, 0, 0, 1], port).into()).await;

    // Four players: a first round to the end, then a second one killed in the middle.
    let (code, host) = server::create_room(addr, "Ann").await;
    let mut tokens = vec![host];
    for name in ["Bob", "Cat", "Dan"] {
        let (_, j) = server::join_room(addr, &code, name).await;
        tokens.push(j["you"]["token"].as_str().unwrap().to_string());
    }
    let level = quick_soup();
    let mut clients = Vec::new();
    for t in &tokens {
        clients.push(Client::hello(addr, &code, t).await);
    }
    clients[0]
        .send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    for c in clients.iter_mut().skip(1) {
        c.send(json!({"type": "ready"})).await;
    }
    loop {
        if clients[0].expect("lobby").await["can_start"] == true {
            break;
        }
    }
    clients[0].send(json!({"type": "start"})).await;
    let mut tasks = Vec::new();
    for (seat, c) in clients.into_iter().enumerate() {
        tasks.push(tokio::spawn(server::play(c, seat as u8, level.clone())));
    }
    let mut clients = Vec::new();
    for t in tasks {
        clients.push(t.await.unwrap());
    }
    // The second round: retry the same level, and kill the server a few seconds in.
    clients[0].send(json!({"type": "to_lobby"})).await;
    clients[0].expect("lobby").await;
    for c in clients.iter_mut().skip(1) {
        c.send(json!({"type": "ready"})).await;
    }
    loop {
        if clients[0].expect("lobby").await["can_start"] == true {
            break;
        }
    }
    clients[0].send(json!({"type": "start"})).await;
    let mut snaps = 0;
    while snaps < 50 {
        if let Some(Got::Frame(v)) = clients[0].next(5.0).await
            && v["type"] == "snap"
        {
            snaps += 1;
        }
    }
    tokio::time::sleep(Duration::from_millis(1500)).await; // past a flush
    Command::new("kill")
        .args(["-9", &server.id().to_string()])
        .status()
        .unwrap();
    let _ = server.wait();

    // Restart and stop: the server opens the database, replays its outbox and resumes the
    // round; the stop ends it.
    let mut server = start(port, &data);
    server::wait_up(([127, 0, 0, 1], port).into()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    let _ = server.wait();

    let store = undercooked::store::Store::open(&format!(
        "sqlite://{}",
        data.join("undercooked.db").display()
    ))
    .await
    .unwrap();
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(check, "ok");
    let finished: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT round_key, result FROM rounds ORDER BY round_no")
            .fetch_all(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(
        finished[0].1.as_deref(),
        Some("won"),
        "the completed round is intact: {finished:?}"
    );

    let mut replays: Vec<_> = std::fs::read_dir(data.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    replays.sort();
    assert_eq!(replays.len(), 2);
    let interrupted = replays
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{code}-2-"))
        })
        .unwrap();
    // The restart resumed the interrupted round from its file, and the SIGTERM then ended
    // it `aborted`: one file that verifies whole, the gap marked once.
    let bytes = std::fs::read(interrupted).unwrap();
    let verdict = undercooked::verify::replay_bytes(&bytes).verdict;
    assert_eq!(verdict, undercooked::verify::Verdict::Identical);
    let records = undercooked::log::read_replay(&bytes).unwrap().records;
    let resumes = records
        .iter()
        .filter(|r| matches!(r, undercooked::log::Record::Resumed { .. }))
        .count();
    assert_eq!(resumes, 1, "the gap is marked once");
    let complete = replays
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{code}-1-"))
        })
        .unwrap();
    assert_eq!(
        undercooked::verify::replay_bytes(&std::fs::read(complete).unwrap()).verdict,
        undercooked::verify::Verdict::Identical
    );

    // reindex brings the database in line with the files: every event of both replays.
    kitchen::reindex(&store, &data.join("replays")).await;
    for path in &replays {
        let key = path.file_stem().unwrap().to_string_lossy().to_string();
        let in_db: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE round_key = ?")
            .bind(&key)
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
        let in_file = events_in(path);
        assert_eq!(in_db as usize, in_file, "{key}");
    }
    let again = kitchen::reindex(&store, &data.join("replays")).await;
    assert_eq!(again.events_new, 0);
}

/// Events a replay's readable prefix folds to that the history keeps (all but denied presses).
fn events_in(path: &std::path::Path) -> usize {
    let read = undercooked::log::read_replay(&std::fs::read(path).unwrap()).unwrap();
    let undercooked::log::Record::Started(h) = &read.records[0] else {
        panic!()
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let mut ev = Vec::new();
    for r in &read.records[1..] {
        if matches!(r, undercooked::log::Record::Ended { .. }) {
            break;
        }
        let _ = fold.apply(r, &mut ev);
    }
    ev.iter()
        .filter(|e| undercooked::store::rows::in_history(e.kind))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_an_emote_just_before_it_ends_the_round_aborted_in_its_file_and_the_database()
{
    // Given a round playing on the 40 s level (no bot ends it early: nobody plays).
    let addr = server::free_addr();
    let port = addr.port();
    let data = std::env::temp_dir().join(format!("undercooked-sigterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = start(port, &data);
    server::wait_up(([127, 0, 0, 1], port).into()).await;
    let (code, host) = server::create_room(addr, "Ann").await;
    let (_, j) = server::join_room(addr, &code, "Bob").await;
    let guest = j["you"]["token"].as_str().unwrap().to_string();
    let mut a = Client::hello(addr, &code, &host).await;
    let mut b = Client::hello(addr, &code, &guest).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    b.send(json!({"type": "ready"})).await;
    loop {
        if a.expect("lobby").await["can_start"] == true {
            break;
        }
    }
    a.send(json!({"type": "start"})).await;
    let mut snaps = 0;
    while snaps < 20 {
        if let Some(Got::Frame(v)) = a.next(5.0).await
            && v["type"] == "snap"
        {
            snaps += 1;
        }
    }
    // When an emote is sent and SIGTERM follows within a few milliseconds (most often in
    // the same tick: the emote is a record of a tick that never closes).
    a.send(json!({"type": "emote", "id": "wave"})).await;
    tokio::time::sleep(Duration::from_millis(3)).await;
    Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    let exit = server.wait().unwrap();
    assert!(exit.success(), "{exit:?}");

    // Then the replay file ends the round as aborted and verifies whole ...
    let replays: Vec<_> = std::fs::read_dir(data.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(replays.len(), 1);
    let rerun = undercooked::verify::replay_bytes(&std::fs::read(&replays[0]).unwrap());
    assert_eq!(rerun.verdict, undercooked::verify::Verdict::Identical);
    // ... and the database already holds the aborted result, before any restart.
    let store = undercooked::store::Store::open(&format!(
        "sqlite://{}",
        data.join("undercooked.db").display()
    ))
    .await
    .unwrap();
    let (result, ticks): (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT result, ticks FROM rounds WHERE room_code = ?")
            .bind(&code)
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(result.as_deref(), Some("aborted"));
    assert!(ticks.unwrap_or(0) >= 15, "the ticks it reached: {ticks:?}");
    let _ = std::fs::remove_dir_all(&data);
}

/// A `kill -9` a moment after a round's end: the replay file holds the whole round, but its
/// result may not have reached the database (nor the outbox: its write waits for an
/// `fsync`). At the next start the server folds every file whose round has no result, so
/// the result is in the history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_just_after_a_round_ends_keeps_its_result_through_the_restart() {
    let addr = server::free_addr();
    let port = addr.port();
    let data = std::env::temp_dir().join(format!("undercooked-kill9-end-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = start(port, &data);
    server::wait_up(addr).await;
    let (_, _, _, a, b) = server::two_player_round_at(addr, "01_quick_soup").await;
    let level = quick_soup();
    let first = tokio::spawn(server::play(a, 0, level.clone()));
    let second = tokio::spawn(server::play(b, 1, level));
    // The moment the file holds the round's `Ended` record, the server is killed (SIGKILL,
    // no fork in between): the file is watched every 0.2 ms, so the kill lands well within
    // 3 ms of the end, before the result's outbox file is synced.
    let after_end = {
        let replays = data.join("replays");
        tokio::task::spawn_blocking(move || {
            let mut seen = 0;
            loop {
                let file = std::fs::read_dir(&replays)
                    .ok()
                    .and_then(|mut d| d.next())
                    .and_then(|e| e.ok())
                    .map(|e| e.path());
                if let Some(bytes) = file.and_then(|f| std::fs::read(f).ok())
                    && bytes.len() != seen
                {
                    seen = bytes.len();
                    let ended = undercooked::log::read_replay(&bytes).is_ok_and(|r| {
                        matches!(
                            r.records.last(),
                            Some(undercooked::log::Record::Ended { .. })
                        )
                    });
                    if ended {
                        return std::time::Instant::now();
                    }
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        })
        .await
        .unwrap()
    };
    server.kill().unwrap();
    let killed_after = after_end.elapsed();
    let _ = server.wait();
    let in_outbox = std::fs::read_dir(data.join("outbox"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().is_file())
                .count()
        })
        .unwrap_or(0);
    eprintln!(
        "killed {} µs after the file's end; result files in the outbox: {in_outbox}",
        killed_after.as_micros()
    );
    first.abort();
    second.abort();

    let replays: Vec<_> = std::fs::read_dir(data.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(replays.len(), 1);
    let file = std::fs::read(&replays[0]).unwrap();
    assert_eq!(
        undercooked::verify::replay_bytes(&file).verdict,
        undercooked::verify::Verdict::Identical,
        "the file holds the whole round"
    );
    let key = replays[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();

    let mut server = start(port, &data);
    server::wait_up(addr).await;
    let db = format!("sqlite://{}", data.join("undercooked.db").display());
    let store = undercooked::store::Store::open(&db).await.unwrap();
    let pool = store.sqlite().expect("a SQLite store").clone();
    let mut result: Option<String> = None;
    for _ in 0..100 {
        result = sqlx::query_scalar("SELECT result FROM rounds WHERE round_key = ?")
            .bind(&key)
            .fetch_optional(&pool)
            .await
            .unwrap()
            .flatten();
        if result.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(
        result.as_deref(),
        Some("won"),
        "the round's result after the restart"
    );
}
