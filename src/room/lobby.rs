//! The lobby verbs: ready flags, the host's level pick and `start` (with its refusals), the
//! 3-2-1 countdown, and the way back from a finished round (`to_lobby`, `next_level`).
//! Also the `lobby` frame each viewer gets (with its own `unlocked`) and the room's public
//! status.

use super::phase::Phase;
use super::{Room, err};
use crate::net::Frame;
use crate::wire::messages::{PROTOCOL_VERSION, RoomStatus, ServerMsg, code, limits};
use std::time::{Duration, Instant};

/// Why a `start` pressed now would be refused. The protocol's error table has no codes of
/// their own for these: they go out as `wrong_state` with the reason leading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NotStartable {
    NoLevel,
    NoReadyPlayers,
}

impl NotStartable {
    /// The reason's word, as the `lobby` frame's `start_refusal` carries it.
    pub fn code(self) -> &'static str {
        match self {
            NotStartable::NoLevel => "no_level",
            NotStartable::NoReadyPlayers => "no_ready_players",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            NotStartable::NoLevel => "no_level: pick a level first",
            NotStartable::NoReadyPlayers => "no_ready_players: nobody else is ready",
        }
    }
}

impl Room {
    /// Whether a `start` pressed now would be accepted: a level, and either no other cook
    /// to wait for or one connected, ready guest. A person who was here and went away (the
    /// tab closed) is not waited for: the seat stays theirs until the guest grace, but
    /// whoever holds the crown can start without them (their cook stands by, disconnected).
    fn start_refusal(&self) -> Option<NotStartable> {
        if self.level.is_none() {
            return Some(NotStartable::NoLevel);
        }
        let others: Vec<&super::seats::Seat> = (self.seats.list.iter().enumerate())
            .filter(|(i, _)| Some(*i as u8) != self.seats.host)
            .filter_map(|(_, s)| s.as_ref().filter(|s| !s.away()))
            .collect();
        let ready_guest = others.iter().any(|s| s.ready && s.present());
        (!others.is_empty() && !ready_guest).then_some(NotStartable::NoReadyPlayers)
    }

    pub(super) fn lobby_msg(&self, viewer_token: Option<&str>) -> ServerMsg {
        let state = self.phase.state();
        let in_lobby = matches!(self.phase, Phase::Lobby);
        let refusal = self.start_refusal();
        ServerMsg::Lobby {
            p: PROTOCOL_VERSION,
            code: self.code.clone(),
            state: state.name(),
            level: self.level.clone(),
            host_seat: self.seats.host,
            can_start: in_lobby && refusal.is_none(),
            seats: self.seats.seat_wires(),
            spectators: self.seats.spectator_wires(),
            unlocked: viewer_token
                .and_then(|t| self.shared.sessions.get(t))
                .map(|s| s.unlocked),
            round_no: self.round_no,
            start_refusal: if in_lobby {
                refusal.map(NotStartable::code)
            } else {
                Some("wrong_state")
            },
        }
    }

    /// The `lobby` frame to every connection (each sees its own `unlocked`).
    pub(super) fn broadcast_lobby(&mut self) {
        for (conn, token) in self.seats.viewers() {
            let msg = self.lobby_msg(Some(&token));
            self.send_to(conn, &msg);
        }
    }

    pub(super) fn status(&self) -> RoomStatus {
        RoomStatus {
            code: self.code.clone(),
            state: self.phase.state().name(),
            level: self.level.clone(),
            round_no: self.round_no,
            seats: self.seats.seat_wires(),
            spectators: self.seats.spectators.len(),
            max_players: self.seats.list.len(),
            open_seats: self.seats.list.iter().filter(|s| s.is_none()).count(),
            age_s: self.opened.elapsed().as_secs(),
            resuming: matches!(&self.phase, Phase::Playing(p) if p.waiting.is_some()),
        }
    }

    pub(super) fn ready(&mut self, seat: u8) {
        if let Some(s) = self.seats.get_mut(seat).filter(|s| !s.bot) {
            s.ready = !s.ready;
        }
        self.broadcast_lobby();
    }

