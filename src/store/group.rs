//! One group of the write chain's jobs, written in one transaction on a connection of its
//! own, and how a failure is told apart (the storage, or a job: `WriteError`).
//!
//! Consecutive batches insert their rows in one statement, and quest progress is folded
//! once for the whole group: a busy writer's cost is per transaction, not per batch.

use super::Store;
use super::history;
use super::jobs::{Batch, Faults, Job, Must};
use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta};
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
        // SQLite's primary result codes for a fault of the storage rather than of the
        // statement: BUSY 5, LOCKED 6, NOMEM 7, READONLY 8, IOERR 10, CORRUPT 11, FULL 13,
        // CANTOPEN 14, PROTOCOL 15 (extended codes carry the primary in their low byte).
        const STORAGE: [i64; 9] = [5, 6, 7, 8, 10, 11, 13, 14, 15];
        let storage = match &e {
            sqlx::Error::Database(db) => db
                .code()
                .and_then(|c| c.parse::<i64>().ok())
                .is_some_and(|c| STORAGE.contains(&(c & 0xff))),
            sqlx::Error::Io(_)
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

/// What one job wrote: new event rows, and the quests they completed.
pub(super) type JobDone = (u64, Vec<(Arc<RoundMeta>, Completion)>);

/// Writes one thing that must not be lost, in the caller's transaction.
async fn apply(
    conn: &mut sqlx::SqliteConnection,
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
    let mut conn = store.pool.acquire().await?;
    let written = write_in(&mut conn, jobs, defs, faults).await;
    if written.is_err() {
        // The transaction was rolled back when it dropped (or by SQLite itself); the
        // connection goes too, with whatever lock or state it might still hold.
        let _ = conn.close().await;
    }
    written
}

async fn write_in(
    conn: &mut sqlx::SqliteConnection,
    jobs: &[Job],
    defs: &[QuestDef],
    faults: &Faults,
) -> Result<Vec<JobDone>, WriteError> {
    use sqlx::Connection;
    // The read-only seam: SQLite's own SQLITE_READONLY on every write after this.
    match faults.read_only.load(Relaxed) {
        1 => {
            sqlx::query("PRAGMA query_only = ON")
                .execute(&mut *conn)
                .await?
        }
        2 => {
            sqlx::query("PRAGMA query_only = OFF")
                .execute(&mut *conn)
                .await?
        }
        _ => Default::default(),
    };
    let mut tx = conn.begin().await?;
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
                insert_run(&mut tx, &mut run, &mut out, &mut fresh).await?;
                apply(&mut tx, must, defs, &mut out[i].1).await?;
            }
            Job::Barrier(_) => {}
        }
    }
    insert_run(&mut tx, &mut run, &mut out, &mut fresh).await?;
    // The group's completions are reported with its first batch.
    let batches = jobs.iter().enumerate().filter_map(|(i, j)| match j {
        Job::Batch(b) => Some((i, b)),
        _ => None,
    });
    if let Some((first, _)) = batches.clone().next() {
        for (meta, c) in quests::fold_events(&mut tx, &fresh, defs).await? {
            let round = batches
                .clone()
                .find(|(_, b)| b.meta.round_key == meta.round_key);
            if let Some((_, b)) = round {
                out[first].1.push((b.meta.clone(), c));
            }
        }
    }
    tx.commit().await?;
    Ok(out)
}

/// Inserts the rows of a run of batches (each with its index among the group's jobs) in
/// one go, counts each batch's new rows into `out` and keeps them, in order, in `fresh`;
/// empties `run`.
async fn insert_run<'a>(
    conn: &mut sqlx::SqliteConnection,
    run: &mut Vec<(usize, &'a Batch)>,
    out: &mut [JobDone],
    fresh: &mut Vec<(&'a RoundMeta, &'a EventRow)>,
) -> Result<(), WriteError> {
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
