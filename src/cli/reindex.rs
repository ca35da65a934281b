//! `undercooked reindex [DIR]`: fold every replay in DIR into the history, idempotently.

use super::DbArgs;
use anyhow::Context;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The folder of replay files (default `<data-dir>/replays`).
    dir: Option<PathBuf>,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| args.db.data_dir.join("replays"));
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder of replay files", dir.display());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    rt.block_on(async move {
        let location = args.db.location();
        let store = undercooked::store::Store::open(&location).await?;
        let tty = std::io::stderr().is_terminal();
        let started = std::time::Instant::now();
        let report = undercooked::store::reindex::reindex(&store, &dir, undercooked::verify::refusal, |done, total| {
            if tty {
                let width = 30;
                let filled = (done * width).checked_div(total).unwrap_or(width);
                eprint!("\rreindex [{}{}] {done}/{total}", "#".repeat(filled), " ".repeat(width - filled));
            }
        })
        .await?;
        if tty {
            eprintln!();
        }
        let secs = started.elapsed().as_secs_f64();
        outln!(
            "reindexed {} of {} files from {} into {location}: {} new events, {} incomplete, {} unreadable, {} diverged, {} clashing ({:.1} rounds/s)",
            report.rounds,
            report.files,
            dir.display(),
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
