//! The rooms' threads: each room, and every socket of it, lives on one thread of its own
//! runtime (its home), so a room and its sockets never hand work across threads.
//!
//! On the shared multi-threaded runtime a socket read on one worker and its room on the
//! other: a frame or an input crossed threads, and the idle worker had to be woken (a
//! `futex`) to take it. A home is a current-thread runtime on its own thread: the room's
//! timer, its sockets' reads and the room's writes to them all run there, and the kernel
//! wakes that one thread. Rooms are given homes in turn; a socket is moved to its room's
//! home when its upgrade completes (`server::upgrade`). HTTP, the accept loop and the
//! history's writer stay on the main runtime.
//!
//! A home's rooms keep time together: their turns fall on one schedule of the home's,
//! `BEATS` instants in a tick, so a home's thread wakes for a beat's rooms at once instead
//! of once for every room (each wake-up costs the kernel a context switch). A new room
//! joins the first beat of its home with fewer than `ROOMS_A_BEAT` rooms, the beats taken
//! in an order that spreads the open ones over the tick: few rooms share few wake-ups, and
//! many rooms are never more than a few to a beat, so the last of a beat still starts its
//! tick on time (docs/DECISIONS.md has the measurements).
//!
//! Homes start with the first room. `stop` ends them (the server's last step): each
//! thread drops its runtime, and with it whatever still ran there.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::sync::watch;

/// The instants in a tick that a home's rooms take their turns on (at 20 Hz, 1 ms apart).
pub const BEATS: u32 = 50;

/// Rooms a beat of one home takes before the next beat is opened.
pub const ROOMS_A_BEAT: u32 = 6;

/// The order beats are opened in: the `i`th is `i × STRIDE mod BEATS`, each far from the
/// ones open before it (17 and 50 share no factor, so every beat comes once).
const STRIDE: u32 = 17;

/// The rooms' threads, started on first use.
#[derive(Debug)]
pub struct Homes {
    count: usize,
    next: AtomicUsize,
    started: OnceLock<Option<Started>>,
    /// Where every home's schedule starts.
    origin: Instant,
    /// Rooms on each beat of each home.
    beats: Vec<Vec<AtomicU32>>,
}

/// Where a new room lives: its home, and the beat its turns fall on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Berth {
    pub home: usize,
    pub beat: u32,
}

#[derive(Debug)]
struct Started {
    handles: Vec<Handle>,
    stop: watch::Sender<bool>,
}

impl Homes {
    /// `count` homes (at least one).
    pub fn new(count: usize) -> Homes {
        Homes {
            count: count.max(1),
            next: AtomicUsize::new(0),
            started: OnceLock::new(),
            origin: Instant::now(),
            beats: (0..count.max(1))
                .map(|_| (0..BEATS).map(|_| AtomicU32::new(0)).collect())
                .collect(),
        }
    }

    /// The berth of a new room: each home in turn, and there the first beat (in opening
    /// order) with room for it, else the least taken. Given back with `leave`.
    pub fn pick(&self) -> Berth {
        let home = self.next.fetch_add(1, Relaxed) % self.count;
        // Every beat in `order` is below BEATS, the length of each home's list.
        let beats = &self.beats[home];
        let taken = |beat: u32| beats[beat as usize].load(Relaxed);
        let order = (0..BEATS).map(|i| i * STRIDE % BEATS);
        let beat = match order.clone().find(|&b| taken(b) < ROOMS_A_BEAT) {
            Some(b) => b,
            None => order.min_by_key(|&b| taken(b)).unwrap_or(0),
        };
        beats[beat as usize].fetch_add(1, Relaxed);
        Berth { home, beat }
    }

    /// A room has closed (or never opened): its beat has room again.
    pub fn leave(&self, berth: Berth) {
        let beats = self.beats.get(berth.home);
        if let Some(n) = beats.and_then(|b| b.get(berth.beat as usize)) {
            let _ = n.fetch_update(Relaxed, Relaxed, |v| v.checked_sub(1));
        }
    }

