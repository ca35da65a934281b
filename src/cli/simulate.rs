//! `undercooked simulate`: a headless bot round written to a replay file.

use super::LevelsDir;
use anyhow::{Context, bail};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level id (e.g. `01_first_kitchen`).
    #[arg(long)]
    level: String,
    /// The round's seed.
    #[arg(long)]
    seed: u64,
    /// How many bot cooks (1-4).
    #[arg(long, default_value_t = 2)]
    bots: u8,
    /// The replay file to write (default `<level>-s<seed>-b<bots>.ucr`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Ticks per second (5-60).
    #[arg(long, default_value_t = 20)]
    tick_hz: u32,
    #[command(flatten)]
    levels: LevelsDir,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    if !(1..=4).contains(&args.bots) {
        bail!("--bots must be between 1 and 4, got {}", args.bots);
    }
    if !(5..=60).contains(&args.tick_hz) {
        bail!("--tick-hz must be between 5 and 60, got {}", args.tick_hz);
    }
    let source = undercooked::levels::find(&args.levels.levels, &args.level)?;
    let sim = undercooked::simulate::simulate(&source, args.seed, args.bots, args.tick_hz)?;
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from(format!("{}-s{}-b{}.ucr", args.level, args.seed, args.bots))
    });
    std::fs::write(&out, &sim.bytes).with_context(|| format!("writing {}", out.display()))?;
    outln!(
        "{}: {} with {} points, {} stars, {} ticks ({} bytes) -> {}",
        args.level,
        sim.result.name(),
        sim.score,
        sim.stars,
        sim.ticks,
        sim.bytes.len(),
        out.display()
    );
    Ok(0)
}
