//! Bots are teammates anywhere: on every campaign level and on kitchens generated here
//! (cramped corridors, one-tile doors, far stations) two bots beat one and no team scores 0
//! where a single bot scores; they win the first kitchen at every tick rate, put out fires,
//! share a kitchen with cooks outside their team, and work around a person who wanders.

use crate::kitchen;

use undercooked::levels::LevelSource;
use undercooked::log::Accepted;
use undercooked::sim::RoundResult;
use undercooked::sweep::{RoundStats, round};

/// Scores of 1-4 bots over `seeds` on `level`, by bot count then seed.
fn scores(level: &LevelSource, seeds: &[u64]) -> Vec<Vec<RoundStats>> {
    (1..=4u8)
        .map(|bots| {
            seeds
                .iter()
                .map(|&seed| round(level, seed, bots, 20).expect("the round runs"))
                .collect()
        })
        .collect()
}

/// The promise, checked on one level: every team of 2-4 scores where one bot scores, and
/// two bots score more than one on the mean.
fn assert_teamwork(level: &LevelSource, seeds: &[u64]) -> Vec<String> {
    let by_bots = scores(level, seeds);
    let mut failures = Vec::new();
    let id = &level.level.id;
    for (k, row) in by_bots.iter().enumerate().skip(1) {
        for (s, r) in row.iter().enumerate() {
            if r.score == 0 && by_bots[0][s].score > 0 {
                failures.push(format!(
                    "{id}: {} bots scored 0 on seed {} where one bot scored {}",
                    k + 1,
                    seeds[s],
                    by_bots[0][s].score
                ));
            }
        }
    }
    // A won round stops at the target, so "more points" alone would favour the slower
    // team: a team beats another by winning more rounds, then by winning sooner, then
    // (when neither wins) by scoring more.
    let rank = |row: &[RoundStats]| {
        let wins = row.iter().filter(|r| r.won).count();
        let ticks: u64 = row.iter().map(|r| r.ticks as u64).sum();
        let score: u64 = row.iter().map(|r| r.score as u64).sum();
        (wins, std::cmp::Reverse(ticks), score)
    };
    // When both teams win every round within 1 % of the same time, the order clock sets the
    // pace, not the team (the rail only refills when it is empty): two bots then only have
    // to keep up. Otherwise two must beat one.
    let (one, two) = (rank(&by_bots[0]), rank(&by_bots[1]));
    let all_won = one.0 == seeds.len() && two.0 == seeds.len();
    let order_bound = all_won && two.1.0 * 100 <= one.1.0 * 101;
    if !order_bound && two <= one {
        failures.push(format!(
            "{id}: two bots {:?} did not beat one {:?} (wins, ticks, points) over seeds {seeds:?}",
            rank(&by_bots[1]),
            rank(&by_bots[0])
        ));
    }
    failures
}

