//! `undercooked verify`: re-fold replay files and directories, one line per file, the
//! worst exit code wins (2 unreadable, 1 diverged, 3 incomplete, 0 identical).

use super::replay::describe;
use std::path::{Path, PathBuf};
use undercooked::log::replay_files;
use undercooked::verify::{Verdict, replay_bytes};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Replay files, or folders of them (every `*.ucr` inside, sorted).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// A file as itself; a folder as every replay file in it.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    replay_files(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(args: Args) -> u8 {
    let mut worst = 0u8;
    let mut note = |code: u8| {
        if Verdict::severity(code) > Verdict::severity(worst) {
            worst = code;
        }
    };
    for path in &args.paths {
        let files = match files_of(path) {
            Ok(f) => f,
            Err(e) => {
                println!("{e}: unreadable");
                note(2);
                continue;
            }
        };
        if files.is_empty() {
            println!("{}: no replay files (*.ucr) in this folder", path.display());
        }
        for file in files {
            let verdict = match std::fs::read(&file) {
                Ok(bytes) => replay_bytes(&bytes).verdict,
                Err(e) => Verdict::Unreadable(e.to_string()),
            };
            let code = verdict.exit_code();
            let word = match code {
                0 => "ok",
                1 => "DIVERGED",
                2 => "UNREADABLE",
                _ => "INCOMPLETE",
            };
            println!("{}: {word}: {}", file.display(), describe(&verdict));
            note(code);
        }
    }
    worst
}
