//! `undercooked replay`: re-run one round and tell what happened in it.

use anyhow::Context;
use serde_json::json;
use std::path::PathBuf;
use undercooked::verify::{Verdict, replay_bytes};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The replay file.
    file: PathBuf,
    /// Print every `snap` frame the players were sent, one JSON line each.
    #[arg(long)]
    frames: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let rerun = replay_bytes(&bytes);
    let name = args.file.display();
    let (Some(header), Some(fold)) = (&rerun.header, &rerun.fold) else {
        eprintln!("{name}: {}", describe(&rerun.verdict));
        return Ok(rerun.verdict.exit_code());
    };
    if args.frames {
        for (_, frame) in &rerun.frames {
            println!("{frame}");
        }
        if !matches!(rerun.verdict, Verdict::Identical) {
            eprintln!("{name}: {}", describe(&rerun.verdict));
        }
        return Ok(rerun.verdict.exit_code());
    }
    let state = &fold.state;
    let verdict = state.verdict;
    let seats: Vec<_> = header
        .seats
        .iter()
        .map(|s| {
            let cook = state.cook(s.seat);
            json!({"seat": s.seat, "id": s.player_id, "name": s.name, "color": s.color,
                   "score": cook.map_or(0, |c| c.score), "dishes_served": cook.map_or(0, |c| c.dishes_served)})
        })
        .collect();
    let summary = json!({
        "file": name.to_string(),
        "level": fold.rules.level.id,
        "seed": header.seed,
        "tick_hz": header.tick_hz,
        "seats": seats,
        "result": verdict.map(|v| v.result.name()),
        "score": state.score,
        "target": fold.rules.level.target_score,
        "stars": verdict.map_or(0, |v| v.stars),
        "ticks": state.tick,
        "longest_streak": state.longest_streak,
        "counters": {"served": state.counters.served, "missed": state.counters.missed,
                     "wasted": state.counters.wasted, "lost_items": state.counters.lost_items},
        "verify": describe(&rerun.verdict),
    });
    if args.json {
        println!("{summary}");
    } else {
        println!(
            "level    {} ({})",
            fold.rules.level.id, fold.rules.level.name
        );
        println!("seed     {}   tick_hz {}", header.seed, header.tick_hz);
        for s in &header.seats {
            let cook = state.cook(s.seat);
            println!(
                "seat {}   {} {:<16} {}  score {} dishes {}",
                s.seat,
                s.player_id,
                s.name,
                s.color,
                cook.map_or(0, |c| c.score),
                cook.map_or(0, |c| c.dishes_served)
            );
        }
        println!(
            "result   {}",
            verdict.map_or("none (round not finished)", |v| v.result.name())
        );
        println!(
            "score    {} / {}   stars {}",
            state.score,
            fold.rules.level.target_score,
            verdict.map_or(0, |v| v.stars)
        );
        println!(
            "ticks    {} ({:.2} s)",
            state.tick,
            state.tick as f64 / header.tick_hz as f64
        );
        let c = &state.counters;
        println!(
            "counters served {} missed {} wasted {} lost_items {}   longest streak {}",
            c.served, c.missed, c.wasted, c.lost_items, state.longest_streak
        );
        println!("verify   {}", describe(&rerun.verdict));
    }
    Ok(rerun.verdict.exit_code())
}

pub fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Identical => "identical".to_string(),
        Verdict::Diverged(d) => d.to_string(),
        Verdict::Unreadable(why) => format!("unreadable: {why}"),
        Verdict::Incomplete(why) => format!("incomplete: {why}"),
    }
}
