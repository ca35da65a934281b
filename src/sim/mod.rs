//! The kitchen simulation: a pure, deterministic fold of a round's inputs.
//!
//! `sim` owns the rules of docs/GAME.md and nothing else: no clock, no I/O, no OS
//! randomness, no floats in the state, no hash-order iteration. Levels arrive as text,
//! inputs as already-validated values, and `step` turns one tick's inputs into the next
//! state plus the tick's events. The live room and `undercooked replay` call the same code.

pub mod events;
pub mod grid;
pub mod hazards;
pub mod items;
pub mod level;
pub mod movement;
pub mod orders;
pub mod press;
pub mod rules;
pub mod state;
pub mod step;
pub mod summary;
pub mod timers;

pub use events::{Event, EventKind, Payload};
pub use level::{Level, LevelError};
pub use rules::Rules;
pub use state::{KitchenState, RoundResult};
pub use step::{CookInput, SeatChange, TickInputs, step};
pub use summary::RoundSummary;

/// Seats in a kitchen: cooks are seats 0-3, and a level has a spawn for each.
pub const SEATS: usize = 4;

/// Bumped whenever a rule change alters what a log folds to (golden replays re-recorded).
pub const SIM_VERSION: u32 = 2;
