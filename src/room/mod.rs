//! The room actor: one tokio task per room that owns its seats, its lobby and its round.
//!
//! Nothing else mutates a room. HTTP handlers send it `RoomCmd`s through the registry
//! (`crate::shared`), and so does a socket until the room takes its `hello`. From then on
//! the room reads the socket itself: at each tick of its timer (every phase), after the
//! commands already waiting, it reads what every client sent since the last tick, a
//! budget per socket (`net::Connection::hear`), and handles it in the same tick, so no
//! socket's task is woken for what its client sends. It answers by writing to each
//! connection itself (`net::write`), within a bounded backlog, and never waits on one.
//! This file is the actor loop and all dispatch: every command and every client message
//! is routed here, to one file per responsibility:
//!
//! - `arrivals`: seats and connections (reserve, hello, gone, kill, abandon, the crown);
//! - `bots`: bot cooks in seats (added, removed, play solo);
//! - `lobby`: the pre-round verbs (ready, level, start, countdown, to_lobby, next_level);
//! - `play`: a round being played (input, tick, fan-out);
//! - `verdict`: the end of a round, the `round` frame, and the crash path;
//! - `events`: `ev` frames outside the kitchen's own (emotes, quest completions).
//!
//! The room holds no game rule: while a round plays it appends every accepted input and
//! seat change to the round log and calls the sim's fold once per tick.

mod arrivals;
mod bots;
mod events;
mod lobby;
mod phase;
mod play;
mod resume;
mod seats;
mod stream;
mod verdict;

pub use resume::{NotReopened, Rebuilt, plan_file, reopen};

use crate::net::threads::Placement;
use crate::net::{Frame, Ticks};
use crate::shared::Shared;
use crate::shared::census::Census;
use crate::shared::registry::{Opener, RoomCmd, RoomHandle, RoomInfo};
use crate::wire::messages::{Refusal, RoomMsg, ServerMsg, allowed_in, close, code};
use phase::Phase;
use seats::{Conn, Seats};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

pub struct Room {
    code: String,
    shared: Arc<Shared>,
    info: Arc<RoomInfo>,
    phase: Phase,
    seats: Seats,
    level: Option<String>,
    round_no: u32,
    empty_since: Option<Instant>,
    panic_next: bool,
    opened: Instant,
    /// When this room last told the session cache its players are still here.
    sessions_kept: Instant,
    /// What its clients sent since the last tick, by connection id (kept, so a tick
    /// allocates nothing).
    heard: Vec<(u64, RoomMsg)>,
    /// Its sockets write a backlog at its ticks (`net::ticks`).
    ticks: Arc<Ticks>,
    /// Its room thread and the slot of it its ticks fall on (`net::threads`), given back
    /// when it closes.
    placement: Placement,
}

/// Creates a room, registers it and starts its task. `None` when the process is at
/// `max_rooms`.
pub fn spawn(shared: &Arc<Shared>) -> Option<(String, RoomHandle)> {
    spawn_as(shared, None, Opener::default())
}

/// A new room under `code` (claimed in the cluster's directory first), or a fresh code,
/// opened by `opener`.
pub fn spawn_as(
    shared: &Arc<Shared>,
    code: Option<String>,
    opener: Opener,
) -> Option<(String, RoomHandle)> {
    let placement = shared.threads.pick();
    let max = shared.config.max_rooms;
    let Some((code, handle, rx)) = shared.rooms.open(max, placement.thread, code, opener) else {
        shared.threads.leave(placement);
        return None;
    };
    let room = Room::new(shared, &code, &handle, placement);
    tracing::info!(room = %code, "room opened");
    shared.threads.spawn(placement.thread, room.run(rx));
    Some((code, handle))
}

fn err(code: &'static str, msg: impl Into<String>) -> ServerMsg {
    ServerMsg::err(&Refusal::new(code, msg))
}

impl Room {
    /// An empty lobby under `code`, registered as `handle`, on its thread's `placement`.
    fn new(shared: &Arc<Shared>, code: &str, handle: &RoomHandle, placement: Placement) -> Room {
        Room {
            code: code.to_string(),
            shared: shared.clone(),
            info: handle.info.clone(),
            phase: Phase::Lobby,
            seats: Seats::new(shared.config.max_players as usize),
            level: None,
            round_no: 0,
            empty_since: Some(Instant::now()),
            panic_next: false,
            opened: Instant::now(),
            sessions_kept: Instant::now(),
            heard: Vec::new(),
            ticks: handle.ticks.clone(),
            placement,
        }
    }

