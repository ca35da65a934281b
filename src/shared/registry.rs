//! The room registry: every open room by its code, how to reach it, and what it shows
//! without being asked.
//!
//! A room owns its state; the registry holds its mailbox (`RoomCmd`s go in, the room's task
//! takes them out), its ticks (at which its sockets write a backlog the kernel refused:
//! `net::ticks`), its room thread, and a few atomics the room keeps current (its state,
//! head counts and when it last ticked) for quick play, the census and the stall gauge.
//! The mailbox is the room's whole interface: HTTP handlers speak to a room only through
//! it, and so does a socket until the room takes its `hello` (with the connection: from
//! then on the room reads the socket itself). The mailbox cannot carry `hello` or `ping` as
//! messages: the socket answers `ping` itself and turns `hello` into `RoomCmd::Hello`.

use super::admission::Source;
use crate::net::{Link, Ticks};
use crate::store::quests::Completion;
use crate::wire::messages::{Refusal, RoomMsg, RoomState, RoomStatus};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Commands a room's mailbox holds before senders wait.
const MAILBOX: usize = 1024;

/// The seat a token got from an HTTP create/join/quick (null while spectating).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    pub token: String,
    pub seat: Option<u8>,
    pub host: bool,
}

pub enum RoomCmd {
    /// HTTP create/join/quick: take (or find) a seat for this token.
    Reserve {
        token: String,
        name: Option<String>,
        reply: oneshot::Sender<Result<Reservation, &'static str>>,
    },
    /// Play solo: a seat for this token and bots in every other seat, on the highest level
    /// the token's session has unlocked.
    Solo {
        token: String,
        name: Option<String>,
        reply: oneshot::Sender<Result<Reservation, &'static str>>,
    },
    /// The host (by token) puts a bot in a free seat (`seat`, or the lowest): its seat.
    AddBot {
        token: String,
        seat: Option<u8>,
        reply: oneshot::Sender<Result<u8, Refusal>>,
    },
    /// The host (by token) takes the bot out of `seat`.
    RemoveBot {
        token: String,
        seat: u8,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// A socket's `hello` (the socket already checked the protocol version). A socket on
    /// one of the connection reserve's places is `seated_only`: its token must hold a seat
    /// here already.
    Hello {
        /// The connection, whose reading the room takes over with it.
        conn: Link,
        token: Option<String>,
        name: Option<String>,
        seated_only: bool,
    },
    /// A message from a connection that said hello.
    Msg { conn: u64, msg: RoomMsg },
    /// A connection ended (closed, dropped, timed out, evicted).
    Gone { conn: u64 },
    /// Test seam: force-close a token's connection. Replies whether there was one.
    Kill {
        token: String,
        reply: oneshot::Sender<bool>,
    },
    /// Test seam: make the next tick panic.
    PanicNextTick,
    /// Test seam: block the room's thread this long (a busy thread, as its rooms see it).
    HoldThread(Duration),
    /// The public summary for `GET /api/rooms/{code}`.
    Status { reply: oneshot::Sender<RoomStatus> },
    /// A quest a seated session completed: told to that player alone.
    QuestCompleted(Completion),
    /// Server shutdown: finish the round as aborted, close every socket 1001.
    Shutdown { reply: oneshot::Sender<()> },
    /// Another node holds this room now (this node's lease lapsed and the directory gave
    /// it away): close every socket `4401 room_gone` and stop, recording no result — the
    /// round is no longer this node's to end.
    Disown { reply: oneshot::Sender<()> },
    /// A handoff: the round stops at a tick boundary with its log whole and no end, for
    /// the next start to resume; the room closes its sockets 1012.
    Handoff { reply: oneshot::Sender<()> },
}

/// Who opened a room: the session and the address its rooms are counted against (each
/// holds only its share of the rooms: `server::rooms_api`), and whether quick play opened
/// it for its first player.
#[derive(Clone, Default)]
pub struct Opener {
    /// The opener's token (kept in memory only, as a seat's is).
    pub token: Option<String>,
    pub source: Option<Source>,
    /// Quick play opened it: other quick players may be seated in it for the unclaimed-seat
    /// grace before anyone has connected (so players who click together play together).
    pub quick: bool,
}

/// What the registry knows of a room without asking it.
pub struct RoomInfo {
    opener: Opener,
    /// A person's socket has been let into a seat (the room is not a reservation alone).
    welcomed: AtomicBool,
    state: AtomicU8,
    seated: AtomicU8,
    /// The seated people whose socket is in the room now.
    connected: AtomicU8,
    spectators: AtomicU8,
    /// The deepest any of the room's send queues has been, in frames.
    send_queue_high: AtomicU8,
    /// When the room's timer last ticked, in microseconds after `opened`.
    last_tick_us: AtomicU64,
    opened: Instant,
    /// The level picked, for the cluster's directory.
    level: Mutex<Option<String>>,
}

impl RoomInfo {
    fn new(opener: Opener) -> RoomInfo {
        RoomInfo {
            opener,
            welcomed: AtomicBool::new(false),
            state: AtomicU8::new(RoomState::Lobby.index()),
            seated: AtomicU8::new(0),
            connected: AtomicU8::new(0),
            spectators: AtomicU8::new(0),
            send_queue_high: AtomicU8::new(0),
            last_tick_us: AtomicU64::new(0),
            opened: Instant::now(),
            level: Mutex::new(None),
        }
    }

