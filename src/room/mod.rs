//! The room actor: one tokio task per room that owns its seats, its lobby and its round.
//!
//! Nothing else mutates a room. Sockets and HTTP handlers send it `RoomCmd`s; it answers
//! through each connection's bounded send queue. While a round plays, the room appends every
//! accepted input and seat change to the round log and calls the sim's fold once per tick
//! (`play`); it holds no game rule of its own. `lobby` has the seats, the handshake and the
//! pre-round verbs.

mod lobby;
mod play;

use crate::server::shared::{RoomEntry, RoomInfo, Shared};
use crate::wire::messages::{ClientMsg, RoomState, ServerMsg};
use play::Play;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// What a connection's writer sends: a text frame, or a close frame (then it stops).
#[derive(Debug, Clone)]
pub enum Out {
    Text(Arc<str>),
    Close(u16),
}

/// A connection as the room sees it: an id and its send queue.
#[derive(Clone, Debug)]
pub struct ConnLink {
    pub id: u64,
    pub tx: mpsc::Sender<Out>,
}

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
    /// A socket's `hello` (the socket already checked the protocol version).
    Hello {
        conn: ConnLink,
        token: Option<String>,
        name: Option<String>,
    },
    /// Any other parsed message from a connection that said hello.
    Msg { conn: u64, msg: ClientMsg },
    /// A connection ended (closed, dropped, timed out, evicted).
    Gone { conn: u64 },
    /// Test seam: force-close a token's connection. Replies whether there was one.
    Kill {
        token: String,
        reply: oneshot::Sender<bool>,
    },
    /// Test seam: make the next tick panic.
    PanicNextTick,
    /// The public summary for `GET /api/rooms/{code}`.
    Summary {
        reply: oneshot::Sender<serde_json::Value>,
    },
    /// A quest a seated session completed: told to that player alone.
    Quest(crate::store::quests::Completion),
    /// Server shutdown: finish the round as aborted, close every socket 1001.
    Shutdown { reply: oneshot::Sender<()> },
}

pub(crate) struct Conn {
    pub id: u64,
    pub tx: mpsc::Sender<Out>,
    /// The `seq` discipline: the highest accepted `input.seq` (starts at 0).
    pub last_seq: u64,
    /// The next `snap` to this connection must be a full one.
    pub needs_full: bool,
    pub emote_window: (Instant, u32),
}

impl Conn {
    fn new(link: ConnLink) -> Conn {
        Conn {
            id: link.id,
            tx: link.tx,
            last_seq: 0,
            needs_full: true,
            emote_window: (Instant::now(), 0),
        }
    }
}

pub(crate) struct Seat {
    pub token: String,
    pub session_id: String,
    pub name: String,
    pub color: &'static str,
    pub ready: bool,
    pub conn: Option<Conn>,
    /// When the seat lost its connection (or was reserved and not yet connected).
    pub disconnected_at: Option<Instant>,
    /// Whether a socket ever held this seat (a reconnect of such a seat is a rejoin).
    pub ever_connected: bool,
}

pub(crate) struct Spectator {
    pub token: String,
    pub name: String,
    pub color: &'static str,
    pub conn: Conn,
}

/// The last round's verdict, kept for the `round` frame and `next_level`.
pub(crate) struct Finished {
    pub msg: ServerMsg,
    pub level_order: u32,
    pub won: bool,
}

pub struct Room {
    pub(crate) code: String,
    pub(crate) shared: Arc<Shared>,
    pub(crate) info: Arc<RoomInfo>,
    pub(crate) state: RoomState,
    pub(crate) seats: Vec<Option<Seat>>,
    pub(crate) spectators: Vec<Spectator>,
    pub(crate) level: Option<String>,
    pub(crate) host: Option<u8>,
    pub(crate) round_no: u32,
    /// COUNTDOWN: the next number to show and when; ROUND_END: when the settle ends.
    pub(crate) countdown: u32,
    pub(crate) phase_at: Instant,
    pub(crate) play: Option<Play>,
    pub(crate) finished: Option<Finished>,
    pub(crate) round_frame_sent: bool,
    pub(crate) empty_since: Option<Instant>,
    pub(crate) panic_next: bool,
    pub(crate) started: Instant,
}

/// Creates a room, registers it and starts its task. `None` when the process is at
/// `max_rooms`.
pub fn spawn(shared: &Arc<Shared>) -> Option<(String, RoomEntry)> {
    let mut rooms = shared.rooms.lock().unwrap_or_else(|p| p.into_inner());
    if rooms.len() >= shared.config.max_rooms {
        return None;
    }
    let code = loop {
        let c = lobby::room_code();
        if !rooms.contains_key(&c) {
            break c;
        }
    };
    let (tx, rx) = mpsc::channel(1024);
    let info = Arc::new(RoomInfo::default());
    let entry = RoomEntry {
        tx,
        info: info.clone(),
    };
    rooms.insert(code.clone(), entry.clone());
    drop(rooms);
    let max_players = shared.config.max_players as usize;
    let room = Room {
        code: code.clone(),
        shared: shared.clone(),
        info,
        state: RoomState::Lobby,
        seats: (0..max_players).map(|_| None).collect(),
        spectators: Vec::new(),
        level: None,
        host: None,
        round_no: 0,
        countdown: 0,
        phase_at: Instant::now(),
        play: None,
        finished: None,
        round_frame_sent: false,
        empty_since: Some(Instant::now()),
        panic_next: false,
        started: Instant::now(),
    };
    tracing::info!(room = %code, "room opened");
    tokio::spawn(room.run(rx));
    Some((code, entry))
}

