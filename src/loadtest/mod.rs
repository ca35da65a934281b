//! `undercooked loadtest`: N rooms × 4 players against a running server, or against several
//! nodes of a cluster at once, over real WebSockets, each seat played by a bot from the frames
//! it receives (real play: moves, presses, plates), so the server does the work a full house
//! makes it do.
//!
//! Rooms are opened `ramp` a second (create, three joins, four sockets, the host starts when
//! the lobby says it can); the measuring window starts once every room had its countdown
//! and lasts `duration` seconds. The report: handshakes (connect → `welcome`), input → next
//! `snap` latency, snaps per client per second against the level's snapshot rate, full
//! frames beyond the cadence (each is a frame dropped from a full send queue), downlink bytes
//! per client per second, errors and closes by code, and this process's own CPU per room.
//!
//! With several nodes, room i is created on node i mod N and its three guests join through
//! the next node, (i + 1) mod N, so every join but a single node's is forwarded to the room's
//! owner, as a load balancer spreading HTTP calls would make it; each seat opens its socket
//! where its seat answer's `ws_url` says (the room's own node). The report gives the figures
//! per node (the rooms created on it and their seats) beside the totals.
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
    /// The servers' HTTP addresses: one, or a cluster's nodes (room i is created on node
    /// i mod N; at least one).
    pub nodes: Vec<SocketAddr>,
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

/// What the seats of some rooms saw: the whole run's, or one node's.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Figures {
    pub clients: usize,
    pub handshake_ms: Spread,
    pub echo_ms: Spread,
    pub snaps_per_client_s: f64,
    /// Full frames beyond the cadence (one in 20, and each socket's first): drops.
    pub extra_full_frames: u64,
    pub downlink_bytes_per_client_s: f64,
    /// Sockets that ended by a close code, or an error, during the run (a room that could
    /// not be opened counts here too, under what its create or join was answered).
    pub closes: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
}

/// One node's share of a run: the rooms created on it, and what their seats saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct NodeReport {
    /// The node's address, `HOST:PORT`.
    pub node: String,
    /// Rooms created on it whose four seats were handed out (the room lives there).
    pub rooms: usize,
    #[serde(flatten)]
    pub figures: Figures,
}

/// The figures of one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Rooms asked for.
    pub rooms: usize,
    /// Rooms whose four seats were handed out (the rest are in `errors`).
    pub rooms_opened: usize,
    /// Seats a room whose bot planned from the frames (the rest walked).
    pub planners: u8,
    pub seconds: f64,
    pub expected_snaps_per_client_s: f64,
    /// Every seat of every node.
    #[serde(flatten)]
    pub total: Figures,
    /// This load generator's own CPU, per room-second of the window.
    pub client_cpu_ms_per_room_s: f64,
    /// Each node's share, in the order given (one entry against a single server).
    pub nodes: Vec<NodeReport>,
}

/// Runs the load; `progress(elapsed, total)` is called about twice a second.
pub async fn run(config: Config, mut progress: impl FnMut(f64, f64)) -> Result<Report, String> {
    let Some(&first) = config.nodes.first() else {
        return Err("no server to load: give at least one URL".into());
    };
    let layout = http::call(first, "GET", &format!("/api/levels/{}", config.level), "").await?;
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
    let n = config.nodes.len();
    // Each seat's task, by the index of the node its room was created on.
    let mut seats = Vec::new();
    let mut opened = vec![0usize; n];
    let mut errors: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); n];
    let began = Instant::now();
    for r in 0..config.rooms {
        let due = began + Duration::from_secs_f64(r as f64 / config.ramp.max(0.01));
        tokio::time::sleep_until(due.into()).await;
        let (owner, joins) = (r % n, (r + 1) % n);
        match open_room(config.nodes[owner], config.nodes[joins], r).await {
            Ok(handed) => {
                opened[owner] += 1;
                for (s, (token, ws_url)) in handed.into_iter().enumerate() {
                    let assignment = seat_assignment(&config, ws_url, s as u8, token);
                    let task = tokio::spawn(seat::play(assignment, level.clone(), clock));
                    seats.push((owner, task));
                }
            }
            Err(e) => *errors[owner].entry(e).or_default() += 1,
        }
        progress(began.elapsed().as_secs_f64(), (until - began).as_secs_f64());
    }
    let total = (until - began).as_secs_f64();
    while Instant::now() < until {
        progress(began.elapsed().as_secs_f64(), total);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let cpu = crate::process::now().0 - cpu_at_start.await.unwrap_or(0.0);
    let mut by_node: Vec<Vec<SeatStats>> = (0..n).map(|_| Vec::new()).collect();
    for (owner, s) in seats {
        match s.await {
            Ok(st) => by_node[owner].push(st),
            Err(e) => {
                *errors[owner]
                    .entry(format!("a client task failed: {e}"))
                    .or_default() += 1
            }
        }
    }
    progress(total, total);
    let secs = config.duration.as_secs_f64();
    let nodes: Vec<NodeReport> = config
        .nodes
        .iter()
        .zip(by_node.iter().zip(errors))
        .zip(&opened)
        .map(|((addr, (seats, errors)), &rooms)| NodeReport {
            node: addr.to_string(),
            rooms,
            figures: figures(seats.iter(), errors),
        })
        .collect();
    let every_error =
        nodes
            .iter()
            .flat_map(|n| &n.figures.errors)
            .fold(BTreeMap::new(), |mut all, (k, v)| {
                *all.entry(k.clone()).or_default() += v;
                all
            });
    Ok(Report {
        rooms: config.rooms,
        rooms_opened: opened.iter().sum(),
        planners: config.planners,
        seconds: secs,
        expected_snaps_per_client_s: snapshot_hz,
        total: figures(by_node.iter().flatten(), every_error),
        client_cpu_ms_per_room_s: cpu * 1000.0 / (config.rooms.max(1) as f64 * secs.max(0.001)),
        nodes,
    })
}

