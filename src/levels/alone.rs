//! Which levels one person can win alone (issue 34): the scripted stand-in person
//! (`simulate --bots 0 --human scripted`, the bots' route at a person's pace) plays each
//! campaign level by itself on seeds 11–30, and a level it never wins *needs a team or
//! bots*: the level picker says so (`/api/levels`' `needs_team`, docs/DECISIONS.md says why
//! the levels are not made easier instead).
//!
//! Two hundred rounds are too many to play at every start, so the measured counts are kept
//! here with the XXH3-64 of the level file they were measured on. A level file that is not in
//! the table, or whose text changed, is *not measured* (`None`): the picker then says
//! nothing rather than something stale. `tests/sim/alone.rs` plays the rounds again
//! (`simulate::won_alone`) and fails when a shipped level's entry is missing or wrong,
//! printing the line to put here.

use super::LevelSource;

/// The seeds the alone rounds are played on (the same as `scripts/craft.sh`'s tables).
pub const SEEDS: std::ops::RangeInclusive<u64> = 11..=30;

/// One measured level: its id, the XXH3-64 of its file's text, and the rounds of `SEEDS` the
/// scripted person won alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alone {
    pub id: &'static str,
    pub text_xxh3: u64,
    pub won: u32,
}

/// The shipped campaign, measured (`tests/sim/alone.rs` keeps it true).
pub const MEASURED: &[Alone] = &[
    Alone {
        id: "01_first_kitchen",
        text_xxh3: 0xefb04cc5ce5240ad,
        won: 20,
    },
    Alone {
        id: "02_chop_and_salad",
        text_xxh3: 0xe2ff7927b394a3a6,
        won: 0,
    },
    Alone {
        id: "03_dish_duty",
        text_xxh3: 0xa5a927aba68129a8,
        won: 0,
    },
    Alone {
        id: "04_kitchen_fire",
        text_xxh3: 0x64e0fa22f3419f93,
        won: 0,
    },
    Alone {
        id: "05_slippery_floor",
        text_xxh3: 0x87ffae4219ccb6ac,
        won: 0,
    },
    Alone {
        id: "06_cart_crossing",
        text_xxh3: 0x66bda4f0218e6f3c,
        won: 0,
    },
    Alone {
        id: "07_dinner_rush",
        text_xxh3: 0x21fee65ea271534a,
        won: 0,
    },
    Alone {
        id: "08_two_rooms",
        text_xxh3: 0x109768127a8624d0,
        won: 0,
    },
    Alone {
        id: "09_busy_line",
        text_xxh3: 0x4c32910f15057500,
        won: 0,
    },
    Alone {
        id: "10_grand_hall",
        text_xxh3: 0xb0cf3e2a1804d008,
        won: 0,
    },
];

/// The XXH3-64 of a level file's text (what `MEASURED` is keyed by).
pub fn text_hash(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// How many rounds of `SEEDS` a person won alone on this level file, when measured.
pub fn measured(source: &LevelSource) -> Option<u32> {
    let hash = text_hash(&source.text);
    MEASURED
        .iter()
        .find(|a| a.id == source.level.id && a.text_xxh3 == hash)
        .map(|a| a.won)
}
