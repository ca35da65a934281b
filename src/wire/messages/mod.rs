//! The protocol's messages, codes and limits (docs/PROTOCOL.md is the same, in prose).
//!
//! `tables` holds the codes, limits and room states; `client` parses what clients send;
//! `server` is what the server sends besides `snap` (which `wire::snapshot` writes).

pub mod client;
pub mod server;
pub mod tables;

pub use client::{
    ClientMsg, InputMsg, Refusal, RoomMsg, parse_client, quantize_move, renders_blank,
    sanitize_name,
};
pub use server::{
    CountersWire, PlayerScoreWire, RoomStatus, SeatWire, ServerMsg, SpectatorWire, YouWire,
    ev_frame,
};
pub use tables::{CLIENT_MESSAGES, RoomState, allowed_in, close, code, limits};

pub const PROTOCOL_VERSION: u32 = crate::PROTOCOL_VERSION;
pub const MIN_SUPPORTED_VERSION: u32 = 1;
