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
//!
//! A group's transaction, and telling the two apart, are `group`'s; what follows from
//! the outcome, job by job, is this task's.

use super::Store;
use super::credit::Credit;
use super::group::{JobDone, WriteError, write_group};
use super::jobs::{ChainStats, Faults, Job, Must, Notify};
use super::quests::QuestDef;
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

/// The writer task's state between groups: what it writes with, and what it holds.
struct Writer {
    store: Store,
    defs: Vec<QuestDef>,
    stats: Arc<ChainStats>,
    faults: Arc<Faults>,
    notify: Notify,
    /// Jobs waiting for the storage to come back, in order, ahead of anything newer.
    held: VecDeque<Job>,
    /// The wait before the next group, after a failure.
    backoff: Option<Duration>,
    last_error_log: Option<Instant>,
    /// The rounds' contributions, kept between groups.
    credit: Credit,
}

/// Why a job goes back to the front of the queue.
enum Retry {
    /// The storage refused it.
    Storage(Job),
    /// A `Must` failed as a job; it must not be lost, so it is tried again.
    Must(Job),
}

/// The writer task, until the chain closes: gathers what has arrived, writes it as one
/// group, and settles each job by its result.
pub(super) async fn run(
    store: Store,
    defs: Vec<QuestDef>,
    mut rx: mpsc::UnboundedReceiver<Job>,
    stats: Arc<ChainStats>,
    faults: Arc<Faults>,
    notify: Notify,
) {
    let mut writer = Writer {
        store,
        defs,
        stats,
        faults,
        notify,
        held: VecDeque::new(),
        backoff: None,
        last_error_log: None,
        credit: Credit::default(),
    };
    while writer.gather(&mut rx).await {
        let jobs: Vec<Job> = writer.held.drain(..writer.held.len().min(GROUP)).collect();
        match writer.write(&jobs).await {
            Some(results) => writer.settle(jobs, results),
            None => hold_again(&mut writer.held, jobs),
        }
    }
}

impl Writer {
    /// Waits for something to write: the back-off after a failure; else, with nothing
    /// held, the next job (and after a batch, `linger`); then takes whatever else has
    /// arrived. `false` once the chain is closed and nothing is held.
    async fn gather(&mut self, rx: &mut mpsc::UnboundedReceiver<Job>) -> bool {
        if let Some(wait) = self.backoff {
            tokio::time::sleep(wait).await;
        } else if self.held.is_empty() {
            let Some(j) = rx.recv().await else {
                return false;
            };
            let batch = matches!(j, Job::Batch(_));
            self.held.push_back(j);
            if batch {
                linger(rx, &mut self.held).await;
            }
        }
        while let Ok(j) = rx.try_recv() {
            self.held.push_back(j);
        }
        bound_held(&mut self.held, &self.stats);
        true
    }

    /// Writes a group in one transaction, or job by job when a job in it failed: each
    /// job's result. `None` when the storage failed the whole group: it is to be held
    /// again, and the next try waits longer.
    async fn write(&mut self, jobs: &[Job]) -> Option<Vec<Result<JobDone, WriteError>>> {
        match write_group(
            &self.store,
            jobs,
            &self.defs,
            &self.faults,
            &mut self.credit,
        )
        .await
        {
            Ok(per_job) => Some(per_job.into_iter().map(Ok).collect()),
            Err(WriteError::Storage(e)) => {
                self.stats.write_errors.fetch_add(1, Relaxed);
                log_once_a_second(&mut self.last_error_log, &e);
                self.backoff = Some(storage_fault(&self.stats, self.backoff));
                None
            }
            Err(WriteError::Job(e)) => {
                tracing::debug!(error = %e, "a group failed; writing its jobs one by one");
                let mut v = Vec::with_capacity(jobs.len());
                for job in jobs {
                    let alone = std::slice::from_ref(job);
                    let written = write_group(
                        &self.store,
                        alone,
                        &self.defs,
                        &self.faults,
                        &mut self.credit,
                    )
                    .await;
                    v.push(written.map(|mut r| r.remove(0)));
                }
                Some(v)
            }
        }
    }

    /// Answers each job of a group by its result, holds again what is to be retried,
    /// and sets the wait before the next group.
    fn settle(&mut self, jobs: Vec<Job>, results: Vec<Result<JobDone, WriteError>>) {
        let (mut storage_failed, mut must_failed) = (false, false);
        let mut again = Vec::new();
        for (job, result) in jobs.into_iter().zip(results) {
            let retry = match result {
                Ok(done) => {
                    self.written(job, done);
                    None
                }
                Err(e) => self.failed(job, e),
            };
            match retry {
                Some(Retry::Storage(job)) => {
                    storage_failed = true;
                    again.push(job);
                }
                Some(Retry::Must(job)) => {
                    must_failed = true;
                    again.push(job);
                }
                None => {}
            }
        }
        hold_again(&mut self.held, again);
        self.backoff = next_wait(&self.stats, self.backoff, storage_failed, must_failed);
    }

    /// A job written: counted, its quest completions told, a finished round's outbox file
    /// removed, a barrier answered.
    fn written(&self, job: Job, (events, completions): JobDone) {
        match job {
            Job::Barrier(done) => {
                let _ = done.send(());
                return;
            }
            Job::Batch(b) => {
                b.pending.fetch_sub(1, Relaxed);
                self.stats.batches_written.fetch_add(1, Relaxed);
                self.stats.events_written.fetch_add(events, Relaxed);
            }
            Job::Must(m) => {
                if let Must::Finish { outbox, meta, .. } = &m {
                    self.stats.outbox_pending.fetch_sub(1, Relaxed);
                    match outbox {
                        Some(p) => {
                            let _ = std::fs::remove_file(p);
                        }
                        None => {
                            crate::lock::lock(&self.stats.unsaved).remove(&meta.round_key);
                        }
                    }
                }
            }
        }
        for (meta, c) in completions {
            (self.notify)(&meta, c);
        }
    }

    /// A job that failed: a batch that failed alone is dropped and counted (the replay
    /// file keeps it); what the storage refused, and a `Must`, are to be retried. A
    /// barrier is answered whatever happened.
    fn failed(&mut self, job: Job, error: WriteError) -> Option<Retry> {
        match (job, error) {
            (Job::Barrier(done), _) => {
                let _ = done.send(());
                None
            }
            (job, WriteError::Storage(e)) => {
                self.stats.write_errors.fetch_add(1, Relaxed);
                log_once_a_second(&mut self.last_error_log, &e);
                Some(Retry::Storage(job))
            }
            (Job::Batch(b), WriteError::Job(e)) => {
                b.pending.fetch_sub(1, Relaxed);
                self.stats.batches_dropped.fetch_add(1, Relaxed);
                self.stats.write_errors.fetch_add(1, Relaxed);
                tracing::error!(error = %e, round = %b.meta.round_key, tick = b.tick, "a history batch could not be written and was dropped (the replay file keeps it; reindex repairs)");
                None
            }
            (Job::Must(m), WriteError::Job(e)) => {
                self.stats.write_errors.fetch_add(1, Relaxed);
                log_once_a_second(&mut self.last_error_log, &e);
                Some(Retry::Must(Job::Must(m)))
            }
        }
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
