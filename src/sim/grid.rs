//! The kitchen floor plan: tiles, where the stations stand, and the four spawns.
//!
//! The grid is immutable for a round (it belongs to the level, not the state), so it holds
//! the lookups every tick needs: the tile at a coordinate and the station index on a tile.
//! Stations are numbered in reading order (row by row, left to right), which is also the
//! order they have in the state and on the wire.

use super::SEATS;
use super::items::Ingredient;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum StationKind {
    Shelf(Ingredient),
    ChopBoard,
    Stove,
    Prep,
    Serve,
    Sink,
    /// Takes what a cook holds and throws it away (a plate's contents; the plate stays).
    Bin,
}

impl StationKind {
    /// The wire `k`.
    pub fn name(self) -> &'static str {
        match self {
            StationKind::Shelf(_) => "spawn_shelf",
            StationKind::ChopBoard => "chop_board",
            StationKind::Stove => "stove",
            StationKind::Prep => "prep",
            StationKind::Serve => "serve",
            StationKind::Sink => "sink",
            StationKind::Bin => "bin",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    Wall,
    Floor,
    Station(StationKind),
}

/// A station's place on the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StationSite {
    pub kind: StationKind,
    pub x: u16,
    pub y: u16,
}

/// Up, right, down, left: the facing order, and the tie-break order wherever one is needed.
pub const DIRS: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];

#[derive(Clone, Debug)]
pub struct Grid {
    width: u16,
    height: u16,
    tiles: Vec<Tile>,
    /// The station index on each tile (u16::MAX where none).
    station_index: Vec<u16>,
    stations: Vec<StationSite>,
    spawns: [(u16, u16); SEATS],
}

impl Grid {
    pub fn new(width: u16, height: u16, tiles: Vec<Tile>, spawns: [(u16, u16); SEATS]) -> Grid {
        let mut stations = Vec::new();
        let mut station_index = vec![u16::MAX; tiles.len()];
        for (i, t) in tiles.iter().enumerate() {
            if let Tile::Station(kind) = t {
                station_index[i] = stations.len() as u16;
                stations.push(StationSite {
                    kind: *kind,
                    x: (i % width as usize) as u16,
                    y: (i / width as usize) as u16,
                });
            }
        }
        Grid {
            width,
            height,
            tiles,
            station_index,
            stations,
            spawns,
        }
    }

    pub fn width(&self) -> u16 {
        self.width
    }
    pub fn height(&self) -> u16 {
        self.height
    }
    pub fn stations(&self) -> &[StationSite] {
        &self.stations
    }
    pub fn spawns(&self) -> [(u16, u16); SEATS] {
        self.spawns
    }

    pub fn index(&self, x: u16, y: u16) -> usize {
        y as usize * self.width as usize + x as usize
    }

    /// The tile at a coordinate; everything outside the plan is wall.
    pub fn tile(&self, x: i32, y: i32) -> Tile {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return Tile::Wall;
        }
        self.tiles[self.index(x as u16, y as u16)]
    }

    pub fn is_floor(&self, x: i32, y: i32) -> bool {
        self.tile(x, y) == Tile::Floor
    }

    pub fn station_at(&self, x: usize, y: usize) -> Option<StationKind> {
        match self.tile(x as i32, y as i32) {
            Tile::Station(k) => Some(k),
            _ => None,
        }
    }

    /// The index of the station on a tile, if one stands there.
    pub fn station_index_at(&self, x: i32, y: i32) -> Option<usize> {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return None;
        }
        let i = self.station_index[self.index(x as u16, y as u16)];
        (i != u16::MAX).then_some(i as usize)
    }

    /// The in-bounds neighbours of a tile, up/right/down/left, that are floor.
    pub fn neighbours(&self, x: u16, y: u16) -> impl Iterator<Item = (u16, u16, usize)> + '_ {
        DIRS.iter().enumerate().filter_map(move |(d, (dx, dy))| {
            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
            self.is_floor(nx, ny).then_some((nx as u16, ny as u16, d))
        })
    }

    /// Which floor tiles a walk from `start` reaches (breadth-first over floor).
    pub fn reachable_from(&self, start: (u16, u16)) -> Vec<bool> {
        let mut seen = vec![false; self.tiles.len()];
        let mut queue = std::collections::VecDeque::new();
        seen[self.index(start.0, start.1)] = true;
        queue.push_back(start);
        while let Some((x, y)) = queue.pop_front() {
            for (nx, ny, _) in self.neighbours(x, y) {
                let i = self.index(nx, ny);
                if !seen[i] {
                    seen[i] = true;
                    queue.push_back((nx, ny));
                }
            }
        }
        seen
    }

    /// Every floor tile in reading order (spill candidates are drawn from this list).
    pub fn floor_tiles(&self) -> impl Iterator<Item = (u16, u16)> + '_ {
        (0..self.height)
            .flat_map(move |y| (0..self.width).map(move |x| (x, y)))
            .filter(|&(x, y)| self.is_floor(x as i32, y as i32))
    }
}
