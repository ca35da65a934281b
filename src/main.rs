//! The `undercooked` binary: parse the command line, run it, exit with its code.

mod cli;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc rather than glibc's allocator: the server allocates and frees small buffers on
/// every tick and every frame across its threads, and with glibc's allocator it needed about
/// a fifth more user-space CPU under load (docs/DECISIONS.md has the measurement).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(cli::run(cli::Cli::parse()))
}
