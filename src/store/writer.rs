//! The write chain's one writer task: jobs in order, grouped into transactions, and what
//! it does when the storage fails.
//!
//! A failed transaction is rolled back and its connection closed (never handed back to the
//! pool with its state unknown: a connection that kept a write lock, or that believed it was
//! still inside a transaction, is how history was once lost silently after a full disk). Then
//! the failure is told apart:
//! - **the storage** (disk full, read-only, locked or busy, an I/O error, the pool gone): the
//!   whole group is held, in order, and tried again after a back-off (0.25 s doubling to
//!   5 s) until it commits; meanwhile `storage_degraded` is set, which `/healthz` and
//!   `/metrics` report. Rooms keep handing over batches; with 20 of a room's batches held or
//!   queued, its next ones are dropped and counted (`Chain::submit`), and past `MAX_HELD`
//!   held batches in all the oldest are dropped, so memory stays bounded however long the
//!   fault lasts. Nothing is counted written before its transaction committed.
//! - **one job** (anything else): the group's jobs are written one by one; a batch that fails
//!   alone is dropped and counted, a `Must` is retried.

use super::Store;
use super::history;
use super::jobs::{Batch, ChainStats, Faults, Job, Must, Notify};
use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Jobs folded into one transaction at most.
const GROUP: usize = 512;
/// Batches held through a storage fault, in all, before the oldest are dropped.
pub const MAX_HELD: usize = 4096;
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Why a write failed.
#[derive(Debug, Clone)]
enum WriteError {
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
type JobDone = (u64, Vec<(Arc<RoundMeta>, Completion)>);

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
async fn write_group(
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

/// After a batch arrives at an idle writer, how long it waits for others to share its
/// transaction. Rooms hand their batches over once a second each, spread over the second:
/// without the wait, 100 playing rooms cost 100 transactions a second (each a `BEGIN`, the
/// quests' reads and a `COMMIT`, every statement a round trip to SQLite's thread), 14 % of
/// the server's CPU; with it, about ten.
const LINGER: Duration = Duration::from_millis(100);

/// Gathers jobs for `LINGER`, until a group is full, or until a job arrives that someone
/// may be waiting on (a round's start or end, a session, a barrier): those are written now.
async fn linger(rx: &mut mpsc::UnboundedReceiver<Job>, held: &mut VecDeque<Job>) {
    let until = tokio::time::Instant::now() + LINGER;
    while held.len() < GROUP {
        match tokio::time::timeout_at(until, rx.recv()).await {
            Ok(Some(j)) => {
                let batch = matches!(j, Job::Batch(_));
                held.push_back(j);
                if !batch {
                    return;
                }
            }
            Ok(None) | Err(_) => return,
        }
    }
}

pub(super) async fn run(
    store: Store,
    defs: Vec<QuestDef>,
    mut rx: mpsc::UnboundedReceiver<Job>,
    stats: Arc<ChainStats>,
    faults: Arc<Faults>,
    notify: Notify,
) {
    // Jobs waiting for the storage to come back, in order, ahead of anything newer.
    let mut held: VecDeque<Job> = VecDeque::new();
    let mut backoff: Option<Duration> = None;
    let mut last_error_log: Option<Instant> = None;
    loop {
        if let Some(wait) = backoff {
            tokio::time::sleep(wait).await;
        } else if held.is_empty() {
            match rx.recv().await {
                Some(j) => {
                    let batch = matches!(j, Job::Batch(_));
                    held.push_back(j);
                    if batch {
                        linger(&mut rx, &mut held).await;
                    }
                }
                None => return,
            }
        }
        while let Ok(j) = rx.try_recv() {
            held.push_back(j);
        }
        bound_held(&mut held, &stats);
        let jobs: Vec<Job> = held.drain(..held.len().min(GROUP)).collect();
        let results = match write_group(&store, &jobs, &defs, &faults).await {
            Ok(per_job) => per_job.into_iter().map(Ok).collect(),
            Err(WriteError::Storage(e)) => {
                stats.write_errors.fetch_add(1, Relaxed);
                log_once_a_second(&mut last_error_log, &e);
                backoff = Some(storage_fault(&stats, backoff));
                hold_again(&mut held, jobs);
                continue;
            }
            Err(WriteError::Job(e)) => {
                tracing::debug!(error = %e, "a group failed; writing its jobs one by one");
                let mut v = Vec::with_capacity(jobs.len());
                for job in &jobs {
                    v.push(
                        write_group(&store, std::slice::from_ref(job), &defs, &faults)
                            .await
                            .map(|mut r| r.remove(0)),
                    );
                }
                v
            }
        };
        let mut storage_failed = false;
        let mut must_failed = false;
        let mut again = Vec::new();
        for (job, result) in jobs.into_iter().zip(results) {
            match (job, result) {
                (Job::Barrier(done), _) => {
                    let _ = done.send(());
                }
                (Job::Batch(b), Ok((events, completions))) => {
                    b.pending.fetch_sub(1, Relaxed);
                    stats.batches_written.fetch_add(1, Relaxed);
                    stats.events_written.fetch_add(events, Relaxed);
                    for (meta, c) in completions {
                        notify(&meta, c);
                    }
                }
                (Job::Must(m), Ok((_, completions))) => {
                    if let Must::Finish { outbox, .. } = &m {
                        stats.outbox_pending.fetch_sub(1, Relaxed);
                        if let Some(p) = outbox {
                            let _ = std::fs::remove_file(p);
                        }
                    }
                    for (meta, c) in completions {
                        notify(&meta, c);
                    }
                }
                (job, Err(WriteError::Storage(e))) => {
                    stats.write_errors.fetch_add(1, Relaxed);
                    log_once_a_second(&mut last_error_log, &e);
                    storage_failed = true;
                    again.push(job);
                }
                (Job::Batch(b), Err(WriteError::Job(e))) => {
                    b.pending.fetch_sub(1, Relaxed);
                    stats.batches_dropped.fetch_add(1, Relaxed);
                    stats.write_errors.fetch_add(1, Relaxed);
                    tracing::error!(error = %e, round = %b.meta.round_key, tick = b.tick, "a history batch could not be written and was dropped (the replay file keeps it; reindex repairs)");
                }
                (Job::Must(m), Err(WriteError::Job(e))) => {
                    stats.write_errors.fetch_add(1, Relaxed);
                    log_once_a_second(&mut last_error_log, &e);
                    must_failed = true;
                    again.push(Job::Must(m));
                }
            }
        }
        hold_again(&mut held, again);
        backoff = next_wait(&stats, backoff, storage_failed, must_failed);
    }
}

/// How long the writer waits before its next group, after one that ended as said: longer
/// and longer through a storage fault; a second after a `Must` failed as a job (not a busy
/// loop); else not at all, even with jobs left over from a full group (waiting for those
/// too once held a busy writer to one group a second: the history bench fell from 164,000
/// to 22,000 events a second).
fn next_wait(
    stats: &ChainStats,
    backoff: Option<Duration>,
    storage_failed: bool,
    must_failed: bool,
) -> Option<Duration> {
    if storage_failed {
        return Some(storage_fault(stats, backoff));
    }
    if stats.storage_degraded.swap(false, Relaxed) {
        tracing::warn!("history writes resumed: the storage fault cleared");
    }
    must_failed.then_some(Duration::from_secs(1))
}

/// The storage failed: it is reported degraded, and the next try waits longer (0.25 s
/// doubling to 5 s).
fn storage_fault(stats: &ChainStats, backoff: Option<Duration>) -> Duration {
    stats.storage_degraded.store(true, Relaxed);
    backoff.map_or(FIRST_BACKOFF, |b| (b * 2).min(MAX_BACKOFF))
}

/// Puts jobs back at the front of the held queue, in their order. A barrier is answered
/// instead: `flushed` means written, or held in memory through a storage fault.
fn hold_again(held: &mut VecDeque<Job>, jobs: Vec<Job>) {
    for job in jobs.into_iter().rev() {
        match job {
            Job::Barrier(done) => {
                let _ = done.send(());
            }
            job => held.push_front(job),
        }
    }
}

/// Past `MAX_HELD` held batches, the oldest are dropped and counted.
fn bound_held(held: &mut VecDeque<Job>, stats: &ChainStats) {
    if held.len() <= MAX_HELD {
        // Nothing to count: fewer jobs than the bound on batches alone.
        return;
    }
    let batches = held.iter().filter(|j| matches!(j, Job::Batch(_))).count();
    let mut excess = batches.saturating_sub(MAX_HELD);
    if excess == 0 {
        return;
    }
    held.retain(|j| match j {
        Job::Batch(b) if excess > 0 => {
            excess -= 1;
            b.pending.fetch_sub(1, Relaxed);
            stats.batches_dropped.fetch_add(1, Relaxed);
            false
        }
        _ => true,
    });
    tracing::warn!(
        held = MAX_HELD,
        "history batches dropped: the storage fault outlasted the batches held in memory"
    );
}

fn log_once_a_second(last: &mut Option<Instant>, error: &str) {
    if last.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
        *last = Some(Instant::now());
        tracing::error!(
            error,
            "history write failed; held and retried until the database takes it (the replay files keep everything)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_waits_only_after_a_failure() {
        let stats = ChainStats::default();
        // A good group, whatever is left over: the next one at once.
        assert_eq!(next_wait(&stats, None, false, false), None);
        // A `Must` that failed as a job: a second.
        assert_eq!(
            next_wait(&stats, None, false, true),
            Some(Duration::from_secs(1))
        );
        // The storage: 0.25 s doubling to 5 s, reported degraded until a group commits.
        let first = next_wait(&stats, None, true, false);
        assert_eq!(first, Some(FIRST_BACKOFF));
        assert_eq!(
            next_wait(&stats, first, true, false),
            Some(FIRST_BACKOFF * 2)
        );
        assert_eq!(
            next_wait(&stats, Some(MAX_BACKOFF), true, false),
            Some(MAX_BACKOFF)
        );
        assert!(stats.storage_degraded.load(Relaxed));
        assert_eq!(next_wait(&stats, Some(MAX_BACKOFF), false, false), None);
        assert!(!stats.storage_degraded.load(Relaxed));
    }
}
