//! One WebSocket connection, served by one task: what the room queues goes out, what the
//! client sends before its hello (and after the server closed it) is checked and routed.
//!
//! Frames are written by whoever sends them, the room or this task, straight to the kernel
//! (`shared::outbound`): a frame costs no wake-up of this task. Once the room takes the
//! socket's `hello` it reads the socket itself, at its turns (`server::ear`), and this task
//! sleeps: it waits on the deadline of its current window, its `Outbound` (which wakes it
//! to send a close or to write out a backlog the kernel did not take; with a test latency,
//! on its queue of frames as well) and the room letting the socket go. It enforces the 5 s
//! handshake window, the 12 s heartbeat (from when the client last sent anything, whoever
//! read it) and the 3 s drain after a close, answers `ping` before the hello, and sends the
//! room `hello` and anything read before the room took over. The connection id travels
//! with every message to the room, so a late close from a replaced socket only ever
//! removes itself. A test latency (`sim_latency_ms`) sends every frame through the queue
//! instead, and holds each back that long before it is written.

use super::ear::{Ear, Heard, Socket, is_control, second_hello};
use super::guard::Guard;
use crate::shared::Shared;
use crate::shared::census::SocketState;
use crate::shared::conn::{ConnLink, Frame, Out};
use crate::shared::gate::Place;
use crate::shared::outbound::{Outbound, Wake};
use crate::shared::registry::{RoomCmd, RoomHandle};
use crate::wire::messages::{
    MIN_SUPPORTED_VERSION, PROTOCOL_VERSION, Refusal, ServerMsg, close, code, limits,
};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// After the server closes a socket, how long it keeps reading (and ignoring) before it
/// gives up on the client's close reply.
const DRAIN: Duration = Duration::from_secs(3);

/// The heartbeat window: how long a joined client may send nothing, and how long a write
/// may wait on a client that reads nothing, before the socket is given up.
const HEARTBEAT: Duration = Duration::from_secs(limits::HEARTBEAT_DEAD_S);

/// Serves one socket for room `code` (`room`, as the upgrade found it: `None` when there
/// is no such room) until it closes, writing through `out`, on the connection's `place`
/// (given back when it ends). On a reserve place, its `hello` must return a player to its
/// seat.
pub async fn serve(
    ws: Socket,
    out: Arc<Outbound>,
    code: String,
    room: Option<RoomHandle>,
    shared: Arc<Shared>,
    place: Arc<Place>,
) {
    // The census counted this socket as `Handshake` when its upgrade was answered.
    let latency = Duration::from_millis(shared.config.sim_latency_ms);
    let (link, mut queue) = match latency.is_zero() {
        true => (ConnLink::direct(shared.conn_id(), out.clone()), None),
        false => {
            let (link, rx) = ConnLink::open(shared.conn_id());
            (link, Some(rx))
        }
    };
    let guard = Guard::new(
        shared.config.max_inputs_per_s,
        shared.config.max_message_bytes,
    );
    let ear = Ear::new(ws, guard, shared.clone(), code.clone());
    let mut reader = Reader {
        room,
        ear,
        link: link.clone(),
        joined: false,
        place,
        closing: None,
        state: SocketState::Handshake,
        code,
        shared: shared.clone(),
    };
    let mut writer = Writer {
        held: VecDeque::new(),
        latency,
        closed: false,
    };
    drive(&out, &mut queue, &mut reader, &mut writer).await;
    // Nothing more is written; the stream closes when the socket is dropped.
    out.detach();
    if reader.joined
        && let Some(room) = reader.room.as_ref()
    {
        let _ = room.tx.send(RoomCmd::Gone { conn: link.id }).await;
    }
    shared.census.socket_moved(Some(reader.state), None);
}

