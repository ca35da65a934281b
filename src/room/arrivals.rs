//! Seats and connections: who arrives (an HTTP reservation, a socket's `hello`), who comes
//! back (a rejoin, an eviction of the older socket), who leaves (a drop, a kill, a seat
//! given up after the grace), the host's crown, and a room left empty. A room that is only
//! HTTP reservations (no person's socket ever came) is given up within the unclaimed-seat
//! grace (`UNDERCOOKED_UNCLAIMED_SEAT_S`), not held like a room people are in.
//!
//! While a round is on, every change of a seat's connection is a record in the round log
//! (a seat reserved over HTTP but never connected was in the round as disconnected from
//! its start, so its first hello connects it the same way).

use super::Room;
use super::phase::Phase;
use super::seats::{Conn, Seat, Spectator};
use crate::log::{Accepted, PALETTE};
use crate::net::Link;
use crate::shared::random;
use crate::shared::registry::Reservation;
use crate::wire::messages::{
    PROTOCOL_VERSION, Refusal, RoomState, ServerMsg, YouWire, close, code, sanitize_name,
};
use std::time::{Duration, Instant};

impl Room {
    pub(super) fn new_seat(&self, seat: u8, token: &str, name: Option<&str>) -> Seat {
        let session = self
            .shared
            .sessions
            .touch(token, name.map(sanitize_name).as_deref());
        Seat {
            token: token.to_string(),
            session_id: session.id,
            name: session.name,
            color: PALETTE[seat as usize % PALETTE.len()],
            ready: false,
            conn: None,
            disconnected_at: Some(Instant::now()),
            ever_connected: false,
            bot: false,
        }
    }

