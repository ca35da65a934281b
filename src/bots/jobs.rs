//! The jobs a bot cook can take, best first, from what it holds (`Situation::candidates`
//! asks these): empty-handed, a plate for a soup that is ready, a burnt pot to clear, a
//! dish to serve, a board to chop, something to carry, the ingredient most wanted, a plate
//! to wash; holding something, the station that item goes to next.

use super::names::{blocked, chopped, dish, ing_index, plate_mask, raw};
use super::plan::{Goal, Purpose, Situation};
use crate::sim::items::{Ingredient, Recipe};
use crate::wire::view::StationView;

/// The share of its window (hundredths, as the frame's `l`) under which an order is about
/// to be missed: then a bot plates or serves it even beside a person at work.
const URGENT_SHARE: u16 = 40;

/// Adds a job when there is one.
fn push(out: &mut Vec<Goal>, g: Option<Goal>) {
    if let Some(g) = g {
        out.push(g);
    }
}

fn free_counter(s: &StationView) -> bool {
    s.k == "prep" && s.g.is_none() && !blocked(s)
}

impl Situation<'_> {
    fn is_open(&self, r: Recipe) -> bool {
        self.view.o.iter().any(|o| o.r == r.id())
    }

    /// Whether a bot may plate or serve a dish of `r` now: always among bots alone; beside
    /// a person at work only when the order is about to be missed (an open order of it has
    /// under `URGENT_SHARE` of its window left).
    fn may_finish(&self, r: Recipe) -> bool {
        !self.leave_craft
            || self
                .view
                .o
                .iter()
                .any(|o| o.r == r.id() && o.l <= URGENT_SHARE)
    }

    /// Whether a bot may get a plate ready for the soup in stove `s`: a soup that is done
    /// (ready or burning) is always plated, so nothing burns waiting for a person; one still
    /// cooking is left to a person at work, unless its order is about to be missed.
    fn may_plate(&self, s: &StationView) -> bool {
        s.s != "working"
            || Recipe::ALL
                .into_iter()
                .filter(|r| r.soup_ingredient().is_some())
                .find(|r| s.g == Some(r.soup_form()))
                .is_none_or(|r| self.may_finish(r))
    }

    /// Jobs for an empty-handed cook at `from`, best first.
    pub(super) fn empty_handed(&self, from: (i32, i32), claims: &[Goal], out: &mut Vec<Goal>) {
        self.soup_waiting(from, claims, out);
        push(
            out,
            self.nearest(from, claims, Purpose::ClearBurnt, |s| {
                s.k == "stove" && s.g == Some("soup_burnt") && !blocked(s)
            }),
        );
        push(
            out,
            self.nearest(from, claims, Purpose::Take, |s| {
                dish(s.g).is_some_and(|r| self.is_open(r) && self.may_finish(r)) && !blocked(s)
            }),
        );
        push(
            out,
            self.nearest(from, claims, Purpose::Chop, |s| {
                s.k == "chop_board" && raw(s.g).is_some() && !blocked(s)
            }),
        );
        push(
            out,
            self.nearest(from, claims, Purpose::Take, |s| {
                s.k == "chop_board" && chopped(s.g).is_some() && !blocked(s)
            }),
        );
        push(
            out,
            self.nearest(from, claims, Purpose::Take, |s| {
                s.k == "prep" && raw(s.g).is_some() && !blocked(s)
            }),
        );
        push(
            out,
            self.nearest(from, claims, Purpose::Take, |s| {
                s.k == "prep"
                    && !blocked(s)
                    && chopped(s.g).is_some_and(|i| self.need[ing_index(i)] > 0)
            }),
        );
        if self.plates_to_lay > 0
            && !claims
                .iter()
                .any(|c| c.purpose == Purpose::PlateFor(usize::MAX))
        {
            push(
                out,
                self.nearest(from, claims, Purpose::PlateFor(usize::MAX), |s| {
                    s.k == "sink" && s.g == Some("plate")
                }),
            );
        }
        push(out, self.fetch(from, claims));
        push(
            out,
            self.nearest(from, claims, Purpose::Wash, |s| {
                s.k == "sink" && s.g == Some("plate_dirty") && !blocked(s)
            }),
        );
    }

    /// A soup that is ready, burning or nearly done wants a plate (and, with no clean plate
    /// anywhere, a plate washed now, or it burns).
    fn soup_waiting(&self, from: (i32, i32), claims: &[Goal], out: &mut Vec<Goal>) {
        let waiting = self.view.st.iter().enumerate().find(|(i, s)| {
            s.k == "stove"
                && !blocked(s)
                && (s.s == "ready" || s.s == "burning" || (s.s == "working" && s.p >= 60))
                && self.may_plate(s)
                && !claims.iter().any(|c| {
                    matches!(c.purpose, Purpose::PlateFor(x) if x == *i)
                        || (c.station == *i && c.purpose == Purpose::TakeSoup)
                })
        });
        let Some((stove, _)) = waiting else { return };
        let plate = self.nearest(from, claims, Purpose::PlateFor(stove), |s| {
            s.k == "sink" && s.g == Some("plate")
        });
        let clean_anywhere = self.view.st.iter().any(|s| s.g == Some("plate"))
            || self.held().any(|h| h == Some("plate"));
        if plate.is_none() && !clean_anywhere {
            push(
                out,
                self.nearest(from, claims, Purpose::Wash, |s| {
                    s.k == "sink" && s.g == Some("plate_dirty") && !blocked(s)
                }),
            );
        }
        push(out, plate);
    }

    /// The most wanted ingredient from its shelf, as long as a board will be free for it.
    fn fetch(&self, from: (i32, i32), claims: &[Goal]) -> Option<Goal> {
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
        if raw_in_hands + fetching >= free_boards.max(1) {
            return None;
        }
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
        let (_, ing) = best?;
        self.nearest(from, &[], Purpose::Fetch(ing), |s| {
            s.k == "spawn_shelf" && raw(s.g) == Some(ing)
        })
    }

    /// Jobs for a cook at `from` holding `held`: where that item goes next, best first.
    pub(super) fn holding(
        &self,
        from: (i32, i32),
        held: &str,
        claims: &[Goal],
        out: &mut Vec<Goal>,
    ) {
        if let Some(ing) = raw(Some(held)) {
            push(
                out,
                self.nearest(from, claims, Purpose::Press, |s| {
                    s.k == "chop_board" && s.g.is_none() && !blocked(s)
                }),
            );
            if self.need[ing_index(ing)] <= 0 {
                push(
                    out,
                    self.nearest(from, claims, Purpose::Press, |s| {
                        s.k == "spawn_shelf" && raw(s.g) == Some(ing)
                    }),
                );
            }
        } else if let Some(ing) = chopped(Some(held)) {
            self.holding_chopped(from, ing, claims, out);
        } else if held == "plate" {
            self.holding_plate(from, claims, out);
        } else if let Some(r) = dish(Some(held)) {
            self.holding_dish(from, r, claims, out);
        } else if held == "plate_dirty" {
            push(
                out,
                self.nearest(from, &[], Purpose::Press, |s| s.k == "sink"),
            );
        } else {
            // A partly filled plate: lay it out as an assembly.
            push(
                out,
                self.nearest(from, claims, Purpose::Press, free_counter),
            );
        }
    }

    /// A chopped ingredient: a pot filling with it, an empty pot to start, a salad plate
    /// that wants it, else a free counter.
    fn holding_chopped(
        &self,
        from: (i32, i32),
        ing: Ingredient,
        claims: &[Goal],
        out: &mut Vec<Goal>,
    ) {
        let filling = |s: &StationView| {
            s.k == "stove" && !blocked(s) && chopped(s.g) == Some(ing) && s.s == "idle"
        };
        push(out, self.nearest(from, &[], Purpose::Press, filling));
        let soup = ing.soup();
        if soup.is_some_and(|r| self.recipes.contains(&r)) && self.start_pot[ing_index(ing)] {
            push(
                out,
                self.nearest(from, claims, Purpose::Press, |s| {
                    s.k == "stove" && s.g.is_none() && !blocked(s)
                }),
            );
        }
        if let Some(bit) = ing.salad_bit() {
            let garden = self.recipes.contains(&Recipe::GardenSalad);
            let salad = self.recipes.contains(&Recipe::Salad);
            push(
                out,
                self.nearest(from, &[], Purpose::Press, |s| {
                    s.k == "prep"
                        && !blocked(s)
                        && plate_mask(s.g).is_some_and(|m| {
                            m & bit == 0
                                && (bit != 2 || garden)
                                && (m != 5 || garden)
                                && (garden || salad)
                        })
                }),
            );
        }
        push(
            out,
            self.nearest(from, claims, Purpose::Press, free_counter),
        );
    }

    /// A clean plate: a ready soup, one cooking, a counter to lay it for a salad, else back
    /// to the sink.
    fn holding_plate(&self, from: (i32, i32), claims: &[Goal], out: &mut Vec<Goal>) {
        let stove_ready = |s: &StationView| {
            s.k == "stove"
                && !blocked(s)
                && (s.s == "ready" || s.s == "burning")
                && self.may_plate(s)
        };
        push(
            out,
            self.nearest(from, claims, Purpose::TakeSoup, stove_ready),
        );
        let cooking = |s: &StationView| {
            s.k == "stove" && !blocked(s) && s.s == "working" && self.may_plate(s)
        };
        push(out, self.nearest(from, claims, Purpose::TakeSoup, cooking));
        if self.plates_to_lay > 0
            || self
                .recipes
                .iter()
                .any(|r| r.soup_ingredient().is_none() && self.is_open(*r))
        {
            push(
                out,
                self.nearest(from, claims, Purpose::Press, free_counter),
            );
        }
        push(
            out,
            self.nearest(from, claims, Purpose::Press, |s| s.k == "sink"),
        );
    }

    /// A dish: the serve window when an order wants it. Kept on a counter: a dish an order
    /// wants, the one cooked ahead, or a plain salad that an onion makes a garden salad.
    /// Anything else (or with no counter free) goes in the bin, which keeps the plate.
    fn holding_dish(&self, from: (i32, i32), r: Recipe, claims: &[Goal], out: &mut Vec<Goal>) {
        let open = self.is_open(r);
        // Beside a person at work the serve is theirs: the dish goes on a counter for them
        // (below), unless its order is about to be missed.
        if open && self.may_finish(r) {
            push(
                out,
                self.nearest(from, &[], Purpose::Press, |s| s.k == "serve"),
            );
        }
        let finish = r == Recipe::Salad && self.recipes.contains(&Recipe::GardenSalad);
        if open || finish || self.ahead == Some(r) {
            push(
                out,
                self.nearest(from, claims, Purpose::Press, free_counter),
            );
        }
        if !open {
            push(
                out,
                self.nearest(from, &[], Purpose::Press, |s| s.k == "bin" && !blocked(s)),
            );
        }
    }
}
