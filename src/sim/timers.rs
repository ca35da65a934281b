//! Everything that runs by itself each tick once the presses are done: work (chopping,
//! washing, extinguishing), pots cooking and burning, plates coming back, and the park of
//! a disconnected cook's item.

use super::events::{Event, EventKind, Payload};
use super::grid::StationKind;
use super::items::{Held, Item};
use super::movement::faced_tile;
use super::orders::schedule_plate_return;
use super::rules::Rules;
use super::state::{Content, Fire, KitchenState, Pot, WorkKind};

/// Advances each working cook's work by one tick, in seat order. Work stops when the cook
/// moved, was stunned, left, turned away, or when there is nothing left to do.
pub fn tick_work(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    let grid = &rules.level.grid;
    let tick = state.tick;
    for ci in 0..state.cooks.len() {
        let Some(work) = state.cooks[ci].work else {
            continue;
        };
        let cook = &state.cooks[ci];
        let si = work.station as usize;
        let (fx, fy) = faced_tile(cook);
        let still_there = cook.active()
            && !cook.stunned(tick)
            && !cook.moved
            && grid.station_index_at(fx, fy) == Some(si);
        let seat = cook.seat;
        let site = grid.stations()[si];
        let at = (site.x, site.y);
        let keep = still_there
            && match (work.kind, state.fire_on(si)) {
                (WorkKind::Extinguish, Some(fi)) => {
                    extinguish_step(state, rules, fi, seat, at, events)
                }
                (WorkKind::Chop, None) => {
                    chop_step(&mut state.stations[si].content, rules, seat, at, events)
                }
                (WorkKind::Wash, None) => {
                    wash_step(&mut state.stations[si].content, rules, seat, at, events)
                }
                _ => false,
            };
        if !keep {
            state.cooks[ci].work = None;
        }
    }
}

/// One tick of putting out fire `fi`; false once it is out.
fn extinguish_step(
    state: &mut KitchenState,
    rules: &Rules,
    fi: usize,
    seat: u8,
    (x, y): (u16, u16),
    events: &mut Vec<Event>,
) -> bool {
    state.fires[fi].progress += 1;
    if state.fires[fi].progress < rules.extinguish {
        return true;
    }
    state.fires.remove(fi);
    let payload = Payload {
        i: Some(seat),
        ..Payload::default()
    };
    events.push(Event::at_tile(EventKind::Extinguished, x, y, payload));
    false
}

/// One tick of chopping what lies on a board; false once it is chopped (or not raw).
fn chop_step(
    content: &mut Content,
    rules: &Rules,
    seat: u8,
    (x, y): (u16, u16),
    events: &mut Vec<Event>,
) -> bool {
    let Content::Board { item, chop } = content else {
        return false;
    };
    let Some(Held {
        item: Item::Raw(ing),
        quality,
    }) = *item
    else {
        return false;
    };
    *chop += 1;
    if *chop < rules.chop {
        return true;
    }
    *item = Some(Held {
        item: Item::Chopped(ing),
        quality,
    });
    *chop = 0;
    let payload = Payload {
        i: Some(seat),
        it: Some(ing.chopped_form()),
        ..Payload::default()
    };
    events.push(Event::at_tile(EventKind::Chopped, x, y, payload));
    false
}

/// One tick of washing at a sink; washing goes on plate after plate while dirty ones wait.
fn wash_step(
    content: &mut Content,
    rules: &Rules,
    seat: u8,
    (x, y): (u16, u16),
    events: &mut Vec<Event>,
) -> bool {
    let Content::Sink { clean, dirty, wash } = content else {
        return false;
    };
    if *dirty == 0 {
        return false;
    }
    *wash += 1;
    if *wash < rules.wash {
        return true;
    }
    *wash = 0;
    *dirty -= 1;
    *clean = clean.saturating_add(1);
    let payload = Payload {
        i: Some(seat),
        ..Payload::default()
    };
    events.push(Event::at_tile(EventKind::Washed, x, y, payload));
    *dirty > 0
}

