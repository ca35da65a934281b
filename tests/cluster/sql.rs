//! `undercooked sql --db postgres://…` stays read-only for real: it refuses to run as a
//! superuser (whose statements reach the server's files and programs), and as a role that
//! can only read a SELECT prints, while a DELETE, a data-modifying CTE and `set_config` are
//! refused and change nothing; a nested comment hides no `COPY … TO PROGRAM`; and a killed
//! `sql` takes its statement with it within seconds.

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

    // `sql` as the superuser `postgres` is refused, saying how to make a role that reads;
    let (code, out, err) = sql(&["--db", &url, "SELECT 1"]);
    assert_eq!(code, 2, "{out}");
    for says in [
        "refused: `sql` does not run as postgres",
        "it is a superuser",
        "CREATE ROLE undercooked_reader LOGIN NOSUPERUSER",
        "GRANT pg_read_all_data TO undercooked_reader",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public",
    ] {
        assert!(err.contains(says), "{says:?} missing from:\n{err}");
    }
    assert!(out.is_empty(), "{out}");

    // as a role that can only read (docs/HISTORY.md's), a SELECT prints its rows, as
    // JSON too, with BIGINT and NUMERIC sums as numbers;
    let superuser = url.clone();
    let url = postgres::reader(&url);
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
    // A password in the URL, in any spelling, is never printed: the refusal, the reindex
    // report and verify's verdict name the database as user@host:port/database.
    let spelled = |user_password: &str| superuser.replacen("postgres@", user_password, 1);
    for db in [
        spelled("postgres:hunter2@"),
        format!("{superuser}?password=hunter2"),
        spelled("postgres:hunter2@").replacen("postgres://", "POSTGRES://", 1),
        spelled("postgres:hunter2@").replacen("postgres://", "PostgreSQL://", 1),
        spelled("postgres:hun@ter2@"),
    ] {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/replays");
        for args in [
            vec!["sql", "--db", &db, "SELECT 1"],
            vec!["reindex", "--db", &db, fixtures],
            vec!["verify", "--db", &db, "NOPE-1-1"],
        ] {
            let out = Command::new(env!("CARGO_BIN_EXE_undercooked"))
                .args(&args)
                .output()
                .expect("undercooked runs");
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(printed.contains(&superuser), "{args:?}: {printed}");
            for secret in ["hunter2", "hun@", "ter2"] {
                assert!(!printed.contains(secret), "{args:?}: {printed}");
            }
        }
    }
}

/// A fresh PostgreSQL database with the history's tables (migrated, no rows): its URL.
async fn empty_history() -> String {
    let url = postgres::database();
    let store = undercooked::store::Store::open(&url).await.expect("open");
    store.close().await;
    url
}

#[tokio::test]
async fn a_copy_to_program_behind_a_nested_comment_runs_nothing() {
    if !postgres::available() {
        return;
    }
    // Given a PostgreSQL history, and a file the statement below would write (PostgreSQL
    // runs on this machine),
    let url = empty_history().await;
    let target = std::env::temp_dir().join(format!("uc-sql-copy-{}", std::process::id()));
    let _ = std::fs::remove_file(&target);
    // when `sql` is given a COPY … TO PROGRAM that a reader of comments that do not nest
    // takes for a SELECT, as the superuser and as a role that can only read,
    let copy = format!(
        "/* /* */ SELECT 1 */ COPY (SELECT current_user) TO PROGRAM 'id > {}'",
        target.display()
    );
    for db in [url.clone(), postgres::reader(&url)] {
        let (code, out, err) = sql(&["--db", &db, &copy]);
        // then it is refused as the COPY it is, and nothing ran.
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("refused: COPY statements are refused"),
            "{err}"
        );
        assert!(!target.exists(), "{} was written", target.display());
    }
}

#[tokio::test]
async fn a_killed_sql_takes_its_statement_with_it_within_seconds() {
    if !postgres::available() {
        return;
    }
    // Given `sql` running a minute-long statement as a role that can only read,
    let url = empty_history().await;
    let db = url.rsplit('/').next().expect("a database name").to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .args(["sql", "--timeout-s", "600", "--db", &postgres::reader(&url)])
        .arg("SELECT count(*), pg_sleep(60) FROM rounds")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("undercooked sql starts");
    let running = format!(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = '{db}' AND state = 'active' AND query LIKE 'SELECT count(*), pg_sleep(60)%'"
    );
    // How long until `running` counts `want` statements, failing past `secs` with `why`.
    let until = |want: &str, secs: u64, why: &str| {
        let from = std::time::Instant::now();
        while postgres::shared().psql("postgres", &running) != want {
            assert!(from.elapsed().as_secs() < secs, "{why}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        from.elapsed()
    };
    until("1", 20, "the statement never started");
    // when the client is killed (SIGKILL: no goodbye to the server),
    child.kill().expect("kill -9");
    let _ = child.wait();
    // then the server ends the statement, and its lock on `rounds`, within seconds.
    let ended = until(
        "0",
        5,
        "the statement of a killed `sql` still runs after 5 s",
    );
    eprintln!("the killed client's statement ended after {ended:?}");
}
