//! The room's phase as a type: what a room holds in each state, and nothing it does not.
//!
//! A countdown has its next number and when it shows; a round being played has its
//! `Play`; a finished round has its `round` frame until the room moves on. The wire names
//! of these states (`RoomState`) come from here and nowhere else.

use super::play::Play;
use crate::wire::messages::{RoomState, ServerMsg};
use std::time::Instant;

pub(super) enum Phase {
    Lobby,
    /// Shows `next` at `at` (3, 2, 1); at 0 the round starts.
    Countdown { next: u32, at: Instant },
    Playing(Box<Play>),
    /// The round is over; its `round` frame goes out at `announce_at` (`None` once sent).
    RoundEnd {
        over: RoundOver,
        announce_at: Option<Instant>,
    },
    Closed,
}

/// A finished round, kept for the `round` frame and `next_level`.
pub(super) struct RoundOver {
    /// The `round` frame, before each viewer's `unlocked` is filled in.
    pub frame: ServerMsg,
    pub level_order: u32,
    pub won: bool,
}

impl Phase {
    /// The state the wire names.
    pub fn state(&self) -> RoomState {
        match self {
            Phase::Lobby => RoomState::Lobby,
            Phase::Countdown { .. } => RoomState::Countdown,
            Phase::Playing(_) => RoomState::Playing,
            Phase::RoundEnd { .. } => RoomState::RoundEnd,
            Phase::Closed => RoomState::Closed,
        }
    }
}
