//! Design checks: what a valid level can still get wrong, as a level designer needs to hear
//! it. None of these stops a level from loading; `undercooked levels check --strict` fails
//! on them.
//!
//! - fire that cannot spread (no station next to any stove);
//! - a cart whose loop never passes a work tile (a floor tile a cook uses a station from);
//! - spills that mostly fall where nobody works;
//! - a kitchen whose floor is one tile-wide path with no branch (cooks can never pass each
//!   other, so a second cook only gets in the way; the bots' teamwork promise excludes it);
//! - a spawn on the only way to a station (a cook who stays on its spawn cuts the others
//!   off from it);
//! - a target out of step with the orders: more dishes than the clock can bring, or so few
//!   that the kitchen idles for most of the round.

use crate::sim::Level;
use crate::sim::grid::{DIRS, StationKind};

/// One design warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    /// A short stable name (`fire-cannot-spread`, …).
    pub kind: &'static str,
    pub message: String,
}

/// Floor tiles from which a station can be used (beside one, up/right/down/left).
fn work_tiles(level: &Level) -> Vec<(u16, u16)> {
    let grid = &level.grid;
    grid.floor_tiles()
        .filter(|&(x, y)| {
            DIRS.iter().any(|(dx, dy)| {
                grid.station_index_at(x as i32 + dx, y as i32 + dy)
                    .is_some()
            })
        })
        .collect()
}

/// Whether the floor cooks walk on (reached from spawn 1) is a single path one tile wide:
/// no tile has three floor neighbours and there is no loop, so nobody can step aside.
fn no_passing_room(level: &Level) -> bool {
    let grid = &level.grid;
    let seen = grid.reachable_from(grid.spawns()[0]);
    let (mut tiles, mut ends) = (0usize, 0usize);
    for (x, y) in grid.floor_tiles() {
        if !seen[grid.index(x, y)] {
            continue;
        }
        let degree = grid.neighbours(x, y).count();
        if degree >= 3 {
            return false;
        }
        tiles += 1;
        ends += degree;
    }
    // Every tile has at most two neighbours: a loop when edges == tiles, else a path.
    tiles > 1 && ends / 2 < tiles
}

/// Which floor tiles a walk from any of `starts` reaches without stepping on `closed`.
fn reachable_without(level: &Level, starts: &[(u16, u16)], closed: (u16, u16)) -> Vec<bool> {
    let grid = &level.grid;
    let mut seen = vec![false; grid.width() as usize * grid.height() as usize];
    let mut queue = std::collections::VecDeque::new();
    for &s in starts.iter().filter(|&&s| s != closed) {
        seen[grid.index(s.0, s.1)] = true;
        queue.push_back(s);
    }
    seen[grid.index(closed.0, closed.1)] = true;
    while let Some((x, y)) = queue.pop_front() {
        for (nx, ny, _) in grid.neighbours(x, y) {
            let i = grid.index(nx, ny);
            if !seen[i] {
                seen[i] = true;
                queue.push_back((nx, ny));
            }
        }
    }
    seen[grid.index(closed.0, closed.1)] = false;
    seen
}

/// Spawns standing on the only way to a station: with the spawn's tile taken out of the
/// floor, some station has no work tile the other spawns reach (so a cook who stays where
/// it started, a person reading the screen, cuts the team off from that station). As
/// (seat number, station kind, station x, y), one per spawn and station kind.
pub fn spawns_on_only_way(level: &Level) -> Vec<(usize, &'static str, u16, u16)> {
    let grid = &level.grid;
    let spawns = grid.spawns();
    let mut out: Vec<(usize, &'static str, u16, u16)> = Vec::new();
    for (n, &spawn) in spawns.iter().enumerate() {
        let others: Vec<(u16, u16)> = spawns.iter().copied().filter(|s| *s != spawn).collect();
        if others.is_empty() {
            continue;
        }
        let seen = reachable_without(level, &others, spawn);
        for st in grid.stations() {
            let work: Vec<(u16, u16)> = grid
                .neighbours(st.x, st.y)
                .map(|(x, y, _)| (x, y))
                .collect();
            let cut = !work.is_empty() && !work.iter().any(|&(x, y)| seen[grid.index(x, y)]);
            let kind = st.kind.name();
            if cut && !out.iter().any(|o| o.0 == n + 1 && o.1 == kind) {
                out.push((n + 1, kind, st.x, st.y));
            }
        }
    }
    out
}

/// The tiles a cart's loop covers.
fn cart_tiles(path: &[(u16, u16)]) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for i in 0..path.len() {
        let (a, b) = (path[i], path[(i + 1) % path.len()]);
        let (mut x, mut y) = (a.0 as i32, a.1 as i32);
        loop {
            out.push((x as u16, y as u16));
            if (x, y) == (b.0 as i32, b.1 as i32) {
                break;
            }
            x += (b.0 as i32 - x).signum();
            y += (b.1 as i32 - y).signum();
        }
    }
    out
}

