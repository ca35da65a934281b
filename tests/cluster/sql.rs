//! `undercooked sql --db postgres://…` stays read-only for real: a SELECT prints, while a
//! DELETE, a data-modifying CTE and `set_config` are refused and change nothing.

use crate::postgres;
use std::process::Command;

/// Runs `undercooked sql` with these arguments: (exit code, stdout, stderr).
fn sql(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .arg("sql")
        .args(args)
        .output()
        .expect("run undercooked sql");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn sql_on_postgres_reads_and_refuses_every_write() {
    if !postgres::available() {
        return;
    }
    // Given a PostgreSQL history holding one round (the fixture replay, reindexed),
    let url = postgres::database();
    let store = undercooked::store::Store::open(&url).await.expect("open");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replays");
    let report = undercooked::store::reindex::reindex(
        &store,
        &fixtures,
        undercooked::verify::refusal,
        |_, _| {},
    )
    .await
    .expect("reindex");
    assert_eq!(report.rounds, 1, "{report:?}");
    store.close().await;

    // a SELECT prints its rows, as JSON too, with BIGINT and NUMERIC sums as numbers;
    let (code, out, err) = sql(&["--db", &url, "SELECT COUNT(*) AS rounds FROM rounds"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("rounds") && out.contains("(1 row)"), "{out}");
    let (code, out, err) = sql(&[
        "--db",
        &url,
        "--json",
        "SELECT SUM(ticks) > 0 AS played, SUM(score) AS score, COUNT(*) AS n FROM rounds",
    ]);
    assert_eq!(code, 0, "{err}");
    let row: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(row["played"], true, "{out}");
    assert!(row["score"].is_i64() && row["n"] == 1, "{out}");

    // DELETE is refused by name; a DELETE inside a CTE passes the guard, and PostgreSQL's
    // read-only transaction refuses it; set_config is refused by name;
    for (query, says) in [
        ("DELETE FROM rounds", "DELETE statements are refused"),
        (
            "WITH gone AS (DELETE FROM rounds RETURNING round_key) SELECT * FROM gone",
            "read-only",
        ),
        (
            "SELECT set_config('default_transaction_read_only', 'off', false)",
            "set_config",
        ),
        (
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
            "pg_terminate_backend",
        ),
    ] {
        let (code, out, err) = sql(&["--db", &url, query]);
        assert_eq!(code, 2, "{query}: {out} {err}");
        assert!(
            err.contains("refused") && err.contains(says),
            "{query}: {err}"
        );
    }
    // and nothing changed.
    let (code, out, _) = sql(&["--db", &url, "--csv", "SELECT COUNT(*) AS n FROM rounds"]);
    assert_eq!((code, out.trim()), (0, "n\n1"));

    // A query past its timeout is stopped by PostgreSQL's statement_timeout.
    let (code, _, err) = sql(&["--db", &url, "--timeout-s", "1", "SELECT pg_sleep(5)"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1-second limit"), "{err}");
    // A password in the URL is never printed.
    let (code, _, err) = sql(&[
        "--db",
        &url.replace("postgres@", "postgres:hunter2@")
            .replace("/test_", "/missing_"),
        "SELECT 1",
    ]);
    assert_ne!(code, 0);
    assert!(!err.contains("hunter2"), "{err}");
}
