//! One connection as its task and its room share it: its phase, its reading and its
//! writing, under one lock, and the `Link` everyone who writes to it holds.
//!
//! The phase says who reads the socket (`Phase::reader`): its task until the room takes
//! its `hello`, the room from then on, the task again once the server closed it. Writing
//! is whoever's has a frame, into the one `Writer`. Every change the task must act on (a
//! close asked for, a backlog started, the phase moved by the room) wakes it through
//! `changed`; nothing else does.

use super::frame::{self, Frame};
use super::guard::Guard;
use super::heard::Heard;
use super::phase::{Limits, Phase, Reader, State};
use super::read::{FrameReader, Stop};
use super::rules::{ReadOutcome, read_under_rules};
use super::ticks::Ticks;
use super::write::{Writer, Wrote};
use crate::wire::messages::{RoomMsg, close};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::Notify;

/// One connection.
pub struct Connection {
    id: u64,
    state: Mutex<State>,
    /// Wakes the socket's task when its work changed.
    changed: Notify,
    ticks: Arc<Ticks>,
}

/// What the task's writing found: whether the kernel refuses what is due (then the task
/// tries again at the room's next tick), since when, and when a held frame falls due.
#[derive(Clone, Copy, Debug)]
pub struct Backlog {
    pub stalled_since: Option<Instant>,
    pub next_due: Option<Instant>,
}

impl Connection {
    /// A connection on `stream` (non-blocking), whose reading starts with `early` (bytes
    /// read with the upgrade request), whose backlog is written at `ticks`.
    pub fn new(
        id: u64,
        stream: TcpStream,
        early: Vec<u8>,
        limits: Limits,
        ticks: Arc<Ticks>,
    ) -> Arc<Connection> {
        let now = Instant::now();
        Arc::new(Connection {
            id,
            state: Mutex::new(State {
                phase: Phase::AwaitingHello,
                stream,
                reader: FrameReader::new(early, limits.frame_bytes),
                guard: Guard::new(limits.frames_per_s, limits.message_bytes, now),
                writer: Writer::new(limits.latency),
                last_seen: now,
            }),
            changed: Notify::new(),
            ticks,
        })
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// The room's ticks this connection's backlog is written at.
    pub fn ticks(&self) -> &Arc<Ticks> {
        &self.ticks
    }

    fn state(&self) -> MutexGuard<'_, State> {
        crate::lock::lock(&self.state)
    }

    pub fn phase(&self) -> Phase {
        self.state().phase
    }

    /// When the client last sent anything.
    pub fn last_seen(&self) -> Instant {
        self.state().last_seen
    }

    /// Sends a frame without waiting: `Some(depth)`, the frames now waiting including this
    /// one (at least 1), or `None` when the backlog is full or the socket closing or gone.
    pub fn send(&self, frame: &Frame) -> Option<usize> {
        let mut st = self.state();
        if !st.phase.takes_frames() {
            return None;
        }
        let State { stream, writer, .. } = &mut *st;
        let wrote = writer.frame(stream, frame.wire());
        let depth = st.writer.depth().max(1);
        match self.settle(&mut st, wrote) {
            true => Some(depth),
            false => None,
        }
    }

    /// Asks for a close with `code`: nothing sent after this goes out, and the close
    /// follows everything sent before it (the first code asked for wins).
    pub fn close(&self, code: u16) {
        let mut st = self.state();
        self.close_locked(&mut st, code);
    }

    /// The room takes the socket's reading with its `hello`.
    pub fn claim(&self) {
        let mut st = self.state();
        if matches!(st.phase, Phase::AwaitingHello | Phase::HelloSent) {
            st.phase = Phase::Joined;
        }
    }

    /// The room lets the connection go. It closes a socket before it lets it go; one it
    /// let go open (a room that failed) closes as going away.
    pub fn release(&self) {
        let mut st = self.state();
        if st.phase == Phase::Joined {
            self.close_locked(&mut st, close::GOING_AWAY);
        }
    }

