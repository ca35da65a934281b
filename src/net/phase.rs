//! A socket's phase, which says who reads it and whether it still takes frames; the state
//! it heads (everything about a connection that changes, under its one lock); and the
//! limits a connection is read and written under.

use super::guard::Guard;
use super::read::FrameReader;
use super::write::Writer;
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Where a socket is in its life (the table in `net`'s module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Upgraded; its task reads it, waiting for `hello`.
    AwaitingHello,
    /// Its `hello` is on the way to the room: its task reads it, into the room's mailbox,
    /// until the room takes it.
    HelloSent,
    /// The room reads it at each of its ticks.
    Joined,
    /// The server's close waits behind the backlog; the task writes it out, and reads and
    /// drops what the client sends meanwhile.
    Closing,
    /// The server's close is written: the task reads and drops until the client's close,
    /// or `DRAIN` after `since`.
    Draining { since: Instant },
    /// Over: the client's close came (and is answered), the stream ended, or the task did.
    Closed,
}

/// Who reads a socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    Task,
    Room,
}

impl Phase {
    /// Who reads the socket in this phase (nobody once it is closed).
    pub fn reader(self) -> Option<Reader> {
        match self {
            Phase::Joined => Some(Reader::Room),
            Phase::Closed => None,
            _ => Some(Reader::Task),
        }
    }

    /// Whether frames are still taken (no frame goes out after the server's close).
    pub(super) fn takes_frames(self) -> bool {
        matches!(
            self,
            Phase::AwaitingHello | Phase::HelloSent | Phase::Joined
        )
    }
}

/// A connection's limits, from the server's settings.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub frames_per_s: u32,
    /// The longest message the protocol takes (longer: `too_big`).
    pub message_bytes: usize,
    /// The longest frame or message read at all (longer: not read, close `1009`).
    pub frame_bytes: usize,
    /// The test latency: each frame is held this long before it is written.
    pub latency: Duration,
}

/// Everything about the connection that changes, under its one lock.
pub(super) struct State {
    pub phase: Phase,
    pub stream: TcpStream,
    pub reader: FrameReader,
    pub guard: Guard,
    pub writer: Writer,
    /// When the client last sent anything (its heartbeat window runs from then).
    pub last_seen: Instant,
}
