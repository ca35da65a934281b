//! The full-frame budget: how big a whole `snap` of a level is before anyone moves, and a
//! design warning when that leaves too little room under docs/PERFORMANCE.md's goal.
//!
//! A full frame carries every station and cook, so its size grows with the kitchen, and a
//! client that joins, resyncs or falls behind gets one. The opening frame of a 4-cook round
//! (the initial state, projected and encoded as the server does) is the part a level author
//! controls; orders, hazards and held items add to it as the round runs (about 500 bytes at
//! the busiest moments measured). `BUDGET` keeps a full frame under the 4 KB goal with room
//! to spare for that; the shipped levels open at 1.0–1.8 KB.

use crate::log::records::player_id;
use crate::sim::{KitchenState, Level, LevelError, Rules, SEATS};
use crate::wire::encode_full;
use crate::wire::view::project;

/// The most bytes a level's opening full frame (4 cooks) may take without a warning.
pub const BUDGET: usize = 3072;

/// The bytes of the full frame a 4-cook round on `level` starts with.
pub fn opening_frame_bytes(level: &Level) -> usize {
    let rules = Rules::new(level.clone(), 20);
    let seats: Vec<(u8, bool)> = (0..SEATS as u8).map(|s| (s, true)).collect();
    let state = KitchenState::new(&rules, &seats, 1);
    let ids: Vec<String> = (0..SEATS as u8).map(player_id).collect();
    encode_full(&project(&state, &rules), &[], &ids).raw().len()
}

/// A warning when the level's opening frame is over `BUDGET`, placed at the file's `grid`
/// key (what makes a frame big is the kitchen: its stations above all). `text` is the
/// level file's, to find that line.
pub fn lint(file: &str, text: &str, level: &Level) -> Option<LevelError> {
    let bytes = opening_frame_bytes(level);
    if bytes <= BUDGET {
        return None;
    }
    let line = text
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix("grid")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1);
    Some(LevelError {
        file: file.to_string(),
        line,
        column: 1,
        message: format!(
            "a 4-cook round opens with a {bytes}-byte full frame, over the {BUDGET}-byte budget ({} stations; orders and hazards add more as the round runs): fewer stations make it smaller",
            level.grid.stations().len(),
        ),
    })
}
