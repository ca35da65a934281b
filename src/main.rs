//! The `undercooked` binary: parse the command line, run it, exit with its code.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(cli::run(cli::Cli::parse()))
}
