//! The four hazards: fires that spread, spills that stun, carts on waypoint loops, and the
//! rush windows. Every random choice comes from the round's RNG.

use super::events::{Event, EventKind, Payload};
use super::grid::DIRS;
use super::movement::{TOUCH2, dist2};
use super::rules::{Rules, UNIT};
use super::state::{Fire, KitchenState, Spill, draw_range};

/// Each fire whose timer is due spreads to its first neighbouring station tile (up, right,
/// down, left) that is not burning, while fewer than `max_fires` burn.
pub fn tick_fires(state: &mut KitchenState, rules: &Rules) {
    let grid = &rules.level.grid;
    let tick = state.tick;
    let burning_now = state.fires.len();
    for fi in 0..burning_now {
        if state.fires[fi].spread_at > tick {
            continue;
        }
        state.fires[fi].spread_at = tick + rules.fire_spread;
        if state.fires.len() >= rules.max_fires {
            continue;
        }
        let site = grid.stations()[state.fires[fi].station as usize];
        let target = DIRS.iter().find_map(|(dx, dy)| {
            let si = grid.station_index_at(site.x as i32 + dx, site.y as i32 + dy)?;
            state.fire_on(si).is_none().then_some(si)
        });
        if let Some(si) = target {
            state.fires.push(Fire {
                station: si as u16,
                spread_at: tick + rules.fire_spread,
                progress: 0,
            });
            // A worker chopping or washing there stops: the station is blocked now.
            for cook in &mut state.cooks {
                if cook.work.is_some_and(|w| {
                    w.station as usize == si && w.kind != super::state::WorkKind::Extinguish
                }) {
                    cook.work = None;
                }
            }
        }
    }
}

/// Spills expire, appear on a random free floor tile (no spill, no cook), and trip each
/// cook whose centre is on them once.
pub fn tick_spills(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    let tick = state.tick;
    state.spills.retain(|s| s.expires_at > tick);
    if tick >= state.next_spill_at {
        state.next_spill_at = tick.saturating_add(rules.spill_every.max(1));
        let grid = &rules.level.grid;
        let occupied = |x: u16, y: u16| {
            state
                .cooks
                .iter()
                .any(|c| c.active() && c.tile() == (x as i32, y as i32))
                || state.spills.iter().any(|s| (s.x, s.y) == (x, y))
        };
        let free: Vec<(u16, u16)> = grid
            .floor_tiles()
            .filter(|&(x, y)| !occupied(x, y))
            .collect();
        if !free.is_empty() {
            let (x, y) = free[draw_range(&mut state.rng, 0, free.len() as u32 - 1) as usize];
            state.spills.push(Spill {
                x,
                y,
                expires_at: tick + rules.spill_life,
                tripped: 0,
            });
        }
    }
    for cook in state.cooks.iter_mut().filter(|c| c.active()) {
        let bit = 1u8 << (cook.seat & 7);
        for spill in state.spills.iter_mut() {
            if spill.tripped & bit == 0 && cook.tile() == (spill.x as i32, spill.y as i32) {
                spill.tripped |= bit;
                cook.stunned_until = tick + 1 + rules.slip_stun;
                cook.work = None;
                let stn = rules.ticks_to_centis(rules.slip_stun);
                events.push(Event {
                    kind: EventKind::Slipped,
                    x: cook.x,
                    y: cook.y,
                    payload: Payload {
                        i: Some(cook.seat),
                        stn: Some(stn),
                        ..Payload::default()
                    },
                });
            }
        }
    }
}

/// Where a cart would be after moving `dist` units along its loop.
fn advance(
    path: &[(u16, u16)],
    mut next: u16,
    mut x: i32,
    mut y: i32,
    mut dist: i32,
) -> (u16, i32, i32) {
    while dist > 0 {
        let (wx, wy) = path[next as usize % path.len()];
        let (tx, ty) = (wx as i32 * UNIT + UNIT / 2, wy as i32 * UNIT + UNIT / 2);
        let gap = (tx - x).abs() + (ty - y).abs();
        if gap <= dist {
            x = tx;
            y = ty;
            dist -= gap;
            next = ((next as usize + 1) % path.len()) as u16;
        } else {
            x += (tx - x).signum() * dist;
            y += (ty - y).signum() * dist;
            dist = 0;
        }
    }
    (next, x, y)
}

/// Carts move; a cook they touch is stunned (`bumped`) and pushed to the nearest free floor
/// tile centre (ties: up, right, down, left); with no free tile the cart waits this tick.
pub fn tick_carts(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    let grid = &rules.level.grid;
    let tick = state.tick;
    for k in 0..state.carts.len() {
        let path = &rules.level.carts[k];
        let cart = &state.carts[k];
        let (next, nx, ny) = advance(path, cart.next, cart.x, cart.y, rules.cart_speed);
        let mut blocked = false;
        for ci in 0..state.cooks.len() {
            let cook = &state.cooks[ci];
            if !cook.active() || dist2(cook.x, cook.y, nx, ny) >= TOUCH2 {
                continue;
            }
            if !cook.stunned(tick) {
                let c = &mut state.cooks[ci];
                c.stunned_until = tick + 1 + rules.cart_stun;
                c.work = None;
                let stn = rules.ticks_to_centis(rules.cart_stun);
                events.push(Event {
                    kind: EventKind::Bumped,
                    x: c.x,
                    y: c.y,
                    payload: Payload {
                        i: Some(c.seat),
                        stn: Some(stn),
                        ..Payload::default()
                    },
                });
            }
            let cook = &state.cooks[ci];
            let (tx, ty) = cook.tile();
            let candidates =
                std::iter::once((0, 0))
                    .chain(DIRS)
                    .chain([(1, -1), (1, 1), (-1, 1), (-1, -1)]);
            let spot =
                candidates
                    .map(|(dx, dy)| (tx + dx, ty + dy))
                    .filter(|&(x, y)| grid.is_floor(x, y))
                    .map(|(x, y)| (x * UNIT + UNIT / 2, y * UNIT + UNIT / 2))
                    .filter(|&(px, py)| dist2(px, py, nx, ny) >= TOUCH2)
                    .filter(|&(px, py)| {
                        state.cooks.iter().enumerate().all(|(j, o)| {
                            j == ci || !o.active() || dist2(px, py, o.x, o.y) >= TOUCH2
                        })
                    })
                    .min_by_key(|&(px, py)| dist2(px, py, cook.x, cook.y));
            match spot {
                Some((px, py)) => {
                    let c = &mut state.cooks[ci];
                    c.x = px;
                    c.y = py;
                }
                None => blocked = true,
            }
        }
        if !blocked {
            let cart = &mut state.carts[k];
            cart.next = next;
            cart.x = nx;
            cart.y = ny;
        }
    }
}

/// `rush_start` / `rush_end` as the windows open and close.
pub fn tick_rush(state: &KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    for &(start, end) in &rules.rushes {
        if state.tick == start {
            events.push(Event::hud(EventKind::RushStart, Payload::default()));
        }
        if state.tick == end {
            events.push(Event::hud(EventKind::RushEnd, Payload::default()));
        }
    }
}