/// What `seats` saw, with the `errors` met before any of them played (rooms not opened).
fn figures<'a>(
    seats: impl Iterator<Item = &'a SeatStats>,
    mut errors: BTreeMap<String, u64>,
) -> Figures {
    let mut clients = 0;
    let mut closes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut snaps, mut full, mut bytes, mut seat_secs) = (0u64, 0u64, 0u64, 0f64);
    let mut handshakes = Vec::new();
    let mut echoes = Vec::new();
    let mut expected_full = 0u64;
    for s in seats {
        clients += 1;
        handshakes.extend(s.handshake_ms);
        echoes.extend(s.echo_ms.iter().copied());
        snaps += s.snaps;
        full += s.full;
        bytes += s.bytes;
        seat_secs += s.seconds;
        expected_full += s.snaps.div_ceil(20);
        if let Some(c) = &s.closed {
            *closes.entry(c.clone()).or_default() += 1;
        }
        if let Some(e) = &s.error {
            *errors.entry(e.clone()).or_default() += 1;
        }
    }
    let per_client = |n: f64| if seat_secs > 0.0 { n / seat_secs } else { 0.0 };
    Figures {
        clients,
        handshake_ms: Spread::of(handshakes),
        echo_ms: Spread::of(echoes),
        snaps_per_client_s: per_client(snaps as f64),
        extra_full_frames: full.saturating_sub(expected_full),
        downlink_bytes_per_client_s: per_client(bytes as f64),
        closes,
        errors,
    }
}

/// Creates room `n` on `owner` and joins three guests through `joins` (the same node, or
/// the next one of a cluster): each of the four seats' token and socket URL.
async fn open_room(
    owner: SocketAddr,
    joins: SocketAddr,
    n: usize,
) -> Result<Vec<(String, String)>, String> {
    let body = serde_json::json!({"name": format!("load{n}")}).to_string();
    let created = http::call(owner, "POST", "/api/rooms", &body).await?;
    let code = created["room_code"]
        .as_str()
        .ok_or("no room_code in the create answer")?
        .to_string();
    let mut seats = vec![seat_of(&created, owner, &code)?];
    for g in 1..4 {
        let body = serde_json::json!({"name": format!("load{n}-{g}")}).to_string();
        let joined = http::call(joins, "POST", &format!("/api/rooms/{code}/join"), &body).await?;
        seats.push(seat_of(&joined, joins, &code)?);
    }
    Ok(seats)
}

/// Seat `seat` of a room, at `ws_url`: the first seat hosts, and the first `planners` seats
/// plan from the frames (the others walk).
fn seat_assignment(config: &Config, ws_url: String, seat: u8, token: String) -> Assignment {
    Assignment {
        ws_url,
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

/// A seat answer's token, and where its socket opens: the answer's `ws_url` (a cluster
/// names the room's own node), else room `code`'s socket on `asked`, the server that
/// answered (a single server sends no `ws_url`).
fn seat_of(
    v: &serde_json::Value,
    asked: SocketAddr,
    code: &str,
) -> Result<(String, String), String> {
    let token = v["you"]["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "no token in the answer".to_string())?;
    let ws_url = v["ws_url"]
        .as_str()
        .map_or_else(|| format!("ws://{asked}/ws/{code}"), str::to_string);
    Ok((token, ws_url))
}
