//! A socket's writing side: frames go to the kernel in the order they were handed over,
//! and what the kernel does not take waits in a backlog bounded in frames and bytes.
//!
//! Whoever has a frame writes it: the room its `snap`s (one non-blocking `write` per
//! connection, the socket's task not woken), the socket its own answers. Only when the
//! kernel's buffer is full does a frame, or its rest, wait in the backlog; the socket's task
//! then writes the backlog out at its room's ticks, as the client reads. Every kind of
//! write is bounded: at most `SEND_QUEUE` frames and `SEND_BYTES` bytes of frames wait (past
//! either, a frame is refused and its sender decides what that means: the room drops a
//! `snap` and sends the next one whole), at most one pong not yet started (a newer ping's
//! replaces it: RFC 6455 lets an endpoint answer only the latest), and one close, after
//! which nothing more is taken. A backlog whose due frames the kernel has refused for 12 s
//! ends the socket (`stalled_since`), whatever the client sends.
//!
//! With a test latency (`sim_latency_ms`), each frame is held that long before it may be
//! written (its `due`), in the same backlog: one writer, one order.

use bytes::Bytes;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Frames a connection's backlog holds before the room starts dropping `snap`s for it.
pub const SEND_QUEUE: usize = 64;

/// Bytes of frames a connection's backlog holds (about eight full frames of the largest
/// campaign kitchen).
pub const SEND_BYTES: usize = 1 << 20;

/// What a piece of the backlog is: frames are counted against the bounds, a pong may be
/// replaced by a newer one until it starts, and a close is the last thing written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Frame,
    Pong,
    Close,
}

#[derive(Debug)]
struct Queued {
    bytes: Bytes,
    kind: Kind,
    /// Part of it is written already: it can no longer be replaced.
    started: bool,
    /// Not written before then (the test latency).
    due: Option<Instant>,
}

/// What a write to the socket came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Wrote {
    /// Taken whole, or queued behind others: the task has nothing new to do.
    Done,
    /// The backlog started: its task must write it out.
    Started,
    /// Refused: the backlog is at a bound.
    Full,
    /// The socket failed.
    Broken,
}

/// The backlog and its bounds.
#[derive(Debug, Default)]
pub struct Writer {
    backlog: VecDeque<Queued>,
    frames: usize,
    bytes: usize,
    latency: Duration,
    /// Since when the kernel has refused a frame that is due.
    stalled_since: Option<Instant>,
}

impl Writer {
    /// A writer that holds each frame `latency` before writing it.
    pub fn new(latency: Duration) -> Writer {
        Writer {
            latency,
            ..Writer::default()
        }
    }

    /// Frames waiting (a frame's depth as the census counts it).
    pub fn depth(&self) -> usize {
        self.frames
    }

    /// A text frame's wire bytes: written now when nothing waits, else queued within the
    /// bounds.
    pub fn frame(&mut self, stream: &TcpStream, wire: &Bytes) -> Wrote {
        if self.frames >= SEND_QUEUE || self.bytes + wire.len() > SEND_BYTES {
            return Wrote::Full;
        }
        self.push(stream, wire.clone(), Kind::Frame)
    }

    /// The pong for the latest ping: a pong not yet started is replaced, else queued.
    pub fn pong(&mut self, stream: &TcpStream, wire: Bytes) -> Wrote {
        let unstarted = |q: &&mut Queued| q.kind == Kind::Pong && !q.started;
        if let Some(q) = self.backlog.iter_mut().find(unstarted) {
            q.bytes = wire;
            return Wrote::Done;
        }
        self.push(stream, wire, Kind::Pong)
    }

    /// The close, after everything before it (it is never refused).
    pub fn close(&mut self, stream: &TcpStream, wire: Bytes) -> Wrote {
        self.push(stream, wire, Kind::Close)
    }

    /// Pieces waiting (frames, pongs, the close), for the tests.
    #[cfg(test)]
    pub fn entries(&self) -> usize {
        self.backlog.len()
    }

    /// Whether anything waits to be written.
    pub fn is_empty(&self) -> bool {
        self.backlog.is_empty()
    }

    /// When the first held frame falls due (the test latency), if one waits for its time.
    pub fn next_due(&self, now: Instant) -> Option<Instant> {
        self.backlog.front()?.due.filter(|&due| due > now)
    }

    /// Since when the kernel has refused what is due.
    pub fn stalled_since(&self) -> Option<Instant> {
        self.stalled_since
    }

    /// Writes what is due from the front of the backlog, as far as the kernel takes it.
    /// `Ok(true)` when nothing due is left waiting.
    pub fn write_out(&mut self, stream: &TcpStream, now: Instant) -> io::Result<bool> {
        while let Some(front) = self.backlog.front_mut() {
            if front.due.is_some_and(|due| due > now) {
                break;
            }
            let n = write_some(stream, &front.bytes)?;
            if n < front.bytes.len() {
                front.bytes = front.bytes.slice(n..);
                front.started |= n > 0;
                if front.kind == Kind::Frame {
                    self.bytes -= n.min(self.bytes);
                }
                self.stalled_since.get_or_insert(now);
                return Ok(false);
            }
            if let Some(done) = self.backlog.pop_front() {
                self.forget(&done);
            }
        }
        self.stalled_since = None;
        Ok(true)
    }

    /// Writes `bytes` now when nothing waits before them, else (or for what the kernel did
    /// not take) queues what is left. (The clock is read only when something waits.)
    fn push(&mut self, stream: &TcpStream, bytes: Bytes, kind: Kind) -> Wrote {
        let due = (!self.latency.is_zero()).then(|| Instant::now() + self.latency);
        let mut written = 0;
        if self.backlog.is_empty() && due.is_none() {
            match write_some(stream, &bytes) {
                Ok(n) if n == bytes.len() => return Wrote::Done,
                Ok(n) => written = n,
                Err(_) => return Wrote::Broken,
            }
        }
        let started = self.backlog.is_empty();
        if due.is_none() {
            // The kernel refused part of it, or it waits behind what the kernel refused.
            self.stalled_since.get_or_insert_with(Instant::now);
        }
        let queued = Queued {
            bytes: bytes.slice(written..),
            kind,
            started: written > 0,
            due,
        };
        self.count(&queued);
        self.backlog.push_back(queued);
        match started {
            true => Wrote::Started,
            false => Wrote::Done,
        }
    }

    fn count(&mut self, q: &Queued) {
        if q.kind == Kind::Frame {
            self.frames += 1;
            self.bytes += q.bytes.len();
        }
    }

    fn forget(&mut self, q: &Queued) {
        if q.kind == Kind::Frame {
            self.frames -= 1;
            self.bytes -= q.bytes.len().min(self.bytes);
        }
    }
}

/// One non-blocking write: how much the kernel took (0 when its buffer is full), or the
/// socket's error.
fn write_some(mut stream: &TcpStream, bytes: &[u8]) -> io::Result<usize> {
    loop {
        match stream.write(bytes) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}
