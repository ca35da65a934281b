//! Level files: the TOML format of docs/LEVELS.md, parsed from text and validated.
//!
//! The sim never reads files; a caller hands `Level::parse` a file name (for messages) and
//! the text. Every refusal is a `LevelError` naming the file, the line and the column of the
//! offending value, so a level author can go straight to it. Durations stay in seconds here;
//! `Rules` turns them into whole ticks once the round's `tick_hz` is known. `file` is the
//! TOML shape, `grid_text` the grid, `carts` the cart loops.

mod carts;
mod file;
mod grid_text;

use super::grid::Grid;
use super::items::Recipe;
use carts::parse_carts;
use file::LevelFile;
use grid_text::{grid_error, missing_station_for, parse_grid, unreachable};
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// A refused level: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct LevelError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The tuning knobs (seconds, tiles per second, counts): docs/LEVELS.md's `[tuning]` table.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Tuning {
    pub max_speed: f64,
    pub chop_s: f64,
    pub cook_s: f64,
    pub burn_grace_s: f64,
    pub burn_s: f64,
    pub wash_s: f64,
    pub extinguish_s: f64,
    pub plate_return_s: f64,
    pub fire_spread_s: f64,
    pub max_fires: u32,
    pub spill_life_s: f64,
    pub slip_stun_s: f64,
    pub cart_speed: f64,
    pub cart_stun_s: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            max_speed: 4.0,
            chop_s: 1.5,
            cook_s: 8.0,
            burn_grace_s: 6.0,
            burn_s: 4.0,
            wash_s: 1.5,
            extinguish_s: 2.0,
            plate_return_s: 5.0,
            fire_spread_s: 5.0,
            max_fires: 4,
            spill_life_s: 10.0,
            slip_stun_s: 1.0,
            cart_speed: 1.5,
            cart_stun_s: 1.5,
        }
    }
}

/// A validated level. Owned by `Rules`; shared read-only by the sim, the encoder and bots.
#[derive(Clone, Debug)]
pub struct Level {
    pub id: String,
    pub order: u32,
    pub name: String,
    pub time_limit_s: f64,
    pub target_score: u32,
    pub plates: u32,
    /// What orders draw from, repeats weighting a recipe.
    pub recipes: Vec<Recipe>,
    pub grid: Grid,
    pub first_order_s: f64,
    pub interval_s: [f64; 2],
    pub max_orders: u32,
    pub deadline_s: f64,
    pub miss_penalty: u32,
    pub spill_every_s: f64,
    pub rush_at_s: Vec<f64>,
    pub rush_len_s: f64,
    /// Each cart's looped waypoints, in tile coordinates.
    pub carts: Vec<Vec<(u16, u16)>>,
    pub tuning: Tuning,
    /// Recipes whose points the level sets (the rest keep `Recipe::default_points`).
    pub points: Vec<(Recipe, u32)>,
    /// A tutorial: the client prompts the next step (`web/js/tutorial.js`). Only the first
    /// campaign level or a level outside the campaign may be one.
    pub tutorial: bool,
}

impl Level {
    /// What an order of `recipe` is worth on this level.
    pub fn points_of(&self, recipe: Recipe) -> u32 {
        self.points
            .iter()
            .find(|(r, _)| *r == recipe)
            .map_or(recipe.default_points(), |p| p.1)
    }
}

/// The biggest grid side a level may have; bounds memory, path searches and the layout a
/// client fetches (the 64×64 hall, the largest shipped, fits with half again to spare).
pub const MAX_GRID_SIDE: usize = 96;

/// The most stations a level may have: every full frame carries each one (about 65 bytes
/// apiece), so this bounds a frame's size. The shipped levels have at most 18.
pub const MAX_STATIONS: usize = 48;

/// The most carts a level may have. Each one changes its identity every tick, so every
/// frame carries it twice (a tombstone and an insert, about 110 bytes): 1,395 carts made
/// 147 KB frames and rounds whose replays the readers refused. The shipped levels have at
/// most 2.
pub const MAX_CARTS: usize = 16;

