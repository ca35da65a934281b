//! The tests that need a real PostgreSQL, as one test binary: run them with
//! `cargo test --test cluster`. They share one throwaway cluster started by the harness in
//! `tests/postgres/mod.rs` (each test in a database of its own); a test that stops
//! PostgreSQL starts a cluster of its own. Without PostgreSQL's binaries they are skipped,
//! unless `CI` is set (then they fail: `.ci/run` installs `postgresql`).

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../postgres/mod.rs"]
mod postgres;
#[path = "../server/mod.rs"]
mod server;

mod adopt;
mod browser_adopt;
mod browser_join;
mod faults;
mod fleet;
mod history_pages;
mod history_queries;
mod holds;
mod internal;
mod loadtest;
mod nodes;
mod replays;
mod sessions;
mod sql;
mod store;

use sqlx::postgres::{PgPool, PgPoolOptions};
use std::sync::Arc;

/// A pool of its own on `url` (each migrator below is a separate client, as separate nodes).
/// Its acquire timeout is short so that a query while PostgreSQL is stopped fails in seconds
/// (sqlx's default keeps reconnecting for 30 s).
async fn pool(url: &str) -> PgPool {
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(std::time::Duration::from_secs(3))
        .connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"))
}

/// `migrations/postgres`, the store's migrations for PostgreSQL.
fn migrator() -> sqlx::migrate::Migrator {
    sqlx::migrate!("./migrations/postgres")
}

/// Issue 25's test 8: nodes starting together on an empty database migrate it once. sqlx's
/// migrator takes an advisory lock; without it two of the three would fail on tables that
/// the third created.
#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn three_migrators_on_an_empty_database_migrate_once() {
    if !postgres::available() {
        return;
    }
    let url = postgres::database();
    let mut pools = Vec::new();
    for _ in 0..3 {
        pools.push(pool(&url).await);
    }
    // All three connected before any starts, so they race for the empty database.
    let gate = Arc::new(tokio::sync::Barrier::new(3));
    let runs: Vec<_> = pools
        .iter()
        .cloned()
        .map(|p| {
            let gate = gate.clone();
            tokio::spawn(async move {
                gate.wait().await;
                migrator().run(&p).await
            })
        })
        .collect();
    for (i, run) in runs.into_iter().enumerate() {
        let result = run.await.expect("the migrator task ends");
        assert!(result.is_ok(), "migrator {i} failed: {result:?}");
    }

    let applied: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&pools[0])
            .await
            .expect("read _sqlx_migrations");
    let expected: Vec<(i64, bool)> = migrator().iter().map(|m| (m.version, true)).collect();
    assert!(expected.len() >= 3, "migrations/postgres holds 0001 and on");
    assert_eq!(applied, expected, "one successful row per migration");

    let quests: Vec<(String,)> = sqlx::query_as("SELECT id FROM quests ORDER BY id")
        .fetch_all(&pools[1])
        .await
        .expect("read quests");
    let quests: Vec<String> = quests.into_iter().map(|(id,)| id).collect();
    assert_eq!(
        quests,
        [
            "campaign_hero",
            "clean_run",
            "dish_duty",
            "firefighter",
            "good_company",
            "on_a_roll",
            "salad_days",
            "soup_chef",
            "three_stars",
        ],
        "the nine seeded quests, once each"
    );
}