    /// The first turn, from now on, of a room on `beat` whose turns are `tick` apart.
    pub fn first_turn(&self, beat: u32, tick: Duration) -> Instant {
        let offset = tick * (beat % BEATS) / BEATS;
        let since = Instant::now()
            .saturating_duration_since(self.origin + offset)
            .as_nanos();
        let period = tick.as_nanos().max(1);
        let ticks = since.div_ceil(period).min(u32::MAX as u128) as u32;
        self.origin + offset + tick * ticks
    }

    /// Runs `task` on home `home`. Where the homes could not be started (a thread or a
    /// runtime refused), on the caller's runtime instead.
    pub fn spawn<F>(&self, home: usize, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self.started.get_or_init(|| self.start()) {
            Some(s) => drop(s.handles[home % s.handles.len()].spawn(task)),
            None => drop(tokio::spawn(task)),
        }
    }

    /// Ends every home: their threads drop their runtimes and whatever still ran there.
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
                .name(format!("room-home-{i}"))
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
                    tracing::error!(error = %e, "could not start the rooms' threads; rooms run on the main runtime");
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
    fn a_beat_fills_before_the_next_opens_far_from_it_and_a_room_leaving_frees_its_place() {
        let homes = Homes::new(2);
        let berths: Vec<Berth> = (0..2 * ROOMS_A_BEAT as usize + 2)
            .map(|_| homes.pick())
            .collect();
        let home0: Vec<u32> = berths
            .iter()
            .filter(|b| b.home == 0)
            .map(|b| b.beat)
            .collect();
        let first = vec![0; ROOMS_A_BEAT as usize];
        assert_eq!(
            &home0[..ROOMS_A_BEAT as usize],
            &first[..],
            "few rooms share a beat"
        );
        assert_eq!(
            home0[ROOMS_A_BEAT as usize], STRIDE,
            "the next beat is far from it"
        );
        homes.leave(berths[0]);
        let again = homes.pick(); // home 0's turn again
        assert_eq!(
            again,
            Berth { home: 0, beat: 0 },
            "a room leaving frees its place"
        );

        // Past every beat's share, the least taken.
        let full = Homes::new(1);
        let beats: Vec<u32> = (0..BEATS * ROOMS_A_BEAT + BEATS)
            .map(|_| full.pick().beat)
            .collect();
        for b in 0..BEATS {
            let on = beats.iter().filter(|&&x| x == b).count();
            assert_eq!(on, ROOMS_A_BEAT as usize + 1, "beat {b}");
        }
    }

    #[test]
    fn first_turns_fall_on_their_beats() {
        let homes = Homes::new(1);
        let tick = Duration::from_millis(50);
        let now = Instant::now();
        for beat in 0..BEATS {
            let first = homes.first_turn(beat, tick);
            assert!(first >= now && first < now + tick + Duration::from_millis(1));
            let phase = first.duration_since(homes.origin).as_nanos() % tick.as_nanos();
            assert_eq!(phase, (tick * beat / BEATS).as_nanos(), "beat {beat}");
        }
    }

    #[tokio::test]
    async fn a_room_and_its_sockets_share_one_thread_and_stop_ends_it() {
        let homes = Homes::new(2);
        let (a, b) = (homes.pick().home, homes.pick().home);
        assert_ne!(a, b, "rooms are given homes in turn");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..3 {
            let tx = tx.clone();
            homes.spawn(a, async move {
                let _ = tx.send(std::thread::current().id());
            });
        }
        let mut threads = Vec::new();
        for _ in 0..3 {
            threads.push(rx.recv().await.expect("each task ran"));
        }
        assert!(
            threads.windows(2).all(|w| w[0] == w[1]),
            "one home, one thread"
        );
        assert_ne!(threads[0], std::thread::current().id());

        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        homes.spawn(a, async move {
            let _keep = done_tx;
            std::future::pending::<()>().await;
        });
        homes.stop();
        let ended = tokio::time::timeout(Duration::from_secs(5), done_rx).await;
        assert!(
            matches!(ended, Ok(Err(_))),
            "stopping the homes drops what still ran there"
        );
    }
}
