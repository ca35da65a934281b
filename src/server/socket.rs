//! A socket's task: the connection's side that the room does not do. It reads the socket
//! while its phase says so (before the room takes its `hello`, and after the server closed
//! it: `net::Phase::reader`), passes the `hello` and what follows it to the room, writes out
//! a backlog the kernel refused, and keeps the socket's clocks: the handshake window (5 s,
//! down to 1 s as the places of sockets without `hello` fill: `shared::pending`),
//! the 12 s heartbeat (from when the client last sent anything, whoever read it), the 12 s
//! a backlog may go unwritten, and the 3 s drain after the server's close.
//!
//! It is one loop that does what is due, then sleeps until the next thing is: its earliest
//! deadline, a backoff for its next read, the room's next tick while the kernel refuses
//! its backlog, or the connection telling it its work changed (`Connection::changed`). A
//! joined socket's task wakes about once a heartbeat window; the room reads and writes the
//! socket in between. The connection id travels with everything sent to the room, so a
//! late `Gone` from a replaced socket only ever removes itself.

use crate::net::conn::Backlog;
use crate::net::read::Stop;
use crate::net::rules::ReadOutcome;
use crate::net::ticks::{BACKOFF_MAX, Backoff};
use crate::net::{Connection, Frame, Heard, Link, Phase, Reader};
use crate::shared::Shared;
use crate::shared::admission::Permit;
use crate::shared::census::SocketState;
use crate::shared::pending::Pending;
use crate::shared::registry::{RoomCmd, RoomHandle};
use crate::wire::messages::{
    MIN_SUPPORTED_VERSION, PROTOCOL_VERSION, Refusal, ServerMsg, close, code, limits,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// After the server's close is written, how long the socket keeps reading (and dropping)
/// before it gives up on the client's close reply: closing with unread data would reset
/// the connection, and the client would never see the close code.
const DRAIN: Duration = Duration::from_secs(3);

/// The heartbeat window: how long a joined client may send nothing, and how long the
/// kernel may refuse a socket's backlog, before the socket is given up.
const HEARTBEAT: Duration = Duration::from_secs(limits::HEARTBEAT_DEAD_S);

/// Serves one socket for room `code` (`room`, as the upgrade found it: `None` when there
/// is no such room) until it closes, on the connection's `permit` (given back when it
/// ends). On a reserve permit, its `hello` must return a player to its seat.
pub async fn serve(
    conn: Arc<Connection>,
    code: String,
    room: Option<RoomHandle>,
    shared: Arc<Shared>,
    permit: Arc<Permit>,
    pending: Pending,
) {
    // The census counted this socket as `Handshake` when its upgrade was answered.
    let mut task = Task {
        link: Link::new(conn.clone()),
        code,
        room,
        joined: false,
        shared: shared.clone(),
        permit,
        pending: Some(pending),
        known: false,
        state: SocketState::Handshake,
        backoff: Backoff::default(),
        next_read: Instant::now(),
    };
    task.run().await;
    conn.end();
    if task.joined
        && let Some(room) = task.room.as_ref()
    {
        let _ = room.tx.send(RoomCmd::Gone { conn: conn.id() }).await;
    }
    shared.census.socket_moved(Some(task.state), None);
}

struct Task {
    link: Link,
    code: String,
    room: Option<RoomHandle>,
    /// The room has this connection's `hello` (and is told when it ends).
    joined: bool,
    shared: Arc<Shared>,
    /// The connection's permit: its address (new sessions are counted by it), and whether
    /// it is a reserve permit (then only a seated player's `hello` is let in).
    permit: Arc<Permit>,
    /// Its place among the sockets that have not said `hello` (`shared::pending`), given
    /// back when it leaves `AwaitingHello`.
    pending: Option<Pending>,
    /// Its address has been noted as let in (`Shared::known`).
    known: bool,
    /// The state the census counts this socket in.
    state: SocketState,
    backoff: Backoff,
    /// When the task reads next, in a phase where it reads.
    next_read: Instant,
}

impl Task {
    /// The one loop: what is due, then a sleep until the next thing is.
    async fn run(&mut self) {
        let opened = Instant::now();
        let conn = self.link.clone();
        let sleep = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(sleep);
        let mut heard = Vec::new();
        loop {
            let tick = conn.ticks().current();
            let now = Instant::now();
            let backlog = conn.write_out(now);
            let phase = conn.phase();
            self.census_state(phase);
            if phase == Phase::Closed || stalled(&backlog, now) {
                return;
            }
            if phase.reader() == Some(Reader::Task) && now >= self.next_read {
                let read = conn.read(Reader::Task, now, |h| heard.push(h));
                self.after_read(read, now);
                for h in heard.drain(..) {
                    self.heard(h).await;
                }
                continue;
            }
            let deadline = match phase {
                Phase::AwaitingHello => opened + self.shared.pending.hello_window(),
                Phase::HelloSent | Phase::Joined => conn.last_seen() + HEARTBEAT,
                Phase::Draining { since } => since + DRAIN,
                // The close waits behind the backlog: the stall rule bounds it.
                Phase::Closing | Phase::Closed => now + HEARTBEAT,
            };
            if now >= deadline {
                self.window_passed(phase);
                continue;
            }
            let mut wake = deadline;
            if phase.reader() == Some(Reader::Task) {
                wake = wake.min(self.next_read);
            }
            wake = [
                backlog.next_due,
                backlog.stalled_since.map(|s| s + HEARTBEAT),
            ]
            .into_iter()
            .flatten()
            .fold(wake, Instant::min);
            // A backlog the kernel refuses is tried again at the room's next tick (once the
            // room has closed, on the longest backoff).
            let by_tick = backlog.stalled_since.is_some() && !conn.ticks().is_closed();
            if backlog.stalled_since.is_some() && !by_tick {
                wake = wake.min(now + BACKOFF_MAX);
            }
            if sleep.deadline() != wake.into() {
                sleep.as_mut().reset(wake.into());
            }
            tokio::select! {
                biased;
                _ = conn.changed() => {}
                _ = &mut sleep => {}
                _ = conn.ticks().after(tick), if by_tick => {}
            }
        }
    }

    /// When the task reads next, by what this read found: soon after a read that emptied
    /// the kernel, the longest wait after one that stopped at its budget (a flood gets a
    /// tick's budget a tick), and a socket the rules closed counted.
    fn after_read(&mut self, read: Option<ReadOutcome>, now: Instant) {
        let Some(read) = read else { return };
        match read.stop {
            Stop::Budget => self.backoff.longest(),
            Stop::Dry | Stop::Halted if self.link.last_seen() == now => self.backoff.reset(),
            _ => {}
        }
        self.next_read = now + self.backoff.next_wait();
        if let Some(code) = read.closed {
            self.shared.census.refused(code);
            if code == close::ABUSE {
                tracing::info!(room = %self.code, conn = self.link.id, "closed for abuse (3 strikes)");
            }
        }
    }

    /// The window of the socket's phase passed: no hello in time (4400), a silent client
    /// (1000), or the drain after the server's close is over (the task ends).
    fn window_passed(&mut self, phase: Phase) {
        match phase {
            Phase::AwaitingHello => {
                self.shared.census.refused(close::PROTOCOL_MISMATCH);
                self.link.close(close::PROTOCOL_MISMATCH);
            }
            Phase::HelloSent | Phase::Joined => self.link.close(close::NORMAL),
            _ => self.link.end(),
        }
    }

    /// Moves this socket in the census when its state changed.
    fn census_state(&mut self, phase: Phase) {
        if phase == Phase::Joined && !self.known {
            // The room let it in: its address is one the pending reserve is kept for.
            self.shared.known.note(self.permit.source());
            self.known = true;
        }
        let now = match phase {
            Phase::AwaitingHello => SocketState::Handshake,
            Phase::HelloSent | Phase::Joined => SocketState::Joined,
            _ => SocketState::Closing,
        };
        if now != self.state {
            if now != SocketState::Handshake {
                self.pending = None;
            }
            self.shared.census.socket_moved(Some(self.state), Some(now));
            self.state = now;
        }
    }

    /// A message the task read: a `hello` to check and pass on, or one that follows it to
    /// the room through the mailbox (the room has not taken the reading yet).
    async fn heard(&mut self, heard: Heard) {
        let cmd = match heard {
            Heard::Hello { p, token, name } => {
                if !(self.hello(p) && self.known_or_new(token.as_deref()).await) {
                    return;
                }
                self.link.hello_sent();
                self.joined = true;
                RoomCmd::Hello {
                    conn: self.link.clone(),
                    token,
                    name,
                    seated_only: self.permit.reserve(),
                }
            }
            Heard::Room(msg) => RoomCmd::Msg {
                conn: self.link.id,
                msg,
            },
        };
        // One way to the room for every message; a room that is gone closes the socket.
        if let Some(room) = self.room.as_ref()
            && room.tx.send(cmd).await.is_err()
        {
            let refusal = Refusal::new(code::ROOM_GONE, "the room closed");
            self.refuse(refusal, close::ROOM_GONE);
        }
    }

    fn refuse(&self, refusal: Refusal, close: u16) {
        self.shared.census.refuse(&self.link, &refusal, close);
    }

    /// A `hello` the socket can pass on: a protocol version it speaks, a room that exists.
    fn hello(&mut self, p: i64) -> bool {
        if p < MIN_SUPPORTED_VERSION as i64 || p > PROTOCOL_VERSION as i64 {
            let why = format!(
                "protocol {p} is not supported (this server speaks {MIN_SUPPORTED_VERSION}..{PROTOCOL_VERSION})"
            );
            let refusal = Refusal::new(code::PROTOCOL_MISMATCH, why);
            self.refuse(refusal, close::PROTOCOL_MISMATCH);
            return false;
        }
        if self.room.is_none() {
            let why = format!("no room {}", self.code);
            self.refuse(Refusal::new(code::ROOM_GONE, why), close::ROOM_GONE);
            return false;
        }
        true
    }

    /// A `hello` with a token the server knows (its session loaded for the room), or one
    /// that may start a session: the address has new sessions left this minute. Else
    /// `rate_limited`, and the socket may try again (until its handshake window ends).
    async fn known_or_new(&mut self, token: Option<&str>) -> bool {
        let source = Some(self.permit.source());
        match self.shared.sessions.admit(token, source).await {
            Ok(()) => true,
            Err(r) => {
                let _ = self.link.send(&Frame::from(&ServerMsg::err(&r)));
                false
            }
        }
    }
}

/// A backlog the kernel has refused for the whole heartbeat window: the client reads
/// nothing, and the socket is given up (there is no writing a close to it either).
fn stalled(backlog: &Backlog, now: Instant) -> bool {
    backlog
        .stalled_since
        .is_some_and(|since| now >= since + HEARTBEAT)
}
