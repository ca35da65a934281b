//! The game's data as the client needs it, from the sim's own tables: each recipe's kind,
//! ingredients with their counts and steps, and base points (a level's own points are in
//! its entry of `/api/levels`). The client draws tickets, the recipe key, the lobby's
//! briefing and the tutorial's counts from this, so nothing a player reads can drift from
//! what the kitchen does; the names and glyph letters a player reads stay the client's
//! (words and pictures, not rules).

use crate::sim::Level;
use crate::sim::items::{POT_PORTIONS, Recipe};
use serde_json::{Value, json};

/// Every recipe the sim knows, in its order: `{id, kind, parts: [{ing, n, steps}], points}`.
/// A soup takes `POT_PORTIONS` of its one ingredient (what a pot holds), a salad one of each.
pub fn recipes() -> Vec<Value> {
    Recipe::ALL
        .into_iter()
        .map(|r| {
            let soup = r.soup_ingredient().is_some();
            let parts: Vec<Value> = r
                .ingredients()
                .iter()
                .map(|i| {
                    let (n, steps) = if soup {
                        (POT_PORTIONS as u32, vec!["chopped", "cooked"])
                    } else {
                        (1, vec!["chopped"])
                    };
                    json!({"ing": i.name(), "n": n, "steps": steps})
                })
                .collect();
            json!({
                "id": r.id(),
                "kind": if soup { "soup" } else { "salad" },
                "parts": parts,
                "points": r.default_points(),
            })
        })
        .collect()
}

/// A level's points per recipe it orders (its own `[points]`, else the recipe's base).
pub fn points_of(level: &Level) -> Value {
    let mut out = serde_json::Map::new();
    for r in &level.recipes {
        out.insert(r.id().to_string(), json!(level.points_of(*r)));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_soup_takes_three_of_one_ingredient_and_a_garden_salad_one_of_three() {
        let all = recipes();
        let soup = all.iter().find(|r| r["id"] == "tomato_soup").unwrap();
        assert_eq!(soup["kind"], "soup");
        assert_eq!(
            soup["parts"],
            json!([{"ing": "tomato", "n": 3, "steps": ["chopped", "cooked"]}])
        );
        assert_eq!(soup["points"], 30);
        let garden = all.iter().find(|r| r["id"] == "garden_salad").unwrap();
        let ings: Vec<&str> = garden["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["ing"].as_str().unwrap())
            .collect();
        assert_eq!(ings, ["lettuce", "onion", "tomato"]);
    }
}