/// The most waypoints one cart's loop may list (the shipped loops have 4; a loop round a
/// 96×96 grid's every corridor needs far fewer than this).
pub const MAX_WAYPOINTS: usize = 64;

pub(super) struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    pub(super) fn at(&self, offset: usize, message: impl Into<String>) -> LevelError {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        LevelError {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    pub(super) fn span(&self, span: Range<usize>, message: impl Into<String>) -> LevelError {
        self.at(span.start, message)
    }
}

fn check_secs(
    ctx: &Ctx,
    v: &Spanned<f64>,
    what: &str,
    min: f64,
    max: f64,
) -> Result<f64, LevelError> {
    let x = *v.get_ref();
    if !x.is_finite() || x < min || x > max {
        return Err(ctx.span(
            v.span(),
            format!("{what} must be between {min} and {max}, got {x}"),
        ));
    }
    Ok(x)
}

impl Level {
    /// Parses and validates a level file's text. `file` only names the file in errors. The
    /// first refusal, when there are several (`check` lists them all).
    pub fn parse(file: &str, text: &str) -> Result<Level, LevelError> {
        Level::check(file, text).map_err(|mut errors| errors.remove(0))
    }

    /// Parses and validates a level file's text, and lists every refusal it finds (a TOML
    /// syntax or type error stops the reading; past it, every part is checked).
    pub fn check(file: &str, text: &str) -> Result<Level, Vec<LevelError>> {
        let ctx = Ctx { file, text };
        let raw: LevelFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            vec![ctx.at(at, e.message().trim().to_string())]
        })?;
        let mut errors = Vec::new();
        let time_limit_s = keep(&mut errors, check_head(&ctx, &raw));
        let grid = keep(&mut errors, parse_grid(&ctx, &raw.grid));
        // Recipe names are checked even when the grid is not; whether they can be made
        // needs the grid.
        let recipes = keep(&mut errors, parse_recipes(&ctx, &raw.recipes)).and_then(|r| {
            let g = grid.as_ref()?;
            keep(&mut errors, check_makeable(&ctx, &raw.recipes, &r, g)).map(|_| r)
        });
        let orders = keep(&mut errors, parse_orders(&ctx, &raw.orders));
        let hazards = keep(
            &mut errors,
            parse_hazards(&ctx, &raw.hazards, time_limit_s.unwrap_or(3600.0)),
        );
        let carts = grid
            .as_ref()
            .and_then(|g| keep(&mut errors, parse_carts(&ctx, g, &raw.hazards.carts)));
        let tuning = keep(
            &mut errors,
            check_tuning(&ctx, &raw.tuning, text).map(|_| raw.tuning.clone()),
        );
        let points = recipes
            .as_ref()
            .and_then(|r| keep(&mut errors, parse_points(&ctx, &raw.points, r)));
        if let Some(g) = &grid {
            for (x, y, what) in unreachable(g) {
                errors.push(grid_error(&ctx, &raw.grid, x, y, what));
            }
        }
        match (
            time_limit_s,
            grid,
            recipes,
            orders,
            hazards,
            carts,
            tuning,
            points,
        ) {
            (
                Some(time_limit_s),
                Some(grid),
                Some(recipes),
                Some(orders),
                Some(hazards),
                Some(carts),
                Some(tuning),
                Some(points),
            ) if errors.is_empty() => Ok(Level {
                id: raw.id.get_ref().clone(),
                order: raw.order,
                tutorial: *raw.tutorial.get_ref(),
                name: raw.name.get_ref().trim().to_string(),
                time_limit_s,
                target_score: *raw.target_score.get_ref(),
                plates: *raw.plates.get_ref(),
                recipes,
                grid,
                first_order_s: orders.first_order_s,
                interval_s: orders.interval_s,
                max_orders: orders.max_orders,
                deadline_s: orders.deadline_s,
                miss_penalty: orders.miss_penalty,
                spill_every_s: hazards.spill_every_s,
                rush_at_s: hazards.rush_at_s,
                rush_len_s: hazards.rush_len_s,
                carts,
                tuning,
                points,
            }),
            _ => Err(errors),
        }
    }
}

