//! One group of the write chain's jobs, written in one transaction on a connection of its
//! own, and how a failure is told apart (the storage, or a job: `WriteError`).
//!
//! Consecutive batches insert their rows in one statement, and quest progress is folded
//! once for the whole group: a busy writer's cost is per transaction, not per batch.

use super::credit::Credit;
use super::db::{Db, Dialect};
use super::history;
use super::jobs::{Batch, Faults, Job, Must};
use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta};
use super::{Pool, Store};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Why a write failed.
#[derive(Debug, Clone)]
pub(super) enum WriteError {
    /// The storage, not the job: held and retried until it clears.
    Storage(String),
    /// This job (or one in its group).
    Job(String),
}

impl From<sqlx::Error> for WriteError {
    fn from(e: sqlx::Error) -> WriteError {
        let storage = match &e {
            sqlx::Error::Database(db) => match db.try_downcast_ref::<PgDatabaseError>() {
                Some(pg) => pg_storage_fault(pg.code()),
                None => db
                    .code()
                    .and_then(|c| c.parse::<i64>().ok())
                    .is_some_and(|c| SQLITE_STORAGE.contains(&(c & 0xff))),
            },
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => true,
            _ => false,
        };
        if storage {
            WriteError::Storage(e.to_string())
        } else {
            WriteError::Job(e.to_string())
        }
    }
}

use sqlx::postgres::PgDatabaseError;

/// SQLite's primary result codes for a fault of the storage rather than of the statement:
/// BUSY 5, LOCKED 6, NOMEM 7, READONLY 8, IOERR 10, CORRUPT 11, FULL 13, CANTOPEN 14,
/// PROTOCOL 15 (extended codes carry the primary in their low byte).
const SQLITE_STORAGE: [i64; 9] = [5, 6, 7, 8, 10, 11, 13, 14, 15];

/// PostgreSQL's SQLSTATEs for a fault of the server rather than of the statement: a lost
/// or refused connection (class 08), a server shutting down or starting (57P01–57P03),
/// resources (53: disk full, out of memory, too many connections), system errors (58), a
/// read-only transaction (25006, as SQLite's READONLY), and a transaction that lost a
/// serialization or deadlock race (40001, 40P01), which a retry settles.
fn pg_storage_fault(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("58")
        || matches!(code, "57P01" | "57P02" | "57P03" | "25006")
        || is_conflict(code)
}

/// A transaction PostgreSQL aborted to settle a race with another (serialization failure
/// or deadlock): run again at once, it goes through.
pub(super) fn is_conflict(code: &str) -> bool {
    matches!(code, "40001" | "40P01")
}

/// Whether `e` is such a race.
pub(super) fn lost_a_race(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db)
        if db.try_downcast_ref::<PgDatabaseError>().is_some_and(|pg| is_conflict(pg.code())))
}

/// What one job wrote: new event rows, and the quests they completed.
pub(super) type JobDone = (u64, Vec<(Arc<RoundMeta>, Completion)>);

/// Writes one thing that must not be lost, in the caller's transaction.
async fn apply(
    conn: &mut impl Db,
    must: &Must,
    defs: &[QuestDef],
    done: &mut Vec<(Arc<RoundMeta>, Completion)>,
) -> sqlx::Result<()> {
    match must {
        Must::Begin(meta) => history::begin_round(conn, meta).await,
        Must::Finish { meta, outcome, .. } => {
            let c = history::finish_round(conn, meta, outcome, defs).await?;
            done.extend(c.into_iter().map(|c| (meta.clone(), c)));
            Ok(())
        }
        Must::Session(s) => super::sessions::upsert(conn, s).await,
    }
}

/// Writes a group in one transaction on a connection of its own; after any failure that
/// connection is closed, so no later write runs on it.
pub(super) async fn write_group(
    store: &Store,
    jobs: &[Job],
    defs: &[QuestDef],
    faults: &Faults,
    credit: &mut Credit,
) -> Result<Vec<JobDone>, WriteError> {
    let written = write_group_in(store, jobs, defs, faults, credit).await;
    if written.is_ok() {
        credit.commit();
        for job in jobs {
            if let Job::Must(Must::Finish { meta, .. }) = job {
                credit.forget(&meta.round_key);
            }
        }
    } else {
        credit.discard();
    }
    written
}

/// `write_group`, before its credit is kept or dropped.
async fn write_group_in(
    store: &Store,
    jobs: &[Job],
    defs: &[QuestDef],
    faults: &Faults,
    credit: &mut Credit,
) -> Result<Vec<JobDone>, WriteError> {
    // The slow-database seam: wait while `slow_ms` says so (re-read, so clearing it ends
    // the wait).
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(faults.slow_ms.load(Relaxed)) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if faults.fail.load(Relaxed) {
        return Err(WriteError::Storage(
            "injected database failure (test mode)".into(),
        ));
    }
    match &store.pool {
        Pool::Sqlite(p) => {
            let mut conn = p.acquire().await?;
            let written = write_once!(conn, jobs, defs, faults, credit).map_err(WriteError::from);
            if written.is_err() {
                // The transaction was rolled back when it dropped (or by SQLite itself);
                // the connection goes too, with whatever lock or state it might still hold.
                let _ = conn.close().await;
            }
            written
        }
        Pool::Postgres(p) => {
            // A group that lost a race with another node's (40001, 40P01) was rolled back
            // whole: it runs again, a few times, before it counts as a failed write.
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mut conn = p.acquire().await?;
                // A run that lost its race learned nothing: its transaction rolled back.
                credit.discard();
                match write_once!(conn, jobs, defs, faults, credit) {
                    Err(e) if lost_a_race(&e) && attempt < RACE_RETRIES => continue,
                    Err(e) => {
                        let _ = conn.close().await;
                        return Err(WriteError::from(e));
                    }
                    Ok(done) => return Ok(done),
                }
            }
        }
    }
}

