//! One WebSocket connection: its writer, its reader with the guards and the handshake
//! window, and the routing of what it reads.
//!
//! The writer drains the connection's bounded queue (filled by the room without ever
//! waiting) into the socket, after the configured test latency; frames are the room's
//! shared bytes, written as they are. The reader enforces the transport rules (`guard`),
//! the 5 s handshake window and the 12 s heartbeat, answers `ping` itself, and sends the
//! room `hello` and every other message. The connection id travels with every message to
//! the room, so a late close from a replaced socket only ever removes itself.

use super::guard::{Checked, Guard};
use crate::shared::Shared;
use crate::shared::conn::{ConnLink, Frame, Out};
use crate::shared::registry::{RoomCmd, RoomHandle};
use crate::wire::messages::{
    ClientMsg, MIN_SUPPORTED_VERSION, PROTOCOL_VERSION, Refusal, ServerMsg, close, code, limits,
    parse_client,
};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// A player's socket, as the connection task drives it.
pub type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// After the server closes a socket, how long it keeps reading (and ignoring) before it
/// gives up on the client's close reply.
const DRAIN: Duration = Duration::from_secs(3);

/// Serves one socket for room `code` until it closes.
pub async fn serve(ws: Socket, code: String, shared: Arc<Shared>) {
    let (link, rx) = ConnLink::open(shared.conn_id());
    shared.census.sockets.fetch_add(1, Relaxed);
    let (sink, stream) = ws.split();
    let latency = Duration::from_millis(shared.config.sim_latency_ms);
    let writer = tokio::spawn(write(sink, rx, latency));
    let mut reader = Reader {
        room: shared.rooms.get(&code),
        guard: Guard::new(
            shared.config.max_inputs_per_s,
            shared.config.max_message_bytes,
        ),
        link: link.clone(),
        joined: false,
        closing: None,
        code,
        shared: shared.clone(),
    };
    reader.read(stream).await;
    if reader.joined
        && let Some(room) = reader.room.as_ref()
    {
        let _ = room.tx.send(RoomCmd::Gone { conn: link.id }).await;
    }
    drop(reader);
    drop(link);
    // Let the writer flush what is queued (a close frame, a last error), briefly.
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
    shared.census.sockets.fetch_sub(1, Relaxed);
}

/// The writing half: queued frames out, in order, until a close (sent last) or the end.
async fn write(
    mut sink: SplitSink<Socket, Message>,
    mut rx: mpsc::Receiver<Out>,
    latency: Duration,
) {
    let mut batch = Vec::new();
    while let Some(first) = rx.recv().await {
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        // What is queued by now goes out together (after the one latency wait).
        batch.push(first);
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        for out in batch.drain(..) {
            let sent = match out {
                Out::Text(frame) => sink.send(Message::Text(frame.bytes().clone())).await,
                Out::Close(c) => {
                    let close = CloseFrame {
                        code: CloseCode::from(c),
                        reason: "".into(),
                    };
                    let _ = sink.send(Message::Close(Some(close))).await;
                    return;
                }
            };
            if sent.is_err() {
                return;
            }
        }
    }
}

/// The reading half's state.
struct Reader {
    code: String,
    shared: Arc<Shared>,
    room: Option<RoomHandle>,
    link: ConnLink,
    guard: Guard,
    /// Whether the room has this connection's `hello`.
    joined: bool,
    /// When the server closed the socket: it then drains until the client answers or
    /// `DRAIN` passes, because closing with unread data would reset the connection and
    /// the client would never see the close code.
    closing: Option<Instant>,
}

