//! One load client: a WebSocket seat that plays with a bot from the frames it receives
//! (merged exactly as a browser merges them) and measures what a player would notice.

use crate::bots::BotTeam;
use crate::sim::CookInput;
use crate::sim::Level;
use crate::wire::merge::apply_frame;
use crate::wire::messages::client::input_message;
use crate::wire::view::FrameView;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// How every `snap` message begins (`wire::snapshot` writes it so).
const SNAP_PREFIX: &str = "{\"type\":\"snap\"";

/// What one seat saw. Times in milliseconds.
#[derive(Default, Debug)]
pub struct SeatStats {
    /// Connect → `welcome`.
    pub handshake_ms: Option<f64>,
    /// Each input → the next `snap` (the earliest a change can show).
    pub echo_ms: Vec<f64>,
    /// Snaps, full ones and bytes received inside the measuring window.
    pub snaps: u64,
    pub full: u64,
    pub bytes: u64,
    /// Seconds the seat spent inside the window, receiving.
    pub seconds: f64,
    /// How the socket ended: `None` while open at the end; a close code; or an error.
    pub closed: Option<String>,
    pub error: Option<String>,
}

/// What the seat does in its room.
pub enum Role {
    /// Sets the level and starts once its three guests are ready.
    Host {
        level_id: String,
    },
    Guest,
}

/// How a seat chooses its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mind {
    /// A bot plans from the merged frames (real play).
    Plans,
    /// Walks back and forth, one input a snap, without reading the frames beyond their
    /// type: the server's work is the same (it cannot tell), the client's a tenth.
    Walks,
}

/// Plays seat `seat` with `token` until `until`; counts only after `measure_from`.
#[allow(clippy::too_many_arguments)]
pub async fn play(
    addr: SocketAddr,
    code: String,
    token: String,
    seat: u8,
    role: Role,
    mind: Mind,
    level: Level,
    tick_hz: u32,
    measure_from: Instant,
    until: Instant,
) -> SeatStats {
    let mut stats = SeatStats::default();
    let start = Instant::now();
    let url = format!("ws://{addr}/ws/{code}");
    // tungstenite zeroes its read buffer's free part before each read: at the default
    // 128 KiB that was an eighth of this client's CPU, for frames of a few KB.
    let config = WebSocketConfig::default().read_buffer_size(8 * 1024);
    let ws = match tokio_tungstenite::connect_async_with_config(url.as_str(), Some(config), false)
        .await
    {
        Ok((ws, _)) => ws,
        Err(e) => {
            stats.error = Some(format!("connect: {e}"));
            return stats;
        }
    };
    let (mut tx, mut rx) = ws.split();
    let hello = json!({"type": "hello", "p": crate::PROTOCOL_VERSION, "token": token});
    let mut first: Vec<Value> = vec![hello];
    match &role {
        Role::Host { level_id } => first.push(json!({"type": "set_level", "level": level_id})),
        Role::Guest => first.push(json!({"type": "ready"})),
    }
    for m in first {
        if tx.send(Message::text(m.to_string())).await.is_err() {
            stats.error = Some("the socket closed during hello".into());
            return stats;
        }
    }
    let mut team = BotTeam::new(&level, tick_hz, &[seat]);
    let mut merged: Option<Value> = None;
    let mut pending_echo: Option<Instant> = None;
    let mut started = false;
    let mut window_start: Option<Instant> = None;
    let mut walked: u64 = 0;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let next = match tokio::time::timeout(left.min(Duration::from_secs(10)), rx.next()).await {
            Err(_) if Instant::now() >= until => break,
            Err(_) => {
                stats.error = Some("no frame for 10 s".into());
                break;
            }
            Ok(None) => {
                stats.closed = Some("eof".into());
                break;
            }
            Ok(Some(Err(e))) => {
                stats.error = Some(e.to_string());
                break;
            }
            Ok(Some(Ok(m))) => m,
        };
        let text = match next {
            Message::Text(t) => t,
            Message::Close(frame) => {
                stats.closed = Some(frame.map_or("1005".into(), |f| u16::from(f.code).to_string()));
                break;
            }
            _ => continue,
        };
        if mind == Mind::Walks && text.as_str().starts_with(SNAP_PREFIX) {
            let now = Instant::now();
            if now >= measure_from {
                window_start.get_or_insert(now);
                stats.snaps += 1;
                stats.full += text.as_str().contains("\"full\":true") as u64;
                stats.bytes += text.len() as u64;
                if let Some(sent) = pending_echo.take() {
                    stats.echo_ms.push(sent.elapsed().as_secs_f64() * 1000.0);
                }
                pending_echo = Some(now);
            }
            walked += 1;
            // Two seconds one way, two seconds back.
            let x = if (walked / 40).is_multiple_of(2) {
                1000
            } else {
                -1000
            };
            let walk = CookInput {
                seat,
                seq: walked,
                mv: (x, 0),
                act: false,
                face: None,
            };
            if tx
                .send(Message::text(input_message(&walk).to_string()))
                .await
                .is_err()
            {
                break;
            }
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
            stats.error = Some("a frame that is not JSON".into());
            break;
        };
        match v["type"].as_str() {
            Some("welcome") => {
                stats
                    .handshake_ms
                    .get_or_insert(start.elapsed().as_secs_f64() * 1000.0);
            }
            Some("lobby") => {
                // The host starts once its three guests are ready (the room could start with
                // one; a later guest's `ready` would then meet the countdown).
                let ready = v["seats"]
                    .as_array()
                    .map_or(0, |s| s.iter().filter(|s| s["ready"] == true).count());
                if let Role::Host { .. } = role
                    && !started
                    && v["can_start"] == true
                    && ready >= 3
                {
                    started = true;
                    let _ = tx
                        .send(Message::text(json!({"type": "start"}).to_string()))
                        .await;
                }
            }
            Some("snap") => {
                let now = Instant::now();
                if now >= measure_from {
                    window_start.get_or_insert(now);
                    stats.snaps += 1;
                    stats.full += (v["raw"]["full"] == true) as u64;
                    stats.bytes += text.len() as u64;
                    if let Some(sent) = pending_echo.take() {
                        stats.echo_ms.push(sent.elapsed().as_secs_f64() * 1000.0);
                    }
                }
                if apply_frame(&mut merged, &v["raw"]).is_err() {
                    stats.error = Some("a frame that does not merge".into());
                    break;
                }
                let view = match merged.as_ref().map(FrameView::from_json) {
                    Some(Ok(view)) => view,
                    Some(Err(e)) => {
                        stats.error = Some(format!("a merged frame that does not decode: {e}"));
                        break;
                    }
                    None => continue,
                };
                for i in team.decide(&view) {
                    if tx
                        .send(Message::text(input_message(&i).to_string()))
                        .await
                        .is_err()
                    {
                        break;
                    }
                    if now >= measure_from {
                        pending_echo.get_or_insert(now);
                    }
                }
            }
            Some("err") => {
                stats.error = Some(format!("err {}: {}", v["code"], v["msg"]));
            }
            _ => {}
        }
    }
    stats.seconds = window_start.map_or(0.0, |w| w.elapsed().as_secs_f64());
    let _ = tx.send(Message::Close(None)).await;
    stats
}
