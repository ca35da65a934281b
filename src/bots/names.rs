//! What the short names of a frame mean to a bot: which ingredient, chopped or raw, which
//! dish, which salad plate (as an ingredient mask), and whether a station is blocked.

use crate::sim::items::{Ingredient, Recipe};
use crate::wire::view::StationView;

pub(super) fn ingredient_of(name: &str) -> Option<Ingredient> {
    Ingredient::ALL
        .into_iter()
        .find(|i| name.starts_with(i.name()))
}

pub(super) fn chopped(g: Option<&str>) -> Option<Ingredient> {
    g.filter(|g| g.ends_with("_chopped"))
        .and_then(ingredient_of)
}

pub(super) fn raw(g: Option<&str>) -> Option<Ingredient> {
    g.filter(|g| g.ends_with("_raw")).and_then(ingredient_of)
}

pub(super) fn dish(g: Option<&str>) -> Option<Recipe> {
    g.and_then(|g| g.strip_prefix("dish_"))
        .and_then(Recipe::parse)
}

/// A plate on a counter that can still take salad ingredients: its ingredient mask.
pub(super) fn plate_mask(g: Option<&str>) -> Option<u8> {
    let g = g?;
    if g == "plate" {
        return Some(0);
    }
    if g == "dish_salad" {
        return Some(1 | 4);
    }
    let rest = g.strip_prefix("plate_")?;
    if rest == "dirty" {
        return None;
    }
    rest.split('+').try_fold(0u8, |m, part| match part {
        "lettuce" => Some(m | 1),
        "onion" => Some(m | 2),
        "tomato" => Some(m | 4),
        _ => None,
    })
}

pub(super) fn salad_bit(i: Ingredient) -> u8 {
    i.salad_bit().unwrap_or(0)
}

pub(super) fn ing_index(i: Ingredient) -> usize {
    Ingredient::ALL.iter().position(|x| *x == i).unwrap_or(0)
}

pub(super) fn blocked(s: &StationView) -> bool {
    s.s == "blocked"
}
