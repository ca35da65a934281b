//! The web client's pure modules (delta merge, interpolation, prediction and
//! reconciliation, input `seq`) under Node's own test runner, as part of `cargo test`; and
//! the first-load budget of what the server ships.
//!
//! The merge test gets a fixture from here: a whole bot round's player frames, with a full
//! frame of every pass next to them, so the client's merge is checked against the server's
//! own encoder. The prediction test gets another: scripted inputs run through the real sim
//! (walls, corners, sliding, diagonals, stations, cooks blocking cooks, a ghost, two tick
//! rates, fast cooks, a spill, a cart), with every cook's position after every tick, so
//! `predict.js`'s copy of the movement rule (and its quantizing of a held move) is checked
//! against the sim's own. Without `node` the test is skipped with a line saying so, unless
//! `CI` is set: then it is a failure.

mod kitchen;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use undercooked::log::Record;
use undercooked::round::PlayerPasses;
use undercooked::sim::movement::dist2;
use undercooked::sim::rules::RADIUS;
use undercooked::sim::state::Spill;
use undercooked::sim::{
    CookInput, EventKind, KitchenState, Level, Rules, SeatChange, TickInputs, step,
};
use undercooked::wire::layout::LevelLayout;
use undercooked::wire::messages::client::input_message;
use undercooked::wire::messages::{ClientMsg, RoomMsg, parse_client, quantize_move};