/// The `[points]` table: recipe id = points (1-1000), for recipes the level orders.
fn parse_points(
    ctx: &Ctx,
    table: &std::collections::BTreeMap<String, Spanned<u32>>,
    recipes: &[Recipe],
) -> Result<Vec<(Recipe, u32)>, LevelError> {
    let mut out = Vec::new();
    for (id, v) in table {
        let recipe = Recipe::parse(id)
            .filter(|r| recipes.contains(r))
            .ok_or_else(|| {
                ctx.span(
                    v.span(),
                    format!("points.{id}: not a recipe this level orders"),
                )
            })?;
        let p = *v.get_ref();
        if !(1..=1000).contains(&p) {
            return Err(ctx.span(
                v.span(),
                format!("points.{id} must be between 1 and 1000, got {p}"),
            ));
        }
        out.push((recipe, p));
    }
    Ok(out)
}

/// The value of a check that passed; a refusal goes to `errors`.
fn keep<T>(errors: &mut Vec<LevelError>, r: Result<T, LevelError>) -> Option<T> {
    r.map_err(|e| errors.push(e)).ok()
}

/// The id, the name, the time limit, the target and the plates. Returns the time limit.
fn check_head(ctx: &Ctx, raw: &LevelFile) -> Result<f64, LevelError> {
    let id = raw.id.get_ref();
    let id_ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !id_ok {
        return Err(ctx.span(
            raw.id.span(),
            "id must be 1-64 characters of a-z, 0-9 and _",
        ));
    }
    if raw.name.get_ref().trim().is_empty() || raw.name.get_ref().chars().count() > 64 {
        return Err(ctx.span(raw.name.span(), "name must be 1-64 characters"));
    }
    let time_limit_s = check_secs(ctx, &raw.time_limit_s, "time_limit_s", 1.0, 3600.0)?;
    if *raw.target_score.get_ref() == 0 {
        return Err(ctx.span(raw.target_score.span(), "target_score must be at least 1"));
    }
    if !(1..=64).contains(raw.plates.get_ref()) {
        return Err(ctx.span(raw.plates.span(), "plates must be between 1 and 64"));
    }
    if *raw.tutorial.get_ref() && raw.order > 1 {
        return Err(ctx.span(
            raw.tutorial.span(),
            "tutorial = true needs order 0 or 1 (a tutorial comes first, or outside the campaign)",
        ));
    }
    Ok(time_limit_s)
}

/// The recipes orders draw from.
fn parse_recipes(
    ctx: &Ctx,
    list: &Spanned<Vec<Spanned<String>>>,
) -> Result<Vec<Recipe>, LevelError> {
    if list.get_ref().is_empty() {
        return Err(ctx.span(list.span(), "recipes must list at least one recipe"));
    }
    list.get_ref()
        .iter()
        .map(|r| {
            Recipe::parse(r.get_ref()).ok_or_else(|| {
                ctx.span(
                    r.span(),
                    format!(
                        "unknown recipe {:?} (known: tomato_soup, onion_soup, mushroom_soup, salad, garden_salad)",
                        r.get_ref()
                    ),
                )
            })
        })
        .collect()
}

/// Each recipe can be made with this grid's stations.
fn check_makeable(
    ctx: &Ctx,
    list: &Spanned<Vec<Spanned<String>>>,
    recipes: &[Recipe],
    grid: &Grid,
) -> Result<(), LevelError> {
    for (r, recipe) in list.get_ref().iter().zip(recipes) {
        if let Some(missing) = missing_station_for(grid, *recipe) {
            return Err(ctx.span(
                r.span(),
                format!("recipe {} cannot be made here: {missing}", recipe.id()),
            ));
        }
    }
    Ok(())
}

/// The `[orders]` table, checked.
struct Orders {
    first_order_s: f64,
    interval_s: [f64; 2],
    max_orders: u32,
    deadline_s: f64,
    miss_penalty: u32,
}

