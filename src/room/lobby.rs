//! Seats, the handshake and the pre-round verbs: who sits where, the host's crown, ready
//! flags, level picks, the start and its refusals, emotes, drops, rejoins and evictions.

use super::{Conn, ConnLink, Out, Reservation, Room, Seat, Spectator};
use crate::log::Record;
use crate::sim::events::EMOTES;
use crate::simulate::PALETTE;
use crate::wire::messages::{
    ClientMsg, PROTOCOL_VERSION, Refusal, RoomState, SeatWire, ServerMsg, SpectatorWire, YouWire,
    allowed_in, close, code, limits, sanitize_name,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Room codes: 5 characters from an alphabet without look-alikes (no 0/O, 1/I/L).
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

pub(crate) fn room_code() -> String {
    let mut buf = [0u8; 5];
    getrandom::fill(&mut buf).expect("the OS random number generator is available");
    buf.iter()
        .map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char)
        .collect()
}

fn err(code: &'static str, msg: impl Into<String>) -> ServerMsg {
    ServerMsg::err(&Refusal::new(code, msg))
}

impl Room {
    fn seat_of_token(&self, token: &str) -> Option<u8> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.token == token))
            .map(|i| i as u8)
    }

    pub(crate) fn seat_of_conn(&self, conn: u64) -> Option<u8> {
        self.seats
            .iter()
            .position(|s| {
                s.as_ref()
                    .and_then(|s| s.conn.as_ref())
                    .is_some_and(|c| c.id == conn)
            })
            .map(|i| i as u8)
    }

    fn free_seat(&self) -> Option<u8> {
        self.seats.iter().position(Option::is_none).map(|i| i as u8)
    }

    fn new_seat(&self, seat: u8, token: &str, name: Option<&str>) -> Seat {
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
        }
    }

    /// HTTP create/join/quick: a seat for the token (the one it has, or a free one in the
    /// lobby), or a spectator place (seat `None`) while a round is on.
    pub(crate) fn reserve(
        &mut self,
        token: &str,
        name: Option<&str>,
    ) -> Result<Reservation, &'static str> {
        if self.state == RoomState::Closed {
            return Err(code::ROOM_GONE);
        }
        if let Some(seat) = self.seat_of_token(token) {
            return Ok(Reservation {
                token: token.to_string(),
                seat: Some(seat),
                host: self.host == Some(seat),
            });
        }
        if self.state != RoomState::Lobby {
            if self.spectators.len() >= self.shared.config.max_spectators {
                return Err(code::ROOM_FULL);
            }
            self.shared
                .sessions
                .touch(token, name.map(sanitize_name).as_deref());
            return Ok(Reservation {
                token: token.to_string(),
                seat: None,
                host: false,
            });
        }
        let seat = self.free_seat().ok_or(code::ROOM_FULL)?;
        self.seats[seat as usize] = Some(self.new_seat(seat, token, name));
        if self.host.is_none() {
            self.host = Some(seat);
        }
        self.empty_since = None;
        tracing::info!(room = %self.code, seat, "seat reserved");
        self.broadcast_lobby();
        Ok(Reservation {
            token: token.to_string(),
            seat: Some(seat),
            host: self.host == Some(seat),
        })
    }

    /// A socket's `hello`: rejoin, evict, take a seat, spectate, or be refused.
    pub(crate) fn hello(&mut self, link: ConnLink, token: Option<String>, name: Option<String>) {
        let shared = self.shared.clone();
        if self.state == RoomState::Closed {
            Room::refuse(
                &shared,
                &link.tx,
                &err(code::ROOM_GONE, "the room is closed"),
                close::ROOM_GONE,
            );
            return;
        }
        let token = token.unwrap_or_else(|| crate::sessions::random_hex(16));
        let name = name.map(|n| sanitize_name(&n));
        // The same connection saying hello again: answer with the picture, nothing else.
        if self.conn_mut(link.id).is_some() {
            self.welcome(link.id, &token, false);
            return;
        }
        let mut rejoined = false;
        let seat = match self.seat_of_token(&token) {
            Some(seat) => {
                let s = self.seats[seat as usize]
                    .as_mut()
                    .expect("seat_of_token found it");
                if let Some(n) = name.as_deref().filter(|n| !n.is_empty()) {
                    s.name = n.to_string();
                }
                if let Some(old) = s.conn.take() {
                    // A second socket for the token: the first is evicted; its late close
                    // carries its own id and will not touch this seat.
                    Room::refuse(
                        &shared,
                        &old.tx,
                        &err(code::EVICTED, "another connection took this seat"),
                        close::EVICTED,
                    );
                    tracing::info!(room = %self.code, seat, "connection evicted by a newer one");
                }
                let was_disconnected = s.disconnected_at.take().is_some();
                rejoined = was_disconnected && s.ever_connected;
                s.ever_connected = true;
                s.conn = Some(Conn::new(link.clone()));
                if was_disconnected {
                    self.on_reconnect(seat, rejoined);
                }
                Some(seat)
            }
            None if self.state == RoomState::Lobby => match self.free_seat() {
                Some(seat) => {
                    let mut s = self.new_seat(seat, &token, name.as_deref());
                    s.conn = Some(Conn::new(link.clone()));
                    s.disconnected_at = None;
                    s.ever_connected = true;
                    self.seats[seat as usize] = Some(s);
                    if self.host.is_none() {
                        self.host = Some(seat);
                    }
                    Some(seat)
                }
                None => {
                    Room::refuse(
                        &shared,
                        &link.tx,
                        &err(code::ROOM_FULL, "every seat is taken"),
                        close::ROOM_FULL,
                    );
                    return;
                }
            },
            None => {
                if self.spectators.len() >= shared.config.max_spectators {
                    Room::refuse(
                        &shared,
                        &link.tx,
                        &err(code::ROOM_FULL, "no seat and no spectator place is free"),
                        close::ROOM_FULL,
                    );
                    return;
                }
                let session = shared.sessions.touch(&token, name.as_deref());
                let color = PALETTE[self.spectators.len() % PALETTE.len()];
                self.spectators.push(Spectator {
                    token: token.clone(),
                    name: session.name,
                    color,
                    conn: Conn::new(link.clone()),
                });
                None
            }
        };
        self.empty_since = None;
        tracing::info!(room = %self.code, seat = ?seat, rejoined, "hello accepted");
        self.welcome(link.id, &token, rejoined);
        self.broadcast_lobby();
    }

    /// A seat whose socket came (back): the crown if nobody holds it; in a round, the cook
    /// reconnects in the log (a seat reserved over HTTP but never connected was in the
    /// round as disconnected from its start, so it connects the same way).
    fn on_reconnect(&mut self, seat: u8, _rejoined: bool) {
        if self.host.is_none() {
            self.host = Some(seat);
        }
        if let Some(play) = self.play.as_mut() {
            play.append_seat(Record::Connect { tick: 0, seat });
        }
    }

    fn welcome(&mut self, conn: u64, token: &str, rejoined: bool) {
        let seat = self.seat_of_conn(conn);
        let msg = ServerMsg::Welcome {
            p: PROTOCOL_VERSION,
            you: YouWire {
                token: token.to_string(),
                seat,
                host: seat.is_some() && self.host == seat,
            },
            room: self.code.clone(),
            state: self.state.name(),
            level: self.level.clone(),
            seats: self.seat_wires(),
            rejoined,
        };
        self.send_to(conn, &msg);
        let lobby = self.lobby_msg(Some(token));
        self.send_to(conn, &lobby);
    }

    fn seat_wires(&self) -> Vec<SeatWire> {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.as_ref().map(|s| SeatWire {
                    index: i as u8,
                    name: s.name.clone(),
                    color: s.color.to_string(),
                    ready: s.ready,
                    host: self.host == Some(i as u8),
                    connected: s.conn.is_some(),
                })
            })
            .collect()
    }

    /// Whether a `start` pressed now would be accepted.
    fn start_refusal(&self) -> Option<&'static str> {
        if self.level.is_none() {
            return Some(code::NO_LEVEL);
        }
        let seated: Vec<(usize, &Seat)> = self
            .seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
            .collect();
        let solo = seated.len() == 1;
        let ready_guest = seated
            .iter()
            .any(|(i, s)| Some(*i as u8) != self.host && s.ready && s.conn.is_some());
        (!solo && !ready_guest).then_some(code::NO_READY_PLAYERS)
    }

    pub(crate) fn lobby_msg(&self, viewer_token: Option<&str>) -> ServerMsg {
        ServerMsg::Lobby {
            p: PROTOCOL_VERSION,
            code: self.code.clone(),
            state: self.state.name(),
            level: self.level.clone(),
            host_seat: self.host,
            can_start: self.state == RoomState::Lobby && self.start_refusal().is_none(),
            seats: self.seat_wires(),
            spectators: self
                .spectators
                .iter()
                .map(|s| SpectatorWire {
                    name: s.name.clone(),
                    color: s.color.to_string(),
                })
                .collect(),
            unlocked: viewer_token
                .and_then(|t| self.shared.sessions.get(t))
                .map(|s| s.unlocked),
            round_no: self.round_no,
        }
    }

    /// Every live connection with its token: seats in seat order, then spectators.
    pub(crate) fn viewers(&self) -> Vec<(u64, String)> {
        self.seats
            .iter()
            .flatten()
            .filter_map(|s| s.conn.as_ref().map(|c| (c.id, s.token.clone())))
            .chain(self.spectators.iter().map(|s| (s.conn.id, s.token.clone())))
            .collect()
    }

    /// The `lobby` frame to every connection (each sees its own `unlocked`).
    pub(crate) fn broadcast_lobby(&mut self) {
        for (conn, token) in self.viewers() {
            let msg = self.lobby_msg(Some(&token));
            self.send_to(conn, &msg);
        }
    }

    fn token_of_conn(&self, conn: u64) -> Option<String> {
        self.seats
            .iter()
            .flatten()
            .find(|s| s.conn.as_ref().is_some_and(|c| c.id == conn))
            .map(|s| s.token.clone())
            .or_else(|| {
                self.spectators
                    .iter()
                    .find(|s| s.conn.id == conn)
                    .map(|s| s.token.clone())
            })
    }

    /// Every message after the handshake.
    pub(crate) fn message(&mut self, conn: u64, msg: ClientMsg) {
        if self.conn_mut(conn).is_none() {
            return; // a connection this room no longer knows (evicted, killed)
        }
        if !allowed_in(msg.kind(), self.state) {
            self.send_to(
                conn,
                &err(
                    code::WRONG_STATE,
                    format!(
                        "{} is not accepted while the room is {}",
                        msg.kind(),
                        self.state.name()
                    ),
                ),
            );
            return;
        }
        let seat = self.seat_of_conn(conn);
        let seated_only = !matches!(msg, ClientMsg::Hello { .. } | ClientMsg::Ping { .. });
        if seated_only && seat.is_none() {
            self.send_to(
                conn,
                &err(
                    code::NOT_SEATED,
                    format!("{} needs a seat; you are watching", msg.kind()),
                ),
            );
            return;
        }
        let seat = seat.unwrap_or(0);
        match msg {
            ClientMsg::Ready => {
                if let Some(s) = self.seats[seat as usize].as_mut() {
                    s.ready = !s.ready;
                }
                self.broadcast_lobby();
            }
            ClientMsg::SetLevel { level } => self.set_level(conn, seat, &level),
            ClientMsg::Start => {
                if self.host != Some(seat) {
                    self.send_to(conn, &err(code::NOT_HOST, "only the host starts the round"));
                } else if let Some(why) = self.start_refusal() {
                    let text = if why == code::NO_LEVEL {
                        "no_level: pick a level first"
                    } else {
                        "no_ready_players: nobody else is ready"
                    };
                    self.send_to(conn, &err(code::WRONG_STATE, text));
                } else {
                    self.begin_countdown();
                }
            }
            ClientMsg::Emote { id } => self.emote(conn, seat, &id),
            ClientMsg::Input(input) => self.input(conn, seat, input),
            ClientMsg::ToLobby => self.to_lobby(),
            ClientMsg::NextLevel => self.next_level(conn),
            ClientMsg::Hello { .. } | ClientMsg::Ping { .. } => {}
        }
    }

    fn set_level(&mut self, conn: u64, seat: u8, level: &str) {
        if self.host != Some(seat) {
            self.send_to(conn, &err(code::NOT_HOST, "only the host picks the level"));
            return;
        }
        let Some(order) = self
            .shared
            .campaign()
            .find(|l| l.level.id == level)
            .map(|l| l.level.order)
        else {
            let known: Vec<String> = self.shared.campaign().map(|l| l.level.id.clone()).collect();
            self.send_to(
                conn,
                &err(
                    code::BAD_FIELD,
                    format!(
                        "level {level:?} is not in the campaign ({})",
                        known.join(", ")
                    ),
                ),
            );
            return;
        };
        let token = self.token_of_conn(conn).unwrap_or_default();
        let unlocked = self.shared.sessions.get(&token).map_or(1, |s| s.unlocked);
        if order > unlocked {
            self.send_to(
                conn,
                &err(
                    code::LEVEL_LOCKED,
                    format!("level {level} is locked (unlocked up to level {unlocked})"),
                ),
            );
            return;
        }
        self.level = Some(level.to_string());
        self.broadcast_lobby();
    }

    fn emote(&mut self, conn: u64, seat: u8, id: &str) {
        let now = Instant::now();
        let Some(c) = self.conn_mut(conn) else { return };
        if now.duration_since(c.emote_window.0) >= Duration::from_secs(1) {
            c.emote_window = (now, 0);
        }
        if c.emote_window.1 >= limits::EMOTES_PER_S {
            self.send_to(
                conn,
                &err(code::RATE_LIMITED, "emotes are limited to 2 a second"),
            );
            return;
        }
        c.emote_window.1 += 1;
        let index = EMOTES.iter().position(|e| *e == id).unwrap_or(0);
        if let Some(play) = self.play.as_mut() {
            play.append_seat(Record::Emote {
                tick: 0,
                seat,
                id: EMOTES[index].to_string(),
            });
        } else {
            let ids = self.player_ids();
            let event = crate::sim::Event::hud(
                crate::sim::EventKind::Emote,
                crate::sim::Payload {
                    i: Some(seat),
                    em: Some(EMOTES[index]),
                    ..Default::default()
                },
            );
            let mut one = String::new();
            crate::wire::events::event_wire(&mut one, &event, &ids);
            let frame: Arc<str> = Arc::from(crate::wire::messages::ev_frame(&[one]));
            let shared = self.shared.clone();
            for c in self.conns_mut() {
                Room::push(&shared, c, &frame, false);
            }
        }
    }

    /// `ev` with a `quest` event to the connection of the session that completed it, and to
    /// nobody else.
    pub(crate) fn quest_completed(&mut self, c: &crate::store::quests::Completion) {
        let conn = self
            .seats
            .iter()
            .flatten()
            .find(|s| s.session_id == c.session_id)
            .and_then(|s| s.conn.as_ref())
            .map(|c| c.id);
        let Some(conn) = conn else { return };
        let event = serde_json::json!({"kind": "quest", "x": 0.0, "y": 0.0, "payload": {"quest": c.quest_id, "progress": c.progress, "target": c.target}});
        let frame: Arc<str> = Arc::from(crate::wire::messages::ev_frame(&[event.to_string()]));
        let shared = self.shared.clone();
        if let Some(c) = self.conn_mut(conn) {
            Room::push(&shared, c, &frame, false);
        }
    }

    pub(crate) fn player_ids(&self) -> Vec<String> {
        (0..4).map(|i| format!("c{i}")).collect()
    }

    /// A connection ended. Only the connection with this id is removed: a late close from a
    /// socket that was already replaced finds nothing.
    pub(crate) fn gone(&mut self, conn: u64) {
        if let Some(seat) = self.seat_of_conn(conn) {
            let s = self.seats[seat as usize]
                .as_mut()
                .expect("seat_of_conn found it");
            s.conn = None;
            s.disconnected_at = Some(Instant::now());
            tracing::info!(room = %self.code, seat, "seat disconnected");
            if self.host == Some(seat) {
                self.pass_crown();
            }
            if let Some(play) = self.play.as_mut() {
                play.append_seat(Record::Disconnect { tick: 0, seat });
            }
            self.broadcast_lobby();
        } else if let Some(i) = self.spectators.iter().position(|s| s.conn.id == conn) {
            self.spectators.remove(i);
            self.broadcast_lobby();
        }
    }

    /// The crown goes to the lowest connected seat (or stays empty until someone connects).
    fn pass_crown(&mut self) {
        self.host = self
            .seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.conn.is_some()))
            .map(|i| i as u8);
    }

    pub(crate) fn kill(&mut self, token: &str) -> bool {
        let conn = self
            .seats
            .iter()
            .flatten()
            .find(|s| s.token == token)
            .and_then(|s| s.conn.as_ref())
            .map(|c| (c.id, c.tx.clone()))
            .or_else(|| {
                self.spectators
                    .iter()
                    .find(|s| s.token == token)
                    .map(|s| (s.conn.id, s.conn.tx.clone()))
            });
        let Some((id, tx)) = conn else { return false };
        // A hard drop: close the socket without a close frame's error, then the standard
        // teardown.
        let _ = tx.try_send(Out::Close(close::NORMAL));
        self.gone(id);
        true
    }

    /// Seats disconnected longer than the guest idle timeout are given up.
    pub(crate) fn abandon_idle_seats(&mut self, now: Instant) {
        let grace = Duration::from_secs(self.shared.config.guest_idle_timeout_s);
        for seat in 0..self.seats.len() {
            let expired = self.seats[seat]
                .as_ref()
                .and_then(|s| s.disconnected_at)
                .is_some_and(|t| now.duration_since(t) >= grace);
            if !expired {
                continue;
            }
            self.seats[seat] = None;
            tracing::info!(room = %self.code, seat, "seat abandoned after the grace");
            if let Some(play) = self.play.as_mut() {
                play.append_seat(Record::Abandon {
                    tick: 0,
                    seat: seat as u8,
                });
            }
            if self.host == Some(seat as u8) {
                self.pass_crown();
            }
            if self.seats.iter().all(Option::is_none) {
                self.empty_since.get_or_insert(now);
            }
            self.broadcast_lobby();
        }
    }

    /// Closes a room left empty for the grace (lobby, round end). Returns false to close.
    pub(crate) fn close_if_empty(&mut self, now: Instant) -> bool {
        let empty = self.seats.iter().all(Option::is_none);
        if !empty {
            self.empty_since = None;
            return true;
        }
        let since = *self.empty_since.get_or_insert(now);
        let idle_state = matches!(self.state, RoomState::Lobby | RoomState::RoundEnd);
        if idle_state
            && now.duration_since(since)
                >= Duration::from_secs(self.shared.config.empty_room_grace_s)
        {
            self.state = RoomState::Closed;
            let shared = self.shared.clone();
            let gone = err(code::ROOM_GONE, "the room closed");
            for s in std::mem::take(&mut self.spectators) {
                Room::refuse(&shared, &s.conn.tx, &gone, close::ROOM_GONE);
            }
            return false;
        }
        true
    }

    pub(crate) fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "code": self.code,
            "state": self.state.name(),
            "level": self.level,
            "round_no": self.round_no,
            "seats": self.seat_wires(),
            "spectators": self.spectators.len(),
            "max_players": self.seats.len(),
            "open_seats": self.seats.iter().filter(|s| s.is_none()).count(),
            "age_s": self.started.elapsed().as_secs(),
        })
    }

    /// ROUND_END → LOBBY: ready flags reset, waiting spectators promoted into free seats.
    fn to_lobby(&mut self) {
        self.state = RoomState::Lobby;
        self.finished = None;
        for s in self.seats.iter_mut().flatten() {
            s.ready = false;
        }
        while let Some(seat) = self.free_seat() {
            if self.spectators.is_empty() {
                break;
            }
            let spec = self.spectators.remove(0);
            let mut s = self.new_seat(seat, &spec.token, Some(&spec.name));
            let id = spec.conn.id;
            s.conn = Some(spec.conn);
            s.disconnected_at = None;
            s.ever_connected = true;
            self.seats[seat as usize] = Some(s);
            if self.host.is_none() {
                self.host = Some(seat);
            }
            let token = self.token_of_conn(id).unwrap_or_default();
            self.welcome(id, &token, false);
        }
        self.broadcast_lobby();
    }

    /// ROUND_END → COUNTDOWN on the level the sender's session resolves to: the next one
    /// after a win, the same one after a loss.
    fn next_level(&mut self, conn: u64) {
        let Some(finished) = self.finished.as_ref() else {
            return;
        };
        let order = finished.level_order;
        let token = self.token_of_conn(conn).unwrap_or_default();
        let unlocked = self.shared.sessions.get(&token).map_or(1, |s| s.unlocked);
        let target = if finished.won { order + 1 } else { order };
        let level = self
            .shared
            .level_with_order(target.min(unlocked.max(order)))
            .or_else(|| self.shared.level_after(order))
            .map(|l| l.level.id.clone());
        self.level = level;
        for s in self.seats.iter_mut().flatten() {
            s.ready = false;
        }
        self.begin_countdown();
    }

    pub(crate) fn begin_countdown(&mut self) {
        self.state = RoomState::Countdown;
        self.countdown = limits::COUNTDOWN_S;
        self.phase_at = Instant::now();
        self.broadcast_lobby();
    }

    pub(crate) fn countdown_step(&mut self) {
        if self.countdown == 0 {
            self.start_round();
            return;
        }
        self.broadcast(&ServerMsg::Countdown {
            p: PROTOCOL_VERSION,
            n: self.countdown,
        });
        self.countdown -= 1;
        self.phase_at += Duration::from_secs(1);
    }
}
