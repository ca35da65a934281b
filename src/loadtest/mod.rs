//! `undercooked loadtest`: N rooms × 4 players against a running server, over real
//! WebSockets, each seat played by a bot from the frames it receives (real play: moves,
//! presses, plates), so the server does the work a full house makes it do.
//!
//! Rooms are opened `ramp` a second (create, three joins, four sockets, the host starts when
//! the lobby says it can); the measuring window starts once every room had its countdown
//! and lasts `duration` seconds. The report: handshakes (connect → `welcome`), input → next
//! `snap` latency, snaps per client per second against the level's snapshot rate, full
//! frames beyond the cadence (each is a frame dropped from a full send queue), downlink bytes
//! per client per second, errors and closes by code, and this process's own CPU per room.
//!
//! A planning seat costs this process about 1 ms of CPU a second (it merges and decodes
//! every frame and plans); `planners` below 4 lets the other seats walk, sending the same
//! 20 inputs a second without reading the frames, so one machine can load more rooms.

mod http;
mod seat;

use seat::{Assignment, Mind, Role, RunClock, SeatStats};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub rooms: usize,
    pub duration: Duration,
    pub level: String,
    /// The level itself (the bots play from it; the server must serve the same `level`).
    pub level_source: crate::sim::Level,
    /// Rooms opened per second.
    pub ramp: f64,
    /// Seats per room whose bot plans from the frames (1–4); the rest walk.
    pub planners: u8,
}