/// The connection's one loop: client frames in (until the room takes the reading, and
/// after it lets it go); out, the close and any backlog the kernel did not take (and, with
/// a test latency, the queued frames); until the socket ends or the window of its state
/// passes.
async fn drive(
    out: &Outbound,
    queue: &mut Option<mpsc::Receiver<Out>>,
    reader: &mut Reader,
    writer: &mut Writer,
) {
    let opened = Instant::now();
    let window = |reader: &Reader| match reader.closing {
        Some(since) => since + DRAIN,
        None if reader.joined => reader.ear.last_seen() + HEARTBEAT,
        None => opened + Duration::from_secs(limits::HANDSHAKE_S),
    };
    // One timer for the socket's life. Every frame read moves the window later, and the
    // timer is not moved for it: when it fires before the window ends, it is set again.
    // It is moved earlier at once when the window shrinks (the server closed the socket).
    let timer = tokio::time::sleep_until(window(reader).into());
    tokio::pin!(timer);
    loop {
        reader.census_state();
        let deadline = window(reader);
        if deadline < timer.deadline().into_std() {
            timer.as_mut().reset(deadline.into());
        }
        let due = writer.held.front().map(|(at, _)| *at);
        tokio::select! {
            biased;
            wake = std::future::poll_fn(|cx| out.poll_wake(cx)) => {
                let written = match wake {
                    Wake::Close(code) => writer.close(reader, code).await,
                    Wake::Backlog => drain(out).await,
                };
                if !written {
                    return;
                }
            }
            queued = recv(queue), if queue.is_some() && !writer.closed => {
                // The task holds a link itself, so the queue never ends while it runs.
                let (Some(first), Some(rx)) = (queued, queue.as_mut()) else { return };
                let due = Instant::now() + writer.latency;
                writer.held.push_back((due, first));
                while let Ok(more) = rx.try_recv() {
                    writer.held.push_back((due, more));
                }
            }
            _ = sleep_until(due), if due.is_some() => {
                if !writer.flush_due(reader).await {
                    return;
                }
            }
            _ = &mut timer => {
                if Instant::now() < deadline {
                    timer.as_mut().reset(deadline.into());
                    continue;
                }
                if reader.closing.is_some() {
                    return;
                }
                reader.silent();
            }
            read = std::future::poll_fn(|cx| reader.ear.poll_next(cx)) => {
                let frame = match read {
                    Some(Ok(m)) => m,
                    Some(Err(tokio_tungstenite::tungstenite::Error::Capacity(_))) => {
                        reader.ear.too_big(&reader.link);
                        reader.closing();
                        continue;
                    }
                    Some(Err(_)) | None => return,
                };
                // After the server's close, or on a close, ping or pong: read on, so the
                // close handshake completes and the client sees the close code.
                if reader.closing.is_some() || is_control(&frame) {
                    continue;
                }
                reader.frame(frame).await;
            }
        }
    }
}

/// The next queued message (pending forever without a queue).
async fn recv(queue: &mut Option<mpsc::Receiver<Out>>) -> Option<Out> {
    match queue {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// Waits until `at` (a pending future when there is nothing held).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// Writes out the backlog as the client reads it; false when the socket failed or a client
/// that stopped reading held it past the heartbeat window.
async fn drain(out: &Outbound) -> bool {
    let drained = tokio::time::timeout(HEARTBEAT, std::future::poll_fn(|cx| out.poll_drain(cx)));
    matches!(drained.await, Ok(Ok(())))
}

/// A close frame with `code`.
fn close_frame(code: u16) -> Message {
    Message::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: "".into(),
    }))
}

/// The writing side's state: frames held for the test latency, and whether the close
/// went out (after it nothing else is written).
struct Writer {
    held: VecDeque<(Instant, Out)>,
    latency: Duration,
    closed: bool,
}

impl Writer {
    /// Sends the close, behind everything sent before it. False when the socket failed or
    /// the client held it past the heartbeat window.
    async fn close(&mut self, reader: &mut Reader, code: u16) -> bool {
        self.closed = true;
        reader.closing();
        let sent = tokio::time::timeout(HEARTBEAT, reader.ear.send(close_frame(code)));
        matches!(sent.await, Ok(Ok(())))
    }

    /// Writes every held frame that is due, in one flush. False when the socket failed
    /// or a client that stopped reading held a write past the heartbeat window.
    async fn flush_due(&mut self, reader: &mut Reader) -> bool {
        let written = tokio::time::timeout(HEARTBEAT, async {
            let now = Instant::now();
            while let Some((at, _)) = self.held.front()
                && *at <= now
            {
                let Some((_, out)) = self.held.pop_front() else {
                    break;
                };
                if self.closed {
                    continue;
                }
                let msg = match out {
                    Out::Text(frame) => Message::Text(frame.bytes()),
                    Out::Close(c) => {
                        self.closed = true;
                        reader.closing();
                        close_frame(c)
                    }
                };
                reader.ear.feed(msg)?;
            }
            reader.ear.flush().await
        });
        matches!(written.await, Ok(Ok(())))
    }
}