    /// A person's socket took a seat in the room.
    pub fn welcome(&self) {
        self.welcomed.store(true, Relaxed);
    }

    /// Whether a person's socket has ever taken a seat in the room.
    pub fn welcomed(&self) -> bool {
        self.welcomed.load(Relaxed)
    }

    /// Whether quick play may seat a stranger here: a person is in the room now (so a
    /// stranger meets someone who can start), or quick play opened it less than `grace` ago
    /// and nobody has connected yet (its first player is on the way). Never a room that is
    /// only the reservations of whoever created it, nor one whose people have all gone away
    /// (a host who closed the tab would leave a stranger waiting for nobody).
    pub fn welcomes_strangers(&self, grace: Duration) -> bool {
        self.connected.load(Relaxed) > 0
            || (self.opener.quick && !self.welcomed() && self.opened.elapsed() < grace)
    }

    /// The level the room has picked (`None` before one is).
    pub fn level(&self) -> Option<String> {
        crate::lock::lock(&self.level).clone()
    }

    /// The room publishes its level when it changes.
    pub fn publish_level(&self, level: Option<&str>) {
        *crate::lock::lock(&self.level) = level.map(str::to_string);
    }

    /// The room's timer ticked at `now` (each tick, in every phase).
    pub fn ticked(&self, now: Instant) {
        let us = now.saturating_duration_since(self.opened).as_micros();
        self.last_tick_us.store(us as u64, Relaxed);
    }

    /// How long ago the room's timer last ticked (zero for a room that ticks on time; a
    /// room whose thread is held grows this while it lasts).
    pub fn since_tick(&self, now: Instant) -> Duration {
        let last = self.opened + Duration::from_micros(self.last_tick_us.load(Relaxed));
        now.saturating_duration_since(last)
    }

    pub fn state(&self) -> RoomState {
        RoomState::from_index(self.state.load(Relaxed)).unwrap_or(RoomState::Closed)
    }

    pub fn seated(&self) -> u8 {
        self.seated.load(Relaxed)
    }

    pub fn spectators(&self) -> u8 {
        self.spectators.load(Relaxed)
    }

    /// The room's send-queue high-water mark, in frames.
    pub fn send_queue_high(&self) -> u8 {
        self.send_queue_high.load(Relaxed)
    }

    /// A frame went into one of the room's queues, which now holds `depth`. Only the room
    /// writes its mark, so a read and a store when it rises do (no read-modify-write per
    /// frame).
    pub fn queued(&self, depth: usize) {
        let depth = depth.min(u8::MAX as usize) as u8;
        if depth > self.send_queue_high.load(Relaxed) {
            self.send_queue_high.store(depth, Relaxed);
        }
    }

    /// The room publishes its state and head counts (after every command and tick).
    pub fn publish(&self, state: RoomState, seated: usize, connected: usize, spectators: usize) {
        self.state.store(state.index(), Relaxed);
        self.seated
            .store(seated.min(u8::MAX as usize) as u8, Relaxed);
        self.connected
            .store(connected.min(u8::MAX as usize) as u8, Relaxed);
        self.spectators
            .store(spectators.min(u8::MAX as usize) as u8, Relaxed);
    }
}

/// How to reach a room: its mailbox, its ticks (when its sockets write a backlog:
/// `net::ticks`), its room thread (`net::threads`: where its sockets join it) and its
/// published info.
#[derive(Clone)]
pub struct RoomHandle {
    pub tx: mpsc::Sender<RoomCmd>,
    pub thread: usize,
    pub ticks: Arc<Ticks>,
    pub info: Arc<RoomInfo>,
}

#[derive(Default)]
pub struct Registry {
    rooms: Mutex<BTreeMap<String, RoomHandle>>,
}

/// Room codes: 5 characters from an alphabet without look-alikes (no 0/O, 1/I/L).
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

pub fn room_code() -> String {
    let mut buf = [0u8; 5];
    super::random::fill(&mut buf);
    buf.iter()
        .map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char)
        .collect()
}

