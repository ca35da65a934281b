//! `undercooked levels check [DIR|FILE...]`: what a level author runs before shipping a
//! level. Every file is checked and every error named (`file:line:column`), then the design
//! lints, then a quick bot sweep (1–4 bots over `--seeds` seeds) as a markdown table, the
//! same table `docs/LEVELS.md` keeps for the campaign.
//!
//! Exit codes: 0 clean, 1 lint warnings under `--strict`, 2 a file that is not a level.

use anyhow::bail;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use undercooked::frame_budget;
use undercooked::levels::{LevelSource, Scanned, level_files, lint, scan_files};
use undercooked::sweep::{SweepRow, sweep};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: LevelsCommand,
}

#[derive(clap::Subcommand, Debug)]
enum LevelsCommand {
    /// Check level files: errors, design lints and a bot sweep.
    Check(CheckArgs),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// Level folders (their `NN_*.toml` files) or level files.
    #[arg(env = "UNDERCOOKED_LEVELS_DIR", default_value = "levels")]
    paths: Vec<PathBuf>,
    /// Fail (exit 1) on lint warnings too.
    #[arg(long)]
    strict: bool,
    /// Seeds per level and bot count in the sweep (0 skips it).
    #[arg(long, default_value_t = 10)]
    seeds: u64,
    /// The first seed of the sweep.
    #[arg(long, default_value_t = 1)]
    first_seed: u64,
    /// Ticks per second for the sweep's rounds (5-60).
    #[arg(long, default_value_t = 20)]
    tick_hz: u32,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    match args.command {
        LevelsCommand::Check(args) => check(args),
    }
}

fn check(args: CheckArgs) -> anyhow::Result<u8> {
    if !(5..=60).contains(&args.tick_hz) {
        bail!("--tick-hz must be between 5 and 60, got {}", args.tick_hz);
    }
    let mut files = Vec::new();
    for path in &args.paths {
        if path.is_dir() {
            files.extend(level_files(path)?);
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            bail!("{} is neither a level file nor a folder", path.display());
        }
    }
    if files.is_empty() {
        bail!("no level files (NN_name.toml) in {:?}", args.paths);
    }
    let Scanned { levels, broken } = scan_files(&files);
    for b in &broken {
        for e in &b.errors {
            outln!("error: {e}");
        }
    }
    let mut warnings = 0;
    for l in &levels {
        let lv = &l.level;
        outln!(
            "{}: ok: {} ({}x{}, {}, target {} in {} s: about {} of {} orders)",
            l.file_name,
            lv.name,
            lv.grid.width(),
            lv.grid.height(),
            match lv.order {
                0 => "test level".to_string(),
                n => format!("campaign {n}"),
            },
            lv.target_score,
            lv.time_limit_s,
            lint::dishes_needed(lv),
            lint::orders_opened(lv),
        );
        for w in lint::lints(lv) {
            warnings += 1;
            outln!("warning[{}]: {}: {}", w.kind, l.file_name, w.message);
        }
        if let Some(w) = frame_budget::lint(&l.file_name, &l.text, lv) {
            warnings += 1;
            outln!("warning[full-frame-over-budget]: {w}");
        }
    }
    if args.seeds > 0 && !levels.is_empty() {
        let seeds: Vec<u64> = (args.first_seed..args.first_seed + args.seeds).collect();
        let rows = sweep_all(&levels, &seeds, args.tick_hz)?;
        outln!();
        outln!(
            "Bot sweep: seeds {}-{}, {} Hz (per round means; ★ counts rounds by stars 0/1/2/3)",
            seeds[0],
            seeds[seeds.len() - 1],
            args.tick_hz
        );
        outln!();
        out!("{}", table(&rows));
    }
    outln!();
    outln!(
        "{} levels ok, {} broken, {warnings} warnings",
        levels.len(),
        broken.len()
    );
    Ok(if !broken.is_empty() {
        2
    } else if args.strict && warnings > 0 {
        1
    } else {
        0
    })
}

/// Every level with 1–4 bots, on every core, in a fixed order.
fn sweep_all(levels: &[LevelSource], seeds: &[u64], tick_hz: u32) -> anyhow::Result<Vec<SweepRow>> {
    let jobs: Vec<(usize, u8)> = (0..levels.len())
        .flat_map(|l| (1..=4).map(move |b| (l, b)))
        .collect();
    let total = jobs.len() * seeds.len();
    let done = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let tty = std::io::stderr().is_terminal();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rows: Vec<Option<SweepRow>> = vec![None; jobs.len()];
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(l, bots)) = jobs.get(i) else { break };
                        let row = sweep(&levels[l], bots, seeds, tick_hz, || {
                            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                            if tty {
                                progress(n, total);
                            }
                        });
                        mine.push((i, row));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect::<Vec<_>>()
    });
    if tty {
        eprintln!();
    }
    for (i, row) in results {
        rows[i] = Some(row?);
    }
    Ok(rows.into_iter().flatten().collect())
}

fn progress(done: usize, total: usize) {
    let width = 30;
    let filled = (done * width).checked_div(total).unwrap_or(width);
    eprint!(
        "\rsweep [{}{}] {done}/{total} rounds",
        "#".repeat(filled),
        " ".repeat(width - filled)
    );
}

/// The sweep as a markdown table.
pub fn table(rows: &[SweepRow]) -> String {
    let mut out = String::from(
        "| level | bots | wins | mean score | ★0/1/2/3 | 0-point | mean s | burnt | spread | slipped | bumped | no_station |\n\
         |---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {}/{} | {:.0} | {}/{}/{}/{} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            r.level,
            r.bots,
            r.wins,
            r.rounds,
            r.mean_score,
            r.stars[0],
            r.stars[1],
            r.stars[2],
            r.stars[3],
            r.zero,
            r.mean_seconds,
            r.burnt,
            r.spread,
            r.slipped,
            r.bumped,
            r.no_station
        ));
    }
    out
}
