//! A room's ticks as its sockets see them, and a socket's backoff when it has no room to
//! keep time for it.
//!
//! No one asks the kernel to wake anyone for a room's sockets. A joined socket is read by
//! its room at each tick of the room's timer. A socket whose kernel send buffer was full (a
//! client that reads slowly) writes what is left at its room's next tick: the room, at the
//! start of each tick, wakes every socket task waiting for one (`Ticks::next`). So a room
//! thread wakes only for timers: its rooms', and those of sockets on a backoff.
//!
//! A socket's task reads it itself until its `hello` is taken (a client waiting for its
//! `welcome` should not wait for a tick), and again once the server closed it: a
//! millisecond after it found nothing, then twice as long each time, up to `BACKOFF_MAX`
//! (`Backoff`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// The longest a socket on its backoff waits before it reads again (a tick at 20 Hz).
pub const BACKOFF_MAX: Duration = Duration::from_millis(50);

/// The first wait of a backoff, after a read found something.
const BACKOFF_MIN: Duration = Duration::from_millis(1);

/// One room's tick counter and the socket tasks waiting for its next tick.
#[derive(Debug, Default)]
pub struct Ticks {
    tick: AtomicU64,
    /// The room has closed: no tick will come.
    closed: AtomicBool,
    /// Under this lock the tick moves on, so a task cannot miss the tick it waits for.
    waiting: Mutex<Vec<Waker>>,
}

impl Ticks {
    pub fn new() -> Arc<Ticks> {
        Arc::new(Ticks::default())
    }

    /// Ticks for a socket that has no room: closed from the start.
    pub fn none() -> Arc<Ticks> {
        let ticks = Ticks::new();
        ticks.close();
        ticks
    }

    /// The tick now (the count of ticks so far).
    pub fn current(&self) -> u64 {
        self.tick.load(Ordering::Acquire)
    }

    /// Whether the room has closed.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The room's next tick: every waiting task is woken. How many were.
    pub fn next(&self) -> usize {
        let mut woken = {
            let mut waiting = crate::lock::lock(&self.waiting);
            self.tick.fetch_add(1, Ordering::AcqRel);
            std::mem::take(&mut *waiting)
        };
        let n = woken.len();
        for waker in woken.drain(..) {
            waker.wake();
        }
        // The list goes back, empty, for the next waits: a tick allocates nothing.
        let mut waiting = crate::lock::lock(&self.waiting);
        if waiting.is_empty() {
            *waiting = woken;
        }
        n
    }

    /// The room closed: the tasks waiting are woken, and go on a backoff from now on.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.next();
    }

    /// Ready when a tick after `seen` has come: `true`, or `false` when the room closed
    /// (no tick will come).
    pub fn after(self: &Arc<Self>, seen: u64) -> After {
        After {
            ticks: self.clone(),
            seen,
            registered: false,
        }
    }
}

/// The wait for a room's next tick (`Ticks::after`).
pub struct After {
    ticks: Arc<Ticks>,
    seen: u64,
    /// Its waker is on the list for the next tick (once is enough).
    registered: bool,
}

impl Future for After {
    type Output = bool;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        if self.ticks.is_closed() {
            return Poll::Ready(false);
        }
        let mut waiting = crate::lock::lock(&self.ticks.waiting);
        if self.ticks.current() != self.seen {
            return Poll::Ready(true);
        }
        if !self.registered {
            waiting.push(cx.waker().clone());
            drop(waiting);
            self.registered = true;
        }
        Poll::Pending
    }
}

/// A socket's backoff between reads when no room reads it: short after a read found
/// something, twice as long after each that found nothing, up to `BACKOFF_MAX`.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    gap: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { gap: BACKOFF_MIN }
    }
}

impl Backoff {
    /// Something was read, and the kernel held nothing more: the next wait is short again.
    pub fn reset(&mut self) {
        self.gap = BACKOFF_MIN;
    }

    /// The read found the kernel still full (it stopped at its budget): the next read
    /// waits the longest, so a flood gets a tick's budget a tick and no more.
    pub fn longest(&mut self) {
        self.gap = BACKOFF_MAX;
    }

    /// The wait before the next read; the one after it is twice as long.
    pub fn next_wait(&mut self) -> Duration {
        let gap = self.gap;
        self.gap = (self.gap * 2).min(BACKOFF_MAX);
        gap
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

    fn poll(after: &mut After, waker: &Waker) -> Poll<bool> {
        Pin::new(after).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_waiting_task_is_woken_once_at_the_next_tick_and_a_late_one_goes_on() {
        let ticks = Ticks::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut after = ticks.after(ticks.current());
        assert_eq!(poll(&mut after, &waker), Poll::Pending);
        assert_eq!(poll(&mut after, &waker), Poll::Pending, "registered once");
        assert_eq!(ticks.next(), 1);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll(&mut after, &waker), Poll::Ready(true));
        assert_eq!(ticks.next(), 0, "woken once, then no longer waiting");
        // A task that looked in an earlier tick does not wait: it goes on.
        assert_eq!(poll(&mut ticks.after(0), &waker), Poll::Ready(true));
    }

    #[test]
    fn closing_wakes_the_waiting_and_no_later_wait_waits() {
        let ticks = Ticks::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut after = ticks.after(ticks.current());
        assert_eq!(poll(&mut after, &waker), Poll::Pending);
        ticks.close();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll(&mut after, &waker), Poll::Ready(false));
        let none = Ticks::none();
        assert_eq!(poll(&mut none.after(0), &waker), Poll::Ready(false));
    }

    #[test]
    fn a_backoff_doubles_to_its_longest_and_starts_over_after_a_read() {
        let mut backoff = Backoff::default();
        let gaps: Vec<u64> = (0..8)
            .map(|_| backoff.next_wait().as_millis() as u64)
            .collect();
        assert_eq!(gaps, [1, 2, 4, 8, 16, 32, 50, 50]);
        backoff.reset();
        assert_eq!(backoff.next_wait(), BACKOFF_MIN);
        backoff.longest();
        assert_eq!(backoff.next_wait(), BACKOFF_MAX);
    }
}
