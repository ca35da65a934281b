//! The game without a server, as one test binary: the rules, the fold's determinism, the
//! golden replays, the campaign's levels, the `snap` body, the replay file, the fuzz corpus
//! and the bots. Each module was its own `tests/*.rs` crate; filter by module to run one,
//! e.g. `cargo test --test sim sim_rules::`.

#[path = "../crafted/mod.rs"]
mod crafted;
#[path = "../kitchen/mod.rs"]
mod kitchen;

mod alone;
mod bots;
mod determinism;
mod fuzz_corpus;
mod golden;
mod human;
mod level_bounds;
mod levels;
mod people;
mod replay_file;
mod sim_rules;
mod snapshot;
