//! Choosing what a bot cook does next, from the projected view alone.
//!
//! The planner reads the frame a client would see (stations' `g`/`s`/`p`, orders, what each
//! cook holds) and lists the useful jobs in priority order: put out fires, plate ready soup,
//! clear burnt pots, serve waiting dishes, chop, carry, fetch what open orders still need,
//! wash. Teammates' goals are claims, so two bots do not chase the same job.

use super::names::{blocked, chopped, dish, ing_index, plate_mask, raw, salad_bit};
use super::nav::{Nav, UNREACHABLE};
use crate::sim::items::{Ingredient, Recipe};
use crate::wire::view::{FrameView, StationView};

/// Ingredient kinds (counts and flags per kind are indexed by `ing_index`).
const INGREDIENTS: usize = Ingredient::ALL.len();

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Extinguish,
    /// Get a clean plate (from the sink) to take the soup of stove `for_stove`.
    PlateFor(usize),
    TakeSoup,
    ClearBurnt,
    Chop,
    Wash,
    Fetch(Ingredient),
    /// Press once: set down, pick up, fill a pot, add to a plate, serve, return a plate.
    Press,
    /// Take an item from a counter.
    Take,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    pub station: usize,
    pub purpose: Purpose,
}

impl Goal {
    /// Work goals: press, then stand still while the work runs.
    pub fn is_work(&self) -> bool {
        matches!(
            self.purpose,
            Purpose::Chop | Purpose::Wash | Purpose::Extinguish
        )
    }
}

/// Everything the planner derives from one view, shared by all the team's cooks.
pub struct Situation<'a> {
    pub view: &'a FrameView,
    pub nav: &'a Nav,
    /// Level recipes (deduplicated).
    pub recipes: Vec<Recipe>,
    /// Whether an empty pot should be started with this ingredient's soup.
    start_pot: [bool; INGREDIENTS],
    /// The one recipe cooked ahead of its order, if any.
    ahead: Option<Recipe>,
    /// Ingredients still wanted (pots to fill, plates to complete), before supply.
    need: [i32; INGREDIENTS],
    /// Ingredients on their way (in hands or on counters, not on plates).
    supply: [i32; INGREDIENTS],
    /// How many more salad assembly plates should be laid out.
    plates_to_lay: i32,
    /// Stations a person is using or heading to (`BotTeam` predicts them): no bot takes
    /// one (for any job but fetching from a shelf), it finds another station or job.
    pub people: Vec<usize>,
    /// Stations the cook being planned for cannot reach but through a person: no job.
    pub cut_off: Vec<usize>,
}

