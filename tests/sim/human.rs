//! The stand-in people of `bots::human`: a scripted person alone wins the tutorial at a
//! person's pace, and an idle one never moves while the bots play around it.

use undercooked::bots::human::Human;
use undercooked::sim::{EventKind, RoundResult};
use undercooked::simulate::play_team;

fn first_kitchen() -> undercooked::levels::LevelSource {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    undercooked::levels::find(&dir, "01_first_kitchen").expect("level 1 loads")
}

#[test]
fn a_scripted_person_alone_wins_the_tutorial_serving_a_soup_every_half_minute_or_so() {
    let level = first_kitchen();
    let mut serves = Vec::new();
    let done = play_team(
        &level,
        1,
        Some(Human::Scripted),
        0,
        20,
        std::io::sink(),
        |s, ev| {
            for e in ev.iter().filter(|e| e.kind == EventKind::Served) {
                serves.push((s.tick, e.payload.i));
            }
        },
    )
    .expect("the round runs");
    assert_eq!(done.result, RoundResult::Won, "{serves:?}");
    assert!(serves.iter().all(|(_, seat)| *seat == Some(0)));
    // a person's pace: well over the 10 s a lone bot takes between soups at its best
    let gaps: Vec<u32> = serves.windows(2).map(|w| (w[1].0 - w[0].0) / 20).collect();
    assert!(
        gaps.iter().all(|g| (20..=40).contains(g)),
        "{gaps:?} s between serves"
    );
}

#[test]
fn a_scripted_person_alone_wins_the_tutorial_on_every_seed_with_two_fifths_of_the_clock_left() {
    // Room for a slower beginner (issue 34's measure): the stand-in alone keeps at
    // least 40 % of the clock on every held-out seed (issue 34).
    let level = first_kitchen();
    let limit = (level.level.time_limit_s * 20.0) as u32;
    for seed in 11..=30 {
        let done = play_team(
            &level,
            seed,
            Some(Human::Scripted),
            0,
            20,
            std::io::sink(),
            |_, _| {},
        )
        .expect("the round runs");
        assert_eq!(done.result, RoundResult::Won, "seed {seed}");
        let left = limit - done.ticks;
        assert!(
            left * 100 >= limit * 40,
            "seed {seed}: won with {left} of {limit} ticks left"
        );
    }
}

#[test]
fn an_idle_person_never_moves_and_three_bots_play_around_it() {
    let level = first_kitchen();
    let mut moved = false;
    let mut served_by_person = 0;
    let done = play_team(
        &level,
        2,
        Some(Human::Idle),
        3,
        20,
        std::io::sink(),
        |s, ev| {
            moved |= s.cooks.iter().any(|c| c.seat == 0 && c.moved);
            served_by_person += ev
                .iter()
                .filter(|e| e.kind == EventKind::Served && e.payload.i == Some(0))
                .count();
        },
    )
    .expect("the round runs");
    assert!(!moved);
    assert_eq!(served_by_person, 0);
    assert_eq!(done.result, RoundResult::Won);
}