/// Pots cook, wait, burn and catch fire. A pot under a fire is frozen.
pub fn tick_stoves(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    let grid = &rules.level.grid;
    for si in 0..state.stations.len() {
        if state.fire_on(si).is_some() {
            continue;
        }
        let Content::Stove(pot) = &mut state.stations[si].content else {
            continue;
        };
        let site = grid.stations()[si];
        match *pot {
            Pot::Cooking { ing, t } => {
                if t + 1 >= rules.cook {
                    *pot = Pot::Ready { ing, t: 0 };
                    let soup = ing.soup().map_or("soup_burnt", |r| r.soup_form());
                    events.push(Event::at_tile(
                        EventKind::Cooked,
                        site.x,
                        site.y,
                        Payload {
                            it: Some(soup),
                            ..Payload::default()
                        },
                    ));
                } else {
                    *pot = Pot::Cooking { ing, t: t + 1 };
                }
            }
            Pot::Ready { ing, t } => {
                *pot = if t + 1 >= rules.burn_grace {
                    Pot::Burning { ing, t: 0 }
                } else {
                    Pot::Ready { ing, t: t + 1 }
                };
            }
            Pot::Burning { ing, t } => {
                if t + 1 >= rules.burn {
                    *pot = Pot::Burnt;
                    events.push(Event::at_tile(
                        EventKind::Burnt,
                        site.x,
                        site.y,
                        Payload {
                            it: Some("soup_burnt"),
                            ..Payload::default()
                        },
                    ));
                    state.fires.push(Fire {
                        station: si as u16,
                        spread_at: state.tick + rules.fire_spread,
                        progress: 0,
                    });
                } else {
                    *pot = Pot::Burning { ing, t: t + 1 };
                }
            }
            Pot::Empty | Pot::Filling { .. } | Pot::Burnt => {}
        }
    }
}

/// Dirty plates due now reach the first sink.
pub fn tick_plate_returns(state: &mut KitchenState, rules: &Rules) {
    let due = state
        .plate_returns
        .iter()
        .take_while(|&&t| t <= state.tick)
        .count();
    if due == 0 {
        return;
    }
    state.plate_returns.drain(..due);
    let sink = rules
        .level
        .grid
        .stations()
        .iter()
        .position(|s| s.kind == StationKind::Sink);
    if let Some(Content::Sink { dirty, .. }) = sink.map(|i| &mut state.stations[i].content) {
        *dirty = dirty.saturating_add(due as u8);
    }
}

/// Parks every cook disconnected for `park` ticks.
pub fn tick_parks(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    for ci in 0..state.cooks.len() {
        let cook = &state.cooks[ci];
        if cook.connected || cook.parked {
            continue;
        }
        if cook
            .disconnected_at
            .is_some_and(|t| t + rules.park <= state.tick)
        {
            park(state, rules, ci, events);
        }
    }
}

/// Releases a cook's item, once: onto the station it faces when that station takes a plain
/// set-down (an empty chop board or prep counter), else into `lost_items`. Never silently.
pub fn park(state: &mut KitchenState, rules: &Rules, ci: usize, events: &mut Vec<Event>) {
    let grid = &rules.level.grid;
    state.cooks[ci].parked = true;
    state.cooks[ci].work = None;
    let Some(held) = state.cooks[ci].held.take() else {
        return;
    };
    let cook = &state.cooks[ci];
    let seat = cook.seat;
    let (cx, cy) = (cook.x, cook.y);
    let (fx, fy) = faced_tile(cook);
    let payload = Payload {
        i: Some(seat),
        it: Some(held.item.short()),
        fm: Some(held.item.form_word()),
        ..Payload::default()
    };
    if let Some(si) = grid.station_index_at(fx, fy) {
        let free = state.fire_on(si).is_none();
        let slot: Option<&mut Option<Held>> = match &mut state.stations[si].content {
            Content::Board { item, chop } if item.is_none() && free => {
                *chop = 0;
                Some(item)
            }
            Content::Prep(item) if item.is_none() && free => Some(item),
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = Some(held);
            let site = grid.stations()[si];
            events.push(Event::at_tile(EventKind::Dropped, site.x, site.y, payload));
            return;
        }
    }
    state.counters.lost_items += 1;
    if held.item.is_on_plate() {
        schedule_plate_return(state, rules);
    }
    events.push(Event {
        kind: EventKind::GhostPark,
        x: cx,
        y: cy,
        payload,
    });
}
