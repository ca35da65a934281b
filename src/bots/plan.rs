//! Choosing what a bot cook does next, from the projected view alone.
//!
//! The planner reads the frame a client would see (stations' `g`/`s`/`p`, orders, what each
//! cook holds) and lists the useful jobs in priority order: put out fires, plate ready soup,
//! clear burnt pots, serve waiting dishes, chop, carry, fetch what open orders still need,
//! wash. Teammates' goals are claims, so two bots do not chase the same job.
//!
//! This file holds the planner's words (`Goal`, `Purpose`), what it derives from a view
//! (`Situation`) and how it picks the nearest free station; what the kitchen wants is
//! measured in `demand`, and the jobs for each thing a cook may hold are listed in `jobs`.

use super::names::{blocked, dish};
use super::nav::{Nav, UNREACHABLE};
use crate::sim::items::{Ingredient, Recipe};
use crate::wire::view::{FrameView, StationView};

/// Ingredient kinds (counts and flags per kind are indexed by `ing_index`).
pub(super) const INGREDIENTS: usize = Ingredient::ALL.len();

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
    pub(super) start_pot: [bool; INGREDIENTS],
    /// The one recipe cooked ahead of its order, if any.
    pub(super) ahead: Option<Recipe>,
    /// Ingredients still wanted (pots to fill, plates to complete), before supply.
    pub(super) need: [i32; INGREDIENTS],
    /// Ingredients on their way (in hands or on counters, not on plates).
    pub(super) supply: [i32; INGREDIENTS],
    /// How many more salad assembly plates should be laid out.
    pub(super) plates_to_lay: i32,
    /// Stations a person is using or heading to (`BotTeam` predicts them): no bot takes
    /// one (for any job but fetching from a shelf), it finds another station or job.
    pub people: Vec<usize>,
    /// Stations the cook being planned for cannot reach but through a person: no job.
    pub cut_off: Vec<usize>,
    /// A person is at work in the kitchen: the bots leave plating and serving (the moments
    /// that score) to people, taking them only to save an order or a soup (`jobs`).
    pub leave_craft: bool,
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
            leave_craft: false,
        };
        sit.measure();
        sit
    }

    pub(super) fn held(&self) -> impl Iterator<Item = Option<&'static str>> + '_ {
        self.view.p.iter().map(|p| p.h)
    }

    pub(super) fn counters(&self) -> impl Iterator<Item = &StationView> + '_ {
        self.view
            .st
            .iter()
            .filter(|s| s.k == "prep" || s.k == "chop_board")
    }

    fn dist(&self, s: usize, from: (i32, i32)) -> u16 {
        self.nav.dist(s, from.0, from.1)
    }

    /// The nearest reachable station matching `pred`, not claimed by a teammate nor by a
    /// person.
    pub(super) fn nearest(
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
