//! A headless round: bots play a level and the round is written as a replay.
//!
//! The same `Round` the live room uses, fed by a `BotTeam` instead of sockets, optionally
//! with a stand-in person (`bots::human`) in seat 0 and the bots after it. Nothing here
//! reads a clock or the OS: the same level, seed, person and bot count give a
//! byte-identical file.

use crate::bots::BotTeam;
use crate::bots::human::{Human, HumanCook};
use crate::levels::LevelSource;
use crate::log::{Accepted, Header, PALETTE, SeatEntry};
use crate::round::{Round, RoundError};
use crate::sim::{Event, KitchenState, RoundResult};

/// The header of a headless round with `bots` bot seats.
pub fn bot_header(source: &LevelSource, seed: u64, bots: u8, tick_hz: u32) -> Header {
    team_header(source, seed, None, bots, tick_hz)
}

/// The header of a headless round with a person (`human`, seat 0) and `bots` bot seats
/// after it (or bots only, from seat 0, without one).
pub fn team_header(
    source: &LevelSource,
    seed: u64,
    human: Option<Human>,
    bots: u8,
    tick_hz: u32,
) -> Header {
    let first = human.is_some() as u8;
    let person = human.map(|h| {
        SeatEntry::new(
            0,
            &format!("Human ({})", h.name()),
            PALETTE[0],
            "human-0",
            true,
        )
    });
    let seats = person
        .into_iter()
        .chain((first..first + bots).map(|s| {
            let color = PALETTE[s as usize % PALETTE.len()];
            SeatEntry::new(
                s,
                &format!("Bot {}", s + 1),
                color,
                &format!("bot-{s}"),
                true,
            )
        }))
        .collect();
    Header {
        seats,
        ..Header::new(&source.file_name, &source.text, seed, tick_hz)
    }
}

pub struct Simulated<W = Vec<u8>> {
    /// What the replay was written into (the file's bytes, for `simulate`).
    pub bytes: W,
    pub result: RoundResult,
    pub score: u32,
    pub stars: u8,
    pub ticks: u32,
}

/// Plays a whole round with bots in every seat and returns the replay file's bytes.
pub fn simulate(
    source: &LevelSource,
    seed: u64,
    bots: u8,
    tick_hz: u32,
) -> Result<Simulated, RoundError> {
    play(source, seed, bots, tick_hz, Vec::new(), |_, _| {})
}

/// Plays a whole round with bots in every seat, writing its replay into `out`; `watch` sees
/// the state and the events after every tick. Returns what `out` holds at the end.
pub fn play<W: std::io::Write>(
    source: &LevelSource,
    seed: u64,
    bots: u8,
    tick_hz: u32,
    out: W,
    watch: impl FnMut(&KitchenState, &[Event]),
) -> Result<Simulated<W>, RoundError> {
    play_team(source, seed, None, bots, tick_hz, out, watch)
}

/// `play` with a person (`human`) in seat 0 and `bots` bots in the seats after it.
pub fn play_team<W: std::io::Write>(
    source: &LevelSource,
    seed: u64,
    human: Option<Human>,
    bots: u8,
    tick_hz: u32,
    out: W,
    mut watch: impl FnMut(&KitchenState, &[Event]),
) -> Result<Simulated<W>, RoundError> {
    let header = team_header(source, seed, human, bots, tick_hz);
    let first = human.is_some() as u8;
    let seats: Vec<u8> = (first..first + bots).collect();
    let (mut round, _) = Round::start(header, out)?;
    // The bots mind the person's seat (docs/GAME.md, "Bots beside people").
    let people: Vec<u8> = human.map_or(Vec::new(), |_| vec![0]);
    let mut team = BotTeam::new(&source.level, tick_hz, &seats).with_people(&people);
    let mut person = human.map(|h| HumanCook::new(h, &source.level, tick_hz, 0, seed));
    let mut view = crate::wire::project(&round.fold().state, &round.fold().rules);
    while !round.decided() {
        let mine = person.as_mut().map(|p| p.decide(&view)).unwrap_or_default();
        for input in mine.into_iter().chain(team.decide(&view)) {
            round.append(Accepted::from(input))?;
        }
        for (seat, id) in team.take_emotes() {
            let id = id.to_string();
            round.append(Accepted::Emoted { seat, id })?;
        }
        let closed = round.close_tick()?;
        watch(&round.fold().state, &closed.events);
        if closed.frame.is_some()
            && let Some(v) = round.players().last_view()
        {
            view = v.clone();
        }
    }
    let summary = round.summary();
    let (bytes, result) = round.finish()?;
    Ok(Simulated {
        bytes,
        result,
        score: summary.score,
        stars: summary.stars,
        ticks: summary.ticks,
    })
}

/// How many rounds of `levels::alone::SEEDS` the scripted person wins alone on this level
/// (what `levels::alone::MEASURED` records; about 20 ms a round in an optimised build).
pub fn won_alone(source: &LevelSource, tick_hz: u32) -> u32 {
    crate::levels::alone::SEEDS
        .filter(|&seed| {
            let round = play_team(
                source,
                seed,
                Some(Human::Scripted),
                0,
                tick_hz,
                std::io::sink(),
                |_, _| {},
            );
            round.is_ok_and(|r| r.result == RoundResult::Won)
        })
        .count() as u32
}
