//! The people beside a bot team, as the bots see them from the frames: where each stands
//! and since when, the stations they use or walk up to (no bot's job), the tiles in front
//! of them (where they are about to walk or work), and where a bot waits while a person
//! stands in its only way (docs/GAME.md, "Bots beside people").

use super::nav::UNREACHABLE;
use super::steer::tile_of;
use super::traffic::Tile;
use super::{BotTeam, CRAFT_IDLE_S, PERSON_IDLE_S};
use crate::sim::grid::DIRS;
use crate::wire::view::{FrameView, PlayerView};

/// A person (a cook outside the team) as the bots see one: where it stood, since when.
pub(super) struct Person {
    pub(super) seat: u8,
    pub(super) pos: (i32, i32),
    /// The tick it last moved (or was first seen).
    pub(super) moved_at: u32,
}

impl BotTeam {
    /// Follows the people (`with_people`) from this view: who moved, who has stood still
    /// since when.
    pub(super) fn follow_people(&mut self, view: &FrameView) {
        let outside: Vec<&PlayerView> = view
            .p
            .iter()
            .filter(|p| p.s != "disconnected" && self.people_seats.contains(&p.seat))
            .collect();
        self.people
            .retain(|q| outside.iter().any(|p| p.seat == q.seat));
        for p in outside {
            match self.people.iter_mut().find(|q| q.seat == p.seat) {
                Some(q) if q.pos == (p.x, p.y) && p.s != "working" => {}
                Some(q) => {
                    q.pos = (p.x, p.y);
                    q.moved_at = view.t;
                }
                None => self.people.push(Person {
                    seat: p.seat,
                    pos: (p.x, p.y),
                    moved_at: view.t,
                }),
            }
        }
    }

    /// The stations people are using or heading to: the one a person faces (while it works
    /// it, or has not stood idle `PERSON_IDLE_S`), and the one two tiles ahead of a person
    /// on the move towards it. Only stations where a cook's work or item can be taken from
    /// under a person count: boards, stoves, counters, and any station a person works at
    /// (chopping, washing, putting out a fire).
    pub(super) fn people_targets(&self, view: &FrameView) -> Vec<usize> {
        let mut out = Vec::new();
        for q in &self.people {
            let Some(p) = view.p.iter().find(|p| p.seat == q.seat) else {
                continue;
            };
            let Some(&(dx, dy)) = DIRS.get(p.f as usize) else {
                continue;
            };
            let (x, y) = tile_of(p.x, p.y);
            let still = view.t.saturating_sub(q.moved_at);
            let working = p.s == "working";
            let contested = |s: usize, working: bool| {
                view.st
                    .get(s)
                    .is_some_and(|st| working || matches!(st.k, "chop_board" | "stove" | "prep"))
            };
            if let Some(s) = self.nav.station_at(x + dx, y + dy) {
                if (working || still < PERSON_IDLE_S * self.tick_hz) && contested(s, working) {
                    out.push(s);
                }
            } else if still < self.tick_hz
                && self.nav.is_floor(x + dx, y + dy)
                && let Some(s) = self.nav.station_at(x + 2 * dx, y + 2 * dy)
                && contested(s, false)
            {
                out.push(s);
            }
        }
        out
    }

    /// Whether a person is at work in the kitchen: one who moved or worked a station in the
    /// last `CRAFT_IDLE_S`. An idle person is an empty seat: the bots then do everything.
    pub(super) fn person_at_work(&self, view: &FrameView) -> bool {
        self.people
            .iter()
            .any(|q| view.t.saturating_sub(q.moved_at) < CRAFT_IDLE_S * self.tick_hz)
    }

    /// The people as they stand in this view (those it finds).
    pub(super) fn people_in<'v>(&self, view: &'v FrameView) -> Vec<&'v PlayerView> {
        self.people
            .iter()
            .filter_map(|q| view.p.iter().find(|p| p.seat == q.seat))
            .collect()
    }

    /// Each person's tile and the tile in front of it.
    pub(super) fn people_at(&self, view: &FrameView) -> Vec<(Tile, Tile)> {
        self.people_in(view)
            .into_iter()
            .map(|p| {
                let t = tile_of(p.x, p.y);
                let (dx, dy) = DIRS.get(p.f as usize).copied().unwrap_or((0, 0));
                (t, (t.0 + dx, t.1 + dy))
            })
            .collect()
    }

    /// A tile for cook `k` to wait on while a person blocks its way: the nearest it can reach
    /// (`field`, from its tile around the people) at least two steps from every person and
    /// not in front of one, beside no station if it can be; its own tile when none is.
    pub(super) fn aside_tile(&self, view: &FrameView, tile: Tile, field: &[u16]) -> Tile {
        let (w, h) = self.nav.size();
        let people = self.people_at(view);
        let clear = |t: Tile| clear_of(&people, t);
        let mut best: Option<(bool, u16, Tile)> = None;
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let d = field[y as usize * w + x as usize];
                if d == UNREACHABLE || !clear((x, y)) {
                    continue;
                }
                let key = (self.nav.is_work(x, y), d, (x, y));
                if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                    best = Some(key);
                }
            }
        }
        best.map_or(tile, |(_, _, t)| t)
    }
}

/// Whether tile `t` is at least two steps from every person and not in front of one
/// (`people`: each person's tile and the tile in front of it).
pub(super) fn clear_of(people: &[(Tile, Tile)], t: Tile) -> bool {
    people
        .iter()
        .all(|&(p, front)| (t.0 - p.0).abs() + (t.1 - p.1).abs() >= 2 && t != front)
}