impl Registry {
    fn rooms(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, RoomHandle>> {
        crate::lock::lock(&self.rooms)
    }

    /// Registers a new room, on room thread `thread`, under `code` (one the cluster's
    /// directory gave it) or a fresh one: its code, its handle and its mailbox's receiving
    /// end. `None` when `max_rooms` are open or `code` is taken here.
    pub fn open(
        &self,
        max_rooms: usize,
        thread: usize,
        code: Option<String>,
        opener: Opener,
    ) -> Option<(String, RoomHandle, mpsc::Receiver<RoomCmd>)> {
        let mut rooms = self.rooms();
        if rooms.len() >= max_rooms || code.as_ref().is_some_and(|c| rooms.contains_key(c)) {
            return None;
        }
        let code = code.unwrap_or_else(|| {
            loop {
                let c = room_code();
                if !rooms.contains_key(&c) {
                    break c;
                }
            }
        });
        let (tx, rx) = mpsc::channel(MAILBOX);
        let handle = RoomHandle {
            tx,
            thread,
            ticks: Ticks::new(),
            info: Arc::new(RoomInfo::new(opener)),
        };
        rooms.insert(code.clone(), handle.clone());
        Some((code, handle, rx))
    }

    pub fn get(&self, code: &str) -> Option<RoomHandle> {
        self.rooms().get(code).cloned()
    }

    /// A closed room leaves the registry.
    pub fn forget(&self, code: &str) {
        self.rooms().remove(code);
    }

    pub fn all(&self) -> Vec<RoomHandle> {
        self.rooms().values().cloned().collect()
    }

    /// Every open room with its code.
    pub fn by_code(&self) -> Vec<(String, RoomHandle)> {
        self.rooms()
            .iter()
            .map(|(c, h)| (c.clone(), h.clone()))
            .collect()
    }

    pub fn len(&self) -> usize {
        self.rooms().len()
    }

    pub fn is_empty(&self) -> bool {
        self.rooms().is_empty()
    }

    /// The rooms open now that `token` opened, and that `source` opened.
    pub fn held_by(&self, token: Option<&str>, source: Option<Source>) -> (usize, usize) {
        let rooms = self.rooms();
        let openers = rooms.values().map(|h| &h.info.opener);
        openers.fold((0, 0), |(by_token, by_source), o| {
            let t = token.is_some() && o.token.as_deref() == token;
            let s = source.is_some() && o.source == source;
            (by_token + t as usize, by_source + s as usize)
        })
    }

    /// Lobbies with a free seat that welcome strangers (`RoomInfo::welcomes_strangers`),
    /// fullest first (ties by code): where quick play looks.
    pub fn open_lobbies(&self, max_players: u8, grace: Duration) -> Vec<String> {
        let mut lobbies: Vec<(u8, String)> = self
            .rooms()
            .iter()
            .filter(|(_, h)| h.info.state() == RoomState::Lobby && h.info.seated() < max_players)
            .filter(|(_, h)| h.info.welcomes_strangers(grace))
            .map(|(code, h)| (h.info.seated(), code.clone()))
            .collect();
        lobbies.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        lobbies.into_iter().map(|(_, code)| code).collect()
    }

    /// Each open room's send-queue high-water mark, by code.
    pub fn send_queue_highs(&self) -> BTreeMap<String, u8> {
        self.rooms()
            .iter()
            .map(|(code, h)| (code.clone(), h.info.send_queue_high()))
            .collect()
    }

    /// The longest any open room has gone without a tick, and how many have gone longer
    /// than `stalled` (a room thread held up shows here while it lasts).
    pub fn tick_gaps(&self, stalled: Duration) -> (Duration, usize) {
        let now = Instant::now();
        let gaps = self
            .rooms()
            .values()
            .map(|h| h.info.since_tick(now))
            .collect::<Vec<_>>();
        let worst = gaps.iter().copied().max().unwrap_or_default();
        (worst, gaps.iter().filter(|g| **g > stalled).count())
    }

    /// Rooms by state, and spectators in all of them.
    pub fn headcount(&self) -> (BTreeMap<RoomState, u64>, u64) {
        let mut by_state: BTreeMap<RoomState, u64> =
            RoomState::ALL.iter().map(|s| (*s, 0)).collect();
        let mut spectators = 0;
        for h in self.rooms().values() {
            *by_state.entry(h.info.state()).or_insert(0) += 1;
            spectators += h.info.spectators() as u64;
        }
        (by_state, spectators)
    }
}
