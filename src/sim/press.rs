//! What a press does at each kind of station (docs/GAME.md's stations table).
//!
//! A press targets the station the cook faces. A fire on it turns any press into
//! extinguishing; otherwise the station's kind and the cook's hands decide, one function per
//! kind below. Each returns an `Outcome` and `press` applies it, so a press that cannot do
//! anything is always a `denied` event with its reason, never a silent no-op.

use super::events::{Event, EventKind, Payload, reason};
use super::items::{Held, Ingredient, Item, Recipe};
use super::movement::faced_tile;
use super::orders::serve;
use super::rules::Rules;
use super::state::{Content, KitchenState, Pot, Work, WorkKind};

/// What a station made of a press.
enum Outcome {
    /// The cook's hands hold this afterwards (`None`: empty-handed).
    Holds(Option<Held>),
    /// The cook starts working the station; its hands are unchanged.
    Works(WorkKind),
    /// Something was thrown away (a burnt pot cleared, an item binned): `item` is what,
    /// and the cook holds `left` afterwards (a binned dish leaves its plate).
    Wasted {
        item: &'static str,
        left: Option<Held>,
    },
    Denied(&'static str),
}

fn denied(seat: u8, why: &'static str) -> Payload {
    Payload {
        i: Some(seat),
        r: Some(why),
        ..Payload::default()
    }
}

/// Handles one cook's press. `pressed` marks the stations already pressed this tick: the
/// first press on a station wins, the others are `busy`.
pub fn press(
    state: &mut KitchenState,
    rules: &Rules,
    ci: usize,
    pressed: &mut [bool],
    events: &mut Vec<Event>,
) {
    let grid = &rules.level.grid;
    let cook = &state.cooks[ci];
    let seat = cook.seat;
    let (tx, ty) = faced_tile(cook);
    let Some(si) = grid.station_index_at(tx, ty) else {
        events.push(Event {
            kind: EventKind::Denied,
            x: cook.x,
            y: cook.y,
            payload: denied(seat, reason::NO_STATION),
        });
        return;
    };
    let site = grid.stations()[si];
    if pressed[si] {
        events.push(Event::at_tile(
            EventKind::Denied,
            site.x,
            site.y,
            denied(seat, reason::BUSY),
        ));
        return;
    }
    pressed[si] = true;
    let busy = state
        .cooks
        .iter()
        .any(|c| c.seat != seat && c.work.is_some_and(|w| w.station as usize == si));
    let held = state.cooks[ci].held;
    let outcome = if state.fire_on(si).is_some() {
        if busy {
            Outcome::Denied(reason::BLOCKED) // someone is already putting this fire out
        } else {
            Outcome::Works(WorkKind::Extinguish)
        }
    } else if matches!(state.stations[si].content, Content::Serve) {
        serve_dish(state, rules, ci, held, (site.x, site.y), events)
    } else {
        match &mut state.stations[si].content {
            Content::Serve => Outcome::Denied(reason::WRONG_ITEM), // served above
            Content::Shelf(ing) => shelf(*ing, held),
            Content::Board { item, chop } => board(item, chop, held, busy),
            Content::Stove(pot) => stove(pot, held, rules),
            Content::Prep(slot) => prep(slot, held),
            Content::Sink { clean, dirty, .. } => sink(clean, dirty, held, busy),
            Content::Bin => bin(held),
        }
    };
    let at_site = |kind, payload| Event::at_tile(kind, site.x, site.y, payload);
    match outcome {
        Outcome::Holds(now) => state.cooks[ci].held = now,
        Outcome::Works(kind) => {
            state.cooks[ci].work = Some(Work {
                station: si as u16,
                kind,
            })
        }
        Outcome::Wasted { item, left } => {
            state.counters.wasted += 1;
            let payload = Payload {
                i: Some(seat),
                it: Some(item),
                ..Payload::default()
            };
            events.push(at_site(EventKind::Wasted, payload));
            state.cooks[ci].held = left;
        }
        Outcome::Denied(why) => events.push(at_site(EventKind::Denied, denied(seat, why))),
    }
}

/// The serve window takes a dish that an open order wants.
fn serve_dish(
    state: &mut KitchenState,
    rules: &Rules,
    ci: usize,
    held: Option<Held>,
    at: (u16, u16),
    events: &mut Vec<Event>,
) -> Outcome {
    match held {
        Some(Held {
            item: Item::Dish(recipe),
            quality,
        }) => {
            if serve(state, rules, ci, recipe, quality, at, events) {
                Outcome::Holds(None)
            } else {
                Outcome::Denied(reason::NO_ORDER)
            }
        }
        _ => Outcome::Denied(reason::WRONG_ITEM),
    }
}

/// A shelf hands out its raw ingredient, and takes the same one back.
fn shelf(ing: Ingredient, held: Option<Held>) -> Outcome {
    match held {
        None => Outcome::Holds(Some(Held::fresh(Item::Raw(ing)))),
        Some(h) if h.item == Item::Raw(ing) => Outcome::Holds(None),
        Some(_) => Outcome::Denied(reason::HANDS_FULL),
    }
}

/// A board takes any item, is worked while it holds a raw one, gives its item back, and
/// plates a salad ingredient onto a held plate.
fn board(item: &mut Option<Held>, chop: &mut u32, held: Option<Held>, busy: bool) -> Outcome {
    match (held, *item) {
        (Some(h), None) => {
            *item = Some(h);
            *chop = 0;
            Outcome::Holds(None)
        }
        (
            None,
            Some(Held {
                item: Item::Raw(_), ..
            }),
        ) if busy => Outcome::Denied(reason::BUSY),
        (
            None,
            Some(Held {
                item: Item::Raw(_), ..
            }),
        ) => Outcome::Works(WorkKind::Chop),
        (None, Some(on_board)) => {
            *item = None;
            *chop = 0;
            Outcome::Holds(Some(on_board))
        }
        (Some(h), Some(on_board)) => match h.item.with_salad_ingredient(on_board.item) {
            Some(plated) => {
                *item = None;
                Outcome::Holds(Some(Held {
                    item: plated,
                    quality: h.quality,
                }))
            }
            None => Outcome::Denied(reason::HANDS_FULL),
        },
        (None, None) => Outcome::Denied(reason::WRONG_ITEM),
    }
}

/// A stove's pot fills with three of one chopped soup ingredient (a soup the level orders:
/// an empty pot refuses any other, so no pot is ever started that nobody wants), is emptied
/// onto a clean plate once ready (or burning, at the falling quality), and a burnt pot is
/// thrown out.
fn stove(pot: &mut Pot, held: Option<Held>, rules: &Rules) -> Outcome {
    let burn = rules.burn;
    match (held.map(|h| h.item), *pot) {
        (Some(Item::Chopped(ing)), Pot::Empty) => match ing.soup() {
            Some(soup) if rules.level.recipes.contains(&soup) => {
                *pot = Pot::Filling { ing, n: 1 };
                Outcome::Holds(None)
            }
            Some(_) => Outcome::Denied(reason::NO_ORDER),
            None => Outcome::Denied(reason::WRONG_ITEM),
        },
        (Some(Item::Chopped(ing)), Pot::Filling { ing: in_pot, n }) if ing == in_pot => {
            *pot = if n + 1 >= super::items::POT_PORTIONS {
                Pot::Cooking { ing, t: 0 }
            } else {
                Pot::Filling { ing, n: n + 1 }
            };
            Outcome::Holds(None)
        }
        (Some(Item::Plate(0)), Pot::Ready { ing, .. }) => {
            *pot = Pot::Empty;
            Outcome::Holds(Some(Held {
                item: Item::Dish(soup_of(ing)),
                quality: 1000,
            }))
        }
        (Some(Item::Plate(0)), Pot::Burning { ing, t }) => {
            *pot = Pot::Empty;
            Outcome::Holds(Some(Held {
                item: Item::Dish(soup_of(ing)),
                quality: burning_quality(t, burn),
            }))
        }
        (None, Pot::Burnt) => {
            *pot = Pot::Empty;
            Outcome::Wasted {
                item: "soup_burnt",
                left: None,
            }
        }
        _ => Outcome::Denied(reason::WRONG_ITEM),
    }
}

/// A prep counter holds one item and combines salad ingredients with a plate, whichever of
/// the two is on the counter.
fn prep(slot: &mut Option<Held>, held: Option<Held>) -> Outcome {
    match (held, *slot) {
        (Some(h), None) => {
            *slot = Some(h);
            Outcome::Holds(None)
        }
        (None, Some(on_prep)) => {
            *slot = None;
            Outcome::Holds(Some(on_prep))
        }
        (Some(h), Some(on_prep)) => {
            if let Some(plated) = h.item.with_salad_ingredient(on_prep.item) {
                *slot = None;
                Outcome::Holds(Some(Held {
                    item: plated,
                    quality: h.quality,
                }))
            } else if let Some(plated) = on_prep.item.with_salad_ingredient(h.item) {
                *slot = Some(Held {
                    item: plated,
                    quality: on_prep.quality,
                });
                Outcome::Holds(None)
            } else {
                Outcome::Denied(reason::WRONG_ITEM)
            }
        }
        (None, None) => Outcome::Denied(reason::WRONG_ITEM),
    }
}

/// A sink hands out clean plates, is worked while it holds dirty ones, and takes plates of
/// either kind.
fn sink(clean: &mut u8, dirty: &mut u8, held: Option<Held>, busy: bool) -> Outcome {
    match held.map(|h| h.item) {
        None if *clean > 0 => {
            *clean -= 1;
            Outcome::Holds(Some(Held::fresh(Item::Plate(0))))
        }
        None if *dirty > 0 && busy => Outcome::Denied(reason::BUSY),
        None if *dirty > 0 => Outcome::Works(WorkKind::Wash),
        Some(Item::Plate(0)) => {
            *clean = clean.saturating_add(1);
            Outcome::Holds(None)
        }
        Some(Item::PlateDirty) => {
            *dirty = dirty.saturating_add(1);
            Outcome::Holds(None)
        }
        _ => Outcome::Denied(reason::WRONG_ITEM),
    }
}

/// A bin takes an ingredient whole, and a plate's contents (a salad in the making, a dish):
/// the plate stays in the cook's hands. Plates themselves are never thrown away.
fn bin(held: Option<Held>) -> Outcome {
    let Some(h) = held else {
        return Outcome::Denied(reason::WRONG_ITEM);
    };
    match h.item {
        Item::Raw(_) | Item::Chopped(_) => Outcome::Wasted {
            item: h.item.short(),
            left: None,
        },
        Item::Dish(_) | Item::Plate(1..) => Outcome::Wasted {
            item: h.item.short(),
            left: Some(Held::fresh(Item::Plate(0))),
        },
        Item::Plate(0) | Item::PlateDirty => Outcome::Denied(reason::WRONG_ITEM),
    }
}

fn soup_of(ing: Ingredient) -> Recipe {
    ing.soup().unwrap_or(Recipe::TomatoSoup)
}

/// A burning soup's quality: 1.0 falling to 0.5 over `burn` ticks.
pub fn burning_quality(t: u32, burn: u32) -> u16 {
    (1000 - (500 * t.min(burn) as u64 / burn.max(1) as u64) as u32) as u16
}
