//! `/metrics`: the census in the OpenMetrics text format, written by `prometheus-client`
//! (names and types follow the conventions: counters end in `_total`, times in `_seconds`,
//! sizes in `_bytes`). A registry is built per scrape from the census's atomics; the tick
//! histograms are the census's own, shared.

use crate::shared::Shared;
use crate::shared::census::{memory_mb, process_now};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The content type the text is written in.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

fn counter(v: u64) -> Counter {
    let c = Counter::default();
    c.inc_by(v);
    c
}

fn gauge(v: i64) -> Gauge {
    let g = Gauge::default();
    g.set(v);
    g
}

fn gauge_f64(v: f64) -> Gauge<f64, AtomicU64> {
    let g = Gauge::<f64, AtomicU64>::default();
    g.set(v);
    g
}

/// Bands of a room's send-queue high-water mark (the queue holds 64 frames): a per-room
/// label would grow with the rooms, so rooms are counted by band instead (and
/// `/api/stats` lists each room's mark by code).
const QUEUE_BANDS: [(u8, &str); 6] = [
    (1, "0-1"),
    (2, "2"),
    (4, "3-4"),
    (16, "5-16"),
    (63, "17-63"),
    (u8::MAX, "64"),
];

pub fn text(shared: &Shared) -> String {
    let c = &shared.census;
    let mut root = Registry::default();
    let (cpu, rss) = process_now();
    let cpu_total = Counter::<f64, AtomicU64>::default();
    cpu_total.inc_by(cpu);
    root.register(
        "process_cpu_seconds",
        "User and system CPU time spent",
        cpu_total,
    );
    root.register(
        "process_resident_memory_bytes",
        "Resident memory size",
        gauge(rss as i64),
    );
    let r = root.sub_registry_with_prefix("undercooked");
    let rooms = Family::<Vec<(String, String)>, Gauge>::default();
    let (by_state, spectators) = shared.rooms.headcount();
    for (state, n) in by_state.iter() {
        rooms
            .get_or_create(&vec![("state".into(), state.name().into())])
            .set(*n as i64);
    }
    r.register("rooms", "Rooms by state", rooms);
    r.register(
        "sockets",
        "Open WebSocket connections (players and spectators)",
        gauge(c.sockets() as i64),
    );
    let by_state = Family::<Vec<(String, String)>, Gauge>::default();
    for (state, n) in c.sockets_by_state() {
        by_state
            .get_or_create(&vec![("state".into(), state.name().into())])
            .set(n as i64);
    }
    r.register(
        "sockets_by_state",
        "Open WebSocket connections by state: handshake (no hello yet), joined, closing",
        by_state,
    );
    let highs = Family::<Vec<(String, String)>, Gauge>::default();
    for band in QUEUE_BANDS {
        highs
            .get_or_create(&vec![("high_water".into(), band.1.into())])
            .set(0);
    }
    for high in shared.rooms.send_queue_highs().values() {
        if let Some(band) = QUEUE_BANDS.iter().find(|(top, _)| *high <= *top) {
            highs
                .get_or_create(&vec![("high_water".into(), band.1.into())])
                .inc();
        }
    }
    r.register(
        "rooms_by_send_queue_high_water",
        "Open rooms by the deepest any of their send queues has been, in frames (64: full, frames dropped)",
        highs,
    );
    r.register(
        "spectators",
        "Watching connections",
        gauge(spectators as i64),
    );
    r.register(
        "send_queue_max",
        "High-water mark of any connection's send queue, in frames",
        gauge(c.send_queue_max.load(Relaxed) as i64),
    );
    r.register(
        "memory_peak_bytes",
        "Peak resident memory",
        gauge((memory_mb() * 1024.0 * 1024.0) as i64),
    );
    for (name, help, v) in c.totals() {
        r.register(name, help, counter(v));
    }
    let refusals = Family::<Vec<(String, String)>, Counter>::default();
    for (code, n) in c.refusals() {
        refusals
            .get_or_create(&vec![("code".into(), code.to_string())])
            .inc_by(n);
    }
    r.register(
        "refusals",
        "Connections refused or closed, by close code",
        refusals,
    );
    r.register(
        "sessions_cached",
        "Sessions held in memory (those used in the last 10 minutes)",
        gauge(shared.sessions.cached() as i64),
    );
    r.register(
        "connections_open",
        "TCP connections held (sockets included)",
        gauge(shared.gate.open() as i64),
    );
    r.register(
        "connections_max",
        "The cap on connections held, the reserve included",
        gauge(shared.config.connections.max as i64),
    );
    let turned = Family::<Vec<(String, String)>, Counter>::default();
    for (why, n) in shared.gate.refusals() {
        turned
            .get_or_create(&vec![("reason".into(), why.name().into())])
            .inc_by(n);
    }
    r.register(
        "connections_refused",
        "Connections (and socket upgrades) refused by the connection caps, by reason",
        turned,
    );
    let t = &c.ticks;
    r.register(
        "tick_duration_seconds",
        "How long each playing room's tick ran",
        t.duration.clone(),
    );
    r.register(
        "tick_lateness_seconds",
        "How late each tick started against its schedule",
        t.lateness.clone(),
    );
    r.register(
        "ticks_late",
        "Ticks that started more than 5 ms late",
        t.late.clone(),
    );
    let (worst_run, worst_late) = t.worst_us();
    r.register(
        "tick_duration_max_seconds",
        "The longest tick since the server started",
        gauge_f64(worst_run as f64 / 1e6),
    );
    r.register(
        "tick_lateness_max_seconds",
        "The latest tick start since the server started",
        gauge_f64(worst_late as f64 / 1e6),
    );
    if let Some(chain) = shared.chain() {
        let s = &chain.stats;
        for (name, help, v) in s.totals() {
            r.register(format!("history_{name}"), help, counter(v));
        }
        r.register(
            "history_outbox_pending",
            "Round results waiting in the outbox",
            gauge(s.outbox_pending.load(Relaxed) as i64),
        );
        r.register(
            "storage_degraded",
            "1 while history writes fail for the storage (full, read-only, locked) and are held for retry",
            gauge(s.storage_degraded.load(Relaxed) as i64),
        );
    }
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = encode(&mut out, &root);
    out
}
