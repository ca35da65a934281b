//! Bots beside people: they leave a person the board or pot the person is working or
//! heading to, walk round the tile in front of a person, and when a person stands in the
//! only way to their jobs they ask with a wave and wait off the way instead of queueing at
//! the person's back.

use crate::kitchen;

use undercooked::bots::BotTeam;
use undercooked::bots::human::{Human, HumanCook};
use undercooked::levels::LevelSource;
use undercooked::log::Accepted;
use undercooked::round::Round;
use undercooked::wire::view::FrameView;

fn level(id_part: &str) -> LevelSource {
    kitchen::campaign()
        .into_iter()
        .find(|l| l.level.id.contains(id_part))
        .expect("a campaign level")
}

/// The first view of a 4-seat round of `level` (seat 0 a person, seats 1-3 bots).
fn first_view(level: &LevelSource) -> FrameView {
    let header = undercooked::simulate::bot_header(level, 1, 4, 20);
    let (round, _) = Round::start(header, Vec::new()).unwrap();
    round.players().last_view().unwrap().clone()
}

/// Puts seat `seat` on tile (`x`, `y`), facing `f`, holding `h`.
fn place(view: &mut FrameView, seat: u8, (x, y): (i32, i32), f: u8, h: Option<&'static str>) {
    let p = view.p.iter_mut().find(|p| p.seat == seat).unwrap();
    (p.x, p.y, p.f, p.h) = (x * 100 + 50, y * 100 + 50, f, h);
}

fn station(view: &FrameView, x: u16, y: u16) -> usize {
    view.st.iter().position(|s| (s.x, s.y) == (x, y)).unwrap()
}

/// The board the bot of seat 1 (holding a raw onion on tile (3, 3) of the first kitchen)
/// goes to, with seat 0 placed by `person` (`None`: away in a corner, facing a wall).
fn board_chosen(person: Option<((i32, i32), u8)>) -> usize {
    let level = level("first_kitchen");
    let mut view = first_view(&level);
    // Everyone but seat 1 out of the way, in the bottom-right corner facing the wall.
    for seat in [0, 2, 3] {
        place(&mut view, seat, (8 - seat as i32, 4), 2, None);
    }
    if let Some((at, f)) = person {
        place(&mut view, 0, at, f, Some("onion_raw"));
    }
    place(&mut view, 1, (3, 3), 0, Some("onion_raw"));
    let mut team = BotTeam::new(&level.level, 20, &[1, 2, 3]).with_people(&[0]);
    team.decide(&view);
    let goals = team.goals();
    goals[0].1.expect("the bot has a job").station
}

#[test]
fn a_bot_leaves_a_person_the_board_the_person_faces_or_walks_up_to() {
    // Given the first kitchen, a bot with a raw onion whose nearest empty board is (4, 1)
    let level = level("first_kitchen");
    let view = first_view(&level);
    let (near, far) = (station(&view, 4, 1), station(&view, 6, 1));
    assert_eq!(
        board_chosen(None),
        near,
        "alone, the bot takes the nearest board"
    );
    // When a person with an onion stands below that board facing it, then the bot takes the
    // other board
    assert_eq!(board_chosen(Some(((4, 2), 0))), far, "the person faces it");
    // And when the person is two tiles below it walking up to it, the same
    assert_eq!(
        board_chosen(Some(((4, 3), 0))),
        far,
        "the person walks up to it"
    );
}

