//! The level's grid text: cells to tiles and stations, spawns, and the checks that need the
//! grid (a recipe's stations present, every station reachable), with errors pointing at the
//! offending cell's line and column.

use super::{Ctx, LevelError, MAX_GRID_SIDE, MAX_STATIONS};
use crate::sim::SEATS;
use crate::sim::grid::{Grid, StationKind, Tile};
use crate::sim::items::{Ingredient, Recipe};
use toml::Spanned;

/// Where the grid text starts inside the file, so a cell can be named by line and column.
fn grid_origin(ctx: &Ctx, grid: &Spanned<String>) -> Option<usize> {
    let span = grid.span();
    let raw = ctx.text.get(span.clone())?;
    if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        let mut start = span.start + 3;
        let rest = &ctx.text[start..];
        if rest.starts_with("\r\n") {
            start += 2;
        } else if rest.starts_with('\n') {
            start += 1;
        }
        Some(start)
    } else if raw.starts_with('\'') {
        Some(span.start + 1)
    } else {
        None // a basic string with escapes: positions inside it are not the file's
    }
}

pub(super) fn grid_error(
    ctx: &Ctx,
    grid: &Spanned<String>,
    x: usize,
    y: usize,
    message: String,
) -> LevelError {
    match grid_origin(ctx, grid) {
        Some(origin) => {
            let base = ctx.at(origin, "");
            LevelError {
                line: base.line + y,
                column: if y == 0 { base.column + x } else { x + 1 },
                ..base
            }
            .with_message(message)
        }
        None => ctx.span(
            grid.span(),
            format!("grid row {} column {}: {message}", y + 1, x + 1),
        ),
    }
}

impl LevelError {
    fn with_message(mut self, message: String) -> LevelError {
        self.message = message;
        self
    }
}

pub(super) fn parse_grid(ctx: &Ctx, grid: &Spanned<String>) -> Result<Grid, LevelError> {
    let text = grid.get_ref();
    let mut rows: Vec<&str> = text
        .split('\n')
        .map(|r| r.strip_suffix('\r').unwrap_or(r))
        .collect();
    while rows.last().is_some_and(|r| r.trim().is_empty()) {
        rows.pop();
    }
    if rows.is_empty() {
        return Err(ctx.span(grid.span(), "grid is empty"));
    }
    let width = rows[0].chars().count();
    // Named at the first cell past the limit, so the author sees where to cut.
    if width > MAX_GRID_SIDE {
        return Err(grid_error(
            ctx,
            grid,
            MAX_GRID_SIDE,
            0,
            format!(
                "grid is {width} tiles wide: a level is at most {MAX_GRID_SIDE}x{MAX_GRID_SIDE}"
            ),
        ));
    }
    if rows.len() > MAX_GRID_SIDE {
        return Err(grid_error(
            ctx,
            grid,
            0,
            MAX_GRID_SIDE,
            format!(
                "grid is {} rows tall: a level is at most {MAX_GRID_SIDE}x{MAX_GRID_SIDE}",
                rows.len()
            ),
        ));
    }
    let mut stations = 0usize;
    let mut tiles = Vec::with_capacity(width * rows.len());
    let mut spawns: [Option<(u16, u16)>; SEATS] = [None; SEATS];
    for (y, row) in rows.iter().enumerate() {
        let len = row.chars().count();
        if len != width {
            return Err(grid_error(
                ctx,
                grid,
                len.min(width),
                y,
                format!("grid is ragged: this row has {len} tiles, the first has {width}"),
            ));
        }
        for (x, c) in row.chars().enumerate() {
            let tile = match c {
                '#' => Tile::Wall,
                '.' => Tile::Floor,
                '1'..='4' => {
                    let i = c as usize - '1' as usize;
                    if spawns[i].is_some() {
                        return Err(grid_error(
                            ctx,
                            grid,
                            x,
                            y,
                            format!("spawn {c} appears twice"),
                        ));
                    }
                    spawns[i] = Some((x as u16, y as u16));
                    Tile::Floor
                }
                'C' => Tile::Station(StationKind::ChopBoard),
                'K' => Tile::Station(StationKind::Stove),
                'P' => Tile::Station(StationKind::Prep),
                'S' => Tile::Station(StationKind::Serve),
                'W' => Tile::Station(StationKind::Sink),
                'B' => Tile::Station(StationKind::Bin),
                other => match Ingredient::from_shelf_letter(other) {
                    Some(ing) => Tile::Station(StationKind::Shelf(ing)),
                    None => {
                        return Err(grid_error(
                            ctx,
                            grid,
                            x,
                            y,
                            format!(
                                "unknown grid letter {other:?} (legend: # . 1-4 t o l m C K P S W B)"
                            ),
                        ));
                    }
                },
            };
            if matches!(tile, Tile::Station(_)) {
                stations += 1;
                if stations > MAX_STATIONS {
                    return Err(grid_error(
                        ctx,
                        grid,
                        x,
                        y,
                        format!(
                            "a level has at most {MAX_STATIONS} stations: this is station {stations}"
                        ),
                    ));
                }
            }
            tiles.push(tile);
        }
    }
    let mut spawn_tiles = [(0, 0); SEATS];
    for (i, s) in spawns.iter().enumerate() {
        match s {
            Some(p) => spawn_tiles[i] = *p,
            None => {
                return Err(ctx.span(
                    grid.span(),
                    format!("grid has no spawn {} (every level needs spawns 1-4)", i + 1),
                ));
            }
        }
    }
    Ok(Grid::new(
        width as u16,
        rows.len() as u16,
        tiles,
        spawn_tiles,
    ))
}

/// What a recipe needs that the grid lacks, if anything.
pub(super) fn missing_station_for(grid: &Grid, recipe: Recipe) -> Option<String> {
    let has = |k: StationKind| grid.stations().iter().any(|s| s.kind == k);
    for ing in recipe.ingredients() {
        if !has(StationKind::Shelf(*ing)) {
            return Some(format!("no {} shelf", ing.name()));
        }
    }
    for (kind, name) in [
        (StationKind::ChopBoard, "chop board (C)"),
        (StationKind::Serve, "serve station (S)"),
        (StationKind::Sink, "sink (W) for plates"),
    ] {
        if !has(kind) {
            return Some(format!("no {name}"));
        }
    }
    if recipe.soup_ingredient().is_some() && !has(StationKind::Stove) {
        return Some("no stove (K)".to_string());
    }
    None
}

/// What spawn 1 cannot reach, in reading order: stations with no reachable floor neighbour,
/// and spawns 2-4 (a cook placed there could never cook with the others).
pub(super) fn unreachable(grid: &Grid) -> Vec<(usize, usize, String)> {
    let reach = grid.reachable_from(grid.spawns()[0]);
    let mut out: Vec<(usize, usize, String)> = grid
        .stations()
        .iter()
        .filter(|s| {
            !grid
                .neighbours(s.x, s.y)
                .any(|(nx, ny, _)| reach[grid.index(nx, ny)])
        })
        .map(|s| {
            let what = format!("this {} cannot be reached from spawn 1", s.kind.name());
            (s.x as usize, s.y as usize, what)
        })
        .collect();
    for (n, &(x, y)) in grid.spawns().iter().enumerate().skip(1) {
        if !reach[grid.index(x, y)] {
            let what = format!("spawn {} cannot be reached from spawn 1", n + 1);
            out.push((x as usize, y as usize, what));
        }
    }
    out.sort_by_key(|&(x, y, _)| (y, x));
    out
}