    /// HTTP create/join/quick: a seat for the token (the one it has, or a free one in the
    /// lobby), or a spectator place (seat `None`) while a round is on.
    pub(super) fn reserve(
        &mut self,
        token: &str,
        name: Option<&str>,
    ) -> Result<Reservation, &'static str> {
        let state = self.phase.state();
        if state == RoomState::Closed {
            return Err(code::ROOM_GONE);
        }
        self.claim_resumed_seat(token);
        let reservation = |seat: Option<u8>, host: bool| Reservation {
            token: token.to_string(),
            seat,
            host,
        };
        if let Some(seat) = self.seats.of_token(token) {
            return Ok(reservation(Some(seat), self.seats.host == Some(seat)));
        }
        if state != RoomState::Lobby {
            if self.seats.spectators.len() >= self.shared.config.max_spectators {
                return Err(code::ROOM_FULL);
            }
            self.shared
                .sessions
                .touch(token, name.map(sanitize_name).as_deref());
            return Ok(reservation(None, false));
        }
        let seat = self.seats.free().ok_or(code::ROOM_FULL)?;
        self.seats.list[seat as usize] = Some(self.new_seat(seat, token, name));
        self.seats.crown_if_free(seat);
        self.empty_since = None;
        tracing::info!(room = %self.code, seat, "seat reserved");
        self.broadcast_lobby();
        Ok(reservation(Some(seat), self.seats.host == Some(seat)))
    }

    /// A socket's `hello`: rejoin, evict, take a seat, spectate, or be refused. A socket
    /// that gets a place is read by the room from now on (`Conn::new` claims it).
    pub(super) fn hello(
        &mut self,
        link: Link,
        token: Option<String>,
        name: Option<String>,
        seated_only: bool,
    ) {
        if self.phase.state() == RoomState::Closed {
            self.refuse(
                &link,
                code::ROOM_GONE,
                "the room is closed",
                close::ROOM_GONE,
            );
            return;
        }
        if let Some(t) = token.as_deref() {
            self.claim_resumed_seat(t);
        }
        // A socket on the connection reserve: only a player coming back to its seat.
        if seated_only
            && token
                .as_deref()
                .is_none_or(|t| self.seats.of_token(t).is_none())
        {
            let why = crate::shared::admission::Refused::ReserveOnly;
            self.shared.admission.refuse(why);
            let why = why.why();
            self.refuse(&link, code::ROOM_FULL, why, close::ROOM_FULL);
            return;
        }
        let token = token.unwrap_or_else(|| random::hex(16));
        let name = name.map(|n| sanitize_name(&n));
        // The same connection saying hello again: answer with the picture, nothing else.
        if self.seats.conn_mut(link.id).is_some() {
            self.welcome(link.id, &token, false);
            return;
        }
        let (seat, rejoined) = match self.seats.of_token(&token) {
            Some(seat) => (
                Some(seat),
                self.back_to_seat(seat, Conn::new(link.clone()), name.as_deref()),
            ),
            None if self.phase.state() == RoomState::Lobby => match self.seats.free() {
                Some(seat) => {
                    self.take_seat(seat, Conn::new(link.clone()), &token, name.as_deref());
                    (Some(seat), false)
                }
                None => {
                    let why = "every seat is taken";
                    self.refuse(&link, code::ROOM_FULL, why, close::ROOM_FULL);
                    return;
                }
            },
            None => {
                if !self.watch(&link, &token, name.as_deref()) {
                    return;
                }
                (None, false)
            }
        };
        self.empty_since = None;
        if seat.is_some() {
            // A person is here: quick play may seat strangers with them now.
            self.info.welcome();
        }
        tracing::info!(room = %self.code, seat = ?seat, rejoined, "hello accepted");
        self.welcome(link.id, &token, rejoined);
        self.greet_while_resuming(link.id);
        self.broadcast_lobby();
    }

    /// A token's own seat gets a socket (again). A second socket evicts the first, whose
    /// late close carries its own id and will not touch this seat. Returns whether this is
    /// a rejoin (a seat whose socket had connected before and dropped).
    fn back_to_seat(&mut self, seat: u8, conn: Conn, name: Option<&str>) -> bool {
        let census = &self.shared.census;
        let Some(s) = self.seats.get_mut(seat) else {
            return false;
        };
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            s.name = n.to_string();
        }
        if let Some(old) = s.conn.take() {
            let refusal = Refusal::new(code::EVICTED, "another connection took this seat");
            census.refuse(&old.link, &refusal, close::EVICTED);
            tracing::info!(room = %self.code, seat, "connection evicted by a newer one");
        }
        let was_disconnected = s.disconnected_at.take().is_some();
        let rejoined = was_disconnected && s.ever_connected;
        s.ever_connected = true;
        s.conn = Some(conn);
        if was_disconnected {
            self.seats.crown_if_free(seat);
            self.record(Accepted::Connected(seat));
        }
        rejoined
    }

    /// A free seat in the lobby for a new token, connected from the start.
    fn take_seat(&mut self, seat: u8, conn: Conn, token: &str, name: Option<&str>) {
        let mut s = self.new_seat(seat, token, name);
        s.conn = Some(conn);
        s.disconnected_at = None;
        s.ever_connected = true;
        self.seats.list[seat as usize] = Some(s);
        self.seats.crown_if_free(seat);
    }

    /// A spectator place while a round is on; false (and the socket refused) when none is
    /// free.
    fn watch(&mut self, link: &Link, token: &str, name: Option<&str>) -> bool {
        if self.seats.spectators.len() >= self.shared.config.max_spectators {
            let why = "no seat and no spectator place is free";
            self.refuse(link, code::ROOM_FULL, why, close::ROOM_FULL);
            return false;
        }
        let session = self.shared.sessions.touch(token, name);
        let color = PALETTE[self.seats.spectators.len() % PALETTE.len()];
        self.seats.spectators.push(Spectator {
            token: token.to_string(),
            name: session.name,
            color,
            conn: Conn::new(link.clone()),
        });
        true
    }

    fn refuse(&self, link: &Link, code: &'static str, why: &str, close: u16) {
        self.shared
            .census
            .refuse(link, &Refusal::new(code, why), close);
    }

    /// `welcome`, then the `lobby` as this viewer sees it.
    pub(super) fn welcome(&mut self, conn: u64, token: &str, rejoined: bool) {
        let seat = self.seats.of_conn(conn);
        let msg = ServerMsg::Welcome {
            p: PROTOCOL_VERSION,
            you: YouWire {
                token: token.to_string(),
                seat,
                host: seat.is_some() && self.seats.host == seat,
            },
            room: self.code.clone(),
            state: self.phase.state().name(),
            level: self.level.clone(),
            seats: self.seats.seat_wires(),
            rejoined,
        };
        self.send_to(conn, &msg);
        let lobby = self.lobby_msg(Some(token));
        self.send_to(conn, &lobby);
    }

    /// Appends a seat change to the round log, when a round is being played.
    pub(super) fn record(&mut self, accepted: Accepted) {
        if let Phase::Playing(play) = &mut self.phase {
            play.record(accepted);
        }
    }

    /// A connection ended. Only the connection with this id is removed: a late close from a
    /// socket that was already replaced finds nothing.
    pub(super) fn gone(&mut self, conn: u64) {
        if let Some(seat) = self.seats.of_conn(conn) {
            if let Some(s) = self.seats.get_mut(seat) {
                s.conn = None;
                s.disconnected_at = Some(Instant::now());
            }
            tracing::info!(room = %self.code, seat, "seat disconnected");
            if self.seats.host == Some(seat) {
                self.seats.pass_crown();
            }
            self.record(Accepted::Disconnected(seat));
            self.broadcast_lobby();
        } else if let Some(i) = self
            .seats
            .spectators
            .iter()
            .position(|s| s.conn.id() == conn)
        {
            self.seats.spectators.remove(i);
            self.broadcast_lobby();
        }
    }

    /// Test seam: a hard drop of a token's socket (a normal close, then the standard
    /// teardown). Returns whether the token had a live socket here.
    pub(super) fn kill(&mut self, token: &str) -> bool {
        let link = self
            .seats
            .taken()
            .find(|s| s.token == token)
            .and_then(|s| s.conn.as_ref())
            .or_else(|| {
                self.seats
                    .spectators
                    .iter()
                    .find(|s| s.token == token)
                    .map(|s| &s.conn)
            })
            .map(|c| c.link.clone());
        let Some(link) = link else { return false };
        link.close(close::NORMAL);
        self.gone(link.id);
        true
    }

    /// Seats disconnected longer than the guest idle timeout are given up; in the lobby, a
    /// seat reserved over HTTP whose socket never came, after the (shorter) unclaimed-seat
    /// grace: a reservation alone holds no seat, no crown and no room for long.
    pub(super) fn abandon_idle_seats(&mut self, now: Instant) {
        let grace = Duration::from_secs(self.shared.config.guest_idle_timeout_s);
        let unclaimed = Duration::from_secs(self.shared.config.unclaimed_seat_s);
        let lobby = matches!(self.phase, Phase::Lobby);
        for seat in 0..self.seats.list.len() as u8 {
            let expired = self.seats.get(seat).is_some_and(|s| {
                let grace = match lobby && !s.ever_connected {
                    true => unclaimed.min(grace),
                    false => grace,
                };
                s.disconnected_at
                    .is_some_and(|t| now.duration_since(t) >= grace)
            });
            if !expired {
                continue;
            }
            self.seats.list[seat as usize] = None;
            tracing::info!(room = %self.code, seat, "seat abandoned after the grace");
            self.record(Accepted::Abandoned(seat));
            if self.seats.host == Some(seat) {
                self.seats.pass_crown();
            }
            if self.seats.is_empty() {
                self.empty_since.get_or_insert(now);
            }
            self.broadcast_lobby();
        }
    }

    /// Closes a room left empty for the grace (lobby, round end). Returns false to close.
    pub(super) fn close_if_empty(&mut self, now: Instant) -> bool {
        if !self.seats.is_empty() {
            self.empty_since = None;
            return true;
        }
        let since = *self.empty_since.get_or_insert(now);
        let idle = matches!(self.phase, Phase::Lobby | Phase::RoundEnd { .. });
        let grace = Duration::from_secs(self.shared.config.empty_room_grace_s);
        // A room no person ever connected to is reservations alone: it closes once the
        // unclaimed-seat grace from its opening is over (its last seat given up then).
        let unclaimed = Duration::from_secs(self.shared.config.unclaimed_seat_s);
        let stillborn = !self.info.welcomed() && now.duration_since(self.opened) >= unclaimed;
        if idle && (stillborn || now.duration_since(since) >= grace) {
            self.phase = Phase::Closed;
            let gone = Refusal::new(code::ROOM_GONE, "the room closed");
            for s in std::mem::take(&mut self.seats.spectators) {
                self.shared
                    .census
                    .refuse(&s.conn.link, &gone, close::ROOM_GONE);
            }
            return false;
        }
        true
    }
}