impl Room {
    async fn run(mut self, mut rx: mpsc::Receiver<RoomCmd>) {
        let tick = Duration::from_micros(1_000_000 / self.shared.config.tick_hz as u64);
        let mut timer = tokio::time::interval(tick);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(RoomCmd::Shutdown { reply }) => {
                        self.shutdown();
                        let _ = reply.send(());
                        break;
                    }
                    Some(cmd) => self.command(cmd),
                    None => break,
                },
                _ = timer.tick() => {
                    if !self.on_timer() {
                        break;
                    }
                }
            }
            self.publish_info();
        }
        self.state = RoomState::Closed;
        self.publish_info();
        self.shared.forget_room(&self.code);
        tracing::info!(room = %self.code, "room closed");
    }

    fn command(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Reserve { token, name, reply } => {
                let _ = reply.send(self.reserve(&token, name.as_deref()));
            }
            RoomCmd::Hello { conn, token, name } => self.hello(conn, token, name),
            RoomCmd::Msg { conn, msg } => self.message(conn, msg),
            RoomCmd::Gone { conn } => self.gone(conn),
            RoomCmd::Kill { token, reply } => {
                let _ = reply.send(self.kill(&token));
            }
            RoomCmd::PanicNextTick => self.panic_next = true,
            RoomCmd::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
            RoomCmd::Quest(c) => self.quest_completed(&c),
            RoomCmd::Shutdown { .. } => {}
        }
    }

    /// The periodic work: ticks while playing, countdown and settle steps, grace timers.
    /// Returns false when the room should close.
    fn on_timer(&mut self) -> bool {
        let now = Instant::now();
        if self.state == RoomState::Closed {
            return false;
        }
        match self.state {
            RoomState::Countdown if now >= self.phase_at => self.countdown_step(),
            RoomState::Playing => self.tick(),
            RoomState::RoundEnd if !self.round_frame_sent && now >= self.phase_at => {
                self.send_round_frames()
            }
            _ => {}
        }
        self.abandon_idle_seats(now);
        self.close_if_empty(now)
    }

    fn publish_info(&self) {
        let state = match self.state {
            RoomState::Lobby => 0,
            RoomState::Countdown => 1,
            RoomState::Playing => 2,
            RoomState::RoundEnd => 3,
            RoomState::Closed => 4,
        };
        self.info.state.store(state, Relaxed);
        self.info
            .seated
            .store(self.seats.iter().flatten().count() as u8, Relaxed);
        self.info
            .spectators
            .store(self.spectators.len() as u8, Relaxed);
    }

    /// Sends a frame to one connection without waiting; a full queue drops it (a dropped
    /// `snap` marks the connection `needs_full` so the stream resyncs).
    pub(crate) fn push(shared: &Shared, conn: &mut Conn, text: &Arc<str>, is_snap: bool) {
        match conn.tx.try_send(Out::Text(text.clone())) {
            Ok(()) => {
                let depth = conn.tx.max_capacity() - conn.tx.capacity();
                shared.stats.queue_depth(depth);
            }
            Err(_) => {
                if is_snap {
                    conn.needs_full = true;
                }
            }
        }
    }

    pub(crate) fn send_to(&mut self, conn_id: u64, msg: &ServerMsg) {
        let text: Arc<str> = Arc::from(msg.to_json());
        let shared = self.shared.clone();
        if let Some(conn) = self.conn_mut(conn_id) {
            Room::push(&shared, conn, &text, false);
        }
    }

    pub(crate) fn conn_mut(&mut self, conn_id: u64) -> Option<&mut Conn> {
        for seat in self.seats.iter_mut().flatten() {
            if let Some(c) = seat.conn.as_mut().filter(|c| c.id == conn_id) {
                return Some(c);
            }
        }
        self.spectators
            .iter_mut()
            .map(|s| &mut s.conn)
            .find(|c| c.id == conn_id)
    }

    /// Every live connection: seats first (seat order), then spectators.
    pub(crate) fn conns_mut(&mut self) -> impl Iterator<Item = &mut Conn> {
        self.seats
            .iter_mut()
            .flatten()
            .filter_map(|s| s.conn.as_mut())
            .chain(self.spectators.iter_mut().map(|s| &mut s.conn))
    }

    pub(crate) fn broadcast(&mut self, msg: &ServerMsg) {
        let text: Arc<str> = Arc::from(msg.to_json());
        let shared = self.shared.clone();
        for conn in self.conns_mut() {
            Room::push(&shared, conn, &text, false);
        }
    }

    /// Closes one connection with an error and a close code.
    pub(crate) fn refuse(shared: &Shared, tx: &mpsc::Sender<Out>, err: &ServerMsg, close: u16) {
        let _ = tx.try_send(Out::Text(Arc::from(err.to_json())));
        let _ = tx.try_send(Out::Close(close));
        shared.stats.refused(close);
    }

    fn shutdown(&mut self) {
        if self.play.is_some() {
            self.end_round(true);
        }
        let shared = self.shared.clone();
        for conn in self.conns_mut() {
            let _ = conn
                .tx
                .try_send(Out::Close(crate::wire::messages::close::GOING_AWAY));
        }
        let _ = shared;
    }
}
