//! The round log: records, the replay file that stores them, and the fold that plays them.
//!
//! `records` says what a round is made of; `file` stores records crash-safely;
//! `frames` keeps what the players were sent (`unframe` reads it back, bounded); `fold`
//! turns records back into states.
//! The writing side that produces all of it for a live or headless round is `crate::round`.

pub mod file;
pub mod fold;
pub mod frames;
pub mod records;
pub mod unframe;

pub use file::{FileError, ReplayWriter, read_file, read_replay, replay_files};
pub use fold::{Applied, FoldError, RoundFold};
pub use records::{Accepted, Header, PALETTE, Record, SeatEntry, player_id};
