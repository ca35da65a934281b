//! The census: counters every room and socket bumps, read by `/api/stats` and `/metrics`.
//!
//! Atomics, so counting never waits and no request ever waits on a room. The room
//! registry keeps the per-state room counts; this keeps everything that is a running total.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default)]
pub struct Census {
    pub sockets: AtomicU64,
    pub send_queue_max: AtomicU64,
    pub rounds_started: AtomicU64,
    pub rounds_completed: AtomicU64,
    pub rounds_aborted: AtomicU64,
    pub inputs_received: AtomicU64,
    pub inputs_dropped: AtomicU64,
    pub stale_seqs: AtomicU64,
    pub clamped_moves: AtomicU64,
    pub input_gaps: AtomicU64,
    pub events_dropped: AtomicU64,
    /// Connections refused or closed, by close code (and `403` for refused upgrades).
    refusals: Mutex<BTreeMap<u16, u64>>,
}

impl Census {
    pub fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    pub fn refused(&self, close_code: u16) {
        *self
            .refusals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(close_code)
            .or_insert(0) += 1;
    }

    pub fn refusals(&self) -> BTreeMap<u16, u64> {
        self.refusals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn queue_depth(&self, depth: usize) {
        self.send_queue_max.fetch_max(depth as u64, Relaxed);
    }
}

/// Resident memory high-water mark, in MiB (Linux; 0 elsewhere).
pub fn memory_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| (kb / 1024.0 * 10.0).round() / 10.0)
}
