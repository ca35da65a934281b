//! Undercooked: an authoritative, event-sourced server for a co-op cooking game.
//!
//! A round is a log (`log`); the kitchen is a pure fold over it (`sim`); what players see
//! is a projection of the folded state (`wire`); `bots` play from that projection; `cli`
//! is the command line on top.

pub mod bots;
pub mod levels;
pub mod log;
pub mod room;
pub mod round;
pub mod server;
pub mod shared;
pub mod sim;
pub mod simulate;
pub mod store;
pub mod verify;
pub mod wire;

/// The wire protocol version this build speaks (`p` in every frame).
pub const PROTOCOL_VERSION: u32 = 1;