/// Plays `ticks` of a 4-seat round of `level` with seat 0 a person walking to `stand` and
/// facing `face` there, seats 1-3 one bot team. Calls `each` with every view and the
/// emotes the team sent after it.
fn beside_a_person(
    level: &LevelSource,
    seed: u64,
    stand: (i32, i32),
    face: u8,
    ticks: u32,
    mut each: impl FnMut(&FrameView, &[(u8, &'static str)]),
) {
    let header = undercooked::simulate::bot_header(level, seed, 4, 20);
    let (mut round, _) = Round::start(header, Vec::new()).unwrap();
    let mut team = BotTeam::new(&level.level, 20, &[1, 2, 3]).with_people(&[0]);
    let mut seq = 0;
    while !round.decided() && round.fold().state.tick < ticks {
        let view = round.players().last_view().unwrap().clone();
        let me = view.p.iter().find(|p| p.seat == 0).unwrap();
        let (dx, dy) = (stand.0 * 100 + 50 - me.x, stand.1 * 100 + 50 - me.y);
        // Along the row first, then the column (the person knows the kitchen).
        let mv = if dy.abs() > 5 && dx.abs() > 5 && me.y.div_euclid(100) != 3 {
            (0, dy.signum() as i16 * 1000)
        } else if dx.abs() > 5 {
            (dx.signum() as i16 * 1000, 0)
        } else if dy.abs() > 5 {
            (0, dy.signum() as i16 * 1000)
        } else {
            (0, 0)
        };
        seq += 1;
        let face = (mv == (0, 0)).then_some(face);
        round
            .append(Accepted::Input {
                seat: 0,
                seq,
                mv,
                act: false,
                face,
            })
            .unwrap();
        for i in team.decide(&view) {
            round.append(Accepted::from(i)).unwrap();
        }
        let emotes = team.take_emotes();
        for &(seat, id) in &emotes {
            round
                .append(Accepted::Emoted {
                    seat,
                    id: id.to_string(),
                })
                .unwrap();
        }
        each(&view, &emotes);
        round.close_tick().unwrap();
    }
}

#[test]
fn bots_walk_round_the_tile_in_front_of_a_person_standing_in_the_open() {
    // Given a person standing in the middle row of the first kitchen (the row between the
    // top and the bottom stations), facing right
    let level = level("first_kitchen");
    for seed in [1u64, 2] {
        let (stand, front) = ((5, 3), (6, 3));
        let mut on_front = 0;
        let mut served_before = 0;
        // When three bots cook for 60 seconds around the person
        beside_a_person(&level, seed, stand, 1, 1200, |view, _| {
            let person_there = view
                .p
                .iter()
                .any(|p| p.seat == 0 && (p.x / 100, p.y / 100) == stand);
            if person_there {
                on_front += view
                    .p
                    .iter()
                    .filter(|p| p.seat != 0 && (p.x / 100, p.y / 100) == front)
                    .count();
            }
            served_before = view.s;
        });
        // Then they score and keep off the tile the person faces (at most a few ticks
        // crossing it when no other way is free)
        assert!(served_before > 0, "seed {seed}: the bots scored nothing");
        assert!(
            on_front <= 20,
            "seed {seed}: bots stood {on_front} ticks on the tile in front of the person"
        );
    }
}

#[test]
fn a_bot_a_person_blocks_waves_and_waits_off_the_way() {
    // Given Two Rooms, a person standing in the one-tile doorway between them
    let level = level("two_rooms");
    let door = (7, 3);
    let beside_door = [(6, 3), (8, 3)];
    let mut waves = 0;
    let mut held = [0u32; 4];
    let mut longest = 0;
    // When three bots play 40 seconds with the person there
    beside_a_person(&level, 1, door, 1, 800, |view, emotes| {
        let person_there = view
            .p
            .iter()
            .any(|p| p.seat == 0 && (p.x / 100, p.y / 100) == door);
        waves += emotes
            .iter()
            .filter(|(_, id)| *id == "let_me_through")
            .count();
        for p in view.p.iter().filter(|p| p.seat != 0) {
            let at = (p.x / 100, p.y / 100);
            let k = p.seat as usize;
            if person_there && beside_door.contains(&at) {
                held[k] += 1;
                longest = longest.max(held[k]);
            } else {
                held[k] = 0;
            }
        }
    });
    // Then a bot cut off from its jobs asked with a wave (not every tick: at most one every
    // five seconds per bot) and no bot stood at the person's back for more than 3 seconds
    assert!(waves > 0, "no bot asked the person for the way");
    assert!(waves <= 3 * 8 + 3, "{waves} waves in 40 s");
    assert!(
        longest <= 60,
        "a bot stood beside the person in the doorway for {longest} ticks"
    );
}

/// One round's figures beside a person (seat 0), for `measure_people_rounds`.
#[derive(Debug, Default)]
struct Figures {
    score: u32,
    target: u32,
    won: bool,
    /// Seconds each bot stood still (same position, not working), by bot.
    still_s: Vec<f64>,
    /// The person's presses denied, and seconds it pushed against something and did not move.
    denied: u32,
    stuck_s: f64,
    waves: u32,
}

/// Plays a 4-seat round: seat 0 driven by `person`, seats 1-3 one bot team (`blind`: not
/// told seat 0 is a person, the bots as they were before they minded people).
fn measure(
    level: &LevelSource,
    seed: u64,
    blind: bool,
    person: impl FnMut(&FrameView) -> Vec<Accepted>,
) -> Figures {
    measure_with(level, seed, blind, 3, person)
}

fn measure_with(
    level: &LevelSource,
    seed: u64,
    blind: bool,
    bots: u8,
    mut person: impl FnMut(&FrameView) -> Vec<Accepted>,
) -> Figures {
    let header = undercooked::simulate::team_header(level, seed, Some(Human::Scripted), bots, 20);
    let (mut round, _) = Round::start(header, Vec::new()).unwrap();
    let seats: Vec<u8> = (1..=bots).collect();
    let mut team = BotTeam::new(&level.level, 20, &seats);
    if !blind {
        team = team.with_people(&[0]);
    }
    let mut f = Figures {
        still_s: vec![0.0; bots as usize],
        ..Figures::default()
    };
    let mut last: Vec<(i32, i32)> = Vec::new();
    let mut pushing = false;
    while !round.decided() {
        let view = round.players().last_view().unwrap().clone();
        let pos: Vec<(i32, i32)> = view.p.iter().map(|p| (p.x, p.y)).collect();
        if last.len() == pos.len() {
            for (k, p) in view.p.iter().enumerate() {
                let still = pos[k] == last[k] && p.s != "working";
                if p.seat == 0 && still && pushing {
                    f.stuck_s += 0.05;
                } else if p.seat > 0 && still {
                    f.still_s[p.seat as usize - 1] += 0.05;
                }
            }
        }
        last = pos;
        for input in person(&view) {
            if let Accepted::Input { mv, .. } = &input {
                pushing = *mv != (0, 0);
            }
            round.append(input).unwrap();
        }
        for i in team.decide(&view) {
            round.append(Accepted::from(i)).unwrap();
        }
        for (seat, id) in team.take_emotes() {
            f.waves += 1;
            round
                .append(Accepted::Emoted {
                    seat,
                    id: id.to_string(),
                })
                .unwrap();
        }
        let closed = round.close_tick().unwrap();
        f.denied += closed
            .events
            .iter()
            .filter(|e| e.kind == undercooked::sim::EventKind::Denied && e.payload.i == Some(0))
            .count() as u32;
    }
    let s = round.summary();
    (f.score, f.target, f.won) = (s.score, s.target, s.won());
    f
}

/// A person who walks to `stand` (row first when on row `row`, else column first) and
/// stays there facing `face`.
fn stander(stand: (i32, i32), face: u8) -> impl FnMut(&FrameView) -> Option<Accepted> {
    let mut seq = 0;
    move |view| {
        let me = view.p.iter().find(|p| p.seat == 0)?;
        let (dx, dy) = (stand.0 * 100 + 50 - me.x, stand.1 * 100 + 50 - me.y);
        let mv = if dy.abs() > 5 && (dx.abs() <= 5 || me.y.div_euclid(100) != stand.1) {
            if dx.abs() > 5 && me.y.div_euclid(100) == 3 {
                (dx.signum() as i16 * 1000, 0)
            } else {
                (0, dy.signum() as i16 * 1000)
            }
        } else if dx.abs() > 5 {
            (dx.signum() as i16 * 1000, 0)
        } else {
            (0, 0)
        };
        seq += 1;
        let face = (mv == (0, 0)).then_some(face);
        Some(Accepted::Input {
            seat: 0,
            seq,
            mv,
            act: false,
            face,
        })
    }
}

fn report(what: &str, rows: &[Figures]) {
    let won = rows.iter().filter(|f| f.won).count();
    let scores: Vec<String> = rows
        .iter()
        .map(|f| format!("{}/{}", f.score, f.target))
        .collect();
    let still: Vec<f64> = rows
        .iter()
        .flat_map(|f| f.still_s.iter().copied())
        .collect();
    let (lo, hi) = still
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), s| (lo.min(*s), hi.max(*s)));
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len().max(1) as f64;
    eprintln!(
        "{what}: won {won}/{}, scores {}, bots still {lo:.0}-{hi:.0} s (mean {:.0}), person denied {:.1}, stuck {:.1} s, waves {:.1}",
        rows.len(),
        scores.join(" "),
        mean(still.clone()),
        mean(rows.iter().map(|f| f.denied as f64).collect()),
        mean(rows.iter().map(|f| f.stuck_s).collect()),
        mean(rows.iter().map(|f| f.waves as f64).collect()),
    );
}

/// The figures of docs/DECISIONS.md's solo bullet, before (bots blind to people) and after:
/// `cargo test --release --test sim people::measure -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_people_rounds() {
    let seeds: Vec<u64> = (11..=20).collect();
    for blind in [true, false] {
        let when = if blind { "before" } else { "after" };
        let slippery = level("slippery");
        let spawn = slippery.level.grid.spawns()[0];
        let rows: Vec<Figures> = seeds
            .iter()
            .map(|&s| measure(&slippery, s, blind, |_| Vec::new()))
            .collect();
        report(
            &format!("{when}: idle person on Slippery Floor's spawn {spawn:?}"),
            &rows,
        );
        let two = level("two_rooms");
        let rows: Vec<Figures> = seeds
            .iter()
            .map(|&s| {
                let mut person = stander((7, 3), 1);
                measure(&two, s, blind, move |v| person(v).into_iter().collect())
            })
            .collect();
        report(&format!("{when}: person in Two Rooms' doorway"), &rows);
        let first = level("first_kitchen");
        let rows: Vec<Figures> = seeds
            .iter()
            .map(|&s| {
                let mut person = HumanCook::new(Human::Scripted, &first.level, 20, 0, s);
                measure(&first, s, blind, move |v| {
                    person.decide(v).into_iter().map(Accepted::from).collect()
                })
            })
            .collect();
        report(
            &format!("{when}: scripted person beside 3 bots on level 1"),
            &rows,
        );
    }
}

/// Play solo's question: levels 1-6, a scripted person against an idle one, with 1-3 bots
/// that mind the person: `cargo test --release --test sim people::measure_solo -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn measure_solo() {
    let seeds: Vec<u64> = (11..=20).collect();
    for l in kitchen::campaign().into_iter().take(6) {
        for bots in 1..=3u8 {
            let mut line = format!("{} +{bots} bots:", l.level.id);
            for kind in [Human::Scripted, Human::Idle] {
                let rows: Vec<Figures> = seeds
                    .iter()
                    .map(|&s| {
                        let mut person = HumanCook::new(kind, &l.level, 20, 0, s);
                        measure_with(&l, s, false, bots, move |v| {
                            person.decide(v).into_iter().map(Accepted::from).collect()
                        })
                    })
                    .collect();
                let won = rows.iter().filter(|f| f.won).count();
                let mean = rows.iter().map(|f| f.score as f64).sum::<f64>() / rows.len() as f64;
                line += &format!(
                    " {} won {won}/{} (mean {mean:.0});",
                    kind.name(),
                    rows.len()
                );
            }
            eprintln!("{line}");
        }
    }
}
