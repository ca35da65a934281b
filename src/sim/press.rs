//! What a press does at each kind of station (GAME-RULES.md's stations table).
//!
//! A press targets the station the cook faces. A fire on it turns any press into
//! extinguishing; otherwise the station's kind and the cook's hands decide. A press that
//! cannot do anything is a `denied` event with its reason, never a silent no-op.

use super::events::{Event, EventKind, Payload, reason};
use super::items::{Held, Item};
use super::movement::faced_tile;
use super::orders::serve;
use super::rules::Rules;
use super::state::{Content, KitchenState, Pot, Work, WorkKind};

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
    let deny = |events: &mut Vec<Event>, why| {
        events.push(Event::at_tile(
            EventKind::Denied,
            site.x,
            site.y,
            denied(seat, why),
        ))
    };
    if pressed[si] {
        deny(events, reason::BUSY);
        return;
    }
    pressed[si] = true;
    let someone_else_works = state
        .cooks
        .iter()
        .any(|c| c.seat != seat && c.work.is_some_and(|w| w.station as usize == si));
    if state.fire_on(si).is_some() {
        if someone_else_works {
            deny(events, reason::BUSY);
        } else {
            state.cooks[ci].work = Some(Work {
                station: si as u16,
                kind: WorkKind::Extinguish,
            });
        }
        return;
    }
    let held = state.cooks[ci].held;
    if matches!(state.stations[si].content, Content::Serve) {
        let served = match held {
            Some(Held {
                item: Item::Dish(recipe),
                quality,
            }) => {
                if serve(state, rules, ci, recipe, quality, (site.x, site.y), events) {
                    state.cooks[ci].held = None;
                    return;
                }
                reason::NO_ORDER
            }
            _ => reason::WRONG_ITEM,
        };
        deny(events, served);
        return;
    }
    let station = &mut state.stations[si];
    let outcome: Result<Option<Held>, &'static str> = match &mut station.content {
        Content::Shelf(ing) => match held {
            None => Ok(Some(Held::fresh(Item::Raw(*ing)))),
            Some(h) if h.item == Item::Raw(*ing) => Ok(None),
            Some(_) => Err(reason::HANDS_FULL),
        },
        Content::Board { item, chop } => match (held, *item) {
            (Some(h), None) => {
                *item = Some(h);
                *chop = 0;
                Ok(None)
            }
            (
                None,
                Some(Held {
                    item: Item::Raw(_), ..
                }),
            ) => {
                if someone_else_works {
                    Err(reason::BUSY)
                } else {
                    state.cooks[ci].work = Some(Work {
                        station: si as u16,
                        kind: WorkKind::Chop,
                    });
                    return;
                }
            }
            (None, Some(on_board)) => {
                *item = None;
                *chop = 0;
                Ok(Some(on_board))
            }
            (Some(h), Some(on_board)) => match h.item.with_salad_ingredient(on_board.item) {
                Some(plated) => {
                    *item = None;
                    Ok(Some(Held {
                        item: plated,
                        quality: h.quality,
                    }))
                }
                None => Err(reason::HANDS_FULL),
            },
            (None, None) => Err(reason::WRONG_ITEM),
        },
        Content::Stove(pot) => match (held.map(|h| h.item), *pot) {
            (Some(Item::Chopped(ing)), Pot::Empty) if ing.soup().is_some() => {
                *pot = Pot::Filling { ing, n: 1 };
                Ok(None)
            }
            (Some(Item::Chopped(ing)), Pot::Filling { ing: in_pot, n }) if ing == in_pot => {
                *pot = if n + 1 >= 3 {
                    Pot::Cooking { ing, t: 0 }
                } else {
                    Pot::Filling { ing, n: n + 1 }
                };
                Ok(None)
            }
            (Some(Item::Plate(0)), Pot::Ready { ing, .. }) => {
                *pot = Pot::Empty;
                Ok(Some(Held {
                    item: Item::Dish(soup_of(ing)),
                    quality: 1000,
                }))
            }
            (Some(Item::Plate(0)), Pot::Burning { ing, t }) => {
                *pot = Pot::Empty;
                Ok(Some(Held {
                    item: Item::Dish(soup_of(ing)),
                    quality: burning_quality(t, rules.burn),
                }))
            }
            (None, Pot::Burnt) => {
                *pot = Pot::Empty;
                state.counters.wasted += 1;
                events.push(Event::at_tile(
                    EventKind::Wasted,
                    site.x,
                    site.y,
                    Payload {
                        i: Some(seat),
                        it: Some("soup_burnt"),
                        ..Payload::default()
                    },
                ));
                Ok(None)
            }
            _ => Err(reason::WRONG_ITEM),
        },
        Content::Prep(slot) => match (held, *slot) {
            (Some(h), None) => {
                *slot = Some(h);
                Ok(None)
            }
            (None, Some(on_prep)) => {
                *slot = None;
                Ok(Some(on_prep))
            }
            (Some(h), Some(on_prep)) => {
                if let Some(plated) = h.item.with_salad_ingredient(on_prep.item) {
                    *slot = None;
                    Ok(Some(Held {
                        item: plated,
                        quality: h.quality,
                    }))
                } else if let Some(plated) = on_prep.item.with_salad_ingredient(h.item) {
                    *slot = Some(Held {
                        item: plated,
                        quality: on_prep.quality,
                    });
                    Ok(None)
                } else {
                    Err(reason::WRONG_ITEM)
                }
            }
            (None, None) => Err(reason::WRONG_ITEM),
        },
        Content::Serve => Err(reason::WRONG_ITEM), // handled above
        Content::Sink { clean, dirty, .. } => match held.map(|h| h.item) {
            None if *clean > 0 => {
                *clean -= 1;
                Ok(Some(Held::fresh(Item::Plate(0))))
            }
            None if *dirty > 0 => {
                if someone_else_works {
                    Err(reason::BUSY)
                } else {
                    state.cooks[ci].work = Some(Work {
                        station: si as u16,
                        kind: WorkKind::Wash,
                    });
                    return;
                }
            }
            Some(Item::Plate(0)) => {
                *clean = clean.saturating_add(1);
                Ok(None)
            }
            Some(Item::PlateDirty) => {
                *dirty = dirty.saturating_add(1);
                Ok(None)
            }
            _ => Err(reason::WRONG_ITEM),
        },
    };
    match outcome {
        Ok(now_held) => state.cooks[ci].held = now_held,
        Err(why) => deny(events, why),
    }
}

fn soup_of(ing: super::items::Ingredient) -> super::items::Recipe {
    ing.soup().unwrap_or(super::items::Recipe::TomatoSoup)
}

/// A burning soup's quality: 1.0 falling to 0.5 over `burn` ticks.
pub fn burning_quality(t: u32, burn: u32) -> u16 {
    (1000 - (500 * t.min(burn) as u64 / burn.max(1) as u64) as u32) as u16
}
