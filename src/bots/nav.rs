//! Getting around the kitchen: distance fields to every station and steering along them.
//!
//! For each station the bots keep a breadth-first distance field over floor tiles, zero on
//! the tiles next to the station (where a cook can face it). The fields ignore cooks: they
//! are the planners' measure of distance and the traffic planner's heuristic, which plans
//! the ways around cooks (`traffic`).

use crate::sim::grid::{DIRS, Grid};
use std::collections::VecDeque;
use std::sync::Arc;

pub const UNREACHABLE: u16 = u16::MAX;

pub struct Nav {
    width: usize,
    height: usize,
    floor: Vec<bool>,
    /// `fields[s][tile]`: steps from `tile` to a tile beside station `s`.
    fields: Vec<Arc<Vec<u16>>>,
    /// `beside[s]`: the floor tiles beside station `s` (where its field is 0).
    beside: Vec<Vec<(i32, i32)>>,
    /// Station tile coordinates, by index.
    stations: Vec<(u16, u16)>,
    /// `work[tile]`: the tile is beside some station.
    work: Vec<bool>,
}

impl Nav {
    pub fn new(grid: &Grid) -> Nav {
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        let mut floor = vec![false; width * height];
        for (x, y) in grid.floor_tiles() {
            floor[y as usize * width + x as usize] = true;
        }
        let stations: Vec<(u16, u16)> = grid.stations().iter().map(|s| (s.x, s.y)).collect();
        let beside: Vec<Vec<(i32, i32)>> = stations
            .iter()
            .map(|&(sx, sy)| {
                grid.neighbours(sx, sy)
                    .map(|(x, y, _)| (x as i32, y as i32))
                    .collect()
            })
            .collect();
        let mut nav = Nav {
            width,
            height,
            floor,
            fields: Vec::new(),
            beside,
            stations,
            work: vec![false; width * height],
        };
        for &(x, y) in nav.beside.iter().flatten() {
            nav.work[y as usize * width + x as usize] = true;
        }
        nav.fields = nav
            .beside
            .iter()
            .map(|tiles| Arc::new(nav.field_to(tiles)))
            .collect();
        nav
    }

    /// Steps from every tile to the nearest of `targets` (breadth first over floor).
    pub fn field_to(&self, targets: &[(i32, i32)]) -> Vec<u16> {
        let mut field = vec![UNREACHABLE; self.width * self.height];
        let mut queue = VecDeque::new();
        for &(x, y) in targets {
            if self.is_floor(x, y) {
                field[y as usize * self.width + x as usize] = 0;
                queue.push_back((x, y));
            }
        }
        while let Some((x, y)) = queue.pop_front() {
            let d = field[y as usize * self.width + x as usize];
            for (dx, dy) in DIRS {
                let (nx, ny) = (x + dx, y + dy);
                if self.is_floor(nx, ny) {
                    let i = ny as usize * self.width + nx as usize;
                    if field[i] == UNREACHABLE {
                        field[i] = d + 1;
                        queue.push_back((nx, ny));
                    }
                }
            }
        }
        field
    }

    /// Steps from `from` to every tile, not through `walls` (the tiles people stand on).
    pub fn field_from_avoiding(&self, from: (i32, i32), walls: &[(i32, i32)]) -> Vec<u16> {
        let mut field = vec![UNREACHABLE; self.width * self.height];
        if !self.is_floor(from.0, from.1) {
            return field;
        }
        let mut queue = VecDeque::new();
        field[from.1 as usize * self.width + from.0 as usize] = 0;
        queue.push_back(from);
        while let Some((x, y)) = queue.pop_front() {
            let d = field[y as usize * self.width + x as usize];
            for (dx, dy) in DIRS {
                let (nx, ny) = (x + dx, y + dy);
                if self.is_floor(nx, ny) && !walls.contains(&(nx, ny)) {
                    let i = ny as usize * self.width + nx as usize;
                    if field[i] == UNREACHABLE {
                        field[i] = d + 1;
                        queue.push_back((nx, ny));
                    }
                }
            }
        }
        field
    }

    /// Whether a floor tile is beside a station (a cook there may be working).
    pub fn is_work(&self, x: i32, y: i32) -> bool {
        self.is_floor(x, y) && self.work[y as usize * self.width + x as usize]
    }

    /// The station on tile (`x`, `y`), by index.
    pub fn station_at(&self, x: i32, y: i32) -> Option<usize> {
        self.stations
            .iter()
            .position(|&(sx, sy)| (sx as i32, sy as i32) == (x, y))
    }

    /// The floor tile nearest `from` that is beside no station (`from` itself when every
    /// tile is beside one).
    pub fn parking_near(&self, from: (i32, i32)) -> (i32, i32) {
        let work: Vec<(i32, i32)> = self.beside.iter().flatten().copied().collect();
        let field = self.field_to(&[from]);
        let mut best: Option<(u16, (i32, i32))> = None;
        for y in 0..self.height as i32 {
            for x in 0..self.width as i32 {
                let d = field[y as usize * self.width + x as usize];
                if d != UNREACHABLE && !work.contains(&(x, y)) && best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, (x, y)));
                }
            }
        }
        best.map_or(from, |(_, t)| t)
    }

    /// The grid's width and height in tiles.
    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Station `s`'s distance field.
    pub fn field(&self, s: usize) -> Arc<Vec<u16>> {
        self.fields[s].clone()
    }

    /// The floor tiles beside station `s`, from which a cook can use it.
    pub fn beside(&self, s: usize) -> &[(i32, i32)] {
        &self.beside[s]
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
}
