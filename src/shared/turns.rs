//! A room's turns as its sockets see them: when each socket reads what its client sent.
//!
//! A room's sockets are not watched by the kernel for what arrives on them. When they were,
//! each frame a client sent woke the room's thread (`epoll_wait`, a context switch, the
//! socket's task) to read it, and inputs are most of what clients send: a playing room's
//! four players woke it 80 times a second on top of its own 20 ticks, and those wake-ups
//! were the largest single cost left of a playing room (docs/PERFORMANCE.md). Instead the
//! room, at the start of each turn of its timer (every tick, in every phase), wakes each
//! socket that read all there was since the last turn; the sockets read before the room
//! goes on (it yields to them), and it takes their inputs in that same turn. Inputs were
//! already taken only at a turn (`shared::inbox`), so no input waits longer for its tick
//! than it did; what changes is that every other frame of a client's (`ready`, `start`,
//! `ping`) is read at the room's next turn, at most one tick after it arrived.
//!
//! The same turns pace a socket's writing when the kernel's send buffer is full (a client
//! that reads slowly): what is left is written at the next turn. So no socket is watched
//! by the kernel at all, and a home's thread wakes only for timers: its rooms', and those
//! of sockets on their own time.
//!
//! A socket reads on its own time until its `hello` is taken (a client waiting for its
//! `welcome` should not wait for a turn): first a millisecond after it found nothing, then
//! twice as long each time, up to `OWN_TURN`. A socket whose room has closed, or that came
//! for a room that does not exist, keeps its own time until it ends.

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

/// One of a socket's waits for its room's turns (its reading has one, its writing another),
/// or for its own time.
#[derive(Debug)]
pub struct Pace {
    turns: Arc<Turns>,
    /// Whether it waits for the room's turns (else for its own time).
    follows: bool,
    /// The turn in which this pace asked to be woken at the next (once a turn).
    waiting: Option<u64>,
    /// Its own time: the timer, and the wait after the next.
    own: Option<Pin<Box<Sleep>>>,
    gap: Duration,
    /// Whether the timer is set for the wait now under way.
    armed: bool,
}

impl Pace {
    /// A pace that follows `turns` from the start.
    pub fn turns(turns: Arc<Turns>) -> Pace {
        Pace {
            turns,
            follows: true,
            waiting: None,
            own: None,
            gap: FIRST_GAP,
            armed: false,
        }
    }

    /// A pace on its own time until `follow` is called.
    pub fn own(turns: Arc<Turns>) -> Pace {
        Pace {
            follows: false,
            ..Pace::turns(turns)
        }
    }

    /// From now on, the room's turns (while it is open).
    pub fn follow(&mut self) {
        self.follows = true;
    }

    /// Something was read: on its own time, the next wait starts short again.
    pub fn fresh(&mut self) {
        self.gap = FIRST_GAP;
    }

    /// The turn now.
    pub fn current(&self) -> u64 {
        self.turns.current()
    }

    /// Ready when a turn after `seen` has come (on its own time: when its wait has
    /// passed); else pending, and woken then.
    pub fn poll_after(&mut self, cx: &mut Context<'_>, seen: u64) -> Poll<()> {
        if self.follows {
            if self.waiting == Some(seen) && self.turns.current() == seen {
                return Poll::Pending;
            }
            match self.turns.wait(seen, cx.waker()) {
                Wait::Waiting => {
                    self.waiting = Some(seen);
                    return Poll::Pending;
                }
                Wait::Moved => return Poll::Ready(()),
                Wait::Closed => {}
            }
        }
        let own = self
            .own
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::ZERO)));
        if !self.armed {
            own.as_mut().reset(Instant::now() + self.gap);
            self.armed = true;
        }
        std::task::ready!(own.as_mut().poll(cx));
        self.armed = false;
        self.gap = (self.gap * 2).min(OWN_TURN);
        Poll::Ready(())
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
