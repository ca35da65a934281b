//! The census: counters every room and socket bumps, read by `/api/stats` and `/metrics`.
//!
//! Atomics, so counting never waits and no request ever waits on a room. The room
//! registry keeps the per-state room counts; this keeps everything that is a running total.

use crate::net::Link;
use crate::wire::messages::Refusal;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// A tick that starts this much after its schedule counts as late.
pub const LATE: Duration = Duration::from_millis(5);

/// How every room's ticks went: durations and start lateness as histograms (seconds, so
/// p50/p99 are derivable; durations in buckets from 25 µs doubling to about 0.4 s, lateness
/// in buckets with an edge at the 5 ms that counts as late), the worst of each, and the
/// ticks that started more than 5 ms late.
pub struct TickHealth {
    pub duration: Histogram,
    pub lateness: Histogram,
    pub late: Counter,
    observed: AtomicU64,
    max_duration_us: AtomicU64,
    max_lateness_us: AtomicU64,
}

impl Default for TickHealth {
    fn default() -> Self {
        const LATENESS_MS: [f64; 15] = [
            0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0,
        ];
        TickHealth {
            duration: Histogram::new(exponential_buckets(0.000_025, 2.0, 15)),
            lateness: Histogram::new(LATENESS_MS.iter().map(|ms| ms / 1000.0)),
            late: Counter::default(),
            observed: AtomicU64::new(0),
            max_duration_us: AtomicU64::new(0),
            max_lateness_us: AtomicU64::new(0),
        }
    }
}

impl TickHealth {
    pub fn observe(&self, duration: Duration, lateness: Duration) {
        self.duration.observe(duration.as_secs_f64());
        self.lateness.observe(lateness.as_secs_f64());
        if lateness > LATE {
            self.late.inc();
        }
        self.observed.fetch_add(1, Relaxed);
        self.max_duration_us
            .fetch_max(duration.as_micros() as u64, Relaxed);
        self.max_lateness_us
            .fetch_max(lateness.as_micros() as u64, Relaxed);
    }

    /// Ticks observed.
    pub fn count(&self) -> u64 {
        self.observed.load(Relaxed)
    }

    /// The longest tick and the latest start, in microseconds.
    pub fn worst_us(&self) -> (u64, u64) {
        (
            self.max_duration_us.load(Relaxed),
            self.max_lateness_us.load(Relaxed),
        )
    }
}

/// Where an open socket is in its life: waiting for `hello`, joined to its room, or
/// closed by the server and draining until the client answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketState {
    Handshake,
    Joined,
    Closing,
}

impl SocketState {
    pub const ALL: [SocketState; 3] = [
        SocketState::Handshake,
        SocketState::Joined,
        SocketState::Closing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SocketState::Handshake => "handshake",
            SocketState::Joined => "joined",
            SocketState::Closing => "closing",
        }
    }
}

#[derive(Default)]
pub struct Census {
    /// Open sockets by `SocketState`, in `SocketState::ALL`'s order (their sum is every
    /// open socket).
    sockets_by_state: [AtomicU64; 3],
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
    pub ticks: TickHealth,
    /// Connections refused or closed, by close code (and `403` for refused upgrades).
    refusals: Mutex<BTreeMap<u16, u64>>,
}

impl Census {
    pub fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    /// Refuses a connection: an `err` frame, then the close, counted by its code.
    pub fn refuse(&self, link: &Link, refusal: &Refusal, close: u16) {
        link.refuse(refusal, close);
        self.refused(close);
    }

    pub fn refused(&self, close_code: u16) {
        *crate::lock::lock(&self.refusals)
            .entry(close_code)
            .or_insert(0) += 1;
    }

    pub fn refusals(&self) -> BTreeMap<u16, u64> {
        crate::lock::lock(&self.refusals).clone()
    }

    /// The running totals as (name, help, value): the one list `/api/stats` prints under
    /// these names and `/metrics` as `undercooked_<name>_total`.
    pub fn totals(&self) -> [(&'static str, &'static str, u64); 9] {
        let v = |c: &AtomicU64| c.load(Relaxed);
        [
            ("rounds_started", "Rounds started", v(&self.rounds_started)),
            (
                "rounds_completed",
                "Rounds that reached a verdict",
                v(&self.rounds_completed),
            ),
            ("rounds_aborted", "Rounds aborted", v(&self.rounds_aborted)),
            (
                "inputs_received",
                "Input frames queued",
                v(&self.inputs_received),
            ),
            (
                "inputs_dropped",
                "Input frames dropped by the per-tick queue",
                v(&self.inputs_dropped),
            ),
            (
                "stale_seqs",
                "Input frames behind the connection's seq",
                v(&self.stale_seqs),
            ),
            (
                "clamped_moves",
                "Input moves clamped to magnitude 1",
                v(&self.clamped_moves),
            ),
            (
                "input_gaps",
                "Input seq jumps larger than 3",
                v(&self.input_gaps),
            ),
            (
                "events_dropped",
                "Events over the 24-per-frame cap",
                v(&self.events_dropped),
            ),
        ]
    }

    /// A socket moves from one state to another (`None`: it opens, or it closes).
    pub fn socket_moved(&self, from: Option<SocketState>, to: Option<SocketState>) {
        if let Some(s) = from {
            self.sockets_by_state[s as usize].fetch_sub(1, Relaxed);
        }
        if let Some(s) = to {
            self.sockets_by_state[s as usize].fetch_add(1, Relaxed);
        }
    }

    /// Open sockets, in every state.
    pub fn sockets(&self) -> u64 {
        self.sockets_by_state.iter().map(|n| n.load(Relaxed)).sum()
    }

    /// Open sockets in `state`.
    pub fn sockets_in(&self, state: SocketState) -> u64 {
        self.sockets_by_state[state as usize].load(Relaxed)
    }

    /// Open sockets in each state.
    pub fn sockets_by_state(&self) -> [(SocketState, u64); 3] {
        SocketState::ALL.map(|s| (s, self.sockets_by_state[s as usize].load(Relaxed)))
    }

    /// A send queue now holds `depth` frames. Called for every frame to every connection,
    /// so the shared mark is only written when it rises (a plain read otherwise: no
    /// cache line bouncing between the rooms' threads).
    pub fn queue_depth(&self, depth: usize) {
        let depth = depth as u64;
        if depth > self.send_queue_max.load(Relaxed) {
            self.send_queue_max.fetch_max(depth, Relaxed);
        }
    }
}
