//! The room threads: each room, and every socket of it, lives on one thread with a runtime
//! of its own, so a room and its sockets never hand work across threads.
//!
//! On a shared multi-threaded runtime a socket was read on one worker and its room ran on
//! another: a frame or an input crossed threads, and the idle worker had to be woken (a
//! `futex`) to take it. A room thread is a current-thread runtime on its own OS thread (one
//! per core by default): the room's timer, its sockets' tasks and the room's writes to them
//! all run there, and the kernel wakes that one thread. Rooms are given threads in turn; a
//! socket moves to its room's thread when its upgrade completes (`server::upgrade`). HTTP,
//! the accept loop and the history's writer stay on the main runtime.
//!
//! A thread's rooms keep time together: their ticks fall on `SLOTS` instants of a tick
//! (slots), so the thread wakes once for a slot's rooms instead of once for every room (each
//! wake-up costs the kernel a context switch). A new room joins the first slot of its thread
//! with fewer than `ROOMS_A_SLOT` rooms, the slots taken in an order that spreads the open
//! ones over the tick: few rooms share few wake-ups, and many rooms are never more than a few
//! to a slot, so the last of a slot still starts its tick on time (docs/DECISIONS.md).
//!
//! The threads start with the first room. `stop` ends them (the server's last step): each
//! drops its runtime, and with it whatever still ran there.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::sync::watch;

/// The instants in a tick that a thread's rooms tick on (at 20 Hz, 1 ms apart).
pub const SLOTS: u32 = 50;

/// Rooms a slot of one thread takes before the next slot is opened.
pub const ROOMS_A_SLOT: u32 = 6;

/// The order slots are opened in: the `i`th is `i × STRIDE mod SLOTS`, each far from the
/// ones open before it (17 and 50 share no factor, so every slot comes once).
const STRIDE: u32 = 17;

/// The room threads, started on first use.
#[derive(Debug)]
pub struct RoomThreads {
    count: usize,
    next: AtomicUsize,
    started: OnceLock<Option<Started>>,
    /// Where every thread's schedule starts.
    origin: Instant,
    /// Rooms on each slot of each thread.
    slots: Vec<Vec<AtomicU32>>,
}

/// Where a new room lives: its thread, and the slot its ticks fall on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub thread: usize,
    pub slot: u32,
}

#[derive(Debug)]
struct Started {
    handles: Vec<Handle>,
    stop: watch::Sender<bool>,
}

impl RoomThreads {
    /// `count` threads (at least one).
    pub fn new(count: usize) -> RoomThreads {
        RoomThreads {
            count: count.max(1),
            next: AtomicUsize::new(0),
            started: OnceLock::new(),
            origin: Instant::now(),
            slots: (0..count.max(1))
                .map(|_| (0..SLOTS).map(|_| AtomicU32::new(0)).collect())
                .collect(),
        }
    }

    /// The placement of a new room: each thread in turn, and there the first slot (in opening
    /// order) with room for it, else the least taken. Given back with `leave`.
    pub fn pick(&self) -> Placement {
        let thread = self.next.fetch_add(1, Relaxed) % self.count;
        // Every slot in `order` is below SLOTS, the length of each thread's list.
        let slots = &self.slots[thread];
        let taken = |slot: u32| slots[slot as usize].load(Relaxed);
        let order = (0..SLOTS).map(|i| i * STRIDE % SLOTS);
        let slot = match order.clone().find(|&b| taken(b) < ROOMS_A_SLOT) {
            Some(b) => b,
            None => order.min_by_key(|&b| taken(b)).unwrap_or(0),
        };
        slots[slot as usize].fetch_add(1, Relaxed);
        Placement { thread, slot }
    }

    /// A room has closed (or never opened): its slot has room again.
    pub fn leave(&self, placement: Placement) {
        let slots = self.slots.get(placement.thread);
        if let Some(n) = slots.and_then(|b| b.get(placement.slot as usize)) {
            let _ = n.fetch_update(Relaxed, Relaxed, |v| v.checked_sub(1));
        }
    }

    /// The first tick, from now on, of a room on `slot` whose ticks are `tick` apart.
    pub fn first_tick(&self, slot: u32, tick: Duration) -> Instant {
        let offset = tick * (slot % SLOTS) / SLOTS;
        let since = Instant::now()
            .saturating_duration_since(self.origin + offset)
            .as_nanos();
        let period = tick.as_nanos().max(1);
        let ticks = since.div_ceil(period).min(u32::MAX as u128) as u32;
        self.origin + offset + tick * ticks
    }

