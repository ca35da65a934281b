//! How a bot cook moves and presses once its next tile is planned: walking onto the line
//! through the tile centres and along it, standing still facing its station to press, and
//! the bookkeeping of a cook kept off its goal (it plans first, then steps back). Also the
//! tiles a cook's body covers, as the sim takes them from the wire's hundredths.

use super::plan::Purpose;
use super::traffic::Tile;
use super::{BotTeam, LANE, PRESS_COOLDOWN};
use crate::sim::movement::clamp_intent;
use crate::wire::view::FrameView;

impl BotTeam {
    /// Where cook `k` goes this tick and whether it presses, given the next tile of its way.
    pub(super) fn steer(
        &mut self,
        k: usize,
        view: &FrameView,
        pos: (i32, i32),
        tile: Tile,
        next: Tile,
    ) -> ((i16, i16), bool, Option<u8>) {
        let tick_hz = self.tick_hz;
        let cook = &mut self.cooks[k];
        let at_goal = cook
            .goal
            .is_some_and(|g| self.nav.dist(g.station, tile.0, tile.1) == 0);
        // A cook kept off its goal too long plans first for a while (breaks any circle).
        if tile != cook.last_tile || at_goal || cook.goal.is_none() {
            cook.waited = 0;
            cook.stuck = 0;
        } else {
            cook.waited += 1;
            cook.stuck += 1;
            if cook.stuck >= 6 * tick_hz {
                cook.stuck = 0;
                cook.goal = None;
                cook.rest_until = view.t + 3 * tick_hz;
            }
            if cook.waited >= 2 * tick_hz {
                cook.waited = 0;
                cook.first_until = view.t + 3 * tick_hz;
            }
        }
        cook.last_tile = tile;
        if next != tile {
            return (self.walk(pos, next), false, None);
        }
        let cook = &self.cooks[k];
        let Some(goal) = cook.goal.filter(|_| at_goal) else {
            // Waiting (or idle): stand at the tile's centre, clear of the neighbours.
            return (self.walk(pos, tile), false, None);
        };
        if pos.0.rem_euclid(100) == 0 || pos.1.rem_euclid(100) == 0 {
            // On a tile's edge as the wire rounds it: the sim may have the cook on the
            // tile before (a press from there faces nothing). Step inside first.
            return (self.walk(pos, tile), false, None);
        }
        // Beside the station: stop, face it, press (a press needs only the tile).
        let s = goal.station;
        let face = self.nav.facing_to(s, tile.0, tile.1);
        let working = view
            .p
            .iter()
            .any(|p| p.seat == cook.seat && p.s == "working");
        let cooled = cook
            .last_press_tick
            .is_none_or(|t| view.t >= t + PRESS_COOLDOWN);
        let wait_for_soup = goal.purpose == Purpose::TakeSoup && view.st[s].s == "working";
        let press = cooled && !(goal.is_work() && working) && !wait_for_soup;
        ((0, 0), press, face)
    }

    /// A move towards the centre of tile `t` (the cook's own or a neighbour): first onto
    /// the line through the centres (a cook off it would catch a corner of the tiles beside
    /// its way), then along it, at full speed, slowing only to land on the centre.
    fn walk(&self, pos: (i32, i32), t: (i32, i32)) -> (i16, i16) {
        let (dx, dy) = (t.0 * 100 + 50 - pos.0, t.1 * 100 + 50 - pos.1);
        let along_x = dx.abs() >= dy.abs();
        let (dx, dy) = match (along_x, dx.abs() > LANE, dy.abs() > LANE) {
            (true, _, true) => (0, dy),
            (false, true, _) => (dx, 0),
            _ => (dx, dy),
        };
        let remaining = dx.abs().max(dy.abs());
        if remaining == 0 {
            return (0, 0);
        }
        let full = |d: i32| {
            if d.abs() >= self.step_centi {
                d.signum() * 1000
            } else {
                d * 1000 / self.step_centi
            }
        };
        clamp_intent(full(dx), full(dy))
    }
}

/// The tile a cook stands on, from the wire's hundredths: the floor, as the sim takes it.
/// (A wire value on a tile edge, `x.00`, may be the tile before by up to half a hundredth;
/// `steer` does not press from there.)
pub(super) fn tile_of(x: i32, y: i32) -> Tile {
    (x.div_euclid(100), y.div_euclid(100))
}

/// The tiles a cook's body covers: its own, and the one beside where it stands more than
/// `LANE` off the centre line.
pub(super) fn body_tiles(x: i32, y: i32) -> Vec<Tile> {
    let (tx, ty) = tile_of(x, y);
    let mut out = vec![(tx, ty)];
    let (ox, oy) = (x.rem_euclid(100) - 50, y.rem_euclid(100) - 50);
    if ox.abs() > LANE {
        out.push((tx + ox.signum(), ty));
    }
    if oy.abs() > LANE {
        out.push((tx, ty + oy.signum()));
    }
    out
}
