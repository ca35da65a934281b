//! `undercooked sql` on PostgreSQL, where what keeps it from writing is the database's own
//! rules, not the text check: PostgreSQL's privileges and its read-only transaction.
//!
//! A superuser's statement can write files and run programs on the database server
//! (`COPY … TO PROGRAM` runs in a `READ ONLY` transaction), and so can a member of
//! `pg_execute_server_program`, `pg_write_server_files` or `pg_read_server_files`; no list of
//! names can foresee every way there. So, once connected and before the statement, the
//! role is asked what it is, and such a role (as `current_user` or as `session_user`, which
//! a session can return to) is refused with the SQL that makes one that can only read.
//!
//! The statement then runs in a `READ ONLY` transaction, rolled back at the end, bounded:
//! `statement_timeout` is `--timeout-s` (printing included: the rows are also cut at the
//! deadline here), the transaction may sit idle no longer, a lock is waited for
//! `LOCK_WAIT_S` at most (a read waits only behind a migration or a `LOCK TABLE`), and
//! `client_connection_check_interval` (PostgreSQL 14 and later) has the server notice
//! within a second that the client died, ending the statement and its locks with it.
//! `standard_conforming_strings` is set on, so `'…\'` ends where the guard read it end.

use super::sql_end::{LOCK_WAIT_S, Query, Stop, ended};
use super::sql_print::{Output, pg_cell};
use anyhow::Context;
use futures_util::TryStreamExt;
use std::time::{Duration, Instant};
use undercooked::store::{Pool, Store, printable};

/// The session's role, database, and what makes the role unfit: whether it is (or may
/// become, as a member) a superuser, and the file and program roles it is a member of.
const ROLE: &str = "SELECT current_user::text, current_database()::text,
  EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolsuper
          AND (pg_has_role(current_user, g.oid, 'MEMBER') OR pg_has_role(session_user, g.oid, 'MEMBER'))),
  ARRAY(SELECT g.rolname::text FROM pg_roles g
        WHERE g.rolname IN ('pg_execute_server_program', 'pg_write_server_files', 'pg_read_server_files')
          AND (pg_has_role(current_user, g.oid, 'MEMBER') OR pg_has_role(session_user, g.oid, 'MEMBER'))
        ORDER BY 1)";

/// Why the session's role may not run `sql`, with how to make one that may; `None` when
/// it may.
async fn refusal(conn: &mut sqlx::PgConnection, location: &str) -> sqlx::Result<Option<String>> {
    let (role, db, superuser, powers): (String, String, bool, Vec<String>) =
        sqlx::query_as(ROLE).fetch_one(conn).await?;
    let what = match (superuser, powers.as_slice()) {
        (true, _) => "a superuser (or a member of one)".to_string(),
        (false, []) => return Ok(None),
        (false, powers) => format!("a member of {}", powers.join(", ")),
    };
    Ok(Some(format!(
        "`sql` does not run as {role} on {}: it is {what}, and such a role's statements can write files and run programs on the database server whatever a check of their text finds. \
         Connect as a role that can only read, made once by a superuser:\n  \
         CREATE ROLE undercooked_reader LOGIN NOSUPERUSER PASSWORD '…';\n  \
         GRANT pg_read_all_data TO undercooked_reader;  -- PostgreSQL 14 and later; before 14:\n  \
         GRANT CONNECT ON DATABASE {db} TO undercooked_reader;\n  \
         GRANT USAGE ON SCHEMA public TO undercooked_reader;\n  \
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO undercooked_reader;\n\
         then give --db postgres://undercooked_reader:…@HOST/{db} (docs/HISTORY.md)",
        printable(location)
    )))
}

/// The query on PostgreSQL: the role checked, then in a bounded read-only transaction,
/// rows streamed to the printer as they come, rolled back at the end.
pub(super) async fn run(store: &Store, args: &Query) -> anyhow::Result<u8> {
    let Pool::Postgres(pool) = &store.pool else {
        return Ok(2);
    };
    let mut tx = pool.begin().await.context("opening the database")?;
    let t = args.timeout_s;
    let mut setup = vec![
        "SET TRANSACTION READ ONLY".to_string(),
        format!("SET LOCAL statement_timeout = '{t}s'"),
        format!("SET LOCAL idle_in_transaction_session_timeout = '{t}s'"),
        format!("SET LOCAL lock_timeout = '{LOCK_WAIT_S}s'"),
        "SET LOCAL standard_conforming_strings = on".to_string(),
    ];
    if tx.server_version_num().is_some_and(|v| v >= 140_000) {
        setup.push("SET LOCAL client_connection_check_interval = '1s'".to_string());
    }
    for statement in setup {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut *tx)
            .await
            .context("opening the database")?;
    }
    let refused = refusal(&mut tx, &store.location)
        .await
        .context("asking the database what the role may do")?;
    if let Some(why) = refused {
        let _ = tx.rollback().await;
        eprintln!("undercooked: refused: {why}");
        return Ok(2);
    }
    let deadline = Instant::now() + Duration::from_secs(t);
    // A second past the deadline, a read that has not returned is given up on.
    let grace = tokio::time::Instant::from_std(deadline + Duration::from_secs(1));
    let mut out = Output::new(args.json, args.csv);
    let stopped = {
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(args.text.clone())).fetch(&mut *tx);
        loop {
            let next = match tokio::time::timeout_at(grace, rows.try_next()).await {
                Err(_) => break Some(Stop::Timeout),
                // 57014: canceled by the statement timeout; 55P03: the lock timeout.
                Ok(Err(sqlx::Error::Database(e))) if e.code().as_deref() == Some("57014") => {
                    break Some(Stop::Timeout);
                }
                Ok(Err(sqlx::Error::Database(e))) if e.code().as_deref() == Some("55P03") => {
                    break Some(Stop::Locked);
                }
                Ok(Err(e)) => break Some(Stop::Failed(e)),
                Ok(Ok(None)) => break None,
                Ok(Ok(Some(row))) => row,
            };
            out.row(&next, pg_cell)?;
            // Printing counts against the limit, as on SQLite.
            if Instant::now() >= deadline {
                break Some(Stop::Timeout);
            }
        }
    };
    let _ = tx.rollback().await;
    ended(out, stopped, t, &store.location)
}