/// Runs `check` over `levels` on two threads; fails with every failure listed.
fn on_every(levels: Vec<LevelSource>, check: impl Fn(&LevelSource) -> Vec<String> + Sync) {
    let (a, b): (Vec<_>, Vec<_>) = levels.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let halves = [a, b].map(|half| {
            let check = &check;
            scope.spawn(move || {
                half.into_iter()
                    .flat_map(|(_, l)| {
                        let mut failed = check(l);
                        if !failed.is_empty() {
                            // The kitchen itself, so a failure can be replayed by hand.
                            failed.push(format!("{}:\n{}", l.file_name, l.text));
                        }
                        failed
                    })
                    .collect::<Vec<_>>()
            })
        });
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("a sweep thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One 4-seat round of `level` driven by hand: `teams` of bots, and `person` (seat 0's
/// input, if any, from the latest view). Returns the round's summary.
fn play_round(
    level: &LevelSource,
    seed: u64,
    teams: &mut [undercooked::bots::BotTeam],
    mut person: impl FnMut(&undercooked::wire::view::FrameView) -> Option<Accepted>,
) -> undercooked::sim::RoundSummary {
    let header = undercooked::simulate::bot_header(level, seed, 4, 20);
    let (mut round, _) = undercooked::round::Round::start(header, Vec::new()).unwrap();
    while !round.decided() {
        let view = round.players().last_view().unwrap().clone();
        if let Some(input) = person(&view) {
            round.append(input).unwrap();
        }
        for team in teams.iter_mut() {
            for i in team.decide(&view) {
                round.append(Accepted::from(i)).unwrap();
            }
        }
        round.close_tick().unwrap();
    }
    round.summary()
}

fn fixture(dir: &str, id: &str) -> LevelSource {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    undercooked::levels::find(&dir, id).unwrap()
}

#[test]
fn on_every_campaign_level_two_bots_beat_one_and_no_team_scores_zero_where_one_scores() {
    on_every(kitchen::campaign(), |l| assert_teamwork(l, &[1, 2, 3, 4]));
}

#[test]
fn on_generated_kitchens_two_bots_beat_one_and_no_team_scores_zero_where_one_scores() {
    let levels: Vec<LevelSource> = (1..=9u64).map(kitchen::generated::generated).collect();
    on_every(levels, |l| assert_teamwork(l, &[1, 2, 3]));
}

#[test]
fn bots_win_the_first_kitchen_at_every_tick_rate_the_server_accepts() {
    let level = kitchen::campaign().into_iter().next().unwrap();
    for hz in [5, 10, 20, 30, 40, 60] {
        for seed in [1, 2] {
            let r = round(&level, seed, 2, hz).unwrap();
            assert!(
                r.won,
                "{hz} Hz seed {seed}: {} points, {} presses at nothing",
                r.score, r.no_station
            );
        }
    }
}

#[test]
fn bots_put_out_the_fires_of_the_fire_level() {
    let fire = kitchen::campaign()
        .into_iter()
        .find(|l| l.level.tuning.fire_spread_s < 5.0 && l.level.plates == 1)
        .expect("a level about fire");
    let (mut burnt, mut out) = (0, 0);
    for seed in 1..=4 {
        let r = round(&fire, seed, 2, 20).unwrap();
        burnt += r.burnt;
        out += r.extinguished;
        assert!(r.score > 0, "seed {seed}: two bots scored nothing");
    }
    assert!(
        burnt > 0,
        "no pot burnt in four rounds: the level is not about fire"
    );
    assert!(
        out >= burnt,
        "{burnt} pots caught fire, only {out} fires put out"
    );
}

#[test]
fn bots_in_separate_teams_share_a_small_kitchen() {
    // Four single-seat teams (as four bot clients over sockets would be): each sees the
    // others as outsiders, takes a cook facing a station as using it, and steps back when
    // stuck, so the quick level is still won.
    let level = fixture("tests/fixtures/levels", "01_quick_soup");
    for seed in [1u64, 2, 3] {
        let mut teams: Vec<_> = (0..4u8)
            .map(|s| undercooked::bots::BotTeam::new(&level.level, 20, &[s]))
            .collect();
        let summary = play_round(&level, seed, &mut teams, |_| None);
        assert_eq!(
            summary.result,
            Some(RoundResult::Won),
            "seed {seed}: {} points",
            summary.score
        );
    }
}

/// A person who only wanders: a new random direction every 10-30 ticks, never a press.
struct Wanderer {
    seed: u64,
    seq: u64,
    mv: (i16, i16),
    until: u32,
}

impl Wanderer {
    fn next(&mut self) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed
    }

    fn input(&mut self, tick: u32) -> Option<Accepted> {
        if tick < self.until {
            return None;
        }
        self.until = tick + 10 + (self.next() % 21) as u32;
        const DIRS: [(i16, i16); 5] = [(1000, 0), (-1000, 0), (0, 1000), (0, -1000), (0, 0)];
        self.mv = DIRS[(self.next() % 5) as usize];
        self.seq += 1;
        Some(Accepted::Input {
            seat: 0,
            seq: self.seq,
            mv: self.mv,
            act: false,
            face: None,
        })
    }
}

#[test]
fn three_bots_win_the_first_kitchen_around_a_person_who_only_wanders() {
    let level = kitchen::campaign().into_iter().next().unwrap();
    for seed in [1u64, 2, 3] {
        let mut team = [undercooked::bots::BotTeam::new(
            &level.level,
            20,
            &[1, 2, 3],
        )];
        let mut person = Wanderer {
            seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            seq: 0,
            mv: (0, 0),
            until: 0,
        };
        let summary = play_round(&level, seed, &mut team, |view| person.input(view.t));
        assert_eq!(
            summary.result,
            Some(RoundResult::Won),
            "seed {seed}: {} of {} points in {} ticks",
            summary.score,
            summary.target,
            summary.ticks
        );
    }
}

#[test]
fn three_bots_win_around_a_person_who_stands_anywhere() {
    // A person walks to a tile and stays there for the rest of the round (the case that
    // gridlocked the old bots: a person parked between their spawns). Every floor tile of
    // the open test kitchen's middle rows, two seeds each, except a tile that is the only way
    // to a station (a person standing there blocks it for everyone: no team could cook).
    let level = fixture("tests/fixtures/solo", "01_open_kitchen");
    let grid = &level.level.grid;
    let sole_access = |x: i32, y: i32| {
        grid.stations().iter().any(|s| {
            let ways: Vec<(i32, i32)> = undercooked::sim::grid::DIRS
                .iter()
                .map(|(dx, dy)| (s.x as i32 + dx, s.y as i32 + dy))
                .filter(|&(fx, fy)| grid.is_floor(fx, fy))
                .collect();
            ways == [(x, y)]
        })
    };
    let mut lost = Vec::new();
    for (x, y) in (1..=9).flat_map(|x| (2..=4).map(move |y| (x, y))) {
        if sole_access(x, y) {
            continue;
        }
        for seed in [1u64, 2] {
            let mut team = [undercooked::bots::BotTeam::new(
                &level.level,
                20,
                &[1, 2, 3],
            )];
            let mut seq = 0;
            // The person (seat 0) walks along its row, then up or down, then stops.
            let summary = play_round(&level, seed, &mut team, |view| {
                let me = view.p.iter().find(|p| p.seat == 0)?;
                let (dx, dy) = (x * 100 + 50 - me.x, y * 100 + 50 - me.y);
                let mv = if dx.abs() > 5 {
                    (dx.signum() as i16 * 1000, 0)
                } else if dy.abs() > 5 {
                    (0, dy.signum() as i16 * 1000)
                } else {
                    (0, 0)
                };
                seq += 1;
                Some(Accepted::Input {
                    seat: 0,
                    seq,
                    mv,
                    act: false,
                    face: None,
                })
            });
            if summary.result != Some(RoundResult::Won) {
                lost.push(format!("({x}, {y}) seed {seed}: {} points", summary.score));
            }
        }
    }
    assert!(lost.is_empty(), "lost with the person standing at {lost:?}");
}