    async fn run(mut self, mut rx: mpsc::Receiver<RoomCmd>) {
        let tick = Duration::from_micros(1_000_000 / self.shared.config.tick_hz as u64);
        // On its thread's slot; a late tick does not move the later ones off it.
        let first = self.shared.threads.first_tick(self.placement.slot, tick);
        let mut timer = tokio::time::interval_at(first.into(), tick);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            let go_on = tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.command(cmd).is_continue(),
                    None => false,
                },
                scheduled = timer.tick() => {
                    // Sockets with a backlog write it (they run while the room yields).
                    if self.ticks.next() > 0 {
                        tokio::task::yield_now().await;
                    }
                    self.on_tick(&mut rx, scheduled.into_std())
                }
            };
            self.publish();
            if !go_on {
                break;
            }
        }
        self.phase = Phase::Closed;
        self.ticks.close();
        self.shared.threads.leave(self.placement);
        self.publish();
        self.shared.rooms.forget(&self.code);
        tracing::info!(room = %self.code, "room closed");
    }

    /// One tick of the room's timer. The commands already waiting go first: what a socket
    /// sent through the mailbox before the room took its reading comes before what the room
    /// reads now (only those: a stream of new ones cannot hold the tick back). Then what
    /// every client sent since the last tick (a budget per socket: a flood waits in the
    /// kernel, and its sender runs out of tokens), then the timer's work. Returns false when
    /// the room should close.
    fn on_tick(&mut self, rx: &mut mpsc::Receiver<RoomCmd>, scheduled: Instant) -> bool {
        for _ in 0..rx.len() {
            let Ok(cmd) = rx.try_recv() else { break };
            if self.command(cmd).is_break() {
                return false;
            }
        }
        let now = Instant::now();
        self.info.ticked(now);
        let mut heard = std::mem::take(&mut self.heard);
        for conn in self.seats.conns_mut() {
            if let Some(code) = conn.link.hear(now, &mut heard) {
                // The rules closed it (abuse, a frame too big or broken): counted by code.
                self.shared.census.refused(code);
                if code == close::ABUSE {
                    tracing::info!(room = %self.code, conn = conn.link.id, "closed for abuse (3 strikes)");
                }
            }
        }
        for (conn, msg) in heard.drain(..) {
            self.message(conn, msg);
        }
        self.heard = heard;
        self.on_timer(scheduled, now)
    }

    /// One command from the mailbox; `Break` closes the room (a server shutdown).
    fn command(&mut self, cmd: RoomCmd) -> ControlFlow<()> {
        match cmd {
            RoomCmd::Reserve { token, name, reply } => {
                let _ = reply.send(self.reserve(&token, name.as_deref()));
            }
            RoomCmd::Solo { token, name, reply } => {
                let _ = reply.send(self.solo(&token, name.as_deref()));
            }
            RoomCmd::AddBot { token, seat, reply } => {
                let _ = reply.send(self.add_bot(&token, seat));
            }
            RoomCmd::RemoveBot { token, seat, reply } => {
                let _ = reply.send(self.remove_bot(&token, seat));
            }
            RoomCmd::Hello {
                conn,
                token,
                name,
                seated_only,
            } => self.hello(conn, token, name, seated_only),
            RoomCmd::Msg { conn, msg } => self.message(conn, msg),
            RoomCmd::Gone { conn } => self.gone(conn),
            RoomCmd::Kill { token, reply } => {
                let _ = reply.send(self.kill(&token));
            }
            RoomCmd::PanicNextTick => self.panic_next = true,
            // Blocks on purpose: the test of a stall needs a thread that is held.
            RoomCmd::HoldThread(held) => std::thread::sleep(held),
            RoomCmd::Status { reply } => {
                let _ = reply.send(self.status());
            }
            RoomCmd::QuestCompleted(c) => self.quest_completed(&c),
            RoomCmd::Shutdown { reply } => {
                self.shutdown();
                let _ = reply.send(());
                return ControlFlow::Break(());
            }
            RoomCmd::Handoff { reply } => {
                self.handoff();
                let _ = reply.send(());
                return ControlFlow::Break(());
            }
            RoomCmd::Disown { reply } => {
                for conn in self.seats.conns_mut() {
                    conn.link.close(close::ROOM_GONE);
                }
                tracing::warn!(room = %self.code, state = self.phase.state().name(), "room given up to another node: sockets closed 4401, no result recorded");
                let _ = reply.send(());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// Every client message after the handshake: the state and seat checks, then its verb.
    fn message(&mut self, conn: u64, msg: RoomMsg) {
        if self.seats.conn_mut(conn).is_none() {
            return; // a connection this room no longer knows (evicted, killed)
        }
        let state = self.phase.state();
        if !allowed_in(msg.kind(), state) {
            let why = format!(
                "{} is not accepted while the room is {}",
                msg.kind(),
                state.name()
            );
            self.send_to(conn, &err(code::WRONG_STATE, why));
            return;
        }
        let Some(seat) = self.seats.of_conn(conn) else {
            let why = format!("{} needs a seat; you are watching", msg.kind());
            self.send_to(conn, &err(code::NOT_SEATED, why));
            return;
        };
        match msg {
            RoomMsg::Ready => self.ready(seat),
            RoomMsg::SetLevel { level } => self.set_level(conn, seat, &level),
            RoomMsg::Start => self.start(conn, seat),
            RoomMsg::Emote { id } => self.emote(conn, seat, &id),
            RoomMsg::Input(input) => self.input(conn, seat, input),
            RoomMsg::ToLobby => self.back_to_lobby(),
            RoomMsg::NextLevel => self.next_level(conn),
        }
    }

    /// The periodic work: the sim's tick while playing, countdown and announcement steps,
    /// grace timers, in the tick of the timer that began at `now`. Returns false when the room should close.
    fn on_timer(&mut self, scheduled: Instant, now: Instant) -> bool {
        let waits = matches!(self.phase, Phase::Playing(_)) && !self.resume_wait_over(now);
        match &self.phase {
            Phase::Closed => return false,
            Phase::Countdown { at, .. } if now >= *at => self.countdown_step(),
            Phase::Playing(_) if waits => {}
            Phase::Playing(_) => {
                // Tick health: how late the tick started against its schedule, how long it
                // ran (reading what its clients sent, then the sim's step).
                self.tick();
                let lateness = now.saturating_duration_since(scheduled);
                self.shared.census.ticks.observe(now.elapsed(), lateness);
            }
            Phase::RoundEnd {
                announce_at: Some(at),
                ..
            } if now >= *at => self.send_round_frames(),
            _ => {}
        }
        self.abandon_idle_seats(now);
        if now.duration_since(self.sessions_kept) >= Duration::from_secs(60) {
            // The players' sessions stay cached while they are here (the room reads them
            // without waiting; the cache drops a session idle for 10 minutes).
            self.sessions_kept = now;
            let seats = self
                .seats
                .taken()
                .filter(|s| !s.bot)
                .map(|s| s.token.as_str());
            let watching = self.seats.spectators.iter().map(|s| s.token.as_str());
            self.shared.sessions.keep(seats.chain(watching));
        }
        self.close_if_empty(now)
    }

    fn publish(&self) {
        self.info.publish(
            self.phase.state(),
            self.seats.seated(),
            self.seats.connected_people(),
            self.seats.spectators.len(),
        );
    }

    /// Picks the room's level and tells the registry (the directory reads it there): at
    /// the change, so the registry's lock is not taken at every tick.
    fn pick_level(&mut self, level: Option<String>) {
        self.info.publish_level(level.as_deref());
        self.level = level;
    }

    /// Sends a frame to one connection without waiting. A full send queue drops it; a dropped
    /// `snap` marks the connection `needs_full`, so its stream starts over whole.
    fn push(out: SendCounters, conn: &mut Conn, frame: &Frame, is_snap: bool) {
        match conn.link.send(frame) {
            Some(depth) => {
                out.census.queue_depth(depth);
                out.info.queued(depth);
            }
            None if is_snap => conn.needs_full = true,
            None => {}
        }
    }

    fn send_to(&mut self, conn_id: u64, msg: &ServerMsg) {
        let frame = Frame::from(msg);
        if let Some(conn) = self.seats.conn_mut(conn_id) {
            Room::push(
                SendCounters::of(&self.shared, &self.info),
                conn,
                &frame,
                false,
            );
        }
    }

    /// One frame, encoded once, to every connection.
    fn broadcast(&mut self, frame: &Frame) {
        for conn in self.seats.conns_mut() {
            Room::push(
                SendCounters::of(&self.shared, &self.info),
                conn,
                frame,
                false,
            );
        }
    }

    /// A handoff (`UNDERCOOKED_HANDOFF`): no more ticks; the round's log is flushed whole to
    /// its last closed tick (every pass's frame with it) and left without an end for the
    /// next start to resume; every socket closes 1012 so its client comes back.
    fn handoff(&mut self) {
        if let Phase::Playing(play) = &mut self.phase {
            let tick = play.round.fold().state.tick;
            if let Err(e) = play.round.flush() {
                tracing::warn!(room = %self.code, error = %e, "flushing the replay for the handoff failed");
            }
            if let Some(s) = &mut play.stream {
                s.hand_over(&self.shared, play.round.out_mut());
            }
            play.hand_over_history(&self.shared, tick);
            tracing::info!(room = %self.code, tick, "round handed over: its log ends at a tick boundary");
            self.phase = Phase::Closed;
        } else if matches!(self.phase, Phase::Countdown { .. } | Phase::RoundEnd { .. }) {
            // Nothing to resume: a countdown starts no round, a finished one is written.
            self.shutdown();
            return;
        }
        for conn in self.seats.conns_mut() {
            conn.link.close(close::SERVICE_RESTART);
        }
    }

    /// Server shutdown: the round (if any) is written as aborted, every socket closes 1001.
    fn shutdown(&mut self) {
        if matches!(self.phase, Phase::Playing(_)) {
            self.end_round(true);
        }
        for conn in self.seats.conns_mut() {
            conn.link.close(close::GOING_AWAY);
        }
    }
}

/// What a queued frame is counted in (borrowed apart from the seats it goes to).
#[derive(Clone, Copy)]
pub(super) struct SendCounters<'a> {
    census: &'a Census,
    info: &'a RoomInfo,
}

impl<'a> SendCounters<'a> {
    pub(super) fn of(shared: &'a Shared, info: &'a RoomInfo) -> SendCounters<'a> {
        SendCounters {
            census: &shared.census,
            info,
        }
    }
}