/// The views answer as on SQLite: `leaderboard` lists finished rounds only, wins first, then
/// score, then fewer ticks; `player_best` folds a player's finished rounds per level, counting
/// stars of won rounds only. Their columns decode as the Rust side reads them (i64).
#[tokio::test]
async fn the_leaderboard_and_player_best_views_answer() {
    if !postgres::available() {
        return;
    }
    let db = pool(&postgres::database()).await;
    migrator().run(&db).await.expect("migrate");
    // (round key, result, score, stars, ticks, started_at, the player's name in it)
    type Round = (
        &'static str,
        Option<&'static str>,
        i64,
        i64,
        i64,
        i64,
        &'static str,
    );
    let rounds: [Round; 4] = [
        ("AAAA-1-100", Some("won"), 50, 2, 100, 100, "Ann"),
        ("AAAA-2-200", Some("lost"), 80, 3, 120, 200, "Annie"),
        ("AAAA-3-300", Some("won"), 50, 1, 90, 300, "Ann"),
        ("AAAA-4-400", None, 99, 0, 10, 400, "Ann"), // still running: in neither view
    ];
    for (key, result, score, stars, ticks, started, name) in rounds {
        sqlx::query(
            "INSERT INTO rounds (round_key, room_code, round_no, level_id, seed, replay_path,
                                 started_at, result, score, target, stars, ticks, tick_hz)
             VALUES ($1, 'AAAA', 1, '01_first_kitchen', '7', 'r.ucr', $2, $3, $4, 40, $5, $6, 20)",
        )
        .bind(key)
        .bind(started)
        .bind(result)
        .bind(score)
        .bind(stars)
        .bind(ticks)
        .execute(&db)
        .await
        .expect("insert a round");
        sqlx::query(
            "INSERT INTO round_players (round_key, seat, session_id, name, color, score)
             VALUES ($1, 0, 's1', $2, 'red', $3)",
        )
        .bind(key)
        .bind(name)
        .bind(score)
        .execute(&db)
        .await
        .expect("insert a player");
    }

    let board: Vec<(String, i64, i64, String, i64)> = sqlx::query_as(
        "SELECT round_key, score, stars, result, ticks FROM leaderboard
         WHERE level_id = '01_first_kitchen'",
    )
    .fetch_all(&db)
    .await
    .expect("select from leaderboard");
    let keys: Vec<&str> = board.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        keys,
        ["AAAA-3-300", "AAAA-1-100", "AAAA-2-200"],
        "wins first, equal scores by fewer ticks, the running round left out: {board:?}"
    );

    let best: Vec<(String, String, String, i64, i64, i64)> = sqlx::query_as(
        "SELECT session_id, name, level_id, best_score, best_stars, rounds FROM player_best",
    )
    .fetch_all(&db)
    .await
    .expect("select from player_best");
    assert_eq!(
        best,
        [(
            "s1".to_string(),
            "Annie".to_string(), // the name on the best-scoring round
            "01_first_kitchen".to_string(),
            80, // the lost round's score counts
            2,  // its 3 stars do not: only won rounds' stars
            3,  // finished rounds only
        )]
    );
}

/// The harness's stop/start (for issue 25's "PostgreSQL stopped mid-round"): while stopped a
/// query fails; after start the same URL answers again with the data written before.
#[tokio::test]
async fn a_stopped_cluster_refuses_queries_and_comes_back_with_its_data() {
    if !postgres::available() {
        return;
    }
    let cluster = postgres::Cluster::start_new();
    let url = cluster.database();
    let db = pool(&url).await;
    sqlx::query("CREATE TABLE kept (n BIGINT NOT NULL)")
        .execute(&db)
        .await
        .expect("create a table");
    sqlx::query("INSERT INTO kept VALUES (7)")
        .execute(&db)
        .await
        .expect("insert a row");

    cluster.stop();
    let while_stopped = sqlx::query_scalar::<_, i64>("SELECT n FROM kept")
        .fetch_one(&db)
        .await;
    assert!(
        while_stopped.is_err(),
        "a query answered while PostgreSQL was stopped: {while_stopped:?}"
    );
    let connect = PgPoolOptions::new()
        .acquire_timeout(std::time::Duration::from_secs(2))
        .connect(&url)
        .await;
    assert!(connect.is_err(), "a new connection opened while stopped");

    cluster.start();
    let n: i64 = sqlx::query_scalar("SELECT n FROM kept")
        .fetch_one(&db)
        .await
        .expect("the pool reconnects after start and the row is there");
    assert_eq!(n, 7);
}

/// A dropped cluster leaves no server and no folder behind (the shared one does the same
/// when the process exits: its watcher sees the pipe close).
#[tokio::test]
async fn a_dropped_cluster_stops_its_server_and_removes_its_folder() {
    if !postgres::available() {
        return;
    }
    let cluster = postgres::Cluster::start_new();
    let dir = cluster.dir().to_path_buf();
    let pidfile = std::fs::read_to_string(dir.join("data/postmaster.pid"))
        .expect("a running server has its postmaster.pid");
    let pid = pidfile.lines().next().expect("the pid line").to_string();
    assert!(
        std::path::Path::new("/proc").join(&pid).exists(),
        "postmaster {pid} runs"
    );
    drop(cluster);
    assert!(
        !std::path::Path::new("/proc").join(&pid).exists(),
        "postmaster {pid} still runs after the cluster was dropped"
    );
    assert!(!dir.exists(), "{} is left behind", dir.display());
}