impl<'a> Situation<'a> {
    /// `plates` is the level's plate count (levels are public): with fewer than three the
    /// bots cook nothing ahead, so the last plate is never tied up by an unordered dish.
    pub fn new(
        view: &'a FrameView,
        nav: &'a Nav,
        level_recipes: &[Recipe],
        plates: u32,
    ) -> Situation<'a> {
        let mut recipes: Vec<Recipe> = Vec::new();
        for r in level_recipes {
            if !recipes.contains(r) {
                recipes.push(*r);
            }
        }
        let weight = |r: &Recipe| level_recipes.iter().filter(|x| *x == r).count();
        let ahead = if plates >= 3 {
            recipes.iter().copied().max_by_key(|r| {
                (
                    weight(r),
                    std::cmp::Reverse(recipes.iter().position(|x| x == r)),
                )
            })
        } else {
            None
        };
        let mut sit = Situation {
            view,
            nav,
            recipes,
            ahead,
            start_pot: [false; INGREDIENTS],
            need: [0; INGREDIENTS],
            supply: [0; INGREDIENTS],
            plates_to_lay: 0,
            people: Vec::new(),
            cut_off: Vec::new(),
        };
        sit.measure();
        sit
    }

    fn held(&self) -> impl Iterator<Item = Option<&'static str>> + '_ {
        self.view.p.iter().map(|p| p.h)
    }

    fn counters(&self) -> impl Iterator<Item = &StationView> + '_ {
        self.view
            .st
            .iter()
            .filter(|s| s.k == "prep" || s.k == "chop_board")
    }

    fn measure(&mut self) {
        let view = self.view;
        let mut need = [0i32; INGREDIENTS];
        let mut supply = [0i32; INGREDIENTS];
        let mut start_pot = [false; INGREDIENTS];
        let mut plates_to_lay = 0;
        let open = |r: Recipe| view.o.iter().filter(|o| o.r == r.id()).count() as i32;
        let dishes = |r: Recipe| {
            self.held().filter(|h| dish(*h) == Some(r)).count() as i32
                + self.counters().filter(|s| dish(s.g) == Some(r)).count() as i32
        };
        // Wanted: every open order, plus one dish of the `ahead` recipe cooked ahead.
        let ahead = |r: Recipe| (self.ahead == Some(r)) as i32;
        for r in self.recipes.clone() {
            let want = open(r) + ahead(r);
            let mut uncovered = want - dishes(r);
            if let Some(ing) = r.soup_ingredient() {
                for st in view.st.iter().filter(|s| s.k == "stove") {
                    let ours =
                        st.g.is_some_and(|g| g.starts_with(ing.name()) || g == r.soup_form());
                    if ours {
                        uncovered -= 1;
                        if chopped(st.g).is_some() && st.s == "idle" {
                            let n = (st.p as i32 * 3 + 50) / 100;
                            need[ing_index(ing)] += 3 - n;
                        }
                    }
                }
                let empty = view
                    .st
                    .iter()
                    .filter(|s| s.k == "stove" && s.g.is_none() && !blocked(s))
                    .count() as i32;
                let start = uncovered.clamp(0, empty);
                need[ing_index(ing)] += 3 * start;
                start_pot[ing_index(ing)] = start > 0;
            }
        }
        // Salads: plates on counters are assemblies; lay more while salads are uncovered.
        let salad_recipes: Vec<Recipe> = self
            .recipes
            .iter()
            .copied()
            .filter(|r| r.soup_ingredient().is_none())
            .collect();
        if !salad_recipes.is_empty() {
            let mut uncovered: i32 = salad_recipes
                .iter()
                .map(|&r| open(r) + ahead(r) - dishes(r))
                .filter(|u| *u > 0)
                .sum();
            let garden_wanted = salad_recipes.contains(&Recipe::GardenSalad);
            // Plain salads on counters beyond the plain salads wanted: with garden salads on
            // the menu each is a garden salad but for its onion, so it is an assembly too.
            let held_plain = self.held().filter(|h| *h == Some("dish_salad")).count() as i32;
            let plain_wanted = (open(Recipe::Salad) + ahead(Recipe::Salad) - held_plain).max(0);
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
                    let target = if garden_wanted
                        && (mask & 2 != 0 || !salad_recipes.contains(&Recipe::Salad))
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
            plates_to_lay = uncovered.clamp(0, 1);
        }
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
        self.need = need;
        self.supply = supply;
        self.start_pot = start_pot;
        self.plates_to_lay = plates_to_lay;
    }

    fn dist(&self, s: usize, from: (i32, i32)) -> u16 {
        self.nav.dist(s, from.0, from.1)
    }

    /// The nearest reachable station matching `pred`, not claimed by a teammate nor by a
    /// person.
    fn nearest(
        &self,
        from: (i32, i32),
        claims: &[Goal],
        purpose: Purpose,
        pred: impl Fn(&StationView) -> bool,
    ) -> Option<Goal> {
        self.view
            .st
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                pred(s)
                    && !self.cut_off.contains(i)
                    && (matches!(purpose, Purpose::Fetch(_)) || !self.people.contains(i))
                    && !claims
                        .iter()
                        .any(|c| c.station == *i && conflicts(c.purpose, purpose))
            })
            .map(|(i, _)| (self.dist(i, from), i))
            .filter(|(d, _)| *d != UNREACHABLE)
            .min()
            .map(|(_, i)| Goal {
                station: i,
                purpose,
            })
    }

    /// Jobs for a cook at `from` holding `held`, best first.
    pub fn candidates(&self, from: (i32, i32), held: Option<&str>, claims: &[Goal]) -> Vec<Goal> {
        let mut out = Vec::new();
        let mut push = |g: Option<Goal>| {
            if let Some(g) = g {
                out.push(g);
            }
        };
        push(self.nearest(from, claims, Purpose::Extinguish, blocked));
        match held {
            None => self.empty_handed(from, claims, &mut out),
            Some(h) => {
                self.holding(from, h, claims, &mut out);
                // Nowhere useful to put it (no board, pot, plate or free counter wants it):
                // throw it away rather than stand holding it. Plates and dishes are kept;
                // a bin would only empty them.
                let keep = h == "plate" || h == "plate_dirty" || dish(Some(h)).is_some();
                if !keep && out.iter().all(|g| g.purpose == Purpose::Extinguish) {
                    push_bin(self, from, &mut out);
                }
            }
        }
        out
    }

    fn empty_handed(&self, from: (i32, i32), claims: &[Goal], out: &mut Vec<Goal>) {
        let open = |r: Recipe| self.view.o.iter().any(|o| o.r == r.id());
        let mut push = |g: Option<Goal>| {
            if let Some(g) = g {
                out.push(g);
            }
        };
        // A soup that is ready, burning or nearly done wants a plate.
        let soup_waiting = self.view.st.iter().enumerate().find(|(i, s)| {
            s.k == "stove"
                && !blocked(s)
                && (s.s == "ready" || s.s == "burning" || (s.s == "working" && s.p >= 60))
                && !claims.iter().any(|c| {
                    matches!(c.purpose, Purpose::PlateFor(x) if x == *i)
                        || (c.station == *i && c.purpose == Purpose::TakeSoup)
                })
        });
        if let Some((stove, _)) = soup_waiting {
            let plate = self.nearest(from, claims, Purpose::PlateFor(stove), |s| {
                s.k == "sink" && s.g == Some("plate")
            });
            let clean_anywhere = self.view.st.iter().any(|s| s.g == Some("plate"))
                || self.held().any(|h| h == Some("plate"));
            if plate.is_none() && !clean_anywhere {
                // No clean plate anywhere: the soup burns unless someone washes one now.
                push(self.nearest(from, claims, Purpose::Wash, |s| {
                    s.k == "sink" && s.g == Some("plate_dirty") && !blocked(s)
                }));
            }
            push(plate);
        }
        push(self.nearest(from, claims, Purpose::ClearBurnt, |s| {
            s.k == "stove" && s.g == Some("soup_burnt") && !blocked(s)
        }));
        push(self.nearest(from, claims, Purpose::Take, |s| {
            dish(s.g).is_some_and(open) && !blocked(s)
        }));
        push(self.nearest(from, claims, Purpose::Chop, |s| {
            s.k == "chop_board" && raw(s.g).is_some() && !blocked(s)
        }));
        push(self.nearest(from, claims, Purpose::Take, |s| {
            s.k == "chop_board" && chopped(s.g).is_some() && !blocked(s)
        }));
        push(self.nearest(from, claims, Purpose::Take, |s| {
            s.k == "prep" && raw(s.g).is_some() && !blocked(s)
        }));
        push(self.nearest(from, claims, Purpose::Take, |s| {
            s.k == "prep"
                && !blocked(s)
                && chopped(s.g).is_some_and(|i| self.need[ing_index(i)] > 0)
        }));
        if self.plates_to_lay > 0
            && !claims
                .iter()
                .any(|c| c.purpose == Purpose::PlateFor(usize::MAX))
        {
            push(
                self.nearest(from, claims, Purpose::PlateFor(usize::MAX), |s| {
                    s.k == "sink" && s.g == Some("plate")
                }),
            );
        }
        // Fetch the most wanted ingredient, as long as a board will be free for it.
        let free_boards = self
            .view
            .st
            .iter()
            .filter(|s| s.k == "chop_board" && s.g.is_none() && !blocked(s))
            .count() as i32;
        let raw_in_hands = self.held().filter(|h| raw(*h).is_some()).count() as i32;
        let fetching = claims
            .iter()
            .filter(|c| matches!(c.purpose, Purpose::Fetch(_)))
            .count() as i32;
        if raw_in_hands + fetching < free_boards.max(1) {
            let mut best: Option<(i32, Ingredient)> = None;
            for ing in Ingredient::ALL {
                let i = ing_index(ing);
                let claimed = claims
                    .iter()
                    .filter(|c| c.purpose == Purpose::Fetch(ing))
                    .count() as i32;
                let deficit = self.need[i] - self.supply[i] - claimed;
                // A shelf only a way through a person reaches is no shelf for now.
                let shelf = self.view.st.iter().enumerate().any(|(n, s)| {
                    s.k == "spawn_shelf" && raw(s.g) == Some(ing) && !self.cut_off.contains(&n)
                });
                if deficit > 0 && shelf && best.is_none_or(|(d, _)| deficit > d) {
                    best = Some((deficit, ing));
                }
            }
            if let Some((_, ing)) = best {
                push(self.nearest(from, &[], Purpose::Fetch(ing), |s| {
                    s.k == "spawn_shelf" && raw(s.g) == Some(ing)
                }));
            }
        }
        push(self.nearest(from, claims, Purpose::Wash, |s| {
            s.k == "sink" && s.g == Some("plate_dirty") && !blocked(s)
        }));
    }

    fn holding(&self, from: (i32, i32), held: &str, claims: &[Goal], out: &mut Vec<Goal>) {
        let open = |r: Recipe| self.view.o.iter().any(|o| o.r == r.id());
        let mut push = |g: Option<Goal>| {
            if let Some(g) = g {
                out.push(g);
            }
        };
        let free_counter = |s: &StationView| s.k == "prep" && s.g.is_none() && !blocked(s);
        if let Some(ing) = raw(Some(held)) {
            push(self.nearest(from, claims, Purpose::Press, |s| {
                s.k == "chop_board" && s.g.is_none() && !blocked(s)
            }));
            if self.need[ing_index(ing)] <= 0 {
                push(self.nearest(from, claims, Purpose::Press, |s| {
                    s.k == "spawn_shelf" && raw(s.g) == Some(ing)
                }));
            }
        } else if let Some(ing) = chopped(Some(held)) {
            let filling = |s: &StationView| {
                s.k == "stove" && !blocked(s) && chopped(s.g) == Some(ing) && s.s == "idle"
            };
            push(self.nearest(from, &[], Purpose::Press, filling));
            let soup = ing.soup();
            if soup.is_some_and(|r| self.recipes.contains(&r)) && self.start_pot[ing_index(ing)] {
                push(self.nearest(from, claims, Purpose::Press, |s| {
                    s.k == "stove" && s.g.is_none() && !blocked(s)
                }));
            }
            if let Some(bit) = ing.salad_bit() {
                let garden = self.recipes.contains(&Recipe::GardenSalad);
                let salad = self.recipes.contains(&Recipe::Salad);
                push(self.nearest(from, &[], Purpose::Press, |s| {
                    s.k == "prep"
                        && !blocked(s)
                        && plate_mask(s.g).is_some_and(|m| {
                            m & bit == 0
                                && (bit != 2 || garden)
                                && (m != 5 || garden)
                                && (garden || salad)
                        })
                }));
            }
            push(self.nearest(from, claims, Purpose::Press, free_counter));
        } else if held == "plate" {
            let stove_ready = |s: &StationView| {
                s.k == "stove" && !blocked(s) && (s.s == "ready" || s.s == "burning")
            };
            push(self.nearest(from, claims, Purpose::TakeSoup, stove_ready));
            let cooking = |s: &StationView| s.k == "stove" && !blocked(s) && s.s == "working";
            push(self.nearest(from, claims, Purpose::TakeSoup, cooking));
            if self.plates_to_lay > 0
                || self
                    .recipes
                    .iter()
                    .any(|r| r.soup_ingredient().is_none() && open(*r))
            {
                push(self.nearest(from, claims, Purpose::Press, free_counter));
            }
            push(self.nearest(from, claims, Purpose::Press, |s| s.k == "sink"));
        } else if let Some(r) = dish(Some(held)) {
            if open(r) {
                push(self.nearest(from, &[], Purpose::Press, |s| s.k == "serve"));
            }
            // Kept on a counter: a dish an order wants, the one cooked ahead, or a plain
            // salad that an onion makes a garden salad. Anything else (or with no counter
            // free) goes in the bin, which keeps the plate.
            let finish = r == Recipe::Salad && self.recipes.contains(&Recipe::GardenSalad);
            if open(r) || finish || self.ahead == Some(r) {
                push(self.nearest(from, claims, Purpose::Press, free_counter));
            }
            if !open(r) {
                push(self.nearest(from, &[], Purpose::Press, |s| s.k == "bin" && !blocked(s)));
            }
        } else if held == "plate_dirty" {
            push(self.nearest(from, &[], Purpose::Press, |s| s.k == "sink"));
        } else {
            // A partly filled plate: lay it out as an assembly.
            push(self.nearest(from, claims, Purpose::Press, free_counter));
        }
    }
}

/// The nearest bin, for an item nothing else wants.
fn push_bin(sit: &Situation, from: (i32, i32), out: &mut Vec<Goal>) {
    if let Some(g) = sit.nearest(from, &[], Purpose::Press, |s| s.k == "bin" && !blocked(s)) {
        out.push(g);
    }
}

/// Whether two cooks' purposes at one station would get in each other's way.
fn conflicts(a: Purpose, b: Purpose) -> bool {
    !matches!(
        (a, b),
        (Purpose::Fetch(_), _)
            | (_, Purpose::Fetch(_))
            | (Purpose::PlateFor(_), Purpose::PlateFor(_))
    )
}
