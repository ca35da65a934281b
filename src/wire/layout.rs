//! A level's layout as a client draws it: the floor plan in the level file's legend, the
//! stations (with what a shelf hands out), the spawns, and the recipes with the ids of their
//! pictures.
//!
//! Frames carry the stations' state but never the plan (it does not change in a round), so
//! a client fetches this once per level (`GET /api/levels/{id}`; a replay's comes from the
//! level text in its header).

use crate::sim::Level;
use crate::sim::grid::{StationKind, Tile};
use serde::Serialize;

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct StationLayout {
    /// The wire `k`.
    pub k: &'static str,
    pub x: u16,
    pub y: u16,
    /// What a shelf hands out (its raw item); null for other stations.
    pub g: Option<&'static str>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RecipeLayout {
    pub id: &'static str,
    /// The id of the dish's picture (the `g` a plated dish of it shows).
    pub picture: &'static str,
    pub points: u32,
    pub ingredients: Vec<&'static str>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LevelLayout {
    pub id: String,
    pub order: u32,
    pub name: String,
    pub width: u16,
    pub height: u16,
    /// One string per row in the grid legend: `#` wall, `.` floor, `1`-`4` spawns, `t o l m`
    /// shelves, `C` chop board, `K` stove, `P` prep, `S` serve, `W` sink, `B` bin.
    pub rows: Vec<String>,
    /// In reading order: the order of `st` in a full frame.
    pub stations: Vec<StationLayout>,
    /// Spawn tile of seats 0-3.
    pub spawns: Vec<[u16; 2]>,
    /// Each recipe orders draw from, once.
    pub recipes: Vec<RecipeLayout>,
    pub target: u32,
    pub time_limit_s: f64,
    pub plates: u32,
    /// Tiles a second a cook walks (the client predicts its own cook with it).
    pub max_speed: f64,
    /// Seconds an order stays open (the tickets and the announcements say it).
    pub deadline_s: f64,
    /// Each cart's looped waypoints, in tile coordinates (the cart's centre passes through
    /// each tile's centre); the client draws the loop.
    pub carts: Vec<Vec<[u16; 2]>>,
    /// A tutorial level: the client shows step-by-step prompts.
    pub tutorial: bool,
}

fn letter(kind: StationKind) -> char {
    match kind {
        StationKind::Shelf(ing) => ing.name().chars().next().unwrap_or('t'),
        StationKind::ChopBoard => 'C',
        StationKind::Stove => 'K',
        StationKind::Prep => 'P',
        StationKind::Serve => 'S',
        StationKind::Sink => 'W',
        StationKind::Bin => 'B',
    }
}

impl LevelLayout {
    pub fn of(level: &Level) -> LevelLayout {
        let grid = &level.grid;
        let spawns = grid.spawns();
        let rows = (0..grid.height() as i32)
            .map(|y| {
                (0..grid.width() as i32)
                    .map(|x| {
                        let spawn = spawns
                            .iter()
                            .position(|&(sx, sy)| (sx as i32, sy as i32) == (x, y));
                        match (grid.tile(x, y), spawn) {
                            (Tile::Floor, Some(seat)) => char::from(b'1' + seat as u8),
                            (Tile::Floor, None) => '.',
                            (Tile::Wall, _) => '#',
                            (Tile::Station(kind), _) => letter(kind),
                        }
                    })
                    .collect()
            })
            .collect();
        let mut recipes: Vec<RecipeLayout> = Vec::new();
        for r in &level.recipes {
            if recipes.iter().all(|known| known.id != r.id()) {
                recipes.push(RecipeLayout {
                    id: r.id(),
                    picture: r.dish_form(),
                    points: level.points_of(*r),
                    ingredients: r.ingredients().iter().map(|i| i.name()).collect(),
                });
            }
        }
        LevelLayout {
            id: level.id.clone(),
            order: level.order,
            name: level.name.clone(),
            width: grid.width(),
            height: grid.height(),
            rows,
            stations: grid
                .stations()
                .iter()
                .map(|s| StationLayout {
                    k: s.kind.name(),
                    x: s.x,
                    y: s.y,
                    g: match s.kind {
                        StationKind::Shelf(ing) => Some(ing.raw_form()),
                        _ => None,
                    },
                })
                .collect(),
            spawns: spawns.iter().map(|&(x, y)| [x, y]).collect(),
            recipes,
            target: level.target_score,
            time_limit_s: level.time_limit_s,
            plates: level.plates,
            max_speed: level.tuning.max_speed,
            deadline_s: level.deadline_s,
            carts: level
                .carts
                .iter()
                .map(|path| path.iter().map(|&(x, y)| [x, y]).collect())
                .collect(),
            tutorial: level.tutorial,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_redraws_the_level_grid() {
        let text = "id = \"t1\"\norder = 0\nname = \"T\"\ntarget_score = 10\nrecipes = [\"tomato_soup\", \"tomato_soup\"]\ngrid = \"\"\"\n#######\n#tCKSW#\n#1...2#\n#3...4#\n#######\n\"\"\"\n";
        let level = Level::parse("t1.toml", text).unwrap();
        let layout = LevelLayout::of(&level);
        assert_eq!(
            layout.rows,
            ["#######", "#tCKSW#", "#1...2#", "#3...4#", "#######"]
        );
        assert_eq!(layout.stations[0].g, Some("tomato_raw"));
        assert_eq!(layout.stations.len(), 5);
        assert_eq!(layout.recipes.len(), 1, "a repeated recipe is listed once");
        assert_eq!(layout.recipes[0].picture, "dish_tomato_soup");
        assert_eq!(layout.spawns, [[1, 2], [5, 2], [1, 3], [5, 3]]);
    }
}