    /// The task passed the socket's `hello` on to its room.
    pub fn hello_sent(&self) {
        let mut st = self.state();
        if st.phase == Phase::AwaitingHello {
            st.phase = Phase::HelloSent;
        }
    }

    /// A read by `by`, when the phase says `by` reads: each message its phase
    /// passes on goes to `take`; what the socket answers itself is written here.
    pub fn read(&self, by: Reader, now: Instant, take: impl FnMut(Heard)) -> Option<ReadOutcome> {
        let mut st = self.state();
        if st.phase.reader() != Some(by) {
            return None;
        }
        let idle = st.writer.is_empty();
        let outcome = read_under_rules(&mut st, now, take);
        if idle && !st.writer.is_empty() {
            // An answer (a refusal, a pong, the close's echo) started the backlog: the
            // kernel refused it, or the test latency holds it. The task writes it out.
            self.changed.notify_one();
        }
        match outcome.closed {
            // Breaking the rules while it drains ends it at once.
            Some(_) if !st.phase.takes_frames() => st.phase = Phase::Closed,
            Some(code) => self.close_locked(&mut st, code),
            None => {}
        }
        if outcome.stop == Stop::Ended || st.phase == Phase::Closed {
            st.phase = Phase::Closed;
            self.changed.notify_one();
        }
        Some(outcome)
    }

    /// The room's read, at its tick: its messages go into `heard` with this connection's
    /// id. The close code when the rules closed the socket.
    pub fn hear(&self, now: Instant, heard: &mut Vec<(u64, RoomMsg)>) -> Option<u16> {
        let take = |h: Heard| {
            if let Heard::Room(msg) = h {
                heard.push((self.id, msg));
            }
        };
        self.read(Reader::Room, now, take)?.closed
    }

    /// The task writes out what is due, as far as the kernel takes it.
    pub fn write_out(&self, now: Instant) -> Backlog {
        let mut st = self.state();
        let State { stream, writer, .. } = &mut *st;
        if writer.write_out(stream, now).is_err() {
            st.phase = Phase::Closed;
        }
        if st.phase == Phase::Closing && st.writer.is_empty() {
            st.phase = Phase::Draining { since: now };
        }
        Backlog {
            stalled_since: st.writer.stalled_since(),
            next_due: st.writer.next_due(now),
        }
    }

    /// Pieces of the backlog waiting, for the tests.
    #[cfg(test)]
    pub(super) fn backlog_entries(&self) -> usize {
        self.state().writer.entries()
    }

    /// Woken when the task's work changed: a close asked for, a backlog started, the
    /// phase moved.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// The task has ended: nothing more is read or written, and the client sees the end
    /// of the stream now (the descriptor closes when the last holder lets go).
    pub fn end(&self) {
        let mut st = self.state();
        st.phase = Phase::Closed;
        let _ = st.stream.shutdown(Shutdown::Both);
    }

    /// Queues the close and moves the phase (under the lock already held).
    fn close_locked(&self, st: &mut State, code: u16) {
        if !st.phase.takes_frames() {
            return;
        }
        let State { stream, writer, .. } = st;
        let wrote = writer.close(stream, frame::close(code));
        st.phase = Phase::Closing;
        self.settle(st, wrote);
        if st.phase == Phase::Closing && st.writer.is_empty() {
            st.phase = Phase::Draining {
                since: Instant::now(),
            };
        }
        self.changed.notify_one();
    }

    /// What a write means for the task: woken when a backlog started, the socket closed
    /// when it failed. Whether the write was taken.
    fn settle(&self, st: &mut State, wrote: Wrote) -> bool {
        match wrote {
            Wrote::Done => true,
            Wrote::Started => {
                self.changed.notify_one();
                true
            }
            Wrote::Full => false,
            Wrote::Broken => {
                st.phase = Phase::Closed;
                self.changed.notify_one();
                false
            }
        }
    }
}
