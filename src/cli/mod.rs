//! The command line: clap parses arguments into plain commands, each run by its own module
//! and returning an exit code. `anyhow` lives only here, at the edge.

#[macro_use]
mod out;

mod levels;
mod loadtest;
mod reindex;
mod replay;
mod serve;
mod simulate;
mod sql;
mod sql_end;
mod sql_guard;
mod sql_lex;
mod sql_pg;
mod sql_print;
mod verify;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "undercooked",
    version,
    about = "An authoritative, event-sourced server for a co-op cooking game"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve live play: HTTP + WebSocket rooms (until SIGINT/SIGTERM).
    Serve(Box<serve::Args>),
    /// Play a whole round headless with bots and write its replay file.
    Simulate(simulate::Args),
    /// Re-run a replay and print its summary (or every frame).
    Replay(replay::Args),
    /// Re-fold replays and compare every frame with what was recorded.
    Verify(verify::Args),
    /// Run a read-only SQL query over the history.
    Sql(sql::Args),
    /// Rebuild the history from replay files (idempotent).
    Reindex(reindex::Args),
    /// Level authoring: `levels check` validates, lints and sweeps levels with bots.
    Levels(levels::Args),
    /// Load a running server with rooms of bot-played WebSocket clients and measure it.
    Loadtest(loadtest::Args),
}

/// Where levels come from: `--levels`, else `UNDERCOOKED_LEVELS_DIR`, else `./levels`.
#[derive(clap::Args, Debug, Clone)]
pub struct LevelsDir {
    /// The levels folder.
    #[arg(
        long = "levels",
        env = "UNDERCOOKED_LEVELS_DIR",
        default_value = "levels"
    )]
    pub levels: PathBuf,
}

/// Where the history database is, with the server's defaults: `--db`/`UNDERCOOKED_DB`, else
/// `<data-dir>/undercooked.db` with `--data-dir`/`UNDERCOOKED_DATA_DIR` (default `./data`).
#[derive(clap::Args, Debug, Clone)]
pub struct DbArgs {
    /// The data directory.
    #[arg(long, env = "UNDERCOOKED_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// The database URL: sqlite://PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.
    #[arg(long, env = "UNDERCOOKED_DB")]
    pub db: Option<String>,
}

impl DbArgs {
    /// The location, or why `--db` names no database undercooked reads (a typo of a
    /// PostgreSQL URL is refused, never read as a SQLite file name).
    pub fn location(&self) -> Result<String, undercooked::store::LocationError> {
        undercooked::store::db_location(self.db.as_deref(), &self.data_dir)
    }
}

/// Runs the parsed command; the returned code is the process's exit code.
pub fn run(cli: Cli) -> u8 {
    let result = match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Simulate(args) => simulate::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Sql(args) => sql::run(args),
        Command::Reindex(args) => reindex::run(args),
        Command::Levels(args) => levels::run(args),
        Command::Loadtest(args) => loadtest::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("undercooked: {e:#}");
            2
        }
    }
}
