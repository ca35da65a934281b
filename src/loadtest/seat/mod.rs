//! One load client: a WebSocket seat that plays with a bot from the frames it receives
//! (merged exactly as a browser merges them) and measures what a player would notice.
//!
//! A seat connects and says `hello` (`connect`), then takes its room's frames one by one
//! until the run's end (`Seat::hear`): in the lobby the host starts the round once its
//! guests are ready, and in play each `snap` is counted inside the measuring window and
//! answered, by the bot's plan or by the next step of a walk (`answer`).

mod answer;

use crate::bots::BotTeam;
use crate::sim::Level;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

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

/// One seat as its room handed it out: where to connect, with what, and how to play it.
pub struct Assignment {
    /// The room's socket: the seat answer's `ws_url` (the room's own node, in a cluster), or
    /// `ws://HOST:PORT/ws/CODE` on the server asked when the answer has none.
    pub ws_url: String,
    pub token: String,
    pub seat: u8,
    pub role: Role,
    pub mind: Mind,
}

/// The run's clock, the same for every seat: the level's tick rate (the bot plans at it)
/// and the measuring window.
#[derive(Clone, Copy, Debug)]
pub struct RunClock {
    pub tick_hz: u32,
    /// Nothing is counted before this: rooms are still opening, counting down.
    pub measure_from: Instant,
    /// The seat closes its socket here.
    pub until: Instant,
}

impl RunClock {
    fn measuring(&self, now: Instant) -> bool {
        now >= self.measure_from
    }
}

/// Why a seat never got to play.
#[derive(Debug, thiserror::Error)]
enum Unseated {
    #[error("connect: {0}")]
    Connect(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("the socket closed during hello")]
    Hello,
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Plays `assignment` on `level` until `clock.until`; counts only after
/// `clock.measure_from`.
pub async fn play(assignment: Assignment, level: Level, clock: RunClock) -> SeatStats {
    let start = Instant::now();
    let (tx, rx) = match connect(&assignment).await {
        Ok(halves) => halves,
        Err(e) => {
            return SeatStats {
                error: Some(e.to_string()),
                ..SeatStats::default()
            };
        }
    };
    let mut seat = Seat {
        team: BotTeam::new(&level, clock.tick_hz, &[assignment.seat]),
        assignment,
        clock,
        start,
        tx,
        rx,
        stats: SeatStats::default(),
        merged: None,
        pending_echo: None,
        started: false,
        window_start: None,
        walked: 0,
    };
    while let Some(text) = seat.hear().await {
        if seat.take(text).await.is_break() {
            break;
        }
    }
    seat.stats.seconds = seat.window_start.map_or(0.0, |w| w.elapsed().as_secs_f64());
    let _ = seat.tx.send(Message::Close(None)).await;
    seat.stats
}

/// Connects to the room's socket and says `hello`, then what the seat's role says first:
/// the host sets the level, a guest is ready.
async fn connect(
    a: &Assignment,
) -> Result<(SplitSink<Socket, Message>, SplitStream<Socket>), Unseated> {
    // tungstenite zeroes its read buffer's free part before each read: at the default
    // 128 KiB that was an eighth of this client's CPU, for frames of a few KB.
    let config = WebSocketConfig::default().read_buffer_size(8 * 1024);
    let (ws, _) =
        tokio_tungstenite::connect_async_with_config(a.ws_url.as_str(), Some(config), false)
            .await?;
    let (mut tx, rx) = ws.split();
    let hello = json!({"type": "hello", "p": crate::PROTOCOL_VERSION, "token": a.token});
    let first = match &a.role {
        Role::Host { level_id } => json!({"type": "set_level", "level": level_id}),
        Role::Guest => json!({"type": "ready"}),
    };
    for m in [hello, first] {
        if tx.send(Message::text(m.to_string())).await.is_err() {
            return Err(Unseated::Hello);
        }
    }
    Ok((tx, rx))
}

/// A seat in play: its socket, its bot, the frame it merged, and what it measured so far.
struct Seat {
    assignment: Assignment,
    clock: RunClock,
    /// When `play` began: the handshake is timed from here.
    start: Instant,
    tx: SplitSink<Socket, Message>,
    rx: SplitStream<Socket>,
    stats: SeatStats,
    team: BotTeam,
    /// The frame the deltas so far merge into (what a browser draws).
    merged: Option<Value>,
    /// When the input still waiting for its echo was sent.
    pending_echo: Option<Instant>,
    /// Whether the host has sent `start`.
    started: bool,
    /// The first snap counted.
    window_start: Option<Instant>,
    /// Snaps walked: the walk's `seq`, and where it turns.
    walked: u64,
}

impl Seat {
    /// The next text frame, or `None` once the seat is done: the run is over, or the
    /// socket closed or failed (said in `stats`). Other frames are passed over.
    async fn hear(&mut self) -> Option<Utf8Bytes> {
        loop {
            let left = self.clock.until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            let next = tokio::time::timeout(left.min(Duration::from_secs(10)), self.rx.next());
            let message = match next.await {
                Err(_) if Instant::now() >= self.clock.until => return None,
                Err(_) => {
                    self.stats.error = Some("no frame for 10 s".into());
                    return None;
                }
                Ok(None) => {
                    self.stats.closed = Some("eof".into());
                    return None;
                }
                Ok(Some(Err(e))) => {
                    self.stats.error = Some(e.to_string());
                    return None;
                }
                Ok(Some(Ok(m))) => m,
            };
            match message {
                Message::Text(t) => return Some(t),
                Message::Close(frame) => {
                    let code = frame.map_or("1005".into(), |f| u16::from(f.code).to_string());
                    self.stats.closed = Some(code);
                    return None;
                }
                _ => {}
            }
        }
    }
}
