//! Bot cooks in seats: the host adds and removes them in the lobby, and "play solo" is a
//! room of one person and bots.
//!
//! A bot seat has no token and no socket; it is always present and always ready, never the
//! host. In a round the room plays it with a `BotTeam` (`play.rs`), from the same projected
//! view a client gets, and its inputs are records in the round log like anyone's, so a
//! round with bots replays and verifies.

use super::Room;
use super::phase::Phase;
use super::seats::Seat;
use crate::log::PALETTE;
use crate::shared::registry::Reservation;
use crate::wire::messages::{Refusal, RoomState, code};

impl Room {
    fn bot_seat(seat: u8) -> Seat {
        Seat {
            token: String::new(),
            session_id: format!("bot-{seat}"),
            name: format!("Bot {}", seat + 1),
            color: PALETTE[seat as usize % PALETTE.len()],
            ready: true,
            conn: None,
            disconnected_at: None,
            ever_connected: false,
            bot: true,
        }
    }

    /// The seat of the host's token, or why this token may not manage bots here.
    fn host_in_lobby(&self, token: &str) -> Result<u8, Refusal> {
        let seat = self.seats.of_token(token);
        if seat.is_none() || seat != self.seats.host {
            return Err(Refusal::new(
                code::NOT_HOST,
                "only the host adds and removes bots",
            ));
        }
        if !matches!(self.phase, Phase::Lobby) {
            let why = format!(
                "bots join and leave in the lobby; the room is {}",
                self.phase.state().name()
            );
            return Err(Refusal::new(code::WRONG_STATE, why));
        }
        seat.ok_or_else(|| Refusal::new(code::NOT_HOST, "no seat"))
    }

    /// The host puts a bot in `seat` (or the lowest free one).
    pub(super) fn add_bot(&mut self, token: &str, seat: Option<u8>) -> Result<u8, Refusal> {
        self.host_in_lobby(token)?;
        let seat = match seat {
            Some(s) if s as usize >= self.seats.list.len() => {
                let why = format!(
                    "seat {s} does not exist (seats 0-{})",
                    self.seats.list.len() - 1
                );
                return Err(Refusal::new(code::BAD_FIELD, why));
            }
            Some(s) if self.seats.get(s).is_some() => {
                return Err(Refusal::new(code::ROOM_FULL, format!("seat {s} is taken")));
            }
            Some(s) => s,
            None => self
                .seats
                .free()
                .ok_or_else(|| Refusal::new(code::ROOM_FULL, "every seat is taken"))?,
        };
        self.seats.list[seat as usize] = Some(Room::bot_seat(seat));
        tracing::info!(room = %self.code, seat, "bot added");
        self.broadcast_lobby();
        Ok(seat)
    }

    /// The host takes the bot out of `seat`.
    pub(super) fn remove_bot(&mut self, token: &str, seat: u8) -> Result<(), Refusal> {
        self.host_in_lobby(token)?;
        if !self.seats.get(seat).is_some_and(|s| s.bot) {
            return Err(Refusal::new(
                code::BAD_FIELD,
                format!("seat {seat} holds no bot"),
            ));
        }
        self.seats.list[seat as usize] = None;
        tracing::info!(room = %self.code, seat, "bot removed");
        self.broadcast_lobby();
        Ok(())
    }

    /// Play solo in this new room: the token takes seat 0 as host, bots take every other
    /// seat, and the level is the highest one the session has unlocked.
    pub(super) fn solo(
        &mut self,
        token: &str,
        name: Option<&str>,
    ) -> Result<Reservation, &'static str> {
        if self.phase.state() != RoomState::Lobby || !self.seats.is_empty() {
            return Err(code::WRONG_STATE);
        }
        let reservation = self.reserve(token, name)?;
        let unlocked = self.shared.sessions.get(token).map_or(1, |s| s.unlocked);
        let level = self
            .shared
            .levels
            .campaign()
            .filter(|l| l.level.order <= unlocked)
            .last()
            .or_else(|| self.shared.levels.campaign().next())
            .map(|l| l.level.id.clone());
        self.pick_level(level);
        while let Some(seat) = self.seats.free() {
            self.seats.list[seat as usize] = Some(Room::bot_seat(seat));
        }
        tracing::info!(room = %self.code, level = ?self.level, "solo room set up");
        self.broadcast_lobby();
        Ok(reservation)
    }
}