/// The read-only seam, then the group in one transaction on `$conn` (a pooled connection
/// of either engine): `sqlx::Result` of what it wrote.
macro_rules! write_once {
    ($conn:ident, $jobs:expr, $defs:expr, $faults:expr, $credit:expr) => {
        async {
            read_only_seam(&mut *$conn, $faults).await?;
            let mut tx = sqlx::Connection::begin(&mut *$conn).await?;
            let out = write_in(&mut *tx, $jobs, $defs, $credit).await?;
            tx.commit().await?;
            Ok::<_, sqlx::Error>(out)
        }
        .await
    };
}
use write_once;

/// How many times a group that lost a race runs before it is held like a storage fault.
const RACE_RETRIES: u32 = 5;

/// The read-only seam: the engine's own refusal (SQLite's SQLITE_READONLY, PostgreSQL's
/// 25006) on every write after it is switched on.
async fn read_only_seam(conn: &mut impl Db, faults: &Faults) -> sqlx::Result<()> {
    let seam = match (faults.read_only.load(Relaxed), conn.dialect()) {
        (1, Dialect::Sqlite) => "PRAGMA query_only = ON",
        (2, Dialect::Sqlite) => "PRAGMA query_only = OFF",
        (1, Dialect::Postgres) => "SET default_transaction_read_only = on",
        (2, Dialect::Postgres) => "SET default_transaction_read_only = off",
        _ => return Ok(()),
    };
    conn.execute(seam, &[]).await.map(|_| ())
}

/// Writes the group on `tx`, a connection inside the caller's transaction.
async fn write_in(
    tx: &mut impl Db,
    jobs: &[Job],
    defs: &[QuestDef],
    credit: &mut Credit,
) -> sqlx::Result<Vec<JobDone>> {
    // A group of event batches only commits without waiting for PostgreSQL's WAL flush, as
    // SQLite's WAL with synchronous=NORMAL does: a crash of the database may lose the last
    // such commits, which the replay files still hold (`reindex` repairs), and batches may be
    // dropped by design. A group with a round's start or end or a session waits for it.
    let only_batches = jobs.iter().all(|j| !matches!(j, Job::Must(_)));
    if only_batches && tx.dialect() == Dialect::Postgres {
        tx.execute("SET LOCAL synchronous_commit = off", &[])
            .await?;
    }
    let mut out: Vec<JobDone> = jobs.iter().map(|_| (0, Vec::new())).collect();
    // Consecutive batches insert their rows together, in one statement for the run, before
    // the next `Must` (a round's start must precede its events); quest progress is folded
    // once for the whole group, in order, so a session's quest is read and written once per
    // transaction.
    let mut fresh: Vec<(&RoundMeta, &EventRow)> = Vec::new();
    let mut run: Vec<(usize, &Batch)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        match job {
            Job::Batch(b) => run.push((i, b)),
            Job::Must(must) => {
                insert_run(tx, &mut run, &mut out, &mut fresh).await?;
                apply(tx, must, defs, &mut out[i].1).await?;
            }
            Job::Barrier(_) => {}
        }
    }
    insert_run(tx, &mut run, &mut out, &mut fresh).await?;
    // The group's completions are reported with its first batch.
    let batches = jobs.iter().enumerate().filter_map(|(i, j)| match j {
        Job::Batch(b) => Some((i, b)),
        _ => None,
    });
    if let Some((first, _)) = batches.clone().next() {
        for (meta, c) in quests::fold_events(tx, &fresh, defs, credit).await? {
            let round = batches
                .clone()
                .find(|(_, b)| b.meta.round_key == meta.round_key);
            if let Some((_, b)) = round {
                out[first].1.push((b.meta.clone(), c));
            }
        }
    }
    Ok(out)
}

/// Inserts the rows of a run of batches (each with its index among the group's jobs) in
/// one go, counts each batch's new rows into `out` and keeps them, in order, in `fresh`;
/// empties `run`.
async fn insert_run<'a>(
    conn: &mut impl Db,
    run: &mut Vec<(usize, &'a Batch)>,
    out: &mut [JobDone],
    fresh: &mut Vec<(&'a RoundMeta, &'a EventRow)>,
) -> sqlx::Result<()> {
    let mut rows: Vec<(&'a RoundMeta, &'a EventRow)> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    for (i, b) in run.drain(..) {
        rows.extend(b.rows.iter().map(|r| (b.meta.as_ref(), r)));
        owners.resize(rows.len(), i);
    }
    if rows.is_empty() {
        return Ok(());
    }
    let new = history::insert_events(conn, &rows).await?;
    for ((row, i), new) in rows.into_iter().zip(owners).zip(new) {
        if new {
            out[i].0 += 1;
            fresh.push(row);
        }
    }
    Ok(())
}
