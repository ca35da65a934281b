//! What the kitchen wants, measured once per view for the whole team (`Situation::new`):
//! the ingredients still needed (pots to fill, salad plates to complete), those on their
//! way (in hands or on counters), which empty pots to start and with what, and whether to
//! lay out another salad plate. The planner's jobs follow from these figures.

use super::names::{blocked, chopped, dish, ing_index, plate_mask, raw, salad_bit};
use super::plan::{INGREDIENTS, Situation};
use crate::sim::items::{Ingredient, POT_PORTIONS, Recipe};

/// A pot's portions, as the figures count them.
const POT: i32 = POT_PORTIONS as i32;

impl Situation<'_> {
    /// Measures the view: `need`, `supply`, `start_pot` and `plates_to_lay`.
    pub(super) fn measure(&mut self) {
        let mut need = [0i32; INGREDIENTS];
        let mut start_pot = [false; INGREDIENTS];
        self.soup_demand(&mut need, &mut start_pot);
        let plates_to_lay = self.salad_demand(&mut need);
        self.supply = self.supply_of();
        self.need = need;
        self.start_pot = start_pot;
        self.plates_to_lay = plates_to_lay;
    }

    /// Open orders of `r`.
    fn open_of(&self, r: Recipe) -> i32 {
        self.view.o.iter().filter(|o| o.r == r.id()).count() as i32
    }

    /// Dishes of `r` already made (in hands or on counters).
    fn dishes_of(&self, r: Recipe) -> i32 {
        self.held().filter(|h| dish(*h) == Some(r)).count() as i32
            + self.counters().filter(|s| dish(s.g) == Some(r)).count() as i32
    }

    /// One dish of the `ahead` recipe is wanted before its order.
    fn ahead_of(&self, r: Recipe) -> i32 {
        (self.ahead == Some(r)) as i32
    }

    /// Soups: every open order (and the one cooked ahead) not covered by a dish or a pot of
    /// its kind wants an empty pot started, and every filling pot its missing portions.
    fn soup_demand(&self, need: &mut [i32; INGREDIENTS], start_pot: &mut [bool; INGREDIENTS]) {
        let view = self.view;
        for r in self.recipes.clone() {
            let want = self.open_of(r) + self.ahead_of(r);
            let mut uncovered = want - self.dishes_of(r);
            let Some(ing) = r.soup_ingredient() else {
                continue;
            };
            for st in view.st.iter().filter(|s| s.k == "stove") {
                let ours =
                    st.g.is_some_and(|g| g.starts_with(ing.name()) || g == r.soup_form());
                if ours {
                    uncovered -= 1;
                    if chopped(st.g).is_some() && st.s == "idle" {
                        let n = (st.p as i32 * POT + 50) / 100;
                        need[ing_index(ing)] += POT - n;
                    }
                }
            }
            let empty = view
                .st
                .iter()
                .filter(|s| s.k == "stove" && s.g.is_none() && !blocked(s))
                .count() as i32;
            let start = uncovered.clamp(0, empty);
            need[ing_index(ing)] += POT * start;
            start_pot[ing_index(ing)] = start > 0;
        }
    }

    /// Salads: plates on counters are assemblies, each wanting its missing ingredients; one
    /// more plate is laid while salads are uncovered. Returns the plates to lay (0 or 1).
    fn salad_demand(&self, need: &mut [i32; INGREDIENTS]) -> i32 {
        let salads: Vec<Recipe> = self
            .recipes
            .iter()
            .copied()
            .filter(|r| r.soup_ingredient().is_none())
            .collect();
        if salads.is_empty() {
            return 0;
        }
        let wanted = |r: Recipe| self.open_of(r) + self.ahead_of(r);
        let mut uncovered: i32 = salads
            .iter()
            .map(|&r| wanted(r) - self.dishes_of(r))
            .filter(|u| *u > 0)
            .sum();
        let garden_wanted = salads.contains(&Recipe::GardenSalad);
        // Plain salads on counters beyond the plain salads wanted: with garden salads on the
        // menu each is a garden salad but for its onion, so it is an assembly too.
        let held_plain = self.held().filter(|h| *h == Some("dish_salad")).count() as i32;
        let plain_wanted = (wanted(Recipe::Salad) - held_plain).max(0);
        let mut spare_plain = if garden_wanted {
            self.counters()
                .filter(|s| s.g == Some("dish_salad"))
                .count() as i32
                - plain_wanted
        } else {
            0
        };
        for st in self.counters() {
            if st.g == Some("dish_salad") && spare_plain > 0 {
                spare_plain -= 1;
                uncovered -= 1;
                need[ing_index(Ingredient::Onion)] += 1;
            } else if let Some(mask) = plate_mask(st.g)
                && st.g != Some("dish_salad")
            {
                uncovered -= 1;
                let target = if garden_wanted && (mask & 2 != 0 || !salads.contains(&Recipe::Salad))
                {
                    7
                } else {
                    5
                };
                for ing in [Ingredient::Lettuce, Ingredient::Onion, Ingredient::Tomato] {
                    if target & salad_bit(ing) != 0 && mask & salad_bit(ing) == 0 {
                        need[ing_index(ing)] += 1;
                    }
                }
            }
        }
        uncovered.clamp(0, 1)
    }

    /// Ingredients on their way: raw or chopped, in hands or on counters.
    fn supply_of(&self) -> [i32; INGREDIENTS] {
        let mut supply = [0i32; INGREDIENTS];
        for h in self.held() {
            if let Some(i) = raw(h).or(chopped(h)) {
                supply[ing_index(i)] += 1;
            }
        }
        for st in self.counters() {
            if let Some(i) = raw(st.g).or(chopped(st.g)) {
                supply[ing_index(i)] += 1;
            }
        }
        supply
    }
}
