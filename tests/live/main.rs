//! The tests that run a real server, as one test binary: each module was its own
//! `tests/*.rs` crate, each linked separately. Filter by module to run one file's tests,
//! e.g. `cargo test --test live ws_` (the WebSocket tests) or `cargo test --test live
//! limits::`.
//!
//! Most start the server in-process on 127.0.0.1:0 with `server::start` (each in its own
//! data folder, numbered by the harness's one counter); `kill9`, `logs`, `descriptors`,
//! `replay_attacks` and `loadtest` run `undercooked serve` as a child process. Nothing
//! here changes the test process's own state for the others: `descriptors` lowers the
//! descriptor limit of its child only (`prlimit`), and `limits` only raises this process's
//! soft limit toward the hard one. `tests/attacks.rs` stays a binary of its own: it measures a victim's snap gaps and
//! must not share the machine's cores with other tests.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../kitchen/mod.rs"]
mod kitchen;
#[path = "../server/mod.rs"]
mod server;

mod descriptors;
mod disk_full;
mod e2e;
mod history_page;
mod http_details;
mod kill9;
mod levels_served;
mod limits;
mod loadtest;
mod logs;
mod metrics;
mod phone;
mod quick_away;
mod replay_attacks;
mod results_honest;
mod resume;
mod screens_polish;
mod sessions;
mod slow_reader;
mod tour;
mod web;
mod ws_abuse;
mod ws_bots;
mod ws_history;
mod ws_refusals;
mod ws_round;
mod you_cook;
