//! `undercooked sql "SELECT …"`: a read-only query over the history, printed as an aligned
//! table, JSON lines or CSV. The statement is checked first (`sql_guard`), and the database
//! is opened read-only: SQLite with `query_only` on; PostgreSQL in a `READ ONLY`
//! transaction (which PostgreSQL enforces: a `DELETE` or a data-modifying CTE fails) with
//! a `statement_timeout` of `--timeout-s`, rolled back at the end.
//!
//! Rows stream from SQLite to the output as they come (`sql_print`), so a result of any size
//! takes the same memory. SQLite has no statement timeout of its own, so one is added: a
//! progress handler on the connection, called every `CHECK_EVERY` virtual-machine steps,
//! interrupts the statement once the deadline has passed (the query really stops, rather
//! than running on unread), and a timer a second later catches a step that never returns.

use super::DbArgs;
use super::sql_print::{Printer, cell, pg_cell};
use anyhow::Context;
use futures_util::TryStreamExt;
use sqlx::{Column, Row};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// SQLite steps between two looks at the clock: about a millisecond of work, so a timeout
/// lands within a few milliseconds of its deadline and the look itself costs nothing.
const CHECK_EVERY: i32 = 10_000;

/// The longest timeout `--timeout-s` takes (an hour), and its default.
const MAX_TIMEOUT_S: u64 = 3600;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The query (the database is opened read-only: writes are refused).
    query: String,
    /// One JSON object per row.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV with a header row.
    #[arg(long)]
    csv: bool,
    /// Seconds the query may run, printing included; past them it is stopped (exit 2).
    #[arg(long, env = "UNDERCOOKED_SQL_TIMEOUT_S", default_value = "10",
          value_parser = undercooked::shared::config::ranged::<u64>("UNDERCOOKED_SQL_TIMEOUT_S", 1, MAX_TIMEOUT_S))]
    timeout_s: u64,
    #[command(flatten)]
    db: DbArgs,
}

/// How the query ended, when it did not end well.
enum Stop {
    /// Past `--timeout-s`, after this many rows.
    Timeout(u64),
    /// SQLite's own error.
    Failed(sqlx::Error),
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    if let Err(why) = super::sql_guard::check(&args.query) {
        eprintln!("undercooked: refused: {why}");
        return Ok(2);
    }
    rt.block_on(async move {
        let location = args.db.location()?;
        let store = undercooked::store::Store::open_read_only(&location).await?;
        let undercooked::store::Pool::Sqlite(pool) = &store.pool else {
            return run_postgres(&store, &args).await;
        };
        let mut conn = pool.acquire().await.context("opening the database")?;
        let limit = Duration::from_secs(args.timeout_s);
        let deadline = Instant::now() + limit;
        let interrupted = Arc::new(AtomicBool::new(false));
        let flag = interrupted.clone();
        conn.lock_handle()
            .await
            .context("opening the database")?
            .set_progress_handler(CHECK_EVERY, move || {
                let go_on = Instant::now() < deadline;
                if !go_on {
                    flag.store(true, Ordering::Relaxed);
                }
                go_on
            });
        let mut printer = Printer::new(args.json, args.csv);
        let mut columns: Vec<String> = Vec::new();
        let mut count: u64 = 0;
        let stopped = {
            let mut rows = sqlx::query(sqlx::AssertSqlSafe(args.query.clone())).fetch(&mut *conn);
            let grace = tokio::time::Instant::from_std(deadline + Duration::from_secs(1));
            loop {
                let next = match tokio::time::timeout_at(grace, rows.try_next()).await {
                    Err(_) => break Some(Stop::Timeout(count)),
                    Ok(Err(_)) if interrupted.load(Ordering::Relaxed) => {
                        break Some(Stop::Timeout(count));
                    }
                    Ok(Err(e)) => break Some(Stop::Failed(e)),
                    Ok(Ok(None)) => break None,
                    Ok(Ok(Some(row))) => row,
                };
                if count == 0 {
                    columns = next
                        .columns()
                        .iter()
                        .map(|c| c.name().to_string())
                        .collect();
                    printer.header(&columns)?;
                }
                let values: Vec<serde_json::Value> =
                    (0..columns.len()).map(|i| cell(&next, i)).collect();
                printer.row(&columns, &values)?;
                count += 1;
                // Printing counts against the limit too: a reader that keeps the pipe
                // full must not hold the database open for ever.
                if Instant::now() >= deadline {
                    break Some(Stop::Timeout(count));
                }
            }
        };
        ended(printer, &columns, count, stopped, args.timeout_s, &location)
    })
}

