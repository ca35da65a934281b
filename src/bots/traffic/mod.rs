//! Who walks where this tick: the team's paths planned together, in space and time.
//!
//! Each bot plans its next `HORIZON` steps on the tile grid, one bot after another, around
//! the steps the bots before it have taken (no two on one tile at one step, no two swapping
//! tiles). Cooks on their way go first (by seat), then cooks standing at their station, then
//! idle ones, so the cook that needs a tile gets it and the one standing there steps aside
//! (into a pocket, or back out of a corridor) and comes back after. A bot that has waited
//! long goes first for a while, which breaks any circle of waiting. People cannot be asked
//! to move: their tiles are walls in every plan. The plans are made anew every tick, so a
//! cook slower or faster than planned (a stun, a bump, another tick rate) costs nothing.
//!
//! This is cooperative A* (Silver, "Cooperative Pathfinding", 2005) over a short window.

mod around;

use super::nav::Nav;
use around::Around;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An open A* state: (f, deeper first, g, space-time state index).
type OpenEntry = (u32, Reverse<usize>, u32, usize);

/// Steps each plan looks ahead.
pub const HORIZON: usize = 12;

pub type Tile = (i32, i32);

/// One bot's wish for this tick.
#[derive(Clone, Debug)]
pub struct Walker {
    pub seat: u8,
    pub at: Tile,
    /// The tiles it wants to stand on (beside its station), best none of them taken.
    pub goals: Vec<Tile>,
    /// Steps from each tile to the nearest goal (`UNREACHABLE` where there is no way).
    pub field: std::sync::Arc<Vec<u16>>,
    /// Planning order: lower first.
    pub rank: (u8, u8),
    /// The tiles the other cooks' bodies cover now (a cook off its tile's centre reaches
    /// into the tile beside).
    pub others: Vec<Tile>,
    /// Tiles dearer to step on: in front of a person (where the person is about to walk
    /// or work), so a way round them is taken when there is one.
    pub avoid: Vec<Tile>,
}

/// A cook the plans go around but do not move: a person, a stunned cook.
pub type Obstacle = Tile;

/// The planner's scratch space, kept between ticks.
pub struct Traffic {
    width: usize,
    height: usize,
    /// Generation stamps per (tile, step): a state is seen when its stamp is this search's.
    seen: Vec<u32>,
    parent: Vec<u32>,
    stamp: u32,
}

impl Traffic {
    pub fn new(nav: &Nav) -> Traffic {
        let (width, height) = nav.size();
        let states = width * height * (HORIZON + 1);
        Traffic {
            width,
            height,
            seen: vec![0; states],
            parent: vec![0; states],
            stamp: 0,
        }
    }

    fn state(&self, t: Tile, step: usize) -> usize {
        (step * self.height + t.1 as usize) * self.width + t.0 as usize
    }

    /// Each walker's path (its tile now, then one tile per step), in `walkers`' order.
    ///
    /// A bot boxed in by the plans before it (nowhere to be at the next step) goes first in
    /// another round of planning, so the others plan around it instead of through it.
    pub fn plan(
        &mut self,
        nav: &Nav,
        walkers: &[Walker],
        obstacles: &[Obstacle],
    ) -> Vec<Vec<Tile>> {
        let mut order: Vec<usize> = (0..walkers.len()).collect();
        order.sort_by_key(|&i| (walkers[i].rank, walkers[i].seat));
        let mut paths: Vec<Vec<Tile>> = vec![Vec::new(); walkers.len()];
        for _round in 0..walkers.len().max(1) {
            let mut planned: Vec<Vec<Tile>> = Vec::new();
            let mut boxed = Vec::new();
            for (n, &i) in order.iter().enumerate() {
                let waiting: Vec<Tile> = order[n + 1..].iter().map(|&j| walkers[j].at).collect();
                let around = Around {
                    walker: &walkers[i],
                    obstacles,
                    planned: &planned,
                    waiting: &waiting,
                    width: self.width,
                };
                let path = match self.one(nav, &around) {
                    Some(path) => path,
                    None => {
                        boxed.push(i);
                        vec![walkers[i].at; HORIZON + 1]
                    }
                };
                planned.push(path.clone());
                paths[i] = path;
            }
            if boxed.is_empty() || order.starts_with(&boxed) {
                break;
            }
            order.retain(|i| !boxed.contains(i));
            boxed.extend(order);
            order = boxed;
        }
        paths
    }

    /// One walker's path around the others (`None`: boxed in).
    fn one(&mut self, nav: &Nav, around: &Around) -> Option<Vec<Tile>> {
        let at = around.walker.at;
        if !nav.is_floor(at.0, at.1) {
            return Some(vec![at; HORIZON + 1]);
        }
        self.next_search();
        let start = self.state(at, 0);
        let end = self.search(nav, around, start)?;
        Some(self.path(start, end, at))
    }

