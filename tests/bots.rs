//! Bots are good enough to be teammates and load: two win the first three levels, four
//! finish every campaign level without the sim or the bots failing.

mod kitchen;

use undercooked::sim::RoundResult;

#[test]
fn two_bots_win_the_first_three_levels_with_at_least_one_star() {
    for level in kitchen::campaign().into_iter().take(3) {
        for seed in [1, 2] {
            let sim = undercooked::simulate::simulate(&level, seed, 2, 20).unwrap();
            assert_eq!(
                sim.result,
                RoundResult::Won,
                "{} seed {seed}: {} points",
                level.level.id,
                sim.score
            );
            assert!(sim.stars >= 1);
        }
    }
}

#[test]
fn four_bots_finish_every_campaign_level() {
    for level in kitchen::campaign() {
        let sim = undercooked::simulate::simulate(&level, 1, 4, 20).unwrap();
        assert!(sim.ticks > 0 && sim.ticks <= 3000, "{}", level.level.id);
        assert!(
            sim.score > 0,
            "{}: four bots served nothing",
            level.level.id
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

    fn input(&mut self, tick: u32) -> Option<undercooked::log::Accepted> {
        if tick < self.until {
            return None;
        }
        self.until = tick + 10 + (self.next() % 21) as u32;
        const DIRS: [(i16, i16); 5] = [(1000, 0), (-1000, 0), (0, 1000), (0, -1000), (0, 0)];
        self.mv = DIRS[(self.next() % 5) as usize];
        self.seq += 1;
        Some(undercooked::log::Accepted::Input {
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
        let header = undercooked::simulate::bot_header(&level, seed, 4, 20);
        let (mut round, _) = undercooked::round::Round::start(header, Vec::new()).unwrap();
        let mut team = undercooked::bots::BotTeam::new(&level.level, 20, &[1, 2, 3], seed);
        let mut person = Wanderer {
            seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            seq: 0,
            mv: (0, 0),
            until: 0,
        };
        while !round.decided() {
            let tick = round.fold().state.tick;
            if let Some(input) = person.input(tick) {
                round.append(input).unwrap();
            }
            let view = round.players().last_view().unwrap().clone();
            for i in team.decide(&view) {
                round.append(undercooked::log::Accepted::from(i)).unwrap();
            }
            round.close_tick().unwrap();
        }
        let summary = round.summary();
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
