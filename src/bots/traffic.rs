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

use super::nav::{Nav, UNREACHABLE};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An open A* state: (f, deeper first, g, space-time state index).
type OpenEntry = (u32, Reverse<usize>, u32, usize);

/// Steps each plan looks ahead.
pub const HORIZON: usize = 12;
/// What stepping onto a tile costs extra while a cook not yet planned stands there (at any
/// step, so waiting never makes it cheaper): a way round that is up to this much longer
/// is taken rather than moving a teammate off its work.
const OCCUPIED_COST: u32 = 3;

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
                let path = match self.one(nav, &walkers[i], obstacles, &planned, &waiting) {
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

    /// One walker's path around `planned` paths, people and stunned cooks (`obstacles`).
    /// `waiting` are the tiles of cooks that plan after it: free, but dearer to step on.
    fn one(
        &mut self,
        nav: &Nav,
        w: &Walker,
        obstacles: &[Obstacle],
        planned: &[Vec<Tile>],
        waiting: &[Tile],
    ) -> Option<Vec<Tile>> {
        let stay = vec![w.at; HORIZON + 1];
        if !nav.is_floor(w.at.0, w.at.1) {
            return Some(stay);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let h = |t: Tile| -> u32 {
            let d = w.field[t.1 as usize * self.width + t.0 as usize];
            if d == UNREACHABLE {
                4 * HORIZON as u32
            } else {
                d as u32
            }
        };
        // Where anyone else is at a step: a planned path (from the step before it gets
        // there, so a cook in its way leaves in time), a person, or (now) any cook.
        let taken = |t: Tile, step: usize| {
            planned
                .iter()
                .any(|p| p[step] == t || p.get(step + 1) == Some(&t))
                || obstacles.contains(&t)
                || (step == 0 && w.others.contains(&t))
        };
        // A cook steps onto a tile only when it is free both before and after the step:
        // cooks are round and take time to leave a tile, so none follows another closely.
        let enter = |from: Tile, to: Tile, step: usize| {
            !taken(to, step + 1) && (from == to || !taken(to, step))
        };
        // A goal is good when nobody plans to stand there from the arrival on.
        let goal_free =
            |t: Tile, from: usize| w.goals.contains(&t) && (from..=HORIZON).all(|s| !taken(t, s));
        let mut open: BinaryHeap<Reverse<OpenEntry>> = BinaryHeap::new();
        let start = self.state(w.at, 0);
        self.seen[start] = self.stamp;
        open.push(Reverse((h(w.at), Reverse(0), 0, start)));
        // The fallback when no goal can be reached: the longest safe path, ending nearest.
        let mut best: Option<(usize, u32, usize)> = None;
        let mut found = None;
        while let Some(Reverse((_, Reverse(step), g, s))) = open.pop() {
            let idx = s % (self.width * self.height);
            let t = ((idx % self.width) as i32, (idx / self.width) as i32);
            if goal_free(t, step) {
                found = Some(s);
                break;
            }
            let score = (HORIZON - step, h(t), s);
            if best.is_none_or(|b| score < b) {
                best = Some(score);
            }
            if step == HORIZON {
                continue;
            }
            for (dx, dy) in [(0, 0), (0, -1), (1, 0), (0, 1), (-1, 0)] {
                let n = (t.0 + dx, t.1 + dy);
                if !nav.is_floor(n.0, n.1) || !enter(t, n, step) {
                    continue;
                }
                let ns = self.state(n, step + 1);
                if self.seen[ns] == self.stamp {
                    continue;
                }
                self.seen[ns] = self.stamp;
                self.parent[ns] = s as u32;
                let extra = if n != w.at && waiting.contains(&n) {
                    OCCUPIED_COST
                } else {
                    0
                };
                let ng = g + 1 + extra;
                open.push(Reverse((ng + h(n), Reverse(step + 1), ng, ns)));
            }
        }
        let (end, safe_steps) = match (found, best) {
            (Some(end), _) => (end, HORIZON),
            (None, Some((short, _, end))) => (end, HORIZON - short),
            (None, None) => return None,
        };
        if safe_steps < HORIZON {
            // No plan keeps it clear of the others for the whole window: boxed in.
            return None;
        }
        // Walk back to the start, then stand at the end for the rest of the window.
        let mut rev = vec![end];
        let mut s = end;
        while s != start {
            s = self.parent[s] as usize;
            rev.push(s);
        }
        let tiles = self.width * self.height;
        let mut path: Vec<Tile> = rev
            .iter()
            .rev()
            .map(|&s| {
                let idx = s % tiles;
                ((idx % self.width) as i32, (idx / self.width) as i32)
            })
            .collect();
        let last = *path.last().unwrap_or(&w.at);
        path.resize(HORIZON + 1, last);
        Some(path)
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
