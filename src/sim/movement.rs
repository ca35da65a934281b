//! Intent, facing and movement with collisions.
//!
//! A cook is a circle of radius 0.35 tile moving at `intent × max_speed`. Each tick's move is
//! cut into sub-steps of at most a quarter tile, and each sub-step moves x, then y; a blocked
//! axis moves as far as it can (an integer bisection), so cooks slide along walls. Cooks move
//! in seat order, so a lower seat wins a contested spot: deterministic, and the same on
//! every machine.

use super::grid::{DIRS, Grid, Tile};
use super::rules::{MAX_SUBSTEP, RADIUS, Rules, UNIT};
use super::state::{Cook, KitchenState};

/// Clamps a move intent (thousandths per axis) to magnitude ≤ 1000, the sim's backstop
/// behind the wire's own rejection.
pub fn clamp_intent(x: i32, y: i32) -> (i16, i16) {
    let (x, y) = (x.clamp(-1000, 1000) as i64, y.clamp(-1000, 1000) as i64);
    let m2 = x * x + y * y;
    if m2 <= 1_000_000 {
        return (x as i16, y as i16);
    }
    // The floored root makes the quotients up to a thousandth too long; shorten the longer
    // axis until the intent is within magnitude 1 (a client sending it must not be refused).
    let m = (m2 as u64).isqrt() as i64;
    let (mut x, mut y) = (x * 1000 / m, y * 1000 / m);
    while x * x + y * y > 1_000_000 {
        if x.abs() >= y.abs() {
            x -= x.signum();
        } else {
            y -= y.signum();
        }
    }
    (x as i16, y as i16)
}

/// The facing a move implies: the dominant axis, an exact diagonal resolving to the
/// horizontal one; `None` for a zero move (keep the facing).
pub fn facing_of(intent: (i16, i16)) -> Option<u8> {
    let (x, y) = (intent.0 as i32, intent.1 as i32);
    if x == 0 && y == 0 {
        None
    } else if x.abs() >= y.abs() {
        Some(if x > 0 { 1 } else { 3 })
    } else {
        Some(if y > 0 { 2 } else { 0 })
    }
}

/// The tile a cook faces (its own tile plus the facing direction).
pub fn faced_tile(cook: &Cook) -> (i32, i32) {
    let (tx, ty) = cook.tile();
    let (dx, dy) = DIRS[cook.facing as usize & 3];
    (tx + dx, ty + dy)
}

/// Whether a circle at (x, y) overlaps a wall or station tile.
fn hits_solid(grid: &Grid, x: i32, y: i32) -> bool {
    let (x0, x1) = ((x - RADIUS).div_euclid(UNIT), (x + RADIUS).div_euclid(UNIT));
    let (y0, y1) = ((y - RADIUS).div_euclid(UNIT), (y + RADIUS).div_euclid(UNIT));
    for ty in y0..=y1 {
        for tx in x0..=x1 {
            if grid.tile(tx, ty) == Tile::Floor {
                continue;
            }
            let cx = x.clamp(tx * UNIT, tx * UNIT + UNIT) as i64;
            let cy = y.clamp(ty * UNIT, ty * UNIT + UNIT) as i64;
            let (dx, dy) = (x as i64 - cx, y as i64 - cy);
            if dx * dx + dy * dy < (RADIUS as i64) * (RADIUS as i64) {
                return true;
            }
        }
    }
    false
}

pub fn dist2(ax: i32, ay: i32, bx: i32, by: i32) -> i64 {
    let (dx, dy) = ((ax - bx) as i64, (ay - by) as i64);
    dx * dx + dy * dy
}

/// Two cooks (or a cook and a cart) touch when their centres are closer than this, squared.
pub const TOUCH2: i64 = (2 * RADIUS as i64) * (2 * RADIUS as i64);

