//! `undercooked replay`: re-run one round and tell what happened in it.

use anyhow::Context;
use serde_json::{Value, json};
use std::path::PathBuf;
use undercooked::log::{FileError, Header, Record};
use undercooked::sim::RoundSummary;
use undercooked::verify::{Verdict, replay_bytes};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The replay file.
    file: PathBuf,
    /// Print every `snap` frame the players were sent, one JSON line each (already JSON:
    /// it does not combine with `--json`).
    #[arg(long, conflicts_with = "json")]
    frames: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let bytes = match undercooked::log::read_file(&args.file) {
        Ok(b) => b,
        Err(e @ FileError::TooBig(_)) => {
            eprintln!("{}: unreadable: {e}", args.file.display());
            return Ok(2);
        }
        Err(FileError::Io(e)) => {
            return Err(e).with_context(|| format!("reading {}", args.file.display()));
        }
    };
    let rerun = replay_bytes(&bytes);
    let name = args.file.display();
    let (Some(header), Some(fold)) = (&rerun.header, &rerun.fold) else {
        eprintln!("{name}: {}", describe(&rerun.verdict));
        return Ok(rerun.verdict.exit_code());
    };
    if args.frames {
        for (_, frame) in &rerun.frames {
            outln!("{}", frame.raw());
        }
        if !matches!(rerun.verdict, Verdict::Identical) {
            eprintln!("{name}: {}", describe(&rerun.verdict));
        }
        return Ok(rerun.verdict.exit_code());
    }
    let summary = RoundSummary::of(&fold.state, &fold.rules);
    let verify = describe(&rerun.verdict);
    let gaps = gaps(&bytes);
    if args.json {
        let mut v = json_summary(&name.to_string(), header, &summary, &verify);
        v["resumes"] = gaps
            .iter()
            .map(|g| json!({"tick": g.tick, "stopped_unix_s": g.stopped, "resumed_unix_s": g.resumed}))
            .collect();
        outln!("{v}");
    } else {
        print_summary(header, &summary, &rerun.verdict);
        for g in &gaps {
            outln!(
                "resumed  at tick {} ({:.2} s) after {} s away (its server stopped; the round went on from its log)",
                g.tick,
                g.tick as f64 / header.tick_hz as f64,
                g.resumed.saturating_sub(g.stopped)
            );
        }
    }
    Ok(rerun.verdict.exit_code())
}

/// A gap in a round: where its server stopped and the round went on from its log.
struct Gap {
    tick: u32,
    stopped: u64,
    resumed: u64,
}

/// The round's `Resumed` records (the file was read whole once already).
fn gaps(bytes: &[u8]) -> Vec<Gap> {
    let Ok(read) = undercooked::log::read_replay(bytes) else {
        return Vec::new();
    };
    read.records
        .iter()
        .filter_map(|r| match r {
            Record::Resumed {
                tick,
                stopped_unix_s,
                resumed_unix_s,
            } => Some(Gap {
                tick: *tick,
                stopped: *stopped_unix_s,
                resumed: *resumed_unix_s,
            }),
            _ => None,
        })
        .collect()
}

/// The figures of a seat's cook (0 for a seat without one).
fn cook_figures(summary: &RoundSummary, seat: u8) -> (u32, u32) {
    summary
        .cook(seat)
        .map_or((0, 0), |c| (c.score, c.dishes_served))
}

fn json_summary(file: &str, header: &Header, summary: &RoundSummary, verify: &str) -> Value {
    let seats: Vec<Value> = header
        .seats
        .iter()
        .map(|s| {
            let (score, dishes) = cook_figures(summary, s.seat);
            json!({"seat": s.seat, "id": s.player_id, "name": s.name, "color": s.color,
                   "score": score, "dishes_served": dishes})
        })
        .collect();
    let c = &summary.counters;
    json!({
        "file": file,
        "level": summary.level_id,
        "seed": header.seed,
        "tick_hz": header.tick_hz,
        "seats": seats,
        "result": summary.result.map(|r| r.name()),
        "score": summary.score,
        "target": summary.target,
        "stars": summary.stars,
        "ticks": summary.ticks,
        "longest_streak": summary.longest_streak,
        "counters": {"served": c.served, "missed": c.missed,
                     "wasted": c.wasted, "lost_items": c.lost_items},
        "verify": verify,
    })
}

fn print_summary(header: &Header, summary: &RoundSummary, verdict: &Verdict) {
    outln!("level    {} ({})", summary.level_id, summary.level_name);
    outln!("seed     {}   tick_hz {}", header.seed, header.tick_hz);
    for s in &header.seats {
        let (score, dishes) = cook_figures(summary, s.seat);
        outln!(
            "seat {}   {} {:<16} {}  score {} dishes {}",
            s.seat,
            s.player_id,
            s.name,
            s.color,
            score,
            dishes
        );
    }
    let result = match (summary.result, verdict) {
        (_, Verdict::Diverged(d)) => format!(
            "unknown: the file diverged from its re-run at tick {} (the figures below are the re-run's up to there)",
            d.tick
        ),
        (Some(r), _) => r.name().to_string(),
        (None, _) => "none: the file ends before the round did".to_string(),
    };
    outln!("result   {result}");
    outln!(
        "score    {} / {}   stars {}",
        summary.score,
        summary.target,
        summary.stars
    );
    outln!(
        "ticks    {} ({:.2} s)",
        summary.ticks,
        summary.ticks as f64 / header.tick_hz as f64
    );
    let c = &summary.counters;
    outln!(
        "counters served {} missed {} wasted {} lost_items {}   longest streak {}",
        c.served,
        c.missed,
        c.wasted,
        c.lost_items,
        summary.longest_streak
    );
    outln!("verify   {}", describe(verdict));
}

pub fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Identical => "identical".to_string(),
        Verdict::Diverged(d) => d.to_string(),
        Verdict::Unreadable(why) => format!("unreadable: {why}"),
        Verdict::Incomplete(why) => format!("incomplete: {why}"),
    }
}
