//! `undercooked verify`: re-fold replay files and directories, one line per file, the
//! worst exit code wins (2 unreadable, 1 diverged, 3 incomplete, 0 identical). A folder
//! with no replay files in it counts as unreadable.

use std::path::{Path, PathBuf};
use undercooked::log::replay_files;
use undercooked::verify::{Verdict, replay_bytes};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Replay files, or folders of them (every `*.ucr` inside, sorted).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// A file's verdict, its word once: `ok`, `DIVERGED at tick …`, `UNREADABLE: …`,
/// `INCOMPLETE: …`.
fn line(v: &Verdict) -> String {
    match v {
        Verdict::Identical => "ok".into(),
        Verdict::Diverged(d) => {
            let d = d.to_string();
            format!("DIVERGED{}", d.strip_prefix("diverged").unwrap_or(&d))
        }
        Verdict::Unreadable(why) => format!("UNREADABLE: {why}"),
        Verdict::Incomplete(why) => format!("INCOMPLETE: {why}"),
    }
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
                outln!("{e}: UNREADABLE");
                note(2);
                continue;
            }
        };
        if files.is_empty() {
            // A folder with nothing to verify is an error, not a pass: a job pointed at
            // the wrong path must not go green.
            outln!(
                "{}: UNREADABLE: no replay files (*.ucr) in this folder",
                path.display()
            );
            note(2);
        }
        for file in files {
            let verdict = match undercooked::log::read_file(&file) {
                Ok(bytes) => replay_bytes(&bytes).verdict,
                Err(e) => Verdict::Unreadable(e.to_string()),
            };
            outln!("{}: {}", file.display(), line(&verdict));
            note(verdict.exit_code());
        }
    }
    worst
}
