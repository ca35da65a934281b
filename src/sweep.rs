//! A bot sweep: how a level plays with 1 to 4 bots over many seeds. Whether teams win,
//! what they score, how many stars, and whether the level's hazards happen at all (pots
//! burnt and fires spread, spills and carts that hit a cook). `undercooked levels check`
//! prints it; `docs/LEVELS.md` keeps the campaign's.

use crate::levels::LevelSource;
use crate::round::RoundError;
use crate::sim::{EventKind, RoundResult};
use crate::simulate::play;

/// One round's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundStats {
    pub won: bool,
    pub score: u32,
    pub stars: u8,
    pub ticks: u32,
    pub served: u32,
    pub burnt: u32,
    /// Fires that spread from a burning station to its neighbour.
    pub spread: u32,
    pub slipped: u32,
    pub bumped: u32,
    /// Fires put out.
    pub extinguished: u32,
    /// Presses denied because nothing was there (a bot that misjudges its tile).
    pub no_station: u32,
}

/// One round of `bots` bots on `source` with `seed`, at `tick_hz`.
pub fn round(
    source: &LevelSource,
    seed: u64,
    bots: u8,
    tick_hz: u32,
) -> Result<RoundStats, RoundError> {
    let mut stats = RoundStats::default();
    let mut fires = 0usize;
    let done = play(
        source,
        seed,
        bots,
        tick_hz,
        std::io::sink(),
        |state, events| {
            let mut burnt_now = 0;
            for e in events {
                match e.kind {
                    EventKind::Served => stats.served += 1,
                    EventKind::Burnt => {
                        stats.burnt += 1;
                        burnt_now += 1;
                    }
                    EventKind::Slipped => stats.slipped += 1,
                    EventKind::Bumped => stats.bumped += 1,
                    EventKind::Extinguished => stats.extinguished += 1,
                    EventKind::Denied if e.payload.r == Some("no_station") => stats.no_station += 1,
                    _ => {}
                }
            }
            let now = state.fires.len();
            if now > fires {
                stats.spread += (now - fires).saturating_sub(burnt_now) as u32;
            }
            fires = now;
        },
    )?;
    stats.won = done.result == RoundResult::Won;
    stats.score = done.score;
    stats.stars = done.stars;
    stats.ticks = done.ticks;
    Ok(stats)
}

/// A level's figures with `bots` bots over several seeds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepRow {
    pub level: String,
    pub bots: u8,
    pub rounds: u32,
    pub wins: u32,
    pub mean_score: f64,
    /// Rounds ending with 0, 1, 2, 3 stars.
    pub stars: [u32; 4],
    /// Rounds that ended with 0 points.
    pub zero: u32,
    pub mean_seconds: f64,
    pub burnt: f64,
    pub spread: f64,
    pub slipped: f64,
    pub bumped: f64,
    pub no_station: f64,
}

/// `bots` bots on `source` for every seed; `progress` is called after each round.
pub fn sweep(
    source: &LevelSource,
    bots: u8,
    seeds: &[u64],
    tick_hz: u32,
    mut progress: impl FnMut(),
) -> Result<SweepRow, RoundError> {
    let mut row = SweepRow {
        level: source.level.id.clone(),
        bots,
        ..SweepRow::default()
    };
    let mut sums = [0f64; 7];
    for &seed in seeds {
        let r = round(source, seed, bots, tick_hz)?;
        row.rounds += 1;
        row.wins += r.won as u32;
        row.stars[r.stars.min(3) as usize] += 1;
        row.zero += (r.score == 0) as u32;
        for (sum, v) in sums.iter_mut().zip([
            r.score as f64,
            r.ticks as f64 / tick_hz as f64,
            r.burnt as f64,
            r.spread as f64,
            r.slipped as f64,
            r.bumped as f64,
            r.no_station as f64,
        ]) {
            *sum += v;
        }
        progress();
    }
    let n = row.rounds.max(1) as f64;
    row.mean_score = sums[0] / n;
    row.mean_seconds = sums[1] / n;
    row.burnt = sums[2] / n;
    row.spread = sums[3] / n;
    row.slipped = sums[4] / n;
    row.bumped = sums[5] / n;
    row.no_station = sums[6] / n;
    Ok(row)
}