/// Ends the output as the query ended (both engines): the rows printed stay whole (a table
/// keeps its count line; a query stopped before its first row prints nothing but the
/// refusal), and a stop is said in a sentence; the exit code.
fn ended(
    printer: Printer,
    columns: &[String],
    count: u64,
    stopped: Option<Stop>,
    timeout_s: u64,
    location: &str,
) -> anyhow::Result<u8> {
    match stopped {
        None => {
            printer.finish(columns, count)?;
            Ok(0)
        }
        Some(Stop::Timeout(rows)) => {
            if rows > 0 {
                printer.finish(columns, rows)?;
            }
            eprintln!(
                "undercooked: stopped: the query ran past its {timeout_s}-second limit after {rows} row{} (raise it with --timeout-s or UNDERCOOKED_SQL_TIMEOUT_S, at most {MAX_TIMEOUT_S})",
                if rows == 1 { "" } else { "s" }
            );
            Ok(2)
        }
        Some(Stop::Failed(e)) => Ok(failed(location, &e)),
    }
}

/// Says why the query failed (a write refused by the engine is said as such): exit 2.
fn failed(location: &str, e: &sqlx::Error) -> u8 {
    let msg = e.to_string();
    let location = undercooked::store::printable(location);
    if msg.contains("readonly") || msg.contains("read-only") {
        eprintln!(
            "undercooked: refused: `sql` opens {location} read-only, so statements that write are not allowed ({msg})"
        );
    } else {
        eprintln!("undercooked: the query failed: {msg}");
    }
    2
}

/// The query on PostgreSQL: in a read-only transaction with the statement timeout set
/// inside it, rows streamed to the printer as they come, rolled back at the end.
async fn run_postgres(store: &undercooked::store::Store, args: &Args) -> anyhow::Result<u8> {
    let undercooked::store::Pool::Postgres(pool) = &store.pool else {
        return Ok(2);
    };
    let mut tx = pool.begin().await.context("opening the database")?;
    let setup = [
        "SET TRANSACTION READ ONLY".to_string(),
        format!("SET LOCAL statement_timeout = '{}s'", args.timeout_s),
    ];
    for statement in setup {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut *tx)
            .await
            .context("opening the database")?;
    }
    let mut printer = Printer::new(args.json, args.csv);
    let mut columns: Vec<String> = Vec::new();
    let mut count: u64 = 0;
    let stopped = {
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(args.query.clone())).fetch(&mut *tx);
        loop {
            let next = match rows.try_next().await {
                // 57014: canceled by the statement timeout.
                Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("57014") => {
                    break Some(Stop::Timeout(count));
                }
                Err(e) => break Some(Stop::Failed(e)),
                Ok(None) => break None,
                Ok(Some(row)) => row,
            };
            if count == 0 {
                columns = next
                    .columns()
                    .iter()
                    .map(|c| c.name().to_string())
                    .collect();
                printer.header(&columns)?;
            }
            let values: Vec<serde_json::Value> =
                (0..columns.len()).map(|i| pg_cell(&next, i)).collect();
            printer.row(&columns, &values)?;
            count += 1;
        }
    };
    let _ = tx.rollback().await;
    ended(
        printer,
        &columns,
        count,
        stopped,
        args.timeout_s,
        &store.location,
    )
}
