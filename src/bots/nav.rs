//! Getting around the kitchen: distance fields to every station and steering along them.
//!
//! For each station the bots keep a breadth-first distance field over floor tiles, zero on
//! the tiles next to the station (where a cook can face it). A cook walks downhill on the
//! field; the field ignores other cooks, and a cook that finds its next tile taken picks
//! another downhill neighbour or waits, then sidesteps if it stays stuck.

use crate::sim::grid::{DIRS, Grid};
use std::collections::VecDeque;

pub const UNREACHABLE: u16 = u16::MAX;

pub struct Nav {
    width: usize,
    height: usize,
    floor: Vec<bool>,
    /// `fields[s][tile]`: steps from `tile` to a tile beside station `s`.
    fields: Vec<Vec<u16>>,
    /// Station tile coordinates, by index.
    stations: Vec<(u16, u16)>,
}

impl Nav {
    pub fn new(grid: &Grid) -> Nav {
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        let mut floor = vec![false; width * height];
        for (x, y) in grid.floor_tiles() {
            floor[y as usize * width + x as usize] = true;
        }
        let stations: Vec<(u16, u16)> = grid.stations().iter().map(|s| (s.x, s.y)).collect();
        let fields = stations
            .iter()
            .map(|&(sx, sy)| {
                let mut field = vec![UNREACHABLE; width * height];
                let mut queue = VecDeque::new();
                for (nx, ny, _) in grid.neighbours(sx, sy) {
                    let i = ny as usize * width + nx as usize;
                    field[i] = 0;
                    queue.push_back((nx, ny));
                }
                while let Some((x, y)) = queue.pop_front() {
                    let d = field[y as usize * width + x as usize];
                    for (nx, ny, _) in grid.neighbours(x, y) {
                        let i = ny as usize * width + nx as usize;
                        if field[i] == UNREACHABLE {
                            field[i] = d + 1;
                            queue.push_back((nx, ny));
                        }
                    }
                }
                field
            })
            .collect();
        Nav {
            width,
            height,
            floor,
            fields,
            stations,
        }
    }

    pub fn is_floor(&self, x: i32, y: i32) -> bool {
        x >= 0
            && y >= 0
            && (x as usize) < self.width
            && (y as usize) < self.height
            && self.floor[y as usize * self.width + x as usize]
    }

    /// Steps from a tile to beside station `s`.
    pub fn dist(&self, s: usize, x: i32, y: i32) -> u16 {
        if !self.is_floor(x, y) {
            return UNREACHABLE;
        }
        self.fields[s][y as usize * self.width + x as usize]
    }

    /// The direction (0 up .. 3 left) from a tile beside station `s` to the station.
    pub fn facing_to(&self, s: usize, x: i32, y: i32) -> Option<u8> {
        let (sx, sy) = self.stations[s];
        DIRS.iter()
            .position(|&(dx, dy)| (x + dx, y + dy) == (sx as i32, sy as i32))
            .map(|d| d as u8)
    }

    /// The downhill neighbours of a tile towards station `s`, best first (ties: up, right,
    /// down, left).
    pub fn downhill(&self, s: usize, x: i32, y: i32) -> Vec<(i32, i32)> {
        let here = self.dist(s, x, y);
        let mut out: Vec<(u16, usize, (i32, i32))> = DIRS
            .iter()
            .enumerate()
            .filter_map(|(d, &(dx, dy))| {
                let (nx, ny) = (x + dx, y + dy);
                let nd = self.dist(s, nx, ny);
                (nd != UNREACHABLE && (nd < here || here == UNREACHABLE)).then_some((
                    nd,
                    d,
                    (nx, ny),
                ))
            })
            .collect();
        out.sort_unstable();
        out.into_iter().map(|(_, _, t)| t).collect()
    }

    /// The first step of a shortest walk from (x, y) to beside station `s` that avoids the
    /// `blocked` tiles (other cooks), or `None` when there is no such walk.
    pub fn detour(&self, s: usize, x: i32, y: i32, blocked: &[(i32, i32)]) -> Option<(i32, i32)> {
        let idx = |x: i32, y: i32| y as usize * self.width + x as usize;
        let mut first: Vec<Option<(i32, i32)>> = vec![None; self.width * self.height];
        let mut seen = vec![false; self.width * self.height];
        let mut queue = VecDeque::new();
        seen[idx(x, y)] = true;
        queue.push_back((x, y));
        while let Some((cx, cy)) = queue.pop_front() {
            if (cx, cy) != (x, y) && self.dist(s, cx, cy) == 0 {
                return first[idx(cx, cy)];
            }
            for &(dx, dy) in DIRS.iter() {
                let (nx, ny) = (cx + dx, cy + dy);
                if !self.is_floor(nx, ny) || seen[idx(nx, ny)] || blocked.contains(&(nx, ny)) {
                    continue;
                }
                seen[idx(nx, ny)] = true;
                first[idx(nx, ny)] = if (cx, cy) == (x, y) {
                    Some((nx, ny))
                } else {
                    first[idx(cx, cy)]
                };
                queue.push_back((nx, ny));
            }
        }
        None
    }
}
