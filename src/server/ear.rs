//! A socket's reading, shared by its task and its room: the task reads it until the room
//! takes its `hello`, the room reads it at each of its turns from then on, and the task
//! again once the server closed it or the room let it go.
//!
//! Reading a joined socket at its room's turns used to be the socket task's job: at each
//! turn the room woke all of its sockets' tasks, yielded to them, and took what they had
//! left in its inbox. A playing room's four sockets cost four wake-ups, four polls of a
//! task's whole `select!` (its timers, its `Outbound`) and an inbox hand-over every tick,
//! for what is mostly one small `input` each. Now the room calls `hear` on each of its
//! connections instead, in its own task: tungstenite reads what arrived, through its
//! blocking-style API over the non-blocking `Duplex`, until the kernel holds nothing more
//! (`WouldBlock`: the room reads again at its next turn), this file applies the
//! transport's rules, and the room gets the messages meant for it. The socket's task reads
//! through the same API, and waits its own time (`shared::turns::OwnTime`) after a
//! `WouldBlock`.
//! The task sleeps meanwhile, woken only by its heartbeat timer, its `Outbound` (a close,
//! a backlog) or the room letting the socket go.
//!
//! The rules are the same whoever reads (`sort`): the token bucket and size limit
//! (`guard`), strict parsing, `ping` answered by the socket. When the room finds the
//! socket ended (the client's close, a broken stream) or closes it (three strikes, a frame
//! past the transport's limit), it hands the socket back: the task drains it or ends, and
//! tells the room it is gone, as it always did.

use super::duplex::Duplex;
use super::guard::{Checked, Guard};
use crate::shared::Shared;
use crate::shared::conn::{ConnLink, Frame, Hears};
use crate::shared::turns::OwnTime;
use crate::wire::messages::{
    ClientMsg, PROTOCOL_VERSION, Refusal, RoomMsg, ServerMsg, close, code, parse_client,
};
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Instant;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, WebSocket};

/// A player's socket.
pub type Socket = WebSocket<Duplex>;

/// One socket's reading.
pub struct Ear {
    hearing: Mutex<Hearing>,
    shared: Arc<Shared>,
    /// The room's code, for the log line of a socket closed for abuse.
    code: String,
}

struct Hearing {
    ws: Socket,
    /// The task's own time, between its reads.
    own: OwnTime,
    guard: Guard,
    /// When the client last sent anything (its heartbeat window runs from then).
    last_seen: Instant,
    /// The room reads the socket (from its claim to its release or hand-back).
    by_room: bool,
    /// The room found the socket ended: its task ends.
    ended: bool,
    /// The server closed the socket: its task drains it, and the room never reads it again
    /// (not even when it takes the socket's hello after the close).
    closed: bool,
    /// The socket's task, waiting while the room reads.
    task: Option<Waker>,
}

impl Hearing {
    /// The socket's task reads it again (and is woken to).
    fn hand_back(&mut self) {
        self.by_room = false;
        if let Some(task) = self.task.take() {
            task.wake();
        }
    }

    /// The server closed the socket: its task drains it, and the room never reads it again
    /// (not even when it takes the socket's hello after the close).
    fn server_closed(&mut self) {
        self.closed = true;
        self.hand_back();
    }
}

/// What one data frame from a client is, by the transport's rules.
pub enum Heard {
    /// Refused, or answered by the socket itself: this goes back to the client.
    Answer(ServerMsg),
    /// The third strike in a row: the socket closes (4404) with this refusal.
    Abuse(Refusal),
    /// A `hello` (the protocol version is the socket's to check).
    Hello {
        p: i64,
        token: Option<String>,
        name: Option<String>,
    },
    /// A message for the room.
    Room(RoomMsg),
}

/// Sorts one data frame, read at `now`: the guard's limits, strict parsing, `ping`.
fn sort(guard: &mut Guard, frame: &Message, now: Instant) -> Heard {
    match guard.check(frame, now) {
        Checked::Pass => {}
        Checked::Refused(r) => return Heard::Answer(ServerMsg::err(&r)),
        Checked::Abuse(r) => return Heard::Abuse(r),
    }
    let msg = match parse_client(frame.to_text().unwrap_or_default()) {
        Ok(m) => m,
        Err(r) => return Heard::Answer(ServerMsg::err(&r)),
    };
    guard.parsed();
    match msg {
        ClientMsg::Ping { t } => Heard::Answer(ServerMsg::Pong {
            p: PROTOCOL_VERSION,
            t,
            now: now_s(),
        }),
        ClientMsg::Hello { p, token, name } => Heard::Hello { p, token, name },
        ClientMsg::Room(msg) => Heard::Room(msg),
    }
}

/// The answer to a second `hello` on a socket: `wrong_state`, and the socket stays (a
/// second hello would mint a token that is not the seat's).
pub fn second_hello() -> ServerMsg {
    let why = "hello was already said on this socket";
    ServerMsg::err(&Refusal::new(code::WRONG_STATE, why))
}

