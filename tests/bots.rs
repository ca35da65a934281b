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
