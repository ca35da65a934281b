//! A socket's way out, shared by its room and its own task: frames written to the kernel
//! by whoever has one, in the order they were handed over.
//!
//! A frame costs its room one non-blocking `write` per connection, and nothing else: the
//! socket's task is not woken to write it (that wake-up, a cross-thread hand-over per frame
//! per socket, was most of a playing room's cost; see docs/PERFORMANCE.md). Only when the
//! kernel's buffer is full does a frame, or what is left of it, wait in the backlog, and the
//! socket's task is woken once to write the backlog out, a little at each of the room's
//! turns (`shared::turns`), as the kernel takes it. Frames are
//! bytes ready for the wire (a WebSocket header and the text, `Frame::wire`), the same
//! bytes for every connection; what the socket's own WebSocket writes (its pongs and its
//! close) goes through the same backlog, so nothing overtakes anything.
//!
//! The backlog holds at most `SEND_QUEUE` frames: past that a frame is refused (the room
//! drops a `snap` and sends the next one whole). After a close is asked for, frames are
//! refused; the socket's task is woken to send the close itself, behind the backlog.

use super::turns::{Pace, Turns};
use bytes::Bytes;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A connection's TCP stream, non-blocking and watched by no one: the socket reads and
/// writes at its room's turns (`shared::turns`), and the room writes to it directly.
pub type Stream = std::net::TcpStream;

/// `stream`, made non-blocking, ready to be shared by the socket's reading and writing.
pub fn stream(stream: std::net::TcpStream) -> io::Result<Arc<Stream>> {
    stream.set_nonblocking(true)?;
    Ok(Arc::new(stream))
}

/// Frames a connection's send queue (this backlog, or a test connection's queue) holds
/// before the room starts dropping `snap`s for it.
pub const SEND_QUEUE: usize = 64;

/// One socket's writing side.
#[derive(Debug)]
pub struct Outbound {
    state: Mutex<State>,
}

/// What the socket's task is woken for.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// The kernel's buffer was full: write the backlog out.
    Backlog,
    /// Send a close frame with this code.
    Close(u16),
}

#[derive(Debug)]
struct State {
    /// `None` once the socket's task has ended: nothing more is written.
    stream: Option<Arc<Stream>>,
    /// Bytes the kernel has not taken yet, in order; the front may be part of a frame.
    backlog: VecDeque<Bytes>,
    /// A close was asked for: frames handed over after it are refused.
    closing: bool,
    /// A write failed: the socket is broken, and its task will see so on its next read.
    broken: bool,
    /// A close asked for and not yet taken by the socket's task.
    close: Option<u16>,
    /// The socket's task, waiting for a `Wake`.
    task: Option<Waker>,
    /// When a backlog the kernel would not take is tried again: the room's next turn.
    pace: Pace,
}

impl Outbound {
    /// The way out of `stream`, whose backlog is written at `turns`.
    pub fn new(stream: Arc<Stream>, turns: Arc<Turns>) -> Arc<Outbound> {
        Arc::new(Outbound {
            state: Mutex::new(State {
                stream: Some(stream),
                backlog: VecDeque::new(),
                closing: false,
                broken: false,
                close: None,
                task: None,
                pace: Pace::turns(turns),
            }),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        super::lock(&self.state)
    }

    /// Hands over a frame's wire bytes without waiting. `Some(depth)`, the frames now
    /// waiting including this one (at least 1), when it was taken; `None` when the backlog
    /// is full, a close was asked for, or the socket is gone.
    pub fn frame(&self, wire: &Bytes) -> Option<usize> {
        let mut st = self.state();
        if st.closing || st.backlog.len() >= SEND_QUEUE {
            return None;
        }
        st.push(wire, |from| wire.slice(from..))?;
        Some(st.backlog.len().max(1))
    }

    /// Bytes from the socket's own WebSocket (a pong, the close): always taken, even after
    /// a close was asked for.
    pub fn raw(&self, bytes: &[u8]) {
        let mut st = self.state();
        let _ = st.push(bytes, |from| Bytes::copy_from_slice(&bytes[from..]));
    }

    /// Asks for a close with `code`: no frame is taken after this, and the socket's task is
    /// woken to send the close (the first code asked for wins).
    pub fn close(&self, code: u16) {
        let mut st = self.state();
        if !st.closing {
            st.closing = true;
            st.close = Some(code);
            st.wake();
        }
    }

    /// The socket's task has ended: nothing more is written, and the stream is let go.
    pub fn detach(&self) {
        let mut st = self.state();
        st.stream = None;
        st.backlog.clear();
    }

    /// For the socket's task: ready with what to do, a close asked for first, else a
    /// backlog to write out; pending (and woken) until there is one.
    pub fn poll_wake(&self, cx: &mut Context<'_>) -> Poll<Wake> {
        let mut st = self.state();
        if let Some(code) = st.close.take() {
            return Poll::Ready(Wake::Close(code));
        }
        if !st.backlog.is_empty() && st.stream.is_some() && !st.broken {
            return Poll::Ready(Wake::Backlog);
        }
        if !st.task.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            st.task = Some(cx.waker().clone());
        }
        Poll::Pending
    }

    /// Writes the backlog out as the kernel takes it; ready when it is empty.
    pub fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut st = self.state();
        loop {
            let Some(stream) = st.stream.clone() else {
                return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
            };
            if st.broken {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
            let turn = st.pace.current();
            if st.write_backlog(&stream)? {
                return Poll::Ready(Ok(()));
            }
            // The kernel took what it could: the rest at the room's next turn.
            std::task::ready!(st.pace.poll_after(cx, turn));
        }
    }
}

impl State {
    /// Wakes the socket's task, if it waits.
    fn wake(&mut self) {
        if let Some(task) = self.task.take() {
            task.wake();
        }
    }

    /// Writes `bytes` now if nothing is waiting, else (or for what the kernel did not
    /// take) appends to the backlog what `rest(from)` keeps of them from `from` on, waking
    /// the socket's task when the backlog starts. Only then is anything kept: a frame the
    /// kernel takes whole costs no reference and no copy. `None` when the socket is gone.
    fn push(&mut self, bytes: &[u8], rest: impl FnOnce(usize) -> Bytes) -> Option<()> {
        let stream = self.stream.as_ref()?;
        if self.broken {
            return None;
        }
        let written = match self.backlog.is_empty() {
            true => write_some(stream, bytes),
            false => Ok(0),
        };
        match written {
            Ok(n) if n == bytes.len() => {}
            Ok(n) => {
                let started = self.backlog.is_empty();
                self.backlog.push_back(rest(n));
                if started {
                    self.wake();
                }
            }
            Err(_) => self.broken = true,
        }
        Some(())
    }

    /// Writes from the front of the backlog: `true` when it is empty, `false` when the
    /// kernel's buffer filled first.
    fn write_backlog(&mut self, stream: &Stream) -> io::Result<bool> {
        while let Some(front) = self.backlog.front_mut() {
            match write_some(stream, front) {
                Ok(n) if n == front.len() => {
                    self.backlog.pop_front();
                }
                Ok(n) => {
                    *front = front.slice(n..);
                    return Ok(false);
                }
                Err(e) => {
                    self.broken = true;
                    return Err(e);
                }
            }
        }
        Ok(true)
    }
}

/// One non-blocking write: how much the kernel took (0 when its buffer is full), or the
/// socket's error.
fn write_some(stream: &Stream, bytes: &[u8]) -> io::Result<usize> {
    loop {
        match Write::write(&mut &*stream, bytes) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}