/// Whether cook `me` may stand at (x, y): no solid tile, and no active cook that it would
/// overlap more than it already does (so two cooks that overlap, say after a rejoin, can
/// always move apart).
fn may_stand(state: &KitchenState, grid: &Grid, me: usize, x: i32, y: i32) -> bool {
    if hits_solid(grid, x, y) {
        return false;
    }
    let (ox, oy) = (state.cooks[me].x, state.cooks[me].y);
    state.cooks.iter().enumerate().all(|(j, other)| {
        if j == me || !other.active() {
            return true;
        }
        let d_new = dist2(x, y, other.x, other.y);
        d_new >= TOUCH2 || d_new >= dist2(ox, oy, other.x, other.y)
    })
}

/// Moves cook `i` by `d` along one axis as far as it may go.
fn slide_axis(state: &mut KitchenState, grid: &Grid, i: usize, d: i32, horizontal: bool) {
    if d == 0 {
        return;
    }
    let (x, y) = (state.cooks[i].x, state.cooks[i].y);
    let at = |k: i32| if horizontal { (x + k, y) } else { (x, y + k) };
    let (fx, fy) = at(d);
    if may_stand(state, grid, i, fx, fy) {
        state.cooks[i].x = fx;
        state.cooks[i].y = fy;
        return;
    }
    // Largest |k| ≤ |d| that is free: bisect on the magnitude.
    let (mut lo, mut hi) = (0i32, d.abs());
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        let (mx, my) = at(mid * d.signum());
        if may_stand(state, grid, i, mx, my) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (nx, ny) = at(lo * d.signum());
    state.cooks[i].x = nx;
    state.cooks[i].y = ny;
}

/// Moves every active, unstunned cook with an intent, in seat order. Moving stops work;
/// pushing against a wall or a station (no move) does not.
pub fn move_cooks(state: &mut KitchenState, rules: &Rules) {
    let grid = &rules.level.grid;
    let tick = state.tick;
    for i in 0..state.cooks.len() {
        let cook = &mut state.cooks[i];
        cook.moved = false;
        if !cook.active() || cook.stunned(tick) || cook.intent == (0, 0) {
            continue;
        }
        let (start_x, start_y) = (cook.x, cook.y);
        let dx = cook.intent.0 as i32 * rules.speed / 1000;
        let dy = cook.intent.1 as i32 * rules.speed / 1000;
        let steps = (dx.abs().max(dy.abs()) + MAX_SUBSTEP - 1) / MAX_SUBSTEP;
        let steps = steps.max(1);
        for s in 0..steps {
            let sx = dx * (s + 1) / steps - dx * s / steps;
            let sy = dy * (s + 1) / steps - dy * s / steps;
            slide_axis(state, grid, i, sx, true);
            slide_axis(state, grid, i, sy, false);
        }
        let cook = &mut state.cooks[i];
        cook.moved = (cook.x, cook.y) != (start_x, start_y);
        if cook.moved {
            cook.work = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_are_clamped_to_the_unit_circle() {
        assert_eq!(clamp_intent(1000, 1000), (707, 707));
        assert_eq!(clamp_intent(600, 800), (600, 800));
        assert_eq!(clamp_intent(50_000, 0), (1000, 0));
    }

    #[test]
    fn no_clamped_intent_is_longer_than_one() {
        // Every direction a bot or client can ask for, clamped, is within the unit circle
        // (the server refuses a sent move longer than 1 by more than float noise).
        for x in (-1000..=1000).step_by(7) {
            for y in [-1000, -999, -731, -500, 1, 333, 999, 1000] {
                let (cx, cy) = clamp_intent(x, y);
                let m2 = cx as i64 * cx as i64 + cy as i64 * cy as i64;
                assert!(m2 <= 1_000_000, "({x}, {y}) -> ({cx}, {cy})");
            }
        }
    }

    #[test]
    fn facing_follows_the_dominant_axis_and_diagonals_go_horizontal() {
        assert_eq!(facing_of((0, -1000)), Some(0));
        assert_eq!(facing_of((707, 707)), Some(1));
        assert_eq!(facing_of((-707, 707)), Some(3));
        assert_eq!(facing_of((100, 900)), Some(2));
        assert_eq!(facing_of((0, 0)), None);
    }
}