/// The player chain of a bot round and, for every pass, a full frame of the same view.
fn frames_fixture() -> PathBuf {
    let level = kitchen::campaign().into_iter().next().unwrap();
    let sim = undercooked::simulate::simulate(&level, 5, 3, 20).unwrap();
    let read = undercooked::log::read_replay(&sim.bytes).unwrap();
    let Record::Started(h) = &read.records[0] else {
        panic!("a header first")
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let (mut passes, first) = PlayerPasses::start(&fold);
    let mut chain = vec![first.raw().to_string()];
    let mut fulls = vec![passes.encoder().full(&fold.ids).unwrap().raw().to_string()];
    let mut events = Vec::new();
    for r in &read.records[1..] {
        if matches!(r, Record::FramesSent { .. } | Record::Ended { .. }) {
            continue;
        }
        fold.apply(r, &mut events).unwrap();
        if matches!(r, Record::TickClosed { .. }) {
            if let Some(f) = passes.after_tick(&fold, &events) {
                chain.push(f.raw().to_string());
                fulls.push(passes.encoder().full(&fold.ids).unwrap().raw().to_string());
            }
            events.clear();
        }
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client-frames.json");
    let body = format!(
        "{{\"chain\":[{}],\"fulls\":[{}]}}",
        chain.join(","),
        fulls.join(",")
    );
    std::fs::write(&path, body).unwrap();
    path
}

/// What happens as a beat of a movement script begins.
#[derive(Clone, Copy)]
enum Act {
    /// The seat's player holds this move (each axis -1..1, as `Controls.read()` gives it).
    Hold(u8, f64, f64),
    /// The seat's player holds the stick towards a point (units): a touch-stick diagonal.
    Toward(u8, i32, i32),
    /// The seat disconnects (its cook becomes a ghost) / connects again.
    Leave(u8),
    Back(u8),
}

/// Every seat at once, seat `i` holding `moves[i]`.
fn each(moves: &[(f64, f64)]) -> Vec<Act> {
    let holds = moves.iter().enumerate();
    holds.map(|(i, &(x, y))| Act::Hold(i as u8, x, y)).collect()
}

/// Seats `0..n` all heading for one point (units).
fn all_toward(n: u8, x: i32, y: i32) -> Vec<Act> {
    (0..n).map(|seat| Act::Toward(seat, x, y)).collect()
}

/// A tiny kitchen and a script for it: beats of `ticks` ticks, each beat's acts happening
/// as its first tick begins (an intent is kept until the next input, as the sim keeps it).
struct Script {
    name: &'static str,
    grid: &'static str,
    extra: &'static str,
    tick_hz: u32,
    seats: u8,
    /// Cooks put elsewhere than their spawn (units).
    at: &'static [(u8, i32, i32)],
    /// Spills laid on these tiles from the start (they never dry).
    spills: &'static [(u16, u16)],
    beats: Vec<(u32, Vec<Act>)>,
}

/// Closer than this (squared), a cook stopped short stands against another: a blocked axis
/// stops at the last free unit, less than one unit further than touching.
const NEAR2: i64 = (2 * RADIUS as i64 + 2).pow(2);

/// What each cook tick of a script did, for the coverage assertions.
#[derive(Default, Debug)]
struct Tally {
    /// Ticks a cook moved its whole intended step / part of it (a blocked axis slid) /
    /// not at all although it meant to.
    free: u32,
    slid: u32,
    stopped: u32,
    /// ... of which (part or not at all) the cook stood against another one after it.
    touching: u32,
    /// Ticks a cook stood stunned, or was a ghost; cook ticks a cart moved a cook.
    stunned: u32,
    ghost: u32,
    pushed: u32,
    /// Moves with both axes non-zero.
    diagonal: u32,
}

impl Tally {
    fn add(&mut self, t: &Tally) {
        self.free += t.free;
        self.slid += t.slid;
        self.stopped += t.stopped;
        self.touching += t.touching;
        self.stunned += t.stunned;
        self.ghost += t.ghost;
        self.pushed += t.pushed;
        self.diagonal += t.diagonal;
    }
}

/// The `input` a client sends for a held move (its `quantize` is the server's
/// `quantize_move`, which the JS test checks), read back as the server reads it: parsed as
/// a frame and quantized. Returns the intent the sim gets and the move on the wire.
fn sent(seat: u8, seq: u64, held: (f64, f64)) -> ((i16, i16), (f64, f64)) {
    let q = quantize_move(held);
    let input = CookInput {
        seat,
        seq,
        mv: q,
        act: false,
        face: None,
    };
    let text = input_message(&input).to_string();
    let Ok(ClientMsg::Room(RoomMsg::Input(msg))) = parse_client(&text) else {
        panic!("the server refuses what the client sends for {held:?}: {text}")
    };
    assert_eq!(quantize_move(msg.mv), q, "{text} quantizes back to itself");
    (q, msg.mv)
}

fn positions(state: &KitchenState) -> Vec<(i32, i32)> {
    state.cooks.iter().map(|c| (c.x, c.y)).collect()
}

/// Runs a script through the real sim, tick by tick. Each tick records the inputs (held,
/// sent, quantized), each cook's state as that tick's movement sees it in a frame's words
/// (`disconnected`: a ghost, which neither moves nor blocks; `stunned`: it does not move;
/// else `idle`), which cooks something other than movement moved (a cart's push: found by
/// stepping a copy of the state without its carts), and every cook's position after it.
fn run_script(sc: &Script) -> (Value, Tally) {
    let text = kitchen::level_text(sc.grid, "\"tomato_soup\"", sc.extra);
    let level = Level::parse("moves.toml", &text).expect("the script's level parses");
    let layout = LevelLayout::of(&level);
    let rules = Rules::new(level, sc.tick_hz);
    let seats: Vec<(u8, bool)> = (0..sc.seats).map(|s| (s, true)).collect();
    let mut state = KitchenState::new(&rules, &seats, 7);
    for &(seat, x, y) in sc.at {
        let c = &mut state.cooks[seat as usize];
        (c.x, c.y) = (x, y);
    }
    for &(x, y) in sc.spills {
        state.spills.push(Spill {
            x,
            y,
            expires_at: u32::MAX,
            tripped: 0,
        });
    }
    let start = positions(&state);
    let mut tally = Tally::default();
    let mut ticks = Vec::new();
    let mut seq = 0;
    let mut events = Vec::new();
    for (n, acts) in &sc.beats {
        for k in 0..*n {
            let mut inputs = TickInputs::default();
            let mut sent_now = Vec::new();
            for &act in acts.iter().filter(|_| k == 0) {
                let (seat, held) = match act {
                    Act::Hold(seat, x, y) => (seat, (x, y)),
                    Act::Toward(seat, x, y) => {
                        let c = &state.cooks[seat as usize];
                        let (dx, dy) = ((x - c.x) as f64, (y - c.y) as f64);
                        let d = dx.hypot(dy).max(1.0);
                        (seat, (dx / d, dy / d))
                    }
                    Act::Leave(seat) => {
                        inputs.seat_changes.push(SeatChange::Disconnected(seat));
                        continue;
                    }
                    Act::Back(seat) => {
                        inputs.seat_changes.push(SeatChange::Connected(seat));
                        continue;
                    }
                };
                seq += 1;
                let (q, mv) = sent(seat, seq, held);
                inputs.inputs.push(CookInput {
                    seat,
                    seq,
                    mv: q,
                    act: false,
                    face: None,
                });
                sent_now.push(json!({
                    "seat": seat, "held": [held.0, held.1], "move": [mv.0, mv.1], "q": [q.0, q.1],
                }));
            }
            let before = positions(&state);
            let stunned: Vec<bool> = state.cooks.iter().map(|c| c.stunned(state.tick)).collect();
            let mut no_carts = state.clone();
            no_carts.carts.clear();
            step(&mut no_carts, &rules, &inputs, &mut Vec::new());
            step(&mut state, &rules, &inputs, &mut events);
            assert!(state.verdict.is_none(), "{}: the round ended", sc.name);
            let after = positions(&state);
            let s: Vec<&str> = state
                .cooks
                .iter()
                .zip(&stunned)
                .map(|(c, &stunned)| match (c.active(), stunned) {
                    (false, _) => "disconnected",
                    (true, true) => "stunned",
                    (true, false) => "idle",
                })
                .collect();
            let moved_alone = positions(&no_carts);
            let pushed: Vec<usize> = (0..after.len())
                .filter(|&i| after[i] != moved_alone[i])
                .collect();
            for (i, c) in state.cooks.iter().enumerate() {
                let (ix, iy) = (c.intent.0 as i32, c.intent.1 as i32);
                let full = (ix * rules.speed / 1000, iy * rules.speed / 1000);
                let moved = (after[i].0 - before[i].0, after[i].1 - before[i].1);
                let touching = (0..after.len()).any(|j| {
                    j != i
                        && state.cooks[j].active()
                        && dist2(after[i].0, after[i].1, after[j].0, after[j].1) < NEAR2
                });
                if pushed.contains(&i) {
                    tally.pushed += 1;
                } else if s[i] == "disconnected" {
                    tally.ghost += 1;
                } else if s[i] == "stunned" {
                    tally.stunned += 1;
                } else if full != (0, 0) {
                    tally.diagonal += u32::from(full.0 != 0 && full.1 != 0);
                    if moved == full {
                        tally.free += 1;
                    } else {
                        tally.slid += u32::from(moved != (0, 0));
                        tally.stopped += u32::from(moved == (0, 0));
                        tally.touching += u32::from(touching);
                    }
                }
            }
            ticks.push(json!({
                "in": sent_now,
                "s": s,
                "pushed": pushed,
                "pos": after.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
            }));
        }
    }
    assert!(
        sc.spills.is_empty() || events.iter().any(|e| e.kind == EventKind::Slipped),
        "{}: a spill is laid, so somebody slips on it",
        sc.name
    );
    let scenario = json!({
        "name": sc.name,
        "rows": layout.rows,
        "maxSpeed": layout.max_speed,
        "tickHz": sc.tick_hz,
        "speed": rules.speed,
        "start": start.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
        "pushes": tally.pushed,
        "ticks": ticks,
    });
    (scenario, tally)
}

/// Held moves the client may quantize: every direction at full, rim and half magnitude,
/// thousandths exactly halfway, and out-of-range values.
fn held_moves() -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for k in 0..720 {
        let a = (k as f64 * 0.5).to_radians();
        for m in [1.0, 0.99995, 0.9996, 0.5, 0.2501] {
            out.push((m * a.cos(), m * a.sin()));
        }
    }
    for k in (-2001i32..=2001).step_by(23) {
        out.push((k as f64 / 2000.0, (2001 - k.abs()) as f64 / 4000.0));
        out.push((-(k as f64) / 2000.0, -((k * 7) % 2000) as f64 / 2000.0));
    }
    out.extend([
        (0.7075, 0.7066),
        (0.7066, -0.7075),
        (1.0, 1.0),
        (-1.0, 1.0),
        (0.99999, 0.99999),
        (1.2, -3.0),
        (-0.0005, 0.0005),
        (0.0015, -0.0025),
        (-0.0003, 0.0),
        (0.0, -0.0),
    ]);
    out
}

/// The movement fixture: scripted inputs through the real sim, every position of every
/// cook on every tick, and what the server quantizes each held move to.
fn moves_fixture() -> PathBuf {
    const ROOM: &str = "
#########
#1......#
#.......#
#.......#
#2.3...4#
##tCKSW##";
    const ISLAND: &str = "
##########
#1.......#
#..tCK...#
#.....W..#
#2..S..34#
##########";
    const HALL: &str = "
############
#1.........#
#..........#
#2........3#
#..........#
#4.........#
###tCKSW####";
    const GALLEY: &str = "
##########
#1.......#
#2.....34#
#tCKSW...#
##########";
    const TRACK: &str = "
##########
#........#
#1.2.3.4.#
#tCKSW...#
##########";
    let d = std::f64::consts::FRAC_1_SQRT_2;
    use Act::*;
    let scripts = vec![
        Script {
            name: "walls, corners and diagonals",
            grid: ROOM,
            extra: "",
            tick_hz: 20,
            seats: 1,
            at: &[],
            spills: &[],
            beats: vec![
                (40, vec![Hold(0, 1.0, 0.0)]),
                (25, vec![Hold(0, d, -d)]),
                (50, vec![Hold(0, -d, -d)]),
                (20, vec![Hold(0, 0.6, 0.8)]),
                (20, vec![Hold(0, -0.28, 0.96)]),
                (20, vec![Hold(0, 0.7075, 0.7066)]),
                (15, vec![Hold(0, -1.0, 0.0)]),
                (15, vec![Hold(0, 0.0, 1.0)]),
                (10, vec![Hold(0, 0.0004, -0.0015)]),
                (30, vec![Hold(0, 0.5 * d, -0.5 * d)]),
                (20, vec![Toward(0, 7650, 4650)]),
                (5, vec![Hold(0, 0.0, 0.0)]),
            ],
        },
        Script {
            name: "stations as obstacles",
            grid: ISLAND,
            extra: "",
            tick_hz: 20,
            seats: 2,
            // seat 1 touches the sink's west face exactly (350 from it), under the stove:
            // the stove's and the sink's corners meet at (6000, 3000), a gap no cook passes
            at: &[(1, 5650, 3500)],
            spills: &[],
            beats: vec![
                (20, vec![Hold(0, 0.6, 0.8), Hold(1, 1.0, 0.0)]),
                (30, vec![Hold(0, 0.8, 0.6), Hold(1, 0.6, -0.8)]),
                (20, vec![Hold(0, -0.6, 0.8), Hold(1, 0.0, 1.0)]),
                (25, vec![Hold(0, -1.0, 0.0), Hold(1, -1.0, 0.0)]),
                (15, vec![Hold(0, 0.0, -1.0), Hold(1, -d, -d)]),
                (25, vec![Hold(0, d, d), Toward(1, 3000, 2000)]),
                (20, vec![Toward(0, 6500, 1000), Toward(1, 7500, 4500)]),
            ],
        },
        Script {
            name: "cooks pushing into each other",
            grid: HALL,
            extra: "",
            tick_hz: 20,
            seats: 4,
            // head-on in row 1; in row 3, 200 units off each other's line
            at: &[
                (0, 1500, 1500),
                (1, 7500, 1500),
                (2, 1500, 3500),
                (3, 7500, 3300),
            ],
            spills: &[],
            beats: vec![
                (
                    30,
                    each(&[(1.0, 0.0), (-1.0, 0.0), (1.0, 0.0), (-1.0, 0.0)]),
                ),
                (
                    30,
                    each(&[(0.6, 0.8), (0.0, 0.0), (0.8, 0.6), (-0.8, -0.6)]),
                ),
                (40, each(&[(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0)])),
                (40, all_toward(4, 6000, 3500)),
                (
                    30,
                    each(&[(-1.0, 0.0), (0.0, -1.0), (1.0, 0.0), (0.0, 1.0)]),
                ),
                (
                    30,
                    each(&[(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]),
                ),
            ],
        },
        Script {
            name: "overlapping cooks move apart, a ghost blocks nobody",
            grid: HALL,
            extra: "",
            tick_hz: 20,
            seats: 2,
            at: &[(0, 3000, 2500), (1, 3400, 2500)],
            spills: &[],
            beats: vec![
                (5, vec![Hold(0, 1.0, 0.0), Hold(1, 0.0, 0.0)]),
                (10, vec![Hold(0, 0.0, 0.0), Hold(1, 0.0, 1.0)]),
                (10, vec![Hold(0, 0.0, 1.0), Hold(1, 0.0, -1.0)]),
                (5, vec![Hold(0, 0.0, 0.0), Hold(1, 0.0, 0.0)]),
                // seat 1 a ghost: seat 0 walks onto it and stops there, then through it
                (3, vec![Leave(1), Toward(0, 3400, 3875)]),
                (5, vec![Hold(0, 0.0, 0.0)]),
                (25, vec![Hold(0, 1.0, 0.0)]),
                (25, vec![Hold(0, -1.0, 0.0)]),
                // seat 1 is back where seat 0 stands: they can only move apart
                (10, vec![Back(1), Hold(0, 0.0, 0.0)]),
                (10, vec![Hold(0, 1.0, 0.0), Hold(1, -1.0, 0.2)]),
                (15, vec![Hold(0, -1.0, 0.0), Hold(1, 1.0, 0.0)]),
                (15, vec![Hold(0, 0.0, -1.0), Hold(1, 0.0, 1.0)]),
            ],
        },
        Script {
            name: "30 ticks a second, 3.5 tiles a second (116.7 units a tick, rounded up)",
            grid: ISLAND,
            extra: "[tuning]\nmax_speed = 3.5",
            tick_hz: 30,
            seats: 2,
            at: &[],
            spills: &[],
            beats: vec![
                (30, vec![Hold(0, 0.6, 0.8), Toward(1, 1500, 1500)]),
                (40, vec![Toward(0, 8500, 4500), Hold(1, 0.0, 0.0)]),
                (40, vec![Hold(0, -1.0, 0.0), Toward(1, 8500, 4500)]),
                (30, vec![Hold(0, -d, -d), Hold(1, d, -d)]),
            ],
        },
        Script {
            name: "fast cooks, several sub-steps a tick",
            grid: HALL,
            extra: "[tuning]\nmax_speed = 17.3",
            tick_hz: 20,
            seats: 3,
            at: &[],
            spills: &[],
            beats: vec![
                (10, each(&[(1.0, 0.0), (-1.0, 0.0), (0.6, -0.8)])),
                (10, each(&[(0.0, 1.0), (0.07, -0.99), (0.8, 0.6)])),
                (
                    15,
                    vec![Hold(0, -d, d), Hold(1, d, -d), Toward(2, 1500, 1500)],
                ),
                (10, all_toward(3, 6000, 3000)),
            ],
        },
        Script {
            name: "a spill trips a cook (stunned: it stops)",
            grid: GALLEY,
            extra: "",
            tick_hz: 20,
            seats: 2,
            at: &[],
            spills: &[(4, 1)],
            beats: vec![
                (50, vec![Hold(0, 1.0, 0.0)]),
                (20, vec![Hold(1, 0.8, -0.6)]),
                (40, vec![Hold(0, -1.0, 0.0), Hold(1, 1.0, 0.0)]),
                // seat 0 crosses the spill again, behind seat 1: a spill trips a cook once
                (40, vec![Hold(0, -1.0, 0.0), Hold(1, -1.0, 0.0)]),
            ],
        },
        Script {
            name: "a cart bumps a cook (pushed, then stunned)",
            grid: TRACK,
            extra: "[hazards]\ncarts = [[[1, 1], [8, 1]]]",
            tick_hz: 20,
            seats: 2,
            at: &[],
            spills: &[],
            beats: vec![
                (10, vec![Hold(1, 0.0, -1.0)]),
                (60, vec![Hold(0, 0.0, 0.0)]),
                (20, vec![Hold(0, 0.6, -0.8), Hold(1, 1.0, 0.0)]),
                (30, vec![Hold(0, 1.0, 0.0), Hold(1, -1.0, 0.0)]),
            ],
        },
    ];
    let mut scenarios = Vec::new();
    let mut total = Tally::default();
    for sc in &scripts {
        let (scenario, t) = run_script(sc);
        eprintln!(
            "moves fixture: {} ({} ticks): {t:?}",
            sc.name,
            scenario["ticks"].as_array().unwrap().len()
        );
        assert!(t.free > 0 && t.diagonal > 0, "{}: {t:?}", sc.name);
        assert_eq!(
            t.pushed > 0,
            sc.extra.contains("carts"),
            "{}: only a cart pushes a cook: {t:?}",
            sc.name
        );
        scenarios.push(scenario);
        total.add(&t);
    }
    // every situation the fixture claims to cover happens in it
    assert!(total.slid >= 20 && total.stopped >= 20, "{total:?}");
    assert!(total.touching >= 20, "cooks blocked by cooks: {total:?}");
    assert!(total.stunned >= 20 && total.ghost >= 20, "{total:?}");
    let quantized: Vec<Value> = held_moves()
        .into_iter()
        .enumerate()
        .map(|(k, held)| {
            let (q, mv) = sent(0, k as u64 + 1, held);
            json!({"held": [held.0, held.1], "move": [mv.0, mv.1], "q": [q.0, q.1]})
        })
        .collect();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client-moves.json");
    let body = json!({"quantize": quantized, "scenarios": scenarios});
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

/// The game's data as `/api/levels` hands it to the client (`recipes`, `tip_max`) and the
/// seat colours the wire's `color` carries (`palette`), from the
/// server's own code, for the client's tests: they fail if the client copies or disagrees.
fn game_data_fixture() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client-game-data.json");
    let body = json!({
        "recipes": undercooked::server::game_data::recipes(),
        "tip_max": undercooked::sim::rules::TIP_MAX,
        "palette": undercooked::log::PALETTE,
    });
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

#[test]
fn the_client_modules_pass_their_node_tests() {
    let node = Command::new("node").arg("--version").output();
    if node.is_err() {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but `node` is missing (the client's unit tests run under Node)");
        }
        eprintln!("skipped: no `node` on this machine");
        return;
    }
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(web.join("test"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    tests.sort();
    assert!(tests.len() >= 4, "{tests:?}");
    let out = Command::new("node")
        .arg("--test")
        .args(&tests)
        .env("UC_FRAMES_FIXTURE", frames_fixture())
        .env("UC_MOVES_FIXTURE", moves_fixture())
        .env("UC_GAME_DATA_FIXTURE", game_data_fixture())
        .current_dir(&web)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("# skipped 0"),
        "no client test may be skipped here (the fixture is given):\n{stdout}"
    );
}

#[test]
fn the_first_load_fits_in_200_kb() {
    // Every file the server ships, as sent to a browser that takes gzip: an upper bound of
    // the first load (a page loads most of them, not the tests, which are not shipped).
    let shipped = undercooked::server::shipped_assets();
    assert!(shipped.iter().any(|(p, _)| p == "index.html"));
    assert!(
        shipped.iter().all(|(p, _)| !p.starts_with("test/")),
        "{shipped:?}"
    );
    let total: usize = shipped.iter().map(|(_, n)| n).sum();
    assert!(total <= 200 * 1024, "{total} bytes shipped: {shipped:?}");
}
