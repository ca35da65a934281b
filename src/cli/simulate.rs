//! `undercooked simulate`: a headless bot round (optionally with a stand-in person in seat
//! 1) written to a replay file.

use super::LevelsDir;
use anyhow::{Context, bail};
use std::path::PathBuf;
use undercooked::bots::human::Human;
use undercooked::sim::EventKind;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level id (e.g. `01_first_kitchen`).
    #[arg(long)]
    level: String,
    /// The round's seed.
    #[arg(long)]
    seed: u64,
    /// How many bot cooks (1-4; 0-3 with `--human`).
    #[arg(long, default_value_t = 2)]
    bots: u8,
    /// A stand-in person in seat 1, before the bots: `idle` (never moves or presses) or
    /// `scripted` (the bots' route at a person's pace).
    #[arg(long, value_parser = ["idle", "scripted"])]
    human: Option<String>,
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
    let human = args.human.as_deref().and_then(Human::parse);
    let seats = args.bots as u32 + human.is_some() as u32;
    if !(1..=4).contains(&seats) {
        bail!(
            "--bots must be between 1 and 4 (0 and 3 with --human), got {}",
            args.bots
        );
    }
    if !(5..=60).contains(&args.tick_hz) {
        bail!("--tick-hz must be between 5 and 60, got {}", args.tick_hz);
    }
    let source = undercooked::levels::find(&args.levels.levels, &args.level)?;
    let mut served = Vec::new();
    let mut empty_rail = 0u32;
    let sim = undercooked::simulate::play_team(
        &source,
        args.seed,
        human,
        args.bots,
        args.tick_hz,
        Vec::new(),
        |state, events| {
            empty_rail += state.orders.is_empty() as u32;
            for e in events.iter().filter(|e| e.kind == EventKind::Served) {
                served.push((state.tick, e.payload.i));
            }
        },
    )?;
    let out = args.out.unwrap_or_else(|| {
        let who = human.map_or(String::new(), |h| format!("-{}", h.name()));
        PathBuf::from(format!(
            "{}-s{}{who}-b{}.ucr",
            args.level, args.seed, args.bots
        ))
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
    // How the round went, for pacing: who served when, and how long the rail stood empty.
    let secs = |t: u32| t as f64 / args.tick_hz as f64;
    let by_person = served
        .iter()
        .filter(|(_, i)| human.is_some() && *i == Some(0));
    outln!(
        "served {} (person {}), no order open {:.0}% of the round, serves at {}",
        served.len(),
        by_person.count(),
        100.0 * empty_rail as f64 / sim.ticks.max(1) as f64,
        served
            .iter()
            .map(|(t, _)| format!("{:.0}", secs(*t)))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(0)
}