/// Percentiles of a sample, in milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Spread {
    pub samples: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Spread {
    fn of(mut v: Vec<f64>) -> Spread {
        v.sort_by(f64::total_cmp);
        let at = |p: f64| {
            v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0.0)
        };
        Spread {
            samples: v.len(),
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// The figures of one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub rooms: usize,
    /// Seats a room whose bot planned from the frames (the rest walked).
    pub planners: u8,
    pub clients: usize,
    pub seconds: f64,
    pub handshake_ms: Spread,
    pub echo_ms: Spread,
    pub snaps_per_client_s: f64,
    pub expected_snaps_per_client_s: f64,
    /// Full frames beyond the cadence (one in 20, and each socket's first): drops.
    pub extra_full_frames: u64,
    pub downlink_bytes_per_client_s: f64,
    /// Sockets that ended by a close code, or an error, during the run.
    pub closes: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
    /// This load generator's own CPU, per room-second of the window.
    pub client_cpu_ms_per_room_s: f64,
}

/// Runs the load; `progress(elapsed, total)` is called about twice a second.
pub async fn run(config: Config, mut progress: impl FnMut(f64, f64)) -> Result<Report, String> {
    let layout = http::call(
        config.addr,
        "GET",
        &format!("/api/levels/{}", config.level),
        "",
    )
    .await?;
    let tick_hz = layout["tick_hz"].as_f64().unwrap_or(20.0);
    let snapshot_hz = layout["snapshot_hz"].as_f64().unwrap_or(tick_hz);
    let level = config.level_source.clone();
    let ramp_s = config.rooms as f64 / config.ramp.max(0.01);
    // Every room's countdown (3 s) and first frames before the window opens.
    let measure_from = Instant::now() + Duration::from_secs_f64(ramp_s + 5.0);
    let until = measure_from + config.duration;
    let clock = RunClock {
        tick_hz: tick_hz as u32,
        measure_from,
        until,
    };
    // Only the window's CPU counts (opening rooms and countdowns are not play); read at the
    // window's start even if opening the rooms is still going on.
    let cpu_at_start = tokio::spawn(async move {
        tokio::time::sleep_until(measure_from.into()).await;
        crate::process::now().0
    });
    let mut seats = Vec::new();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let began = Instant::now();
    for r in 0..config.rooms {
        let due = began + Duration::from_secs_f64(r as f64 / config.ramp.max(0.01));
        tokio::time::sleep_until(due.into()).await;
        match open_room(config.addr, r).await {
            Ok((code, tokens)) => {
                for (s, token) in tokens.into_iter().enumerate() {
                    let assignment = seat_assignment(&config, &code, s as u8, token);
                    seats.push(tokio::spawn(seat::play(assignment, level.clone(), clock)));
                }
            }
            Err(e) => *errors.entry(e).or_default() += 1,
        }
        progress(began.elapsed().as_secs_f64(), (until - began).as_secs_f64());
    }
    let total = (until - began).as_secs_f64();
    while Instant::now() < until {
        progress(began.elapsed().as_secs_f64(), total);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let cpu = crate::process::now().0 - cpu_at_start.await.unwrap_or(0.0);
    let mut all: Vec<SeatStats> = Vec::new();
    for s in seats {
        match s.await {
            Ok(st) => all.push(st),
            Err(e) => {
                *errors
                    .entry(format!("a client task failed: {e}"))
                    .or_default() += 1
            }
        }
    }
    progress(total, total);
    Ok(summarize(&config, all, errors, snapshot_hz, cpu))
}

fn summarize(
    config: &Config,
    seats: Vec<SeatStats>,
    mut errors: BTreeMap<String, u64>,
    snapshot_hz: f64,
    cpu_s: f64,
) -> Report {
    let secs = config.duration.as_secs_f64();
    let clients = seats.len();
    let mut closes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut snaps, mut full, mut bytes, mut seat_secs) = (0u64, 0u64, 0u64, 0f64);
    let mut handshakes = Vec::new();
    let mut echoes = Vec::new();
    let mut expected_full = 0u64;
    for s in seats {
        handshakes.extend(s.handshake_ms);
        echoes.extend(s.echo_ms);
        snaps += s.snaps;
        full += s.full;
        bytes += s.bytes;
        seat_secs += s.seconds;
        expected_full += s.snaps.div_ceil(20);
        if let Some(c) = s.closed {
            *closes.entry(c).or_default() += 1;
        }
        if let Some(e) = s.error {
            *errors.entry(e).or_default() += 1;
        }
    }
    let per_client = |n: f64| if seat_secs > 0.0 { n / seat_secs } else { 0.0 };
    Report {
        rooms: config.rooms,
        planners: config.planners,
        clients,
        seconds: secs,
        handshake_ms: Spread::of(handshakes),
        echo_ms: Spread::of(echoes),
        snaps_per_client_s: per_client(snaps as f64),
        expected_snaps_per_client_s: snapshot_hz,
        extra_full_frames: full.saturating_sub(expected_full),
        downlink_bytes_per_client_s: per_client(bytes as f64),
        closes,
        errors,
        client_cpu_ms_per_room_s: cpu_s * 1000.0 / (config.rooms.max(1) as f64 * secs.max(0.001)),
    }
}

/// Creates room `n` and joins three guests: the room code and the four seats' tokens.
async fn open_room(addr: SocketAddr, n: usize) -> Result<(String, Vec<String>), String> {
    let body = serde_json::json!({"name": format!("load{n}")}).to_string();
    let created = http::call(addr, "POST", "/api/rooms", &body).await?;
    let code = created["room_code"]
        .as_str()
        .ok_or("no room_code in the create answer")?
        .to_string();
    let mut tokens = vec![token_of(&created)?];
    for g in 1..4 {
        let body = serde_json::json!({"name": format!("load{n}-{g}")}).to_string();
        let joined = http::call(addr, "POST", &format!("/api/rooms/{code}/join"), &body).await?;
        tokens.push(token_of(&joined)?);
    }
    Ok((code, tokens))
}

/// A room's seat `seat`, with its token: the first seat hosts, and the first `planners`
/// seats plan from the frames (the others walk).
fn seat_assignment(config: &Config, code: &str, seat: u8, token: String) -> Assignment {
    Assignment {
        addr: config.addr,
        code: code.to_string(),
        token,
        seat,
        role: if seat == 0 {
            Role::Host {
                level_id: config.level.clone(),
            }
        } else {
            Role::Guest
        },
        mind: if seat < config.planners {
            Mind::Plans
        } else {
            Mind::Walks
        },
    }
}

fn token_of(v: &serde_json::Value) -> Result<String, String> {
    v["you"]["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "no token in the answer".to_string())
}