    /// A new search's stamp: the states it sees are marked with it, so none is cleared
    /// between searches (all are, once, when the stamp wraps round).
    fn next_search(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    /// The tile of a space-time state.
    fn tile(&self, s: usize) -> Tile {
        let idx = s % (self.width * self.height);
        ((idx % self.width) as i32, (idx / self.width) as i32)
    }

    /// A* through space and time from `start`: the first state found on a free goal; when
    /// no goal can be reached, the end of the longest safe path, nearest a goal, if it
    /// keeps clear of the others for the whole window (`None`: boxed in).
    fn search(&mut self, nav: &Nav, around: &Around, start: usize) -> Option<usize> {
        let mut open: BinaryHeap<Reverse<OpenEntry>> = BinaryHeap::new();
        self.seen[start] = self.stamp;
        open.push(Reverse((
            around.to_goal(around.walker.at),
            Reverse(0),
            0,
            start,
        )));
        // The fallback: (steps short of the window, steps to a goal, state), least first.
        let mut best: Option<(usize, u32, usize)> = None;
        while let Some(Reverse((_, Reverse(step), g, s))) = open.pop() {
            let t = self.tile(s);
            if around.goal_free(t, step) {
                return Some(s);
            }
            let score = (HORIZON - step, around.to_goal(t), s);
            if best.is_none_or(|b| score < b) {
                best = Some(score);
            }
            if step == HORIZON {
                continue;
            }
            for (dx, dy) in [(0, 0), (0, -1), (1, 0), (0, 1), (-1, 0)] {
                let n = (t.0 + dx, t.1 + dy);
                if !nav.is_floor(n.0, n.1) || !around.may_enter(t, n, step) {
                    continue;
                }
                let ns = self.state(n, step + 1);
                if self.seen[ns] == self.stamp {
                    continue;
                }
                self.seen[ns] = self.stamp;
                self.parent[ns] = s as u32;
                let ng = g + around.step_cost(n);
                open.push(Reverse((ng + around.to_goal(n), Reverse(step + 1), ng, ns)));
            }
        }
        best.and_then(|(short, _, end)| (short == 0).then_some(end))
    }

    /// The path to `end`: walked back to `start` by the parents, then standing at the end
    /// for the rest of the window.
    fn path(&self, start: usize, end: usize, at: Tile) -> Vec<Tile> {
        let mut rev = vec![end];
        let mut s = end;
        while s != start {
            s = self.parent[s] as usize;
            rev.push(s);
        }
        let mut path: Vec<Tile> = rev.iter().rev().map(|&s| self.tile(s)).collect();
        let last = *path.last().unwrap_or(&at);
        path.resize(HORIZON + 1, last);
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Level;

    fn nav(grid: &str) -> Nav {
        let text = format!(
            "id = \"t\"\norder = 0\nname = \"t\"\ntarget_score = 10\nrecipes = [\"onion_soup\"]\ngrid = \"\"\"\n{grid}\"\"\"\n"
        );
        let level = Level::parse("t.toml", &text).expect("a level");
        Nav::new(&level.grid)
    }

    fn walker(nav: &Nav, seat: u8, at: Tile, goal: Tile, others: &[Tile]) -> Walker {
        Walker {
            seat,
            at,
            goals: vec![goal],
            field: std::sync::Arc::new(nav.field_to(&[goal])),
            rank: (1, 0),
            others: others.to_vec(),
            avoid: Vec::new(),
        }
    }

    #[test]
    fn in_a_one_tile_corridor_the_second_cook_backs_away_from_the_first() {
        let nav = nav("##############\n#oCKKPSWC#####\n#1234........#\n##############\n");
        let mut traffic = Traffic::new(&nav);
        let a = walker(&nav, 0, (1, 2), (2, 2), &[(2, 2)]);
        let b = walker(&nav, 1, (2, 2), (1, 2), &[(1, 2)]);
        let paths = traffic.plan(&nav, &[a, b], &[]);
        assert_eq!(paths[0][1], (1, 2), "the first waits for the tile to empty");
        assert_eq!(
            paths[1][1],
            (3, 2),
            "the second steps out of its way: {:?}",
            paths[1]
        );
        assert!(paths[0].contains(&(2, 2)));
    }

    #[test]
    fn a_cook_steps_into_a_pocket_to_let_another_pass() {
        let nav = nav("################\n#oC.K.K.P.S.W.l#\n#1.2.3.4.......#\n################\n");
        let mut traffic = Traffic::new(&nav);
        let mut a = walker(&nav, 0, (2, 2), (3, 1), &[(3, 2)]);
        a.rank = (0, 0);
        let mut b = walker(&nav, 1, (3, 2), (1, 2), &[(2, 2)]);
        b.rank = (0, 0);
        let paths = traffic.plan(&nav, &[a, b], &[]);
        assert_eq!(&paths[0][..4], &[(2, 2), (2, 2), (3, 2), (3, 1)]);
        assert_eq!(paths[1][1], (4, 2), "{:?}", paths[1]);
    }

    #[test]
    fn four_in_a_corridor() {
        let nav = nav("################\n#oC.K.K.P.S.W.l#\n#1.2.3.4.......#\n################\n");
        let mut traffic = Traffic::new(&nav);
        let at = [(2, 2), (3, 2), (6, 2), (7, 2)];
        let others = |i: usize| {
            at.iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, t)| *t)
                .collect::<Vec<_>>()
        };
        let mut a = walker(&nav, 0, at[0], (3, 1), &others(0));
        a.goals = vec![(5, 1), (4, 2), (3, 1)];
        a.rank = (0, 0);
        let mut b = walker(&nav, 1, at[1], (1, 2), &others(1));
        b.rank = (0, 0);
        let mut c = walker(&nav, 2, at[2], (13, 1), &others(2));
        c.goals = vec![(13, 1), (12, 2), (11, 1)];
        c.rank = (0, 0);
        let mut d = walker(&nav, 3, at[3], (7, 2), &others(3));
        d.rank = (3, 0);
        let walkers = [a, b, c, d];
        for _ in 0..5 {
            traffic.plan(&nav, &walkers, &[]);
        }
        let paths = traffic.plan(&nav, &walkers, &[]);
        for p in &paths {
            eprintln!("{:?}", &p[..6]);
        }
        assert_eq!(&paths[0][..4], &[(2, 2), (2, 2), (3, 2), (3, 1)]);
    }
}
