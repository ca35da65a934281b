//! `/metrics`: the census in the OpenMetrics text format, written by `prometheus-client`
//! (names and types follow the conventions: counters end in `_total`, times in `_seconds`,
//! sizes in `_bytes`). A registry is built per scrape from the census's atomics; the tick
//! histograms are the census's own, shared.

use crate::process::{memory_mb, now as process_now};
use crate::shared::Shared;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// A room whose timer has not ticked for this long is stalled (its tick is 50 ms).
pub const STALLED: Duration = Duration::from_millis(500);

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

/// A gauge family of one label, from `(label value, value)` pairs.
fn gauges(
    label: &str,
    values: impl IntoIterator<Item = (String, i64)>,
) -> Family<Vec<(String, String)>, Gauge> {
    let f = Family::<Vec<(String, String)>, Gauge>::default();
    for (v, n) in values {
        f.get_or_create(&vec![(label.into(), v)]).set(n);
    }
    f
}

/// A counter family of one label, from `(label value, count)` pairs.
fn counters(
    label: &str,
    values: impl IntoIterator<Item = (String, u64)>,
) -> Family<Vec<(String, String)>, Counter> {
    let f = Family::<Vec<(String, String)>, Counter>::default();
    for (v, n) in values {
        f.get_or_create(&vec![(label.into(), v)]).inc_by(n);
    }
    f
}

pub fn text(shared: &Shared) -> String {
    let mut root = Registry::default();
    process(&mut root);
    let r = root.sub_registry_with_prefix("undercooked");
    rooms(r, shared);
    sockets(r, shared);
    for (name, help, v) in shared.census.totals() {
        r.register(name, help, counter(v));
    }
    connections(r, shared);
    ticks(r, shared);
    history(r, shared);
    replay_uploads(r, shared);
    log_stream(r, shared);
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = encode(&mut out, &root);
    out
}

/// The process's own: CPU and resident memory.
fn process(root: &mut Registry) {
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
}

/// Rooms by state and by their send queues' high-water band, spectators, sessions, peak
/// memory.
fn rooms(r: &mut Registry, shared: &Shared) {
    let (by_state, spectators) = shared.rooms.headcount();
    let states = by_state
        .iter()
        .map(|(s, n)| (s.name().to_string(), *n as i64));
    r.register("rooms", "Rooms by state", gauges("state", states));
    let bands = QUEUE_BANDS.iter().map(|b| (b.1.to_string(), 0));
    let highs = gauges("high_water", bands);
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
        "sessions_cached",
        "Sessions held in memory (those used in the last 10 minutes)",
        gauge(shared.sessions.cached() as i64),
    );
    r.register(
        "session_lookups",
        "Tokens looked up in the database (not in the session cache)",
        counter(shared.sessions.lookups()),
    );
    r.register(
        "memory_peak_bytes",
        "Peak resident memory",
        gauge((memory_mb() * 1024.0 * 1024.0) as i64),
    );
}

/// Sockets by state, the deepest send queue, refusals by close code.
fn sockets(r: &mut Registry, shared: &Shared) {
    let c = &shared.census;
    r.register(
        "sockets",
        "Open WebSocket connections (players and spectators)",
        gauge(c.sockets() as i64),
    );
    let states = c
        .sockets_by_state()
        .map(|(s, n)| (s.name().to_string(), n as i64));
    r.register(
        "sockets_by_state",
        "Open WebSocket connections by state: handshake (no hello yet), joined, closing",
        gauges("state", states),
    );
    r.register(
        "send_queue_max",
        "High-water mark of any connection's send queue, in frames",
        gauge(c.send_queue_max.load(Relaxed) as i64),
    );
    let codes = c
        .refusals()
        .into_iter()
        .map(|(code, n)| (code.to_string(), n));
    r.register(
        "refusals",
        "Connections refused or closed, by close code",
        counters("code", codes),
    );
}

/// The connection caps: held, the cap, refused by reason.
fn connections(r: &mut Registry, shared: &Shared) {
    r.register(
        "connections_open",
        "TCP connections held (sockets included)",
        gauge(shared.admission.open() as i64),
    );
    r.register(
        "connections_max",
        "The cap on connections held, the reserve included",
        gauge(shared.config.connections.max as i64),
    );
    let reasons = shared
        .admission
        .refusals()
        .into_iter()
        .map(|(why, n)| (why.name().to_string(), n));
    r.register(
        "connections_refused",
        "Connections (and socket upgrades) refused by the connection caps, by reason",
        counters("reason", reasons),
    );
}

/// Tick health: durations and lateness, the worst of each, and the stall gauge (a room
/// whose thread is held shows here while it lasts, not only once it ticks again).
fn ticks(r: &mut Registry, shared: &Shared) {
    let t = &shared.census.ticks;
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
    let (gap, stalled) = shared.rooms.tick_gaps(STALLED);
    r.register(
        "room_tick_gap_max_seconds",
        "The longest any open room has gone without its timer ticking, now (a tick is 0.05 s)",
        gauge_f64(gap.as_secs_f64()),
    );
    r.register(
        "rooms_stalled",
        "Open rooms whose timer has not ticked for more than 0.5 s, now",
        gauge(stalled as i64),
    );
}

/// The history's write chain, when attached.
fn history(r: &mut Registry, shared: &Shared) {
    let Some(chain) = shared.chain() else { return };
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

/// The replay uploads to PostgreSQL (docs/SCALING.md), when the history is there: a file
/// waiting, or failures that keep rising, say the database does not take the replays.
fn replay_uploads(r: &mut Registry, shared: &Shared) {
    let Some(uploads) = shared.uploads() else {
        return;
    };
    let s = &uploads.stats;
    for (name, help, v) in [
        (
            "replay_uploads",
            "Replay files uploaded to the database (the stored copy is now the file)",
            &s.uploaded,
        ),
        (
            "replay_uploads_kept",
            "Replay files the database already held whole: nothing uploaded",
            &s.kept,
        ),
        (
            "replay_upload_failures",
            "Failed replay uploads (each file is tried again)",
            &s.failures,
        ),
        (
            "replay_upload_bytes",
            "Bytes of replay files uploaded",
            &s.bytes,
        ),
    ] {
        r.register(name, help, counter(v.load(Relaxed)));
    }
    r.register(
        "replay_uploads_pending",
        "Replay files waiting to be uploaded or tried again",
        gauge(uploads.pending() as i64),
    );
}

/// The rounds' live logs streamed to PostgreSQL for adoption (docs/SCALING.md): what one
/// room-second costs the database, and failures that say it does not take them.
fn log_stream(r: &mut Registry, shared: &Shared) {
    let Some(stream) = shared.log_stream() else {
        return;
    };
    let s = &stream.stats;
    for (name, help, v) in [
        (
            "log_stream_chunks",
            "Chunks of live round logs written (about one a room-second)",
            &s.chunks,
        ),
        (
            "log_stream_bytes",
            "Bytes of live round logs written",
            &s.bytes,
        ),
        (
            "log_stream_statements",
            "Statements that wrote them (each takes every chunk waiting)",
            &s.statements,
        ),
        (
            "log_stream_failures",
            "Failed writes of live round logs (each is tried again)",
            &s.failures,
        ),
    ] {
        r.register(name, help, counter(v.load(Relaxed)));
    }
}
