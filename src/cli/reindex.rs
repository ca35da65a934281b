//! `undercooked reindex [DIR]`: fold every replay in DIR into the history, idempotently;
//! `reindex --from-db [URL]`: every replay stored in a PostgreSQL database instead (by
//! default the `--db` database itself).

use super::DbArgs;
use anyhow::Context;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The folder of replay files (default `<data-dir>/replays`).
    dir: Option<PathBuf>,
    /// Read the replays stored in this PostgreSQL database instead of a folder (without a
    /// value: the `--db` database).
    #[arg(long, value_name = "URL", num_args = 0..=1, conflicts_with = "dir")]
    from_db: Option<Option<String>>,
    #[command(flatten)]
    db: DbArgs,
}

/// Where the replays come from.
enum Source {
    Folder(PathBuf),
    Database(String),
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let location = args.db.location()?;
    let source = match &args.from_db {
        Some(url) => {
            let url = url.clone().unwrap_or_else(|| location.clone());
            if undercooked::store::dialect_of(&url)? != undercooked::store::db::Dialect::Postgres {
                anyhow::bail!(
                    "--from-db reads the replays a PostgreSQL database stores, and {} is not one (postgres://…); on SQLite the replays are the files in the data folder: reindex that folder",
                    undercooked::store::printable(&url)
                );
            }
            Source::Database(url)
        }
        None => {
            let dir = args
                .dir
                .clone()
                .unwrap_or_else(|| args.db.data_dir.join("replays"));
            if !dir.is_dir() {
                anyhow::bail!("{} is not a folder of replay files", dir.display());
            }
            Source::Folder(dir)
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    rt.block_on(async move {
        let store = undercooked::store::Store::open(&location).await?;
        let tty = std::io::stderr().is_terminal();
        let started = std::time::Instant::now();
        let progress = |done: usize, total: usize| {
            if tty {
                let width = 30;
                let filled = (done * width).checked_div(total).unwrap_or(width);
                eprint!("\rreindex [{}{}] {done}/{total}", "#".repeat(filled), " ".repeat(width - filled));
            }
        };
        let refusal = undercooked::verify::refusal;
        let (report, from) = match &source {
            Source::Folder(dir) => (
                undercooked::store::reindex::reindex(&store, dir, refusal, progress).await?,
                dir.display().to_string(),
            ),
            Source::Database(url) => {
                // The same database is read through the store already open.
                let other = match url == &location {
                    true => None,
                    false => Some(undercooked::store::Store::open_read_only(url).await?),
                };
                let from_store = other.as_ref().unwrap_or(&store);
                let report = undercooked::store::reindex::reindex_stored(&store, from_store, refusal, progress).await?;
                (report, format!("the replays stored in {}", undercooked::store::printable(url)))
            }
        };
        let location = undercooked::store::printable(&location);
        if tty {
            eprintln!();
        }
        let secs = started.elapsed().as_secs_f64();
        outln!(
            "reindexed {} of {} files from {from} into {location}: {} new events, {} incomplete, {} unreadable, {} diverged, {} clashing ({:.1} rounds/s)",
            report.rounds,
            report.files,
            report.events_new,
            report.incomplete,
            report.unreadable.len(),
            report.diverged.len(),
            report.clashes.len(),
            report.rounds as f64 / secs.max(1e-9)
        );
        for (path, why) in &report.unreadable {
            outln!("{}: UNREADABLE: {why}", path.display());
        }
        for (path, why) in &report.diverged {
            outln!("{}: DIVERGED, not indexed: {why}", path.display());
        }
        for (path, why) in &report.clashes {
            outln!("{}: CLASH: {why}", path.display());
        }
        let refused = report.unreadable.len() + report.diverged.len() + report.clashes.len();
        anyhow::Ok(if refused == 0 { 0 } else { 2 })
    })
}
