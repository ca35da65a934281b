//! The connection: one player's or spectator's WebSocket, from its upgrade to its close,
//! and the room threads it lives on. Below `shared`, `room` and `server`, and using none of
//! them: the room and the socket's task (`server::socket`) both hold a `Link` to the same
//! `Connection`, and its `Phase` says who does what.
//!
//! | phase | who reads it | who writes it | what wakes its task |
//! |---|---|---|---|
//! | upgraded (`server::upgrade`) | hyper, the request head | hyper, the `101` | (no task yet) |
//! | `AwaitingHello` | its task, on a backoff (1 ms doubling to 50 ms) | its task: answers (`pong`, refusals) | the backoff; the 5 s handshake window (`4400`) |
//! | `HelloSent` | its task, into the room's mailbox behind the `hello` | its task; the room (`welcome`, `lobby`) | the backoff; the 12 s heartbeat |
//! | `Joined` | the room, at each of its ticks | the room: every frame; the task: a backlog the kernel refused, at the room's ticks | `changed` (a backlog started, a close); the room's next tick while a backlog waits; the 12 s heartbeat (`1000`) |
//! | `Closing` | its task, dropping what comes | its task: the backlog, then the close | the room's ticks while the kernel refuses; 12 s of refusal ends it |
//! | `Draining` | its task, dropping until the client's close | nobody | the backoff; the 3 s drain ends it |
//! | `Closed` | nobody | its task, one last try | (its task ends and tells the room `Gone`) |
//!
//! Every read has a budget (`read::Budget::READ`, frames and bytes per socket per read:
//! the rest waits in the kernel), every frame of any kind counts against the client's rate
//! (`guard`), and every write is bounded (`write`): one client cannot hold its room's
//! thread, or grow the server's memory, whatever it sends or fails to read.
//!
//! The files: `frame` (frames as the server writes them), `read` (bytes into frames, a
//! budget at a time), `guard` (the rate and size rules), `heard` (what a whole message is),
//! `rules` (one read under those rules), `write` (the bounded backlog), `phase`
//! (the table above, as a type), `conn` (the phase, the reading and the writing under one
//! lock), `link` (what a room or a task holds), `ticks` (when a backlog is written: the
//! room's ticks; a socket's backoff) and `threads` (the room threads and their slots).

pub mod conn;
pub mod frame;
pub mod guard;
pub mod heard;
pub mod link;
pub mod phase;
pub mod read;
pub mod rules;
pub mod threads;
pub mod ticks;
pub mod write;

pub use conn::Connection;
pub use frame::Frame;
pub use heard::Heard;
pub use link::Link;
pub use phase::{Limits, Phase, Reader};
pub use ticks::Ticks;
pub use write::SEND_QUEUE;

#[cfg(test)]
mod tests;
