//! `cargo bench --bench kitchen`: the figures docs/PERFORMANCE.md records.
//!
//! - tick cost of a busy 4-player round: fold (the sim step) + projection + encode, per tick;
//! - `verify` of a 150 s 4-player round;
//! - frame sizes over bot-played 4-player rounds (full max, mean delta, the 64×64 level);
//! - replay file size of a bot-played 150 s 4-player round.
//!
//! A plain binary (harness = false) with std timing: it reports, it asserts nothing.

use std::time::Instant;
use undercooked::levels::{LevelSource, load_dir};
use undercooked::log::{Accepted, Record, read_replay};
use undercooked::verify::replay_bytes;
use undercooked::wire::{SnapEncoder, encode_full, project};

fn level(all: &[LevelSource], id: &str) -> LevelSource {
    all.iter()
        .find(|l| l.level.id == id)
        .cloned()
        .expect("level")
}

/// A level whose target cannot be reached, so the round runs its whole 150 s.
fn endless(src: &LevelSource) -> LevelSource {
    let text = src.text.replacen(
        &format!("target_score = {}", src.level.target_score),
        "target_score = 99999",
        1,
    );
    let level = undercooked::levels::parse_level_file(&src.file_name, &text)
        .expect("endless variant parses");
    LevelSource {
        file_name: src.file_name.clone(),
        text,
        level,
    }
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    let all = load_dir(&dir).expect("levels");
    println!("undercooked kitchen bench ({} levels)", all.len());

    // The first campaign level and the biggest one (the 64x64 hall), whatever their ids.
    let biggest = all
        .iter()
        .max_by_key(|l| l.level.grid.width() as u32 * l.level.grid.height() as u32)
        .expect("a level");
    for id in [all[0].level.id.as_str(), biggest.level.id.as_str()] {
        let src = endless(&level(&all, id));
        let sim = undercooked::simulate::simulate(&src, 1, 4, 20).expect("simulate");
        let bytes = sim.bytes;
        println!("\n== {id}, 4 bots, 150 s ({} ticks)", sim.ticks);
        println!(
            "replay file: {} bytes ({:.1} KiB)",
            bytes.len(),
            bytes.len() as f64 / 1024.0
        );

        // Tick cost: re-fold the recorded log, projecting and encoding every tick.
        let records = read_replay(&bytes).expect("read").records;
        let Record::Started(header) = &records[0] else {
            panic!("header")
        };
        let mut best = f64::MAX;
        let mut sizes = (0usize, 0usize, 0usize, 0usize); // full max, full count, delta sum, delta count
        for round in 0..5 {
            let mut fold = undercooked::log::RoundFold::new(header.clone()).expect("fold");
            let mut enc = SnapEncoder::new();
            let mut events = Vec::new();
            let mut ticks = 0u32;
            let start = Instant::now();
            for r in &records[1..] {
                if let Record::TickClosed { .. } = r {
                    fold.apply(r, &mut events).expect("apply");
                    let frame = enc.encode(project(&fold.state, &fold.rules), &events, &fold.ids);
                    events.clear();
                    ticks += 1;
                    if round == 0 {
                        let frame = frame.raw();
                        if frame.contains("\"full\":true") {
                            sizes.0 = sizes.0.max(frame.len());
                            sizes.1 += 1;
                        } else {
                            sizes.2 += frame.len();
                            sizes.3 += 1;
                        }
                    }
                } else if !matches!(r, Record::FramesSent { .. } | Record::Ended { .. }) {
                    fold.apply(r, &mut events).expect("apply");
                }
            }
            let per_tick = start.elapsed().as_secs_f64() * 1e6 / ticks as f64;
            best = best.min(per_tick);
            if round == 0 {
                println!("tick cost (fold + project + encode), run 1: {per_tick:.2} µs/tick");
            }
        }
        println!("tick cost, best of 5 runs: {best:.2} µs/tick");
        println!(
            "full frame max: {} B over {} full frames; mean delta: {:.0} B over {} deltas",
            sizes.0,
            sizes.1,
            sizes.2 as f64 / sizes.3.max(1) as f64,
            sizes.3
        );

        // verify: the whole file, frames compared byte for byte.
        let mut times = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            let rerun = replay_bytes(&bytes);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(rerun.verdict, undercooked::verify::Verdict::Identical);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "verify: median {:.1} ms, best {:.1} ms (5 runs)",
            times[2], times[0]
        );
    }

    // The busiest full frames: every level, 4 bots, the whole 150 s; the largest full frame
    // overall and the largest with 4 players, 4 orders and 3 hazards at once.
    println!(
        "\n== full frames per level (4 bots, 150 s): largest, and largest with 4 orders + 3 hazards"
    );
    for src in &all {
        let src = endless(src);
        let sim = undercooked::simulate::simulate(&src, 2, 4, 20).expect("simulate");
        let records = read_replay(&sim.bytes).expect("read").records;
        let Record::Started(header) = &records[0] else {
            panic!()
        };
        let mut fold = undercooked::log::RoundFold::new(header.clone()).expect("fold");
        let mut events = Vec::new();
        let (mut largest, mut busy) = (0usize, None::<usize>);
        for r in &records[1..] {
            if matches!(r, Record::FramesSent { .. } | Record::Ended { .. }) {
                continue;
            }
            fold.apply(r, &mut events).expect("apply");
            events.clear();
            let s = &fold.state;
            let full = encode_full(&project(s, &fold.rules), &[], &fold.ids)
                .raw()
                .len();
            largest = largest.max(full);
            let hazards = s.fires.len()
                + s.spills.len()
                + s.carts.len()
                + usize::from(undercooked::sim::orders::rush_active(&fold.rules, s.tick));
            if s.orders.len() >= 4 && hazards >= 3 {
                busy = Some(busy.unwrap_or(0).max(full));
            }
        }
        let busy = busy.map_or("never 4 orders + 3 hazards at once".to_string(), |b| {
            format!("{b} B")
        });
        println!(
            "{:<20} largest full {largest} B; with 4 orders + 3 hazards: {busy}",
            src.level.id
        );
    }

    // The worst case for the file: four seats sending a changed input at the protocol's
    // maximum rate (40 a second: two per tick at 20 Hz) for the whole 150 s.
    let src = endless(&level(&all, "01_first_kitchen"));
    let header = undercooked::simulate::bot_header(&src, 5, 4, 20);
    let (mut round, _) = undercooked::round::Round::start(header, Vec::new()).expect("start");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut seq = [0u64; 4];
    while !round.decided() {
        for seat in 0..4u8 {
            for _ in 0..2 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                seq[seat as usize] += 1;
                let mv = (
                    ((x % 2001) as i16) - 1000,
                    (((x >> 16) % 2001) as i16) - 1000,
                );
                let mv = undercooked::sim::movement::clamp_intent(mv.0 as i32, mv.1 as i32);
                let input = Accepted::Input {
                    seat,
                    seq: seq[seat as usize],
                    mv,
                    act: x.is_multiple_of(5),
                    face: None,
                };
                round.append(input).expect("append");
            }
        }
        round.close_tick().expect("tick");
    }
    let (bytes, _) = round.finish().expect("finish");
    println!(
        "\nmaximum input rate (4 seats x 40 changed inputs/s, 150 s): replay file {} bytes ({:.1} KiB)",
        bytes.len(),
        bytes.len() as f64 / 1024.0
    );
}
