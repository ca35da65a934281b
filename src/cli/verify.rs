//! `undercooked verify`: re-fold replay files and directories, one line per file, the
//! worst exit code wins (2 unreadable, 1 diverged, 3 incomplete, 0 identical). A folder
//! with no replay files in it counts as unreadable. With `--db postgres://…` the arguments
//! are round keys, and each is verified from the replay the database stores for it.

use anyhow::Context;
use std::path::{Path, PathBuf};
use undercooked::log::replay_files;
use undercooked::store::{Store, printable, stored_replays};
use undercooked::verify::{Verdict, replay_bytes};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Replay files, or folders of them (every `*.ucr` inside, sorted); with `--db`, round
    /// keys.
    #[arg(required = true, value_name = "PATHS|ROUND_KEYS")]
    paths: Vec<PathBuf>,
    /// Verify the replays a PostgreSQL database stores, by round key, instead of files.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
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

pub fn run(args: Args) -> anyhow::Result<u8> {
    match &args.db {
        Some(url) => stored(url, &args.paths),
        None => Ok(files(&args.paths)),
    }
}

/// Each round key's replay as the database at `url` stores it.
fn stored(url: &str, keys: &[PathBuf]) -> anyhow::Result<u8> {
    if undercooked::store::dialect_of(url)? != undercooked::store::db::Dialect::Postgres {
        anyhow::bail!(
            "verify --db reads the replays a PostgreSQL database stores, and {} is not one (postgres://…); on SQLite the replays are files: give their paths",
            printable(url)
        );
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    rt.block_on(async move {
        let store = Store::open_read_only(url).await?;
        let Some(pool) = stored_replays::pg(&store) else {
            anyhow::bail!("{} is not a PostgreSQL database", printable(url));
        };
        let mut worst = 0u8;
        for key in keys {
            let key = key.to_string_lossy();
            let verdict = match stored_replays::get(pool, &key).await {
                Ok(Some((bytes, _))) => replay_bytes(&bytes).verdict,
                Ok(None) => Verdict::Unreadable(format!(
                    "no replay is stored under this round key in {}",
                    printable(url)
                )),
                Err(stored_replays::GetError::Sql(e)) => {
                    return Err(e)
                        .with_context(|| format!("reading round {key} from {}", printable(url)));
                }
                Err(e) => Verdict::Unreadable(e.to_string()),
            };
            outln!("{key}: {}", line(&verdict));
            if Verdict::severity(verdict.exit_code()) > Verdict::severity(worst) {
                worst = verdict.exit_code();
            }
        }
        anyhow::Ok(worst)
    })
}

/// Each file, and each replay file in each folder.
fn files(paths: &[PathBuf]) -> u8 {
    let mut worst = 0u8;
    let mut note = |code: u8| {
        if Verdict::severity(code) > Verdict::severity(worst) {
            worst = code;
        }
    };
    for path in paths {
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