    /// The host picks a campaign level its session has unlocked.
    pub(super) fn set_level(&mut self, conn: u64, seat: u8, level: &str) {
        if self.seats.host != Some(seat) {
            self.send_to(conn, &err(code::NOT_HOST, "only the host picks the level"));
            return;
        }
        let levels = &self.shared.levels;
        let Some(order) = levels
            .campaign()
            .find(|l| l.level.id == level)
            .map(|l| l.level.order)
        else {
            let known: Vec<&str> = levels.campaign().map(|l| l.level.id.as_str()).collect();
            let why = format!(
                "level {level:?} is not in the campaign ({})",
                known.join(", ")
            );
            self.send_to(conn, &err(code::BAD_FIELD, why));
            return;
        };
        let unlocked = self.unlocked_of(conn);
        if order > unlocked {
            let why = format!("level {level} is locked (unlocked up to level {unlocked})");
            self.send_to(conn, &err(code::LEVEL_LOCKED, why));
            return;
        }
        self.pick_level(Some(level.to_string()));
        self.broadcast_lobby();
    }

    /// The campaign order a connection's session has unlocked (1 for a new session).
    fn unlocked_of(&self, conn: u64) -> u32 {
        self.seats
            .token_of_conn(conn)
            .and_then(|t| self.shared.sessions.get(t))
            .map_or(1, |s| s.unlocked)
    }

    pub(super) fn start(&mut self, conn: u64, seat: u8) {
        if self.seats.host != Some(seat) {
            self.send_to(conn, &err(code::NOT_HOST, "only the host starts the round"));
        } else if let Some(why) = self.start_refusal() {
            self.send_to(conn, &err(code::WRONG_STATE, why.message()));
        } else {
            self.begin_countdown();
        }
    }

    fn begin_countdown(&mut self) {
        self.phase = Phase::Countdown {
            next: limits::COUNTDOWN_S,
            at: Instant::now(),
        };
        self.broadcast_lobby();
    }

    /// Shows the next number of the countdown, or starts the round after 1.
    pub(super) fn countdown_step(&mut self) {
        let Phase::Countdown { next, at } = &mut self.phase else {
            return;
        };
        if *next == 0 {
            self.start_round();
            return;
        }
        let frame = Frame::from(&ServerMsg::Countdown {
            p: PROTOCOL_VERSION,
            n: *next,
        });
        *next -= 1;
        *at += Duration::from_secs(1);
        self.broadcast(&frame);
    }

    /// Everyone's ready flag down for the next round, but a bot's (bots are always ready).
    fn unready(&mut self) {
        for s in self.seats.list.iter_mut().flatten() {
            s.ready = s.bot;
        }
    }

    /// ROUND_END → LOBBY: ready flags reset, waiting spectators promoted into free seats.
    pub(super) fn back_to_lobby(&mut self) {
        self.phase = Phase::Lobby;
        self.unready();
        while let Some(seat) = self.seats.free() {
            if self.seats.spectators.is_empty() {
                break;
            }
            let spectator = self.seats.spectators.remove(0);
            let mut s = self.new_seat(seat, &spectator.token, Some(&spectator.name));
            let id = spectator.conn.id();
            s.conn = Some(spectator.conn);
            s.disconnected_at = None;
            s.ever_connected = true;
            self.seats.list[seat as usize] = Some(s);
            self.seats.crown_if_free(seat);
            self.welcome(id, &spectator.token, false);
        }
        self.broadcast_lobby();
    }

    /// ROUND_END → COUNTDOWN on the level the sender's session resolves to: the next one
    /// after a win, the same one after a loss.
    pub(super) fn next_level(&mut self, conn: u64) {
        let Phase::RoundEnd { over, .. } = &self.phase else {
            return;
        };
        let (order, won) = (over.level_order, over.won);
        let unlocked = self.unlocked_of(conn);
        let target = if won { order + 1 } else { order };
        let levels = &self.shared.levels;
        let level = levels
            .with_order(target.min(unlocked.max(order)))
            .or_else(|| levels.after(order))
            .map(|l| l.level.id.clone());
        self.pick_level(level);
        self.unready();
        self.begin_countdown();
    }
}
