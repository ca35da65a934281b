//! `undercooked sql "SELECT …"`: a read-only query over the history, printed as an aligned
//! table, JSON lines or CSV. The statement is checked first (`sql_guard`, reading it as the
//! `--db` location's engine does), and the database is opened read-only: SQLite with
//! `query_only` on, here; PostgreSQL as a role that cannot touch the server's files, in a
//! `READ ONLY` transaction with its timeouts (`sql_pg`).
//!
//! Rows stream from SQLite to the output as they come (`sql_print`), so a result of any size
//! takes the same memory. SQLite has no statement timeout of its own, so one is added: a
//! progress handler on the connection, called every `CHECK_EVERY` virtual-machine steps,
//! interrupts the statement once the deadline has passed (the query really stops, rather
//! than running on unread), and a timer a second later catches a step that never returns.
//! SQLite's heap is capped (`SQLITE_MEMORY_MIB`), so a query building a gigabyte cell fails
//! at once; and a watchdog ends the process two seconds past the limit whatever it is doing
//! (printing a huge cell into a slow pipe, say), on either engine.

use super::DbArgs;
use super::sql_end::{MAX_TIMEOUT_S, Query, SQLITE_MEMORY_MIB, Stop, ended, out_of_memory};
use super::sql_print::{Output, cell};
use anyhow::Context;
use futures_util::TryStreamExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// SQLite steps between two looks at the clock: about a millisecond of work, so a timeout
/// lands within a few milliseconds of its deadline and the look itself costs nothing.
const CHECK_EVERY: i32 = 10_000;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The query (the database is opened read-only: writes are refused).
    pub(super) query: String,
    /// One JSON object per row.
    #[arg(long, conflicts_with = "csv")]
    pub(super) json: bool,
    /// CSV with a header row.
    #[arg(long)]
    pub(super) csv: bool,
    /// Seconds the query may run, printing included; past them it is stopped (exit 2).
    #[arg(long, env = "UNDERCOOKED_SQL_TIMEOUT_S", default_value = "10",
          value_parser = undercooked::shared::config::ranged::<u64>("UNDERCOOKED_SQL_TIMEOUT_S", 1, MAX_TIMEOUT_S))]
    pub(super) timeout_s: u64,
    #[command(flatten)]
    db: DbArgs,
}

impl Args {
    /// The query and how to print it, as both engines' runs take them.
    fn query(&self) -> Query {
        Query {
            text: self.query.clone(),
            json: self.json,
            csv: self.csv,
            timeout_s: self.timeout_s,
        }
    }
}

/// Set when sqlx's SQLite worker thread panicked. It does when SQLite cannot copy a row's
/// value within `SQLITE_MEMORY_MIB` (sqlx expects that copy to succeed), and the rows then
/// simply end: that end is the memory bound's stop, not a short result.
static WORKER_FAILED: AtomicBool = AtomicBool::new(false);

/// Notes a panic of sqlx's SQLite worker in `WORKER_FAILED` instead of printing it (the
/// stop is said in a sentence); any other thread's panic is printed as always.
fn watch_worker() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let name = std::thread::current().name().map(str::to_string);
        if name.is_some_and(|n| n.starts_with("sqlx-sqlite-worker")) {
            WORKER_FAILED.store(true, Ordering::SeqCst);
        } else {
            default(info);
        }
    }));
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let location = args.db.location()?;
    let dialect = undercooked::store::dialect_of(&location)?;
    if let Err(why) = super::sql_guard::check(&args.query, dialect) {
        eprintln!("undercooked: refused: {why}");
        return Ok(2);
    }
    super::sql_end::watchdog(Duration::from_secs(args.timeout_s));
    rt.block_on(async move {
        let store = undercooked::store::Store::open_read_only(&location).await?;
        let undercooked::store::Pool::Sqlite(pool) = &store.pool else {
            return super::sql_pg::run(&store, &args.query()).await;
        };
        let mut conn = pool.acquire().await.context("opening the database")?;
        watch_worker();
        let cap = format!("PRAGMA hard_heap_limit = {}", SQLITE_MEMORY_MIB << 20);
        sqlx::query(sqlx::AssertSqlSafe(cap))
            .execute(&mut *conn)
            .await
            .context("capping SQLite's memory")?;
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
        let mut out = Output::new(args.json, args.csv);
        let stopped = {
            let mut rows = sqlx::query(sqlx::AssertSqlSafe(args.query.clone())).fetch(&mut *conn);
            let grace = tokio::time::Instant::from_std(deadline + Duration::from_secs(1));
            loop {
                let next = match tokio::time::timeout_at(grace, rows.try_next()).await {
                    Err(_) => break Some(Stop::Timeout),
                    Ok(Err(_)) if interrupted.load(Ordering::Relaxed) => {
                        break Some(Stop::Timeout);
                    }
                    Ok(Err(e)) if out_of_memory(&e) || WORKER_FAILED.load(Ordering::SeqCst) => {
                        break Some(Stop::Memory);
                    }
                    Ok(Err(e)) => break Some(Stop::Failed(e)),
                    Ok(Ok(None)) if WORKER_FAILED.load(Ordering::SeqCst) => {
                        break Some(Stop::Memory);
                    }
                    Ok(Ok(None)) => break None,
                    Ok(Ok(Some(row))) => row,
                };
                out.row(&next, cell)?;
                // Printing counts against the limit too: a reader that keeps the pipe
                // full must not hold the database open for ever.
                if Instant::now() >= deadline {
                    break Some(Stop::Timeout);
                }
            }
        };
        ended(out, stopped, args.timeout_s, &location)
    })
}