impl Reader {
    async fn read(&mut self, mut stream: SplitStream<Socket>) {
        let opened = Instant::now();
        let mut last_seen = Instant::now();
        loop {
            if let Some(since) = self.closing {
                match tokio::time::timeout_at((since + DRAIN).into(), stream.next()).await {
                    Ok(Some(Ok(_))) => continue,
                    _ => return,
                }
            }
            let deadline = if self.joined {
                last_seen + Duration::from_secs(limits::HEARTBEAT_DEAD_S)
            } else {
                opened + Duration::from_secs(limits::HANDSHAKE_S)
            };
            let frame = match tokio::time::timeout_at(deadline.into(), stream.next()).await {
                Ok(Some(Ok(m))) => m,
                Ok(Some(Err(_))) | Ok(None) => return,
                Err(_) => {
                    self.silent();
                    continue;
                }
            };
            last_seen = Instant::now();
            // A close: keep reading until the stream ends so the close handshake completes.
            if frame.is_close() || frame.is_ping() || frame.is_pong() {
                continue;
            }
            self.frame(frame).await;
        }
    }

    /// Silence past the window: no hello in time (4400), or a dead client (1000).
    fn silent(&mut self) {
        let code = if self.joined {
            close::NORMAL
        } else {
            self.shared.census.refused(close::PROTOCOL_MISMATCH);
            close::PROTOCOL_MISMATCH
        };
        self.link.close(code);
        self.closing = Some(Instant::now());
    }

    fn refuse_and_close(&mut self, refusal: Refusal, close: u16) {
        self.link.refuse(&self.shared.census, &refusal, close);
        self.closing = Some(Instant::now());
    }

    fn answer(&self, msg: &ServerMsg) {
        let _ = self.link.send(&Frame::from(msg));
    }

    /// One data frame: the guards, strict parsing, then where it goes.
    async fn frame(&mut self, frame: Message) {
        match self.guard.check(&frame) {
            Checked::Pass => {}
            Checked::Refused(r) => return self.answer(&ServerMsg::err(&r)),
            Checked::Abuse(r) => {
                self.refuse_and_close(r, close::ABUSE);
                tracing::info!(room = %self.code, conn = self.link.id, "closed for abuse (3 strikes)");
                return;
            }
        }
        let msg = match parse_client(frame.to_text().unwrap_or_default()) {
            Ok(m) => m,
            Err(r) => return self.answer(&ServerMsg::err(&r)),
        };
        self.guard.parsed();
        let cmd = match msg {
            ClientMsg::Ping { t } => {
                return self.answer(&ServerMsg::Pong {
                    p: PROTOCOL_VERSION,
                    t,
                    now: now_s(),
                });
            }
            ClientMsg::Hello { p, token, name } => match self.hello(p) {
                true => RoomCmd::Hello {
                    conn: self.link.clone(),
                    token,
                    name,
                },
                false => return,
            },
            ClientMsg::Room(msg) if !self.joined => {
                let why = format!("{} before hello: say hello first", msg.kind());
                return self.answer(&ServerMsg::err(&Refusal::new(code::WRONG_STATE, why)));
            }
            ClientMsg::Room(msg) => RoomCmd::Msg {
                conn: self.link.id,
                msg,
            },
        };
        // One way to the room for every message; a room that is gone closes the socket.
        if let Some(room) = self.room.as_ref()
            && room.tx.send(cmd).await.is_err()
        {
            self.refuse_and_close(
                Refusal::new(code::ROOM_GONE, "the room closed"),
                close::ROOM_GONE,
            );
        }
    }

    /// A `hello` the socket can pass on: a protocol version it speaks, a room that exists.
    fn hello(&mut self, p: i64) -> bool {
        if p < MIN_SUPPORTED_VERSION as i64 || p > PROTOCOL_VERSION as i64 {
            let why = format!(
                "protocol {p} is not supported (this server speaks {MIN_SUPPORTED_VERSION}..{PROTOCOL_VERSION})"
            );
            self.refuse_and_close(
                Refusal::new(code::PROTOCOL_MISMATCH, why),
                close::PROTOCOL_MISMATCH,
            );
            return false;
        }
        if self.room.is_none() {
            let why = format!("no room {}", self.code);
            self.refuse_and_close(Refusal::new(code::ROOM_GONE, why), close::ROOM_GONE);
            return false;
        }
        self.joined = true;
        true
    }
}

/// Unix time in seconds, to the millisecond (`pong.now`).
fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
}