/// Whether a frame is one tungstenite answers itself (or the close handshake's).
pub fn is_control(frame: &Message) -> bool {
    frame.is_close() || frame.is_ping() || frame.is_pong()
}

impl Ear {
    /// The reading of `ws`, under `guard`, for room `code`.
    pub fn new(ws: Socket, guard: Guard, shared: Arc<Shared>, code: String) -> Arc<Ear> {
        Arc::new(Ear {
            hearing: Mutex::new(Hearing {
                ws,
                own: OwnTime::default(),
                guard,
                last_seen: Instant::now(),
                by_room: false,
                ended: false,
                closed: false,
                task: None,
            }),
            shared,
            code,
        })
    }

    fn hearing(&self) -> MutexGuard<'_, Hearing> {
        crate::shared::lock(&self.hearing)
    }

    /// The socket task's read: the next frame, or pending (woken when the room lets the
    /// socket go) while the room reads it. `None` once the socket ended.
    pub fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Message, WsError>>> {
        let mut h = self.hearing();
        if h.ended {
            return Poll::Ready(None);
        }
        if h.by_room {
            h.task = Some(cx.waker().clone());
            return Poll::Pending;
        }
        loop {
            match h.ws.read() {
                Ok(frame) => {
                    h.last_seen = Instant::now();
                    h.own.fresh();
                    return Poll::Ready(Some(Ok(frame)));
                }
                Err(WsError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::task::ready!(h.own.poll_wait(cx));
                    h.ws.get_mut().turn();
                }
                Err(WsError::ConnectionClosed | WsError::AlreadyClosed) => {
                    return Poll::Ready(None);
                }
                Err(e) => return Poll::Ready(Some(Err(e))),
            }
        }
    }

    /// When the client last sent anything.
    pub fn last_seen(&self) -> Instant {
        self.hearing().last_seen
    }

    /// The server closed the socket: its task reads it from now on (it drains it until the
    /// client answers).
    pub fn take_back(&self) {
        self.hearing().server_closed();
    }

    /// A frame past the transport's limit, not read: the socket closes (1009) as any other
    /// the server closes (its task sends the close and drains).
    pub fn too_big(&self, link: &ConnLink) {
        self.shared.census.refused(close::MESSAGE_TOO_BIG);
        link.close(close::MESSAGE_TOO_BIG);
    }

    /// The third strike in a row: the refusal, then the close (4404).
    pub fn abuse(&self, link: &ConnLink, refusal: &Refusal) {
        link.refuse(&self.shared.census, refusal, close::ABUSE);
        tracing::info!(room = %self.code, conn = link.id, "closed for abuse (3 strikes)");
    }

    /// Sorts a frame the socket's task read.
    pub fn sort(&self, frame: &Message) -> Heard {
        sort(&mut self.hearing().guard, frame, Instant::now())
    }

    /// Hands `msg` to the WebSocket without writing it out.
    pub fn feed(&self, msg: Message) -> Result<(), WsError> {
        self.hearing().ws.write(msg)
    }

    /// Writes out what the WebSocket holds, and waits until the kernel took it.
    pub async fn flush(&self) -> Result<(), WsError> {
        self.hearing().ws.flush()?;
        std::future::poll_fn(|cx| self.hearing().ws.get_ref().out().poll_drain(cx)).await?;
        Ok(())
    }

    /// Sends `msg` and waits until the kernel took it.
    pub async fn send(&self, msg: Message) -> Result<(), WsError> {
        self.feed(msg)?;
        self.flush().await
    }
}

impl Hears for Ear {
    fn claim(&self) {
        let mut h = self.hearing();
        h.by_room = !h.closed;
    }

    fn hear(&self, link: &ConnLink, now: Instant, heard: &mut Vec<(u64, RoomMsg)>) {
        let mut h = self.hearing();
        if !h.by_room {
            return;
        }
        h.ws.get_mut().turn();
        loop {
            let frame = match h.ws.read() {
                Ok(frame) => frame,
                Err(WsError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(WsError::Capacity(_)) => {
                    self.too_big(link);
                    return h.server_closed();
                }
                Err(_) => {
                    // The client's close (after tungstenite answered it), or a broken stream.
                    h.ended = true;
                    return h.hand_back();
                }
            };
            h.last_seen = now;
            if is_control(&frame) {
                // tungstenite answers a ping, and a close: the next read finds it ended.
                continue;
            }
            match sort(&mut h.guard, &frame, now) {
                Heard::Answer(msg) => {
                    let _ = link.send(&Frame::from(&msg));
                }
                Heard::Abuse(r) => {
                    self.abuse(link, &r);
                    return h.server_closed();
                }
                Heard::Hello { .. } => {
                    let _ = link.send(&Frame::from(&second_hello()));
                }
                Heard::Room(msg) => heard.push((link.id, msg)),
            }
        }
    }

    fn release(&self) {
        self.hearing().hand_back();
    }
}

/// Unix time in seconds, to the millisecond (`pong.now`).
fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
}
