//! The ordered write chain: every room's tick events go to the history (SQLite or
//! PostgreSQL) through one writer task.
//!
//! A room hands over a batch (one second of its events, and the rest before its round ends)
//! without ever waiting. With 20 of its batches still pending the next one is dropped, counted and logged: a database that fell
//! far behind is a lost cause rather than a queue worth growing, and the replay file still
//! has everything (`reindex` repairs). Batches are written in order, several rooms' in one
//! transaction, each idempotently. What must never be lost — a round's start and end, the
//! unlocks, sessions — is a `Must`: a round's end is first written to an outbox file, and
//! every `Must` is retried until the database takes it. When the storage fails (full,
//! read-only, locked) nothing is dropped for it: the writer holds what it could not write and
//! retries with a back-off until the fault clears (`writer`), and counts only what committed.

use super::Store;
use super::jobs::Job;
pub use super::jobs::{Batch, ChainStats, Faults, Must, Notify};
use super::outbox;
use super::quests;
use super::rescue::Tally;
use super::writer;
use crate::lock::lock;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use tokio::sync::{mpsc, oneshot};

/// Batches one room may have waiting before the next is dropped.
pub const MAX_PENDING: usize = 20;

#[derive(Clone)]
pub struct Chain {
    tx: mpsc::UnboundedSender<Job>,
    pub stats: Arc<ChainStats>,
    pub faults: Arc<Faults>,
    outbox_dir: PathBuf,
}

impl Chain {
    /// Starts the writer; round ends left in the outbox by an earlier run are queued first.
    pub async fn start(
        store: Store,
        outbox_dir: PathBuf,
        notify: Notify,
    ) -> Result<Chain, super::StoreError> {
        let _ = std::fs::create_dir_all(&outbox_dir);
        let defs = super::on_conn!(store, conn => quests::load(conn).await?);
        let (tx, rx) = mpsc::unbounded_channel();
        let chain = Chain {
            tx,
            stats: Arc::new(ChainStats::default()),
            faults: Arc::new(Faults::default()),
            outbox_dir,
        };
        for (meta, outcome, path) in outbox::read(&chain.outbox_dir) {
            chain.stats.outbox_pending.fetch_add(1, Relaxed);
            let _ = chain.tx.send(Job::Must(Must::Begin(meta.clone())));
            let _ = chain.tx.send(Job::Must(Must::Finish {
                meta,
                outcome,
                outbox: Some(path),
            }));
        }
        tokio::spawn(writer::run(
            store,
            defs,
            rx,
            chain.stats.clone(),
            chain.faults.clone(),
            notify,
        ));
        Ok(chain)
    }

    /// Hands over one tick's events without waiting; false when the room has 20 batches
    /// pending and this one was dropped.
    pub fn submit(&self, batch: Batch) -> bool {
        if batch.pending.load(Relaxed) >= MAX_PENDING {
            self.stats.batches_dropped.fetch_add(1, Relaxed);
            tracing::warn!(room = %batch.meta.room_code, round = %batch.meta.round_key, tick = batch.tick, "history batch dropped: 20 batches already pending");
            return false;
        }
        batch.pending.fetch_add(1, Relaxed);
        if self.tx.send(Job::Batch(batch)).is_err() {
            self.stats.batches_dropped.fetch_add(1, Relaxed);
            return false;
        }
        true
    }

    /// Queues something that must be written. A round's end goes to the outbox file first.
    pub fn must(&self, mut job: Must) {
        if let Must::Finish {
            meta,
            outcome,
            outbox,
        } = &mut job
        {
            match outbox::write(&self.outbox_dir, meta, outcome) {
                Ok(path) => *outbox = Some(path),
                Err(e) => {
                    tracing::error!(round = %meta.round_key, error = %e, "the round's result could not be written to the outbox; it stays in memory until the database takes it");
                    lock(&self.stats.unsaved)
                        .insert(meta.round_key.clone(), (meta.clone(), outcome.clone()));
                }
            }
            self.stats.outbox_pending.fetch_add(1, Relaxed);
        }
        let _ = self.tx.send(Job::Must(job));
    }

    /// Results the database has not committed yet, counting those safe in an outbox file.
    pub fn results_pending(&self) -> u64 {
        self.stats.outbox_pending.load(Relaxed)
    }

    /// At shutdown, after the grace: every result only memory holds goes to an outbox file,
    /// in the data folder's outbox when it takes it now, else in `rescue_dir/outbox/`.
    pub fn write_out(&self, rescue_dir: &std::path::Path) -> Tally {
        let mut tally = Tally::default();
        let unsaved = std::mem::take(&mut *lock(&self.stats.unsaved));
        for (key, (meta, outcome)) in unsaved {
            let rescue = rescue_dir.join("outbox");
            let written = outbox::write(&self.outbox_dir, &meta, &outcome).or_else(|_| {
                std::fs::create_dir_all(&rescue)?;
                outbox::write(&rescue, &meta, &outcome)
            });
            match written {
                Ok(path) => {
                    tally.done += 1;
                    tracing::warn!(round = %key, room = %meta.room_code, to = %path.display(), "the round's result was written for the next start");
                }
                Err(e) => {
                    tally.failed += 1;
                    tracing::error!(round = %key, room = %meta.room_code, error = %e, "round dropped: its result could not be written anywhere");
                }
            }
        }
        tally
    }

    /// Resolves once everything queued before it was written (or dropped).
    pub async fn flushed(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Job::Barrier(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}