    /// Runs `task` on room thread `thread`. Where the threads could not be started (a thread or a
    /// runtime refused), on the caller's runtime instead.
    pub fn spawn<F>(&self, thread: usize, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self.started.get_or_init(|| self.start()) {
            Some(s) => drop(s.handles[thread % s.handles.len()].spawn(task)),
            None => drop(tokio::spawn(task)),
        }
    }

    /// Ends every room thread: each drops its runtime and whatever still ran there.
    pub fn stop(&self) {
        if let Some(Some(s)) = self.started.get() {
            let _ = s.stop.send(true);
        }
    }

    fn start(&self) -> Option<Started> {
        let (stop, stopped) = watch::channel(false);
        let mut handles = Vec::with_capacity(self.count);
        for i in 0..self.count {
            let (tx, rx) = std::sync::mpsc::channel();
            let mut stopped = stopped.clone();
            let thread = std::thread::Builder::new()
                .name(format!("room-thread-{i}"))
                .spawn(move || {
                    let runtime = match tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    {
                        Ok(rt) => rt,
                        Err(e) => {
                            let _ = tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let _ = tx.send(Ok(runtime.handle().clone()));
                    runtime.block_on(async move {
                        let _ = stopped.wait_for(|stop| *stop).await;
                    });
                });
            let started = match thread {
                Ok(_) => rx.recv().map_err(|e| e.to_string()).and_then(|r| r),
                Err(e) => Err(e.to_string()),
            };
            match started {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    tracing::error!(error = %e, "could not start the room threads; rooms run on the main runtime");
                    let _ = stop.send(true);
                    return None;
                }
            }
        }
        Some(Started { handles, stop })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_slot_fills_before_the_next_opens_far_from_it_and_a_room_leaving_frees_its_place() {
        let threads = RoomThreads::new(2);
        let placements: Vec<Placement> = (0..2 * ROOMS_A_SLOT as usize + 2)
            .map(|_| threads.pick())
            .collect();
        let thread0: Vec<u32> = placements
            .iter()
            .filter(|b| b.thread == 0)
            .map(|b| b.slot)
            .collect();
        let first = vec![0; ROOMS_A_SLOT as usize];
        assert_eq!(
            &thread0[..ROOMS_A_SLOT as usize],
            &first[..],
            "few rooms share a slot"
        );
        assert_eq!(
            thread0[ROOMS_A_SLOT as usize], STRIDE,
            "the next slot is far from it"
        );
        threads.leave(placements[0]);
        let again = threads.pick(); // thread 0 again
        assert_eq!(
            again,
            Placement { thread: 0, slot: 0 },
            "a room leaving frees its place"
        );

        // Past every slot's share, the least taken.
        let full = RoomThreads::new(1);
        let slots: Vec<u32> = (0..SLOTS * ROOMS_A_SLOT + SLOTS)
            .map(|_| full.pick().slot)
            .collect();
        for b in 0..SLOTS {
            let on = slots.iter().filter(|&&x| x == b).count();
            assert_eq!(on, ROOMS_A_SLOT as usize + 1, "slot {b}");
        }
    }

    #[test]
    fn first_ticks_fall_on_their_slots() {
        let threads = RoomThreads::new(1);
        let tick = Duration::from_millis(50);
        let now = Instant::now();
        for slot in 0..SLOTS {
            let first = threads.first_tick(slot, tick);
            assert!(first >= now && first < now + tick + Duration::from_millis(1));
            let phase = first.duration_since(threads.origin).as_nanos() % tick.as_nanos();
            assert_eq!(phase, (tick * slot / SLOTS).as_nanos(), "slot {slot}");
        }
    }

    #[tokio::test]
    async fn a_room_and_its_sockets_share_one_thread_and_stop_ends_it() {
        let threads = RoomThreads::new(2);
        let (a, b) = (threads.pick().thread, threads.pick().thread);
        assert_ne!(a, b, "rooms are given threads in turn");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..3 {
            let tx = tx.clone();
            threads.spawn(a, async move {
                let _ = tx.send(std::thread::current().id());
            });
        }
        let mut ran_on = Vec::new();
        for _ in 0..3 {
            ran_on.push(rx.recv().await.expect("each task ran"));
        }
        assert!(
            ran_on.windows(2).all(|w| w[0] == w[1]),
            "one room thread, one OS thread"
        );
        assert_ne!(ran_on[0], std::thread::current().id());

        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        threads.spawn(a, async move {
            let _keep = done_tx;
            std::future::pending::<()>().await;
        });
        threads.stop();
        let ended = tokio::time::timeout(Duration::from_secs(5), done_rx).await;
        assert!(
            matches!(ended, Ok(Err(_))),
            "stopping the threads drops what still ran there"
        );
    }
}