/// The reading half's state.
struct Reader {
    code: String,
    shared: Arc<Shared>,
    room: Option<RoomHandle>,
    link: ConnLink,
    /// The socket's reading, which the room takes over with its `hello`.
    ear: Arc<Ear>,
    /// Whether the room has this connection's `hello`.
    joined: bool,
    /// The connection's place: its address (new sessions are counted by it), and whether
    /// it is a reserve place (then only a seated player's `hello` is let in).
    place: Arc<Place>,
    /// When the server closed the socket: it then drains until the client answers or
    /// `DRAIN` passes, because closing with unread data would reset the connection and
    /// the client would never see the close code.
    closing: Option<Instant>,
    /// The state the census counts this socket in.
    state: SocketState,
}

impl Reader {
    /// Moves this socket in the census when its state changed.
    fn census_state(&mut self) {
        let now = match (self.closing, self.joined) {
            (Some(_), _) => SocketState::Closing,
            (None, true) => SocketState::Joined,
            (None, false) => SocketState::Handshake,
        };
        if now != self.state {
            self.shared.census.socket_moved(Some(self.state), Some(now));
            self.state = now;
        }
    }

    /// The server closed the socket: from now on this task reads it, and drains it until
    /// the client answers.
    fn closing(&mut self) {
        if self.closing.is_none() {
            self.closing = Some(Instant::now());
            self.ear.take_back();
        }
    }

    /// The server closes the socket with `code`: the close goes out after what is queued,
    /// and the socket drains until the client answers.
    fn close(&mut self, code: u16) {
        self.link.close(code);
        self.closing();
    }

    /// Silence past the window: no hello in time (4400), or a dead client (1000).
    fn silent(&mut self) {
        let code = if self.joined {
            close::NORMAL
        } else {
            self.shared.census.refused(close::PROTOCOL_MISMATCH);
            close::PROTOCOL_MISMATCH
        };
        self.close(code);
    }

    fn refuse_and_close(&mut self, refusal: Refusal, close: u16) {
        self.link.refuse(&self.shared.census, &refusal, close);
        self.closing();
    }

    fn answer(&self, msg: &ServerMsg) {
        let _ = self.link.send(&Frame::from(msg));
    }

    /// One data frame read by this task: the transport's rules (`ear::sort`), then where
    /// it goes.
    async fn frame(&mut self, frame: Message) {
        let cmd = match self.ear.sort(&frame) {
            Heard::Answer(msg) => return self.answer(&msg),
            Heard::Abuse(r) => {
                self.ear.abuse(&self.link, &r);
                return self.closing();
            }
            Heard::Hello { p, token, name } => {
                match self.hello(p) && self.known_or_new(token.as_deref()).await {
                    true => RoomCmd::Hello {
                        conn: self.link.clone(),
                        ear: self.ear.clone(),
                        token,
                        name,
                        seated_only: self.place.reserve(),
                    },
                    false => return,
                }
            }
            Heard::Room(msg) if !self.joined => {
                let why = format!("{} before hello: say hello first", msg.kind());
                return self.answer(&ServerMsg::err(&Refusal::new(code::WRONG_STATE, why)));
            }
            // Read before the room took the socket's reading: through the mailbox, behind
            // the hello.
            Heard::Room(msg) => RoomCmd::Msg {
                conn: self.link.id,
                msg,
            },
        };
        // One way to the room for every message; a room that is gone closes the socket.
        if let Some(room) = self.room.as_ref()
            && room.tx.send(cmd).await.is_err()
        {
            self.room_gone();
        }
    }

    /// The socket's room closed: `room_gone`, and the socket closes.
    fn room_gone(&mut self) {
        let refusal = Refusal::new(code::ROOM_GONE, "the room closed");
        self.refuse_and_close(refusal, close::ROOM_GONE);
    }

    /// A `hello` the socket can pass on: the socket's first, a protocol version it speaks, a
    /// room that exists.
    fn hello(&mut self, p: i64) -> bool {
        if self.joined {
            self.answer(&second_hello());
            return false;
        }
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
        true
    }

    /// A `hello` with a token the server knows (its session loaded for the room), or one
    /// that may start a session: the address has new sessions left this minute. Else
    /// `rate_limited`, and the socket may try again (until its handshake window ends).
    async fn known_or_new(&mut self, token: Option<&str>) -> bool {
        if let Err(r) = self
            .shared
            .sessions
            .admit(token, Some(self.place.source()))
            .await
        {
            self.answer(&ServerMsg::err(&r));
            return false;
        }
        self.joined = true;
        true
    }
}
