//! Undercooked: an authoritative, event-sourced server for a co-op cooking game.
//!
//! A round is a log; the kitchen is a pure fold over it; what players see is a projection
//! of the folded state. The modules, from the bottom layer up (each uses only those below
//! it, and no two import each other; docs/DESIGN.md has the whole map):
//!
//! - `lock`, `process`: leaves every layer may use (the poison-tolerant lock; this
//!   process's CPU and memory from `/proc`).
//! - `sim`: the kitchen: state, rules, level parsing (from text), `step`, the state hash,
//!   the round summary. Imports nothing outside itself.
//! - `log`: the round log's records (past tense), the replay file, recorded frames, and
//!   the fold, the one place the log meets the sim.
//! - `wire`: everything that crosses the wire: protocol tables and client parsing, server
//!   messages, the view projection, the `snap` encoder and the pass encoder per audience,
//!   events onto frames, and the client-side merge.
//! - `levels`: the levels folder: which files are levels, loading them, campaign lookups.
//! - `round`: a round played and written (fold + replay writer + the players' passes),
//!   for the live room and `simulate` alike.
//! - `verify`: re-running a replay and comparing every frame, through `round`'s passes.
//! - `simulate`: a headless round played by bots.
//! - `sweep`: many headless rounds of a level, summed up (wins, scores, stars, hazards).
//! - `frame_budget`: a level's opening full frame measured against its budget (a lint).
//! - `bots`: scripted cooks that play from the projected view.
//! - `store`: the SQLite history: migrations, rows, the ordered write chain and its
//!   outbox, quests, sessions, `reindex`. Every SQL statement lives here.
//! - `net`: the connection: one WebSocket from its upgrade to its close (reading a
//!   budget at a time under the rate rules, the bounded backlog, its phase), and the room
//!   threads it lives on. Uses `wire` and the leaves below, never `shared`, `room` or
//!   `server`.
//! - `shared`: what rooms and the server share, below both: settings, the room registry
//!   and the room's commands, the census, sessions, connection permits.
//! - `room`: the room actor: its phase, seats and connections, lobby verbs, play, verdict.
//! - `server`: HTTP routes, the `/ws` upgrade and the socket task.
//! - `loadtest`: a load generator: rooms of bot-played WebSocket clients against a running
//!   server, measured as players would notice (it uses `bots` and `wire`, never the server).
//! - `fuzz_entry`: the fuzz targets' entry points (the client frame, replay, level and HTTP
//!   body parsers, and the WebSocket frame reader), shared by `fuzz/` and the stable
//!   suite's corpus replay; on top.
//!
//! The command line (`src/cli/`, clap into plain commands and exit codes) is the binary's,
//! on top of all of these.

pub mod bots;
pub mod cluster;
pub mod frame_budget;
pub mod fuzz_entry;
pub mod levels;
pub mod loadtest;
pub mod lock;
pub mod log;
pub mod net;
pub mod process;
pub mod resume;
pub mod room;
pub mod round;
pub mod server;
pub mod shared;
pub mod sim;
pub mod simulate;
pub mod store;
pub mod sweep;
pub mod verify;
pub mod wire;

/// The wire protocol version this build speaks (`p` in every frame).
pub const PROTOCOL_VERSION: u32 = 1;
