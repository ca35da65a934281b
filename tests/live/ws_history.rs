//! The history of live rounds: what a played round leaves in SQLite, quests told to their
//! player alone, progress that survives a restart, and a slow or failing database that never
//! stalls a tick.

use crate::kitchen;
use crate::server;

use serde_json::json;
use server::{Client, Got, play, two_player_round};
use sqlx::Row;
use std::time::{Duration, Instant};

async fn stats(server: &server::TestServer) -> serde_json::Value {
    server::http(server.addr, "GET", "/api/stats", None, &[])
        .await
        .1
}

/// Every event a replay's round produced that the history keeps (all but denied presses).
fn events_in(bytes: &[u8]) -> usize {
    let records = undercooked::log::read_replay(bytes).unwrap().records;
    let undercooked::log::Record::Started(h) = &records[0] else {
        panic!()
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let mut n = 0;
    let mut ev = Vec::new();
    for r in &records[1..] {
        if let Ok(undercooked::log::Applied::Stepped { .. }) = fold.apply(r, &mut ev) {
            n += ev
                .drain(..)
                .filter(|e| undercooked::store::rows::in_history(e.kind))
                .count();
        }
    }
    n
}

async fn wait_for(
    server: &server::TestServer,
    what: &str,
    mut ok: impl FnMut(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let s = stats(server).await;
        if ok(&s) {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{what}: {s}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_round_is_in_the_history_with_quests_and_the_unlock_survives_a_restart() {
    let mut server = server::start(&[]).await;
    let (code, host, guest, a, b) = two_player_round(&server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let ta = tokio::spawn(play(a, 0, level.clone()));
    let tb = tokio::spawn(play(b, 1, level));
    let mut a = ta.await.unwrap();
    let b = tb.await.unwrap();
    server.shared.chain().unwrap().flushed().await;
    let s = wait_for(&server, "the result reaches the database", |s| {
        s["outbox_pending"] == 0
    })
    .await;
    assert_eq!(s["batches_dropped"], 0);
    let store = server.shared.store().unwrap();
    let row = sqlx::query("SELECT result, score, level_id FROM rounds WHERE room_code = ?")
        .bind(&code)
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(row.get::<String, _>("result"), "won");
    let served: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE kind = 'served'")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert!(served >= 1);
    let tokens_in_db: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE token_hash = ? OR name = ?")
            .bind(&host)
            .bind(&host)
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(tokens_in_db, 0, "the database never holds a raw token");
    // a three-star win completes `three_stars` for both players, each told alone
    for c in [&mut a] {
        while let Some(Got::Frame(_)) = c.next(0.5).await {}
    }
    let quests_to = |c: &Client| -> Vec<String> {
        c.log
            .iter()
            .filter(|v| v["type"] == "ev")
            .flat_map(|v| v["events"].as_array().unwrap().clone())
            .filter(|e| e["kind"] == "quest")
            .map(|e| e["payload"]["quest"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        quests_to(&a).contains(&"three_stars".to_string()),
        "{:?}",
        quests_to(&a)
    );
    let auth = format!("Bearer {host}");
    let (_, session) = server::http(
        server.addr,
        "GET",
        "/api/session",
        None,
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(session["unlocked"], 2);
    let three = session["quests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "three_stars")
        .unwrap()
        .clone();
    assert_eq!(three["completed"], true, "{session}");
    drop(b);

    // Restart on the same data directory: the unlock is still there.
    server.stop().await;
    let data = server.data.clone();
    let mut again = server::start_in(&data, &[]).await;
    let (_, session) = server::http(
        again.addr,
        "GET",
        "/api/session",
        None,
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(
        (session["name"].as_str(), session["unlocked"].as_u64()),
        (Some("Ann"), Some(2)),
        "{session}"
    );
    let (code2, _) = {
        let (status, v) = server::http(
            again.addr,
            "POST",
            "/api/rooms",
            Some(&json!({"token": host}).to_string()),
            &[],
        )
        .await;
        assert_eq!(status, 201);
        (v["room_code"].as_str().unwrap().to_string(), ())
    };
    let mut c = Client::hello(again.addr, &code2, &host).await;
    c.send(json!({"type": "set_level", "level": "02_slow_soup"}))
        .await;
    loop {
        match c.next(5.0).await {
            Some(Got::Frame(v)) if v["type"] == "lobby" && v["level"] == "02_slow_soup" => break,
            Some(Got::Frame(v)) if v["type"] == "err" => {
                panic!("level 2 stays unlocked across the restart: {v}")
            }
            Some(Got::Frame(_)) => {}
            _ => panic!("no answer to set_level"),
        }
    }
    let _ = guest;
    again.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_database_drops_exactly_the_batches_past_20_keeps_order_and_never_stalls_a_tick() {
    let mut server = server::start_storm(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let addr = server.addr;
    let (status, _) = server::http(
        addr,
        "POST",
        "/api/test/db_fault",
        Some(r#"{"slow_ms": 60000}"#),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    let (code, _, _, mut a, mut b) = two_player_round(&server, "01_event_storm").await;
    // Orders open and are missed all round long; the players wave on top of it.
    let mut last_emote = Instant::now();
    let mut snap_times: Vec<(i64, Instant)> = Vec::new();
    loop {
        match a.next(5.0).await {
            Some(Got::Frame(v)) if v["type"] == "snap" => {
                snap_times.push((v["raw"]["t"].as_i64().unwrap(), Instant::now()))
            }
            Some(Got::Frame(v)) if v["type"] == "round" => break,
            Some(Got::Frame(_)) => {}
            other => panic!("the round stopped: {:?}", other.is_some()),
        }
        if last_emote.elapsed() >= Duration::from_millis(520) {
            last_emote = Instant::now();
            a.send(json!({"type": "emote", "id": "wave"})).await;
            b.send(json!({"type": "emote", "id": "cheer"})).await;
        }
    }
    // The ticks were never late: a frame for every tick, none held back by the database.
    assert!(
        snap_times.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "a snap for every tick"
    );
    let worst_gap = snap_times
        .windows(2)
        .map(|w| w[1].1.duration_since(w[0].1))
        .max()
        .unwrap();
    assert!(
        worst_gap < Duration::from_millis(500),
        "a tick waited {worst_gap:?}"
    );
    let during = stats(&server).await;
    assert!(
        during["batches_dropped"].as_u64().unwrap() > 0,
        "batches past 20 were dropped: {during}"
    );
    assert_eq!(
        during["batches_written"], 0,
        "nothing was written while the database hung"
    );
    // Let the database recover and everything drain.
    server::http(
        addr,
        "POST",
        "/api/test/db_fault",
        Some(r#"{"slow_ms": 0}"#),
        &[],
    )
    .await;
    server.shared.chain().unwrap().flushed().await;
    let s = wait_for(&server, "the outbox drains", |s| s["outbox_pending"] == 0).await;
    let replay = server
        .replays()
        .into_iter()
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(&code))
        .unwrap();
    let produced = events_in(&std::fs::read(&replay).unwrap()) as i64;
    let (written, dropped) = (
        s["batches_written"].as_u64().unwrap(),
        s["batches_dropped"].as_u64().unwrap(),
    );
    assert!(dropped > 0, "{s}");
    assert!(
        (20..=21 + 1).contains(&written),
        "the 20 pending (and the one in flight) were written, the rest dropped: {s}"
    );
    let store = server.shared.store().unwrap();
    // Written in order: by insertion order, ticks never go back.
    let ticks: Vec<i64> = sqlx::query_scalar("SELECT tick FROM events ORDER BY rowid")
        .fetch_all(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert!(
        ticks.windows(2).all(|w| w[0] <= w[1]),
        "events written out of order"
    );
    // The result still arrived.
    let result: Option<String> =
        sqlx::query_scalar("SELECT result FROM rounds WHERE room_code = ?")
            .bind(&code)
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(result.as_deref(), Some("lost"));
    // And reindex repairs what was dropped.
    let before: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    let last_written: i64 = sqlx::query_scalar("SELECT MAX(tick) FROM events")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    let report = kitchen::reindex(store, &server.data.join("replays")).await;
    let after: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(after - before, report.events_new as i64);
    assert!(report.events_new > 0);
    assert_eq!(
        after, produced,
        "every event of the round, written or repaired"
    );
    // What was written is the round's first seconds whole: the batches dropped were the
    // later ones, so reindex added nothing up to the last tick written.
    let up_to: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE tick <= ?")
        .bind(last_written)
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(
        up_to, before,
        "no batch missing before the last one written"
    );
    server.stop().await;
}

async fn fault(server: &server::TestServer, body: &str) {
    let (status, answer) =
        server::http(server.addr, "POST", "/api/test/db_fault", Some(body), &[]).await;
    assert_eq!(status, 200, "{answer}");
}

/// A round's result and event rows in the database, and the events its replay file holds.
async fn round_in_db(server: &server::TestServer, code: &str) -> (Option<String>, i64, usize) {
    let store = server.shared.store().unwrap();
    let (key, result, path): (String, Option<String>, String) =
        sqlx::query_as("SELECT round_key, result, replay_path FROM rounds WHERE room_code = ?")
            .bind(code)
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    let events: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE round_key = ?")
        .bind(&key)
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    let file = std::path::Path::new(&path);
    let file = if file.is_absolute() {
        file.to_path_buf()
    } else {
        server.data.join(file)
    };
    (result, events, events_in(&std::fs::read(file).unwrap()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_storage_holds_the_history_and_every_round_lands_once_it_is_writable() {
    // Given a server whose storage is about to refuse writes, and a round played before.
    let mut server = server::start(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let before = server::played_round(&server).await;
    wait_for(&server, "the first round is written", |s| {
        s["outbox_pending"] == 0
    })
    .await;
    // When the storage is read-only (SQLite's own SQLITE_READONLY on every write) while a
    // second round plays ...
    fault(&server, r#"{"read_only": true}"#).await;
    let (during, _, _, a, b) = two_player_round(&server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let (ta, tb) = (
        tokio::spawn(play(a, 0, level.clone())),
        tokio::spawn(play(b, 1, level)),
    );
    let s = wait_for(&server, "the fault is seen", |s| {
        s["storage_degraded"] == true
    })
    .await;
    assert!(s["write_errors"].as_u64().unwrap() > 0, "{s}");
    let (_, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
    assert_eq!(health["storage"], "degraded", "{health}");
    let (_, metrics) = server::http(server.addr, "GET", "/metrics", None, &[]).await;
    assert!(
        metrics
            .as_str()
            .unwrap()
            .contains("undercooked_storage_degraded 1"),
        "{metrics}"
    );
    // ... nothing is counted written that is not ...
    let written = s["events_written"].clone();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let s = stats(&server).await;
    assert_eq!(
        s["events_written"], written,
        "nothing is counted while nothing is durable: {s}"
    );
    // ... and then the storage takes writes again.
    fault(&server, r#"{"read_only": false}"#).await;
    ta.await.unwrap();
    tb.await.unwrap();
    let after = server::played_round(&server).await;
    let s = wait_for(&server, "everything is written", |s| {
        s["outbox_pending"] == 0 && s["storage_degraded"] == false
    })
    .await;
    server.shared.chain().unwrap().flushed().await;
    // Then every round — before, during and after — is in the database, whole: its result,
    // and exactly the events its replay file holds.
    assert_eq!(s["batches_dropped"], 0, "{s}");
    for code in [&before, &during, &after] {
        let (result, in_db, in_file) = round_in_db(&server, code).await;
        assert_eq!(result.as_deref(), Some("won"), "round {code}");
        assert_eq!(
            in_db as usize, in_file,
            "round {code}: events in the database vs its replay"
        );
    }
    let (_, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
    assert_eq!(health["storage"], "ok", "{health}");
    // And reindexing the replay files finds nothing missing.
    let store = server.shared.store().unwrap();
    let report = kitchen::reindex(store, &server.data.join("replays")).await;
    assert_eq!(report.events_new, 0, "{report:?}");
    assert_eq!(report.rounds, 3, "{report:?}");
    server.stop().await;
}

/// A connection of its own to the database file, as another process would open it.
async fn another_process(db: &std::path::Path) -> sqlx::SqliteConnection {
    use sqlx::ConnectOptions;
    sqlx::sqlite::SqliteConnectOptions::new()
        .filename(db)
        .connect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_locked_by_another_process_delays_the_history_and_loses_none_of_it() {
    // Given a round playing while another connection holds the database's write lock.
    let mut server = server::start(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let db = server.data.join("undercooked.db");
    let mut locker = another_process(&db).await;
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut locker)
        .await
        .unwrap();
    let (code, _, _, a, b) = two_player_round(&server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let (ta, tb) = (
        tokio::spawn(play(a, 0, level.clone())),
        tokio::spawn(play(b, 1, level)),
    );
    // When the lock has outlasted SQLite's 5 s busy wait, the storage is reported degraded.
    wait_for(&server, "the lock is seen", |s| {
        s["storage_degraded"] == true
    })
    .await;
    // And when the other process lets go, everything lands by itself.
    sqlx::query("COMMIT").execute(&mut locker).await.unwrap();
    drop(locker);
    ta.await.unwrap();
    tb.await.unwrap();
    let s = wait_for(&server, "everything is written", |s| {
        s["outbox_pending"] == 0 && s["storage_degraded"] == false
    })
    .await;
    assert_eq!(s["batches_dropped"], 0, "{s}");
    let (result, in_db, in_file) = round_in_db(&server, &code).await;
    assert_eq!(result.as_deref(), Some("won"));
    assert_eq!(in_db as usize, in_file);
    // Nothing keeps the write lock: another process can write at once.
    let mut other = another_process(&db).await;
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_writes_are_counted_and_the_outbox_delivers_the_result_when_the_database_recovers()
{
    let mut server = server::start(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let addr = server.addr;
    fault(&server, r#"{"fail": true}"#).await;
    let code = server::played_round(&server).await;
    let s = wait_for(&server, "failed writes are counted", |s| {
        s["write_errors"].as_u64().unwrap() > 0
    })
    .await;
    assert_eq!(s["batches_written"], 0, "nothing is counted written: {s}");
    assert_eq!(
        s["outbox_pending"], 1,
        "the result waits in the outbox: {s}"
    );
    assert_eq!(
        std::fs::read_dir(server.data.join("outbox"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().is_file())
            .count(),
        1
    );
    // The server keeps serving meanwhile.
    assert_eq!(
        server::http(addr, "GET", "/healthz", None, &[]).await.0,
        200
    );
    fault(&server, r#"{"fail": false}"#).await;
    let s = wait_for(&server, "the outbox delivers", |s| s["outbox_pending"] == 0).await;
    let (result, in_db, in_file) = round_in_db(&server, &code).await;
    assert_eq!(result.as_deref(), Some("won"));
    // The round's batches were held, not dropped: a short round fits the 20-batch bound.
    assert_eq!(s["batches_dropped"], 0, "{s}");
    assert_eq!(in_db as usize, in_file);
    assert_eq!(
        std::fs::read_dir(server.data.join("outbox"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().is_file())
            .count(),
        0
    );
    server.stop().await;
}