/// Orders the clock opens in a round (the first, then one per mean interval; a rush
/// halves the interval while it lasts).
pub fn orders_opened(level: &Level) -> u32 {
    let mean = (level.interval_s[0] + level.interval_s[1]) / 2.0;
    let open = (level.time_limit_s - level.first_order_s).max(0.0);
    let rush: f64 = level
        .rush_at_s
        .iter()
        .map(|&at| (level.time_limit_s - at).clamp(0.0, level.rush_len_s))
        .sum();
    1 + ((open + rush) / mean).floor() as u32
}

/// Dishes the target needs, at the mean points of the level's orders plus a middling tip.
pub fn dishes_needed(level: &Level) -> u32 {
    let mean_points: f64 = level
        .recipes
        .iter()
        .map(|r| level.points_of(*r) as f64)
        .sum::<f64>()
        / level.recipes.len().max(1) as f64;
    (level.target_score as f64 / (mean_points + 5.0)).ceil() as u32
}

pub fn lints(level: &Level) -> Vec<Lint> {
    let grid = &level.grid;
    let mut out = Vec::new();
    let stoves: Vec<_> = grid
        .stations()
        .iter()
        .filter(|s| s.kind == StationKind::Stove)
        .collect();
    let spreads = stoves.iter().any(|s| {
        DIRS.iter().any(|(dx, dy)| {
            grid.station_index_at(s.x as i32 + dx, s.y as i32 + dy)
                .is_some()
        })
    });
    if !stoves.is_empty() && !spreads {
        out.push(Lint {
            kind: "fire-cannot-spread",
            message: "fire cannot spread: no station stands next to a stove (fire_spread_s has no effect)".into(),
        });
    }
    let work = work_tiles(level);
    for (n, cart) in level.carts.iter().enumerate() {
        if !cart_tiles(cart).iter().any(|t| work.contains(t)) {
            out.push(Lint {
                kind: "cart-misses-work",
                message: format!(
                    "cart {} never passes a tile a cook works from: it can never bump anyone at work",
                    n + 1
                ),
            });
        }
    }
    if level.spill_every_s > 0.0 {
        let floor = grid.floor_tiles().count().max(1);
        let share = work.len() * 100 / floor;
        if share < 25 {
            out.push(Lint {
                kind: "spills-miss-work",
                message: format!(
                    "spills fall on any of {floor} floor tiles, only {share}% of them beside a station: few will trip a cook at work"
                ),
            });
        }
    }
    if no_passing_room(level) {
        out.push(Lint {
            kind: "no-passing-room",
            message: "the floor is one tile-wide path with no branch: cooks can never pass each other, so more cooks only block each other".into(),
        });
    }
    for (seat, kind, x, y) in spawns_on_only_way(level) {
        out.push(Lint {
            kind: "spawn-on-only-way",
            message: format!(
                "spawn {seat} stands on the only way to the {kind} at ({x}, {y}): a cook who stays where it starts cuts the others off from it"
            ),
        });
    }
    let (need, opened) = (dishes_needed(level), orders_opened(level));
    if need > opened {
        out.push(Lint {
            kind: "target-unreachable",
            message: format!(
                "the target needs about {need} dishes but the clock opens about {opened} orders"
            ),
        });
    } else if need * 2 < opened {
        out.push(Lint {
            kind: "target-too-easy",
            message: format!(
                "the target needs about {need} dishes of the {opened} orders the clock opens: the team idles for most of the round"
            ),
        });
    }
    out
}
