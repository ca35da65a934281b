//! The SQLite history without a server, as one test binary: `reindex`, quest progress and
//! docs/HISTORY.md's example queries. Each module was its own `tests/*.rs` crate.

#[path = "../kitchen/mod.rs"]
mod kitchen;

mod history_doc;
mod pages;
mod quests;
mod reindex;
