//! One tick of the kitchen: `step(state, rules, inputs) -> events`.
//!
//! This is the whole game loop, in a fixed order: seat changes, intents, movement, presses
//! (arbitrated by seq, then seat), work, pots, fires, spills, carts, rush, orders, plate
//! returns, parks, the clock, the verdict. Everything it needs is passed in; it reads no
//! clock and does no I/O, so the same inputs always give the same state and events.

use super::events::{EMOTES, Event, EventKind, Payload, reason};
use super::hazards::{tick_carts, tick_fires, tick_rush, tick_spills};
use super::movement::{clamp_intent, facing_of, move_cooks};
use super::orders::{decide, tick_orders};
use super::press::press;
use super::rules::Rules;
use super::state::KitchenState;
use super::timers::{park, tick_parks, tick_plate_returns, tick_stoves, tick_work};

/// One accepted `input`, already validated and quantized by the wire layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CookInput {
    pub seat: u8,
    pub seq: u64,
    /// Thousandths per axis.
    pub mv: (i16, i16),
    pub act: bool,
    /// 0 up, 1 right, 2 down, 3 left; `None` derives it from `mv`.
    pub face: Option<u8>,
}

/// A seat-level record of the tick, applied before the inputs, in log order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatChange {
    Connected(u8),
    Disconnected(u8),
    Abandoned(u8),
    /// An emote, by its index in `EMOTES`.
    Emoted(u8, u8),
    Resynced(u8, u64),
}

/// Everything the log queued for one tick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickInputs {
    pub seat_changes: Vec<SeatChange>,
    pub inputs: Vec<CookInput>,
}

impl TickInputs {
    pub fn clear(&mut self) {
        self.seat_changes.clear();
        self.inputs.clear();
    }
}

fn seat_event(state: &KitchenState, kind: EventKind, ci: usize) -> Event {
    let c = &state.cooks[ci];
    Event {
        kind,
        x: c.x,
        y: c.y,
        payload: Payload {
            i: Some(c.seat),
            ..Payload::default()
        },
    }
}

fn apply_seat_change(
    state: &mut KitchenState,
    rules: &Rules,
    change: SeatChange,
    events: &mut Vec<Event>,
) {
    let seat = match change {
        SeatChange::Connected(s) | SeatChange::Disconnected(s) | SeatChange::Abandoned(s) => s,
        SeatChange::Emoted(s, _) | SeatChange::Resynced(s, _) => s,
    };
    let Some(ci) = state.cook_index(seat) else {
        return;
    };
    let tick = state.tick;
    let cook = &mut state.cooks[ci];
    match change {
        SeatChange::Connected(_) if !cook.connected && !cook.abandoned => {
            cook.connected = true;
            cook.disconnected_at = None;
            cook.parked = false;
            cook.intent = (0, 0);
            events.push(seat_event(state, EventKind::GhostOff, ci));
        }
        SeatChange::Disconnected(_) if cook.connected => {
            cook.connected = false;
            cook.intent = (0, 0);
            cook.work = None;
            cook.moved = false;
            cook.disconnected_at = Some(tick);
            events.push(seat_event(state, EventKind::GhostOn, ci));
        }
        SeatChange::Abandoned(_) if !cook.abandoned => {
            cook.abandoned = true;
            cook.connected = false;
            cook.intent = (0, 0);
            cook.disconnected_at.get_or_insert(tick);
            events.push(seat_event(state, EventKind::GhostOff, ci));
            if !state.cooks[ci].parked {
                park(state, rules, ci, events);
            }
        }
        SeatChange::Emoted(_, id) => {
            let mut e = seat_event(state, EventKind::Emote, ci);
            e.payload.em = Some(EMOTES[id as usize % EMOTES.len()]);
            events.push(e);
        }
        SeatChange::Resynced(_, seq) => {
            events.push(Event::hud(
                EventKind::Resync,
                Payload {
                    i: Some(seat),
                    seq: Some(seq),
                    ..Payload::default()
                },
            ));
        }
        _ => {}
    }
}

/// Advances the kitchen by one tick. A decided round does not move any more.
pub fn step(state: &mut KitchenState, rules: &Rules, inputs: &TickInputs, events: &mut Vec<Event>) {
    if state.verdict.is_some() {
        return;
    }
    for &change in &inputs.seat_changes {
        apply_seat_change(state, rules, change, events);
    }

    // Intents: the last move/face of a seat wins; any act press counts once, ordered by the
    // seq of its first pressing input, then the seat.
    let mut presses: Vec<(u64, u8)> = Vec::new();
    for input in &inputs.inputs {
        let Some(ci) = state.cook_index(input.seat) else {
            continue;
        };
        let cook = &mut state.cooks[ci];
        if !cook.active() {
            continue;
        }
        cook.intent = clamp_intent(input.mv.0 as i32, input.mv.1 as i32);
        if let Some(f) = input
            .face
            .filter(|f| *f < 4)
            .or_else(|| facing_of(cook.intent))
        {
            cook.facing = f;
        }
        if input.act && !presses.iter().any(|&(_, s)| s == input.seat) {
            presses.push((input.seq, input.seat));
        }
    }
    presses.sort_unstable();

    move_cooks(state, rules);

    let mut pressed = vec![false; state.stations.len()];
    for (_, seat) in presses {
        let Some(ci) = state.cook_index(seat) else {
            continue;
        };
        let cook = &state.cooks[ci];
        if cook.active() && cook.stunned(state.tick) {
            // A stunned cook cannot act: the press is refused, and says why.
            events.push(Event {
                kind: EventKind::Denied,
                x: cook.x,
                y: cook.y,
                payload: Payload {
                    i: Some(seat),
                    r: Some(reason::STUNNED),
                    ..Payload::default()
                },
            });
        } else if cook.active() {
            press(state, rules, ci, &mut pressed, events);
        }
    }

    tick_work(state, rules, events);
    tick_stoves(state, rules, events);
    tick_fires(state, rules);
    tick_spills(state, rules, events);
    tick_carts(state, rules, events);
    tick_rush(state, rules, events);
    tick_orders(state, rules, events);
    tick_plate_returns(state, rules);
    tick_parks(state, rules, events);

    state.tick += 1;
    decide(state, rules, events);
}