fn parse_orders(ctx: &Ctx, o: &file::OrdersFile) -> Result<Orders, LevelError> {
    let first_order_s = check_secs(ctx, &o.first_order_s, "orders.first_order_s", 0.0, 3600.0)?;
    let [lo, hi] = *o.interval_s.get_ref();
    if !(lo.is_finite() && hi.is_finite() && lo >= 0.5 && lo <= hi && hi <= 3600.0) {
        return Err(ctx.span(
            o.interval_s.span(),
            "orders.interval_s must be [min, max] with 0.5 <= min <= max <= 3600",
        ));
    }
    if !(1..=16).contains(o.max_orders.get_ref()) {
        return Err(ctx.span(
            o.max_orders.span(),
            "orders.max_orders must be between 1 and 16",
        ));
    }
    let deadline_s = check_secs(ctx, &o.deadline_s, "orders.deadline_s", 1.0, 3600.0)?;
    Ok(Orders {
        first_order_s,
        interval_s: [lo, hi],
        max_orders: *o.max_orders.get_ref(),
        deadline_s,
        miss_penalty: *o.miss_penalty.get_ref(),
    })
}

/// The `[hazards]` table's timings (carts are parsed against the grid).
struct Hazards {
    spill_every_s: f64,
    rush_at_s: Vec<f64>,
    rush_len_s: f64,
}

fn parse_hazards(
    ctx: &Ctx,
    h: &file::HazardsFile,
    time_limit_s: f64,
) -> Result<Hazards, LevelError> {
    let spill_every_s = match &h.spill_every_s {
        Some(v) => check_secs(ctx, v, "hazards.spill_every_s", 0.0, 3600.0)?,
        None => 0.0,
    };
    let mut rush_at_s = Vec::new();
    for r in &h.rush_at_s {
        rush_at_s.push(check_secs(ctx, r, "hazards.rush_at_s", 0.0, time_limit_s)?);
    }
    if rush_at_s.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ctx.at(
            h.rush_at_s[0].span().start,
            "hazards.rush_at_s must be increasing",
        ));
    }
    let rush_len_s = match &h.rush_len_s {
        Some(v) => check_secs(ctx, v, "hazards.rush_len_s", 1.0, 3600.0)?,
        None => 20.0,
    };
    Ok(Hazards {
        spill_every_s,
        rush_at_s,
        rush_len_s,
    })
}

fn check_tuning(ctx: &Ctx, t: &Tuning, text: &str) -> Result<(), LevelError> {
    let at = text.find("[tuning]").unwrap_or(0);
    let positive = [
        ("max_speed", t.max_speed, 0.5, 20.0),
        ("chop_s", t.chop_s, 0.05, 600.0),
        ("cook_s", t.cook_s, 0.05, 600.0),
        ("burn_grace_s", t.burn_grace_s, 0.05, 600.0),
        ("burn_s", t.burn_s, 0.05, 600.0),
        ("wash_s", t.wash_s, 0.05, 600.0),
        ("extinguish_s", t.extinguish_s, 0.05, 600.0),
        ("plate_return_s", t.plate_return_s, 0.0, 600.0),
        ("fire_spread_s", t.fire_spread_s, 0.5, 600.0),
        ("spill_life_s", t.spill_life_s, 0.5, 600.0),
        ("slip_stun_s", t.slip_stun_s, 0.0, 60.0),
        ("cart_speed", t.cart_speed, 0.1, 20.0),
        ("cart_stun_s", t.cart_stun_s, 0.0, 60.0),
    ];
    for (name, v, lo, hi) in positive {
        if !v.is_finite() || v < lo || v > hi {
            return Err(ctx.at(
                at,
                format!("tuning.{name} must be between {lo} and {hi}, got {v}"),
            ));
        }
    }
    if !(1..=64).contains(&t.max_fires) {
        return Err(ctx.at(at, "tuning.max_fires must be between 1 and 64"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
