//! What travels down the write chain: a room's batch of events, what must never be lost,
//! and the counters and test faults the chain and its writer share. Its own file so the
//! chain (which takes jobs in) and the writer (which writes them) both depend on it and not
//! on each other.

use super::quests::Completion;
use super::rows::{EventRow, RoundMeta, RoundOutcome, SessionRow};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use tokio::sync::oneshot;

pub struct Batch {
    pub meta: Arc<RoundMeta>,
    pub tick: u32,
    pub rows: Vec<EventRow>,
    /// The room's count of its batches not yet written.
    pub pending: Arc<AtomicUsize>,
}

#[derive(Clone)]
pub enum Must {
    Begin(Arc<RoundMeta>),
    Finish {
        meta: Arc<RoundMeta>,
        outcome: RoundOutcome,
        outbox: Option<PathBuf>,
    },
    Session(SessionRow),
}

#[derive(Default)]
pub struct ChainStats {
    pub batches_written: AtomicU64,
    pub batches_dropped: AtomicU64,
    pub events_written: AtomicU64,
    pub write_errors: AtomicU64,
    pub outbox_pending: AtomicU64,
    /// Set while the storage refuses writes (full, read-only, locked); cleared by the first
    /// commit after it.
    pub storage_degraded: AtomicBool,
    /// Round results in memory only (the outbox refused them), by round key, until the
    /// database commits them: what a shutdown must still write somewhere.
    pub unsaved: std::sync::Mutex<std::collections::BTreeMap<String, Unsaved>>,
}

/// A round's result that only memory holds.
pub type Unsaved = (Arc<RoundMeta>, RoundOutcome);

impl ChainStats {
    /// The history's running totals as (name, help, value): `/api/stats` prints them under
    /// these names, `/metrics` as `undercooked_history_<name>_total`.
    pub fn totals(&self) -> [(&'static str, &'static str, u64); 4] {
        use std::sync::atomic::Ordering::Relaxed;
        [
            (
                "batches_written",
                "History batches written",
                self.batches_written.load(Relaxed),
            ),
            (
                "batches_dropped",
                "History batches dropped (20 of the room's pending, a batch that cannot be written, or held past the bound through a storage fault)",
                self.batches_dropped.load(Relaxed),
            ),
            (
                "events_written",
                "History event rows written",
                self.events_written.load(Relaxed),
            ),
            (
                "write_errors",
                "History writes that failed",
                self.write_errors.load(Relaxed),
            ),
        ]
    }
}

/// The test seam: a slow or failing database, without touching file permissions.
#[derive(Default)]
pub struct Faults {
    pub slow_ms: AtomicU64,
    pub fail: AtomicBool,
    /// 0 untouched; 1 every write transaction first turns SQLite's `query_only` on, so its
    /// writes fail as on a read-only disk (`SQLITE_READONLY`); 2 turns it off again.
    pub read_only: std::sync::atomic::AtomicU8,
}

/// Where a quest completion goes (the server routes it to that player alone).
pub type Notify = Arc<dyn Fn(&RoundMeta, Completion) + Send + Sync>;

/// One thing for the writer: a batch, a `Must`, or a barrier answered once everything
/// before it was written (or held through a storage fault).
pub(super) enum Job {
    Batch(Batch),
    Must(Must),
    Barrier(oneshot::Sender<()>),
}
