//! The team's ways, planned together each tick: for every walking cook, where it is going
//! (the places beside its goal's station, a queue behind teammates working there, its
//! parking tile when idle, or a tile aside while a person blocks it), with whom it must not
//! collide, and its rank; then one space-time plan for all (`traffic`).

use super::BotTeam;
use super::people::clear_of;
use super::steer::{body_tiles, tile_of};
use super::traffic::{Tile, Walker};
use crate::sim::SEATS;
use crate::sim::grid::DIRS;
use crate::wire::view::{FrameView, PlayerView};
use std::sync::Arc;

/// Where a cook is going: the tiles it may stop on, the distance field to them, and its
/// rank among walkers (1 walking to its station, 2 standing at it, 3 idle).
type Places = (Vec<Tile>, Arc<Vec<u16>>, u8);

impl BotTeam {
    /// The next tile of every cook's way (its own tile to stay), by cook.
    pub(super) fn plan_ways(
        &mut self,
        view: &FrameView,
        here: &[Option<(&PlayerView, Tile)>],
    ) -> Vec<Tile> {
        let mut walkers = Vec::new();
        let walls: Vec<Tile> = self.people_at(view).iter().map(|&(t, _)| t).collect();
        let mut obstacles: Vec<Tile> = view
            .p
            .iter()
            .filter(|p| p.s != "disconnected" && !self.cooks.iter().any(|c| c.seat == p.seat))
            .map(|p| tile_of(p.x, p.y))
            .collect();
        let parked = self.parked(here);
        for (k, at) in here.iter().enumerate() {
            let Some((me, tile)) = *at else { continue };
            if me.s == "stunned" {
                obstacles.push(tile);
                continue;
            }
            walkers.push((k, self.walker(k, view, tile, &parked, &walls)));
        }
        let list: Vec<Walker> = walkers.iter().map(|(_, w)| w.clone()).collect();
        let paths = self.traffic.plan(&self.nav, &list, &obstacles);
        let mut next: Vec<Tile> = here
            .iter()
            .map(|at| at.map_or((0, 0), |(_, t)| t))
            .collect();
        for ((k, _), path) in walkers.iter().zip(paths) {
            next[*k] = path.get(1).copied().unwrap_or(next[*k]);
        }
        next
    }

    /// Where teammates stand at their own station: not a place to go.
    fn parked(&self, here: &[Option<(&PlayerView, Tile)>]) -> Vec<Tile> {
        here.iter()
            .zip(&self.cooks)
            .filter_map(|(at, c)| {
                let (_, tile) = (*at)?;
                let g = c.goal?;
                (self.nav.dist(g.station, tile.0, tile.1) == 0).then_some(tile)
            })
            .collect()
    }

    /// Cook `k`, on `tile`, as one walker of the team's plan.
    fn walker(
        &self,
        k: usize,
        view: &FrameView,
        tile: Tile,
        parked: &[Tile],
        walls: &[Tile],
    ) -> Walker {
        let cook = &self.cooks[k];
        let (goals, field, standing) = match cook.goal {
            Some(g) => self.places_at(g.station, tile, parked),
            None => self.idle_place(k, view, tile, walls),
        };
        let others: Vec<Tile> = view
            .p
            .iter()
            .filter(|p| p.seat != cook.seat && p.s != "disconnected")
            .flat_map(|p| body_tiles(p.x, p.y))
            .filter(|t| self.nav.is_floor(t.0, t.1))
            .collect();
        // The tile in front of each person: where it is about to walk or work.
        let avoid: Vec<Tile> = self
            .people_in(view)
            .into_iter()
            .filter_map(|p| {
                let (x, y) = tile_of(p.x, p.y);
                let (dx, dy) = DIRS.get(p.f as usize)?;
                Some((x + dx, y + dy)).filter(|t| self.nav.is_floor(t.0, t.1))
            })
            .collect();
        let first = view.t < cook.first_until;
        Walker {
            seat: cook.seat,
            at: tile,
            goals,
            field,
            rank: (if first { 0 } else { standing }, 0),
            others,
            avoid,
        }
    }

    /// The places beside `station` to use it from, but those teammates work at.
    fn places_at(&self, station: usize, tile: Tile, parked: &[Tile]) -> Places {
        let beside = self.nav.beside(station);
        let mut goals: Vec<Tile> = beside
            .iter()
            .copied()
            .filter(|t| *t == tile || !parked.contains(t))
            .collect();
        let mut field = self.nav.field(station);
        if goals.is_empty() {
            // Every place to use it is a teammate's, working there: queue one step back
            // rather than contest the place (two cooks would trade it back and forth every
            // tick).
            let queue: Vec<Tile> = beside
                .iter()
                .flat_map(|b| DIRS.iter().map(move |(dx, dy)| (b.0 + dx, b.1 + dy)))
                .filter(|t| {
                    self.nav.is_floor(t.0, t.1) && !beside.contains(t) && !parked.contains(t)
                })
                .collect();
            goals = if queue.is_empty() { vec![tile] } else { queue };
            field = Arc::new(self.nav.field_to(&goals));
        }
        let standing = goals.contains(&tile);
        (goals, field, standing as u8 + 1)
    }

    /// Where idle cook `k` waits: its parking tile, or a tile aside while a person blocks
    /// its way or stands at (or in front of) its parking tile.
    fn idle_place(&self, k: usize, view: &FrameView, tile: Tile, walls: &[Tile]) -> Places {
        let cook = &self.cooks[k];
        let park = self.parking[cook.seat as usize % SEATS];
        let aside = cook.aside.or_else(|| {
            let people = self.people_at(view);
            (!clear_of(&people, park)).then(|| {
                let field = self.nav.field_from_avoiding(tile, walls);
                self.aside_tile(view, tile, &field)
            })
        });
        match aside {
            Some(t) => (vec![t], Arc::new(self.nav.field_to(&[t])), 3),
            None => {
                let field = self.spawn_fields[cook.seat as usize % SEATS].clone();
                (vec![park], field, 3)
            }
        }
    }
}
