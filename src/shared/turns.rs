//! A room's turns as its sockets' writing sees them: when a backlog the kernel would not
//! take is tried again.
//!
//! No one asks the kernel to wake anyone for a room's sockets. A joined socket is read by
//! its room at each turn of its timer (`server::ear`). A socket whose kernel send buffer
//! was full (a client that reads slowly) writes what is left at the room's next turn: the
//! room, at the start of each turn, wakes every socket waiting for one. So a home's thread
//! wakes only for timers: its rooms', and those of sockets on their own time.
//!
//! A socket reads on its own time until its `hello` is taken (a client waiting for its
//! `welcome` should not wait for a turn), and again once the server closed it: first a
//! millisecond after it found nothing, then twice as long each time, up to `OWN_TURN`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The longest a socket on its own time waits before it reads again.
pub const OWN_TURN: Duration = Duration::from_millis(50);

/// The first wait of a socket on its own time, after a read found nothing.
const FIRST_GAP: Duration = Duration::from_millis(1);

/// One room's turn counter and the sockets waiting for its next turn.
#[derive(Debug, Default)]
pub struct Turns {
    turn: AtomicU64,
    closed: AtomicBool,
    /// Under this lock the turn moves on, so a socket cannot miss the turn it waits for.
    waiting: Mutex<Vec<Waker>>,
}

/// What `Turns::wait` found.
#[derive(Debug, PartialEq, Eq)]
pub enum Wait {
    /// The socket is woken at the room's next turn.
    Waiting,
    /// A turn came since the one the socket read in: read again now.
    Moved,
    /// The room has closed: the socket keeps its own time.
    Closed,
}

impl Turns {
    pub fn new() -> Arc<Turns> {
        Arc::new(Turns::default())
    }

    /// Turns for a socket that has no room: closed from the start.
    pub fn none() -> Arc<Turns> {
        let turns = Turns::new();
        turns.close();
        turns
    }

    /// The turn now (the count of turns so far).
    pub fn current(&self) -> u64 {
        self.turn.load(Ordering::Acquire)
    }

    /// The room's next turn: every waiting socket is woken. How many were.
    pub fn next(&self) -> usize {
        let mut woken = {
            let mut waiting = super::lock(&self.waiting);
            self.turn.fetch_add(1, Ordering::AcqRel);
            std::mem::take(&mut *waiting)
        };
        let n = woken.len();
        for waker in woken.drain(..) {
            waker.wake();
        }
        // The list goes back, empty, for the sockets' next waits: a turn allocates nothing.
        let mut waiting = super::lock(&self.waiting);
        if waiting.is_empty() {
            *waiting = woken;
        }
        n
    }

    /// The room closed: the sockets waiting are woken and keep their own time from now on.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.next();
    }

    /// A socket that read everything in turn `seen` waits, with `waker`, for the next.
    /// The caller registers once a turn: a second `wait` in the same turn adds its waker
    /// again.
    pub fn wait(&self, seen: u64, waker: &Waker) -> Wait {
        if self.closed.load(Ordering::Acquire) {
            return Wait::Closed;
        }
        let mut waiting = super::lock(&self.waiting);
        if self.turn.load(Ordering::Acquire) != seen {
            return Wait::Moved;
        }
        waiting.push(waker.clone());
        Wait::Waiting
    }
}

/// A socket's own time: a wait that starts at a millisecond after something was read and
/// doubles each time nothing was, up to `OWN_TURN`. Its reading waits so before its hello
/// is taken and after the server closed it; its writing, once its room has closed.
#[derive(Debug)]
pub struct OwnTime {
    /// The timer (made at the first wait), and whether it is set for the wait under way.
    sleep: Option<Pin<Box<Sleep>>>,
    armed: bool,
    gap: Duration,
}

impl Default for OwnTime {
    fn default() -> OwnTime {
        OwnTime {
            sleep: None,
            armed: false,
            gap: FIRST_GAP,
        }
    }
}

impl OwnTime {
    /// Something was read: the next wait starts short again.
    pub fn fresh(&mut self) {
        self.gap = FIRST_GAP;
    }

    /// Ready when the current wait has passed (one is begun if none is under way); else
    /// pending, and woken then.
    pub fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::ZERO)));
        if !self.armed {
            sleep.as_mut().reset(Instant::now() + self.gap);
            self.armed = true;
        }
        std::task::ready!(sleep.as_mut().poll(cx));
        self.armed = false;
        self.gap = (self.gap * 2).min(OWN_TURN);
        Poll::Ready(())
    }
}

/// A socket's writing's wait for its room's next turn (its own time once the room closed).
#[derive(Debug)]
pub struct Pace {
    turns: Arc<Turns>,
    /// The turn in which this pace asked to be woken at the next (once a turn).
    waiting: Option<u64>,
    own: OwnTime,
}

impl Pace {
    /// A pace that follows `turns` (while the room is open; after, its own time).
    pub fn turns(turns: Arc<Turns>) -> Pace {
        Pace {
            turns,
            waiting: None,
            own: OwnTime::default(),
        }
    }

    /// The turn now.
    pub fn current(&self) -> u64 {
        self.turns.current()
    }

    /// Ready when a turn after `seen` has come (once the room closed: when its own wait
    /// has passed); else pending, and woken then.
    pub fn poll_after(&mut self, cx: &mut Context<'_>, seen: u64) -> Poll<()> {
        if self.waiting == Some(seen) && self.turns.current() == seen {
            return Poll::Pending;
        }
        match self.turns.wait(seen, cx.waker()) {
            Wait::Waiting => {
                self.waiting = Some(seen);
                Poll::Pending
            }
            Wait::Moved => Poll::Ready(()),
            Wait::Closed => self.own.poll_wait(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_waiting_socket_is_woken_once_at_the_next_turn_and_a_late_one_reads_again() {
        let turns = Turns::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let seen = turns.current();
        assert_eq!(turns.wait(seen, &waker), Wait::Waiting);
        assert_eq!(turns.next(), 1);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(turns.next(), 0, "woken once, then no longer waiting");
        // A socket that read in an earlier turn does not wait: it reads again.
        assert_eq!(turns.wait(seen, &waker), Wait::Moved);
    }

    #[test]
    fn closing_wakes_the_waiting_and_sends_every_later_socket_to_its_own_time() {
        let turns = Turns::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        assert_eq!(turns.wait(turns.current(), &waker), Wait::Waiting);
        turns.close();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(turns.wait(turns.current(), &waker), Wait::Closed);
        assert_eq!(Turns::none().wait(0, &waker), Wait::Closed);
    }
}
