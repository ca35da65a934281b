//! The history from replays alone: `reindex` builds a database from bot-played rounds, every
//! example query of docs/HISTORY.md runs against it, running it twice changes nothing, and a
//! newer database is refused.

use crate::kitchen;

use sqlx::Row;
use undercooked::store::Store;

async fn bot_database(name: &str) -> (Store, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("undercooked-hist-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("replays")).unwrap();
    for (i, level) in kitchen::campaign().into_iter().take(4).enumerate() {
        // Seed 8 gives three-star rounds (levels 2 and 3), which the quest test below needs.
        for seed in [1, 8] {
            let sim = undercooked::simulate::simulate(&level, seed, 4, 20).unwrap();
            std::fs::write(
                dir.join("replays")
                    .join(format!("LOCAL-{i}{seed}-{seed}.ucr")),
                sim.bytes,
            )
            .unwrap();
        }
    }
    let store = Store::open(&format!(
        "sqlite://{}",
        dir.join("undercooked.db").display()
    ))
    .await
    .unwrap();
    (store, dir)
}

/// HISTORY.md's example queries for SQLite: its ```` ```sql ```` blocks (the ```` ```sql
/// postgres ```` blocks beside some are their PostgreSQL versions: tests/cluster runs them).
fn example_queries() -> Vec<String> {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/HISTORY.md")).unwrap();
    let mut queries = Vec::new();
    let mut open: Option<String> = None;
    for line in doc.lines() {
        match (&mut open, line.trim_end()) {
            (None, "```sql") => open = Some(String::new()),
            (Some(q), "```") => {
                queries.push(q.trim().to_string());
                open = None;
            }
            (Some(q), text) => {
                q.push_str(text);
                q.push('\n');
            }
            (None, _) => {}
        }
    }
    queries
}

#[tokio::test]
async fn every_example_query_runs_against_a_database_built_from_bot_rounds() {
    let (store, dir) = bot_database("examples").await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(
        (report.files, report.rounds, report.unreadable.len()),
        (8, 8, 0)
    );
    let queries = example_queries();
    assert!(
        queries.len() >= 10,
        "HISTORY.md has {} examples",
        queries.len()
    );
    for q in &queries {
        let rows = sqlx::query(sqlx::AssertSqlSafe(q.clone()))
            .fetch_all(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap_or_else(|e| panic!("{q}\n{e}"));
        assert!(!rows.is_empty(), "no rows from:\n{q}");
    }
}

#[tokio::test]
async fn reindex_twice_changes_nothing_and_folds_quests_once() {
    let (store, dir) = bot_database("twice").await;
    let first = kitchen::reindex(&store, &dir.join("replays")).await;
    assert!(first.events_new > 100);
    let snapshot = |store: Store| async move {
        let mut out = Vec::new();
        for q in [
            "SELECT COUNT(*) FROM events",
            "SELECT COALESCE(SUM(progress), 0) FROM quest_progress",
            "SELECT COUNT(*) FROM quest_progress WHERE completed_at IS NOT NULL",
            "SELECT COALESCE(SUM(score), 0) FROM rounds",
        ] {
            out.push(
                sqlx::query_scalar::<_, i64>(q)
                    .fetch_one(&store.sqlite().expect("a SQLite store"))
                    .await
                    .unwrap(),
            );
        }
        out
    };
    let before = snapshot(store.clone()).await;
    let second = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(second.events_new, 0);
    assert_eq!(snapshot(store.clone()).await, before);
    // four bots won three-star rounds: the quest is complete for each bot session, once
    let three: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rounds WHERE stars = 3")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert!(three > 0, "the fixture rounds hold a three-star win");
    let done: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM quest_progress WHERE quest_id = 'three_stars' AND completed_at IS NOT NULL").fetch_one(&store.sqlite().expect("a SQLite store")).await.unwrap();
    assert_eq!(done, 4);
    let row = sqlx::query("SELECT result, stars FROM rounds ORDER BY round_key LIMIT 1")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(row.get::<String, _>("result"), "won");
}

#[tokio::test]
async fn a_database_from_a_newer_build_is_refused_not_altered() {
    let dir = std::env::temp_dir().join(format!("undercooked-newer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("undercooked.db").display());
    let store = Store::open(&url).await.unwrap();
    sqlx::query("INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, execution_time) VALUES (99, 'from the future', CURRENT_TIMESTAMP, 1, x'00', 0)")
        .execute(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    store.close().await;
    let err = Store::open(&url).await.expect_err("refused");
    assert!(
        err.to_string().contains("newer undercooked") && err.to_string().contains("99"),
        "{err}"
    );
    let err = Store::open_read_only(&url)
        .await
        .expect_err("refused read-only too");
    assert!(err.to_string().contains("newer"), "{err}");
}
