//! Orders: arrivals drawn from the round's RNG, deadlines, serving with tips and streaks,
//! misses, and the verdict.

use super::events::{Event, EventKind, Payload};
use super::items::Recipe;
use super::rules::Rules;
use super::state::{KitchenState, Order, RoundResult, Verdict};

/// Whether a rush window is open at `tick`.
pub fn rush_active(rules: &Rules, tick: u32) -> bool {
    rules
        .rushes
        .iter()
        .any(|&(start, end)| start <= tick && tick < end)
}

/// Serves a dish to the open order with that recipe and the least time left (ties: the
/// older order). Returns false, changing nothing, when no order wants it.
pub fn serve(
    state: &mut KitchenState,
    rules: &Rules,
    ci: usize,
    recipe: Recipe,
    quality: u16,
    at: (u16, u16),
    events: &mut Vec<Event>,
) -> bool {
    let Some(oi) = state
        .orders
        .iter()
        .enumerate()
        .filter(|(_, o)| o.recipe == recipe)
        .min_by_key(|(_, o)| (o.ticks_left, o.id))
        .map(|(i, _)| i)
    else {
        return false;
    };
    let order = state.orders.remove(oi);
    let base = (order.pts as u64 * quality as u64 + 500) / 1000;
    let tip = rules.tip_max * order.ticks_left as u64 / rules.deadline as u64;
    state.streak += 1;
    state.longest_streak = state.longest_streak.max(state.streak);
    let bonus = if state.streak >= 3 { 10 } else { 0 };
    let delta = (base + tip + bonus) as u32;
    state.score += delta;
    state.counters.served += 1;
    let cook = &mut state.cooks[ci];
    cook.score += delta;
    cook.dishes_served += 1;
    let seat = cook.seat;
    schedule_plate_return(state, rules);
    events.push(Event::at_tile(
        EventKind::Served,
        at.0,
        at.1,
        Payload {
            i: Some(seat),
            oi: Some(order.id),
            pts: Some(order.pts),
            sd: Some(delta as i64),
            q: Some(quality),
            stk: Some(state.streak),
            recipe: Some(order.recipe.id()),
            ..Payload::default()
        },
    ));
    true
}

/// A plate that left the kitchen (served, or lost with a parked cook) comes back dirty to
/// the first sink `plate_return` ticks later.
pub fn schedule_plate_return(state: &mut KitchenState, rules: &Rules) {
    state
        .plate_returns
        .push(state.tick + rules.plate_return.max(1));
}

/// Deadlines, misses, arrivals.
pub fn tick_orders(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    let tick = state.tick;
    let mut i = 0;
    while i < state.orders.len() {
        let order = &mut state.orders[i];
        order.ticks_left = order.ticks_left.saturating_sub(1);
        if order.ticks_left > 0 {
            i += 1;
            continue;
        }
        let order = state.orders.remove(i);
        let before = state.score;
        state.score = state.score.saturating_sub(rules.miss_penalty);
        state.counters.missed += 1;
        state.streak = 0;
        // A miss is charged to the cooks who had the order's work in hand when it ran out
        // (docs/GAME.md), or to nobody: not to a cook who stood by, nor one busy elsewhere.
        let recipe = order.recipe;
        for cook in state
            .cooks
            .iter_mut()
            .filter(|c| c.active() && c.held.as_ref().is_some_and(|h| h.item.is_work_for(recipe)))
        {
            cook.missed_contrib += 1;
        }
        let sd = state.score as i64 - before as i64;
        events.push(Event::hud(
            EventKind::Missed,
            Payload {
                oi: Some(order.id),
                sd: Some(sd),
                ..Payload::default()
            },
        ));
    }

    let rush = rush_active(rules, tick);
    // An empty rail refills soon: with no order open or waiting (after the first), the next
    // one opens at most `refill` ticks later, so a fast team sets its own pace.
    if rules.refill > 0
        && state.orders.is_empty()
        && state.orders_waiting == 0
        && tick >= rules.first_order
    {
        state.next_order_at = state.next_order_at.min(tick + rules.refill);
    }
    if tick >= state.next_order_at {
        state.orders_waiting += 1;
        let (lo, hi) = rules.interval;
        let mut interval = super::state::draw_range(&mut state.rng, lo, hi);
        if rush {
            interval = (interval / 2).max(1);
        }
        state.next_order_at = tick + interval;
    }
    while state.orders_waiting > 0 && state.orders.len() < rules.max_orders {
        state.orders_waiting -= 1;
        let recipes = &rules.level.recipes;
        let pick = super::state::draw_range(&mut state.rng, 0, recipes.len() as u32 - 1) as usize;
        let recipe = recipes[pick];
        let points = rules.points(recipe);
        let pts = if rush { points * 3 / 2 } else { points };
        state.orders.push(Order {
            id: state.next_order_id,
            recipe,
            pts,
            ticks_left: rules.deadline,
        });
        state.next_order_id += 1;
    }
}

/// Stars from the share of the clock left: ≥ 1/2 → 3, ≥ 1/4 → 2, else 1.
pub fn stars_for(ticks_left: u32, time_limit: u32) -> u8 {
    let (left, limit) = (ticks_left as u64, time_limit as u64);
    if 2 * left >= limit {
        3
    } else if 4 * left >= limit {
        2
    } else {
        1
    }
}

/// Decides the round after a tick: won at the target, lost when the clock runs out,
/// aborted when every seat was abandoned.
pub fn decide(state: &mut KitchenState, rules: &Rules, events: &mut Vec<Event>) {
    if state.verdict.is_some() {
        return;
    }
    let left = rules.time_limit.saturating_sub(state.tick);
    let verdict = if state.score >= rules.level.target_score {
        Some((RoundResult::Won, stars_for(left, rules.time_limit)))
    } else if left == 0 {
        Some((RoundResult::Lost, 0))
    } else if !state.cooks.is_empty() && state.cooks.iter().all(|c| c.abandoned) {
        Some((RoundResult::Aborted, 0))
    } else {
        None
    };
    if let Some((result, stars)) = verdict {
        conclude(state, rules, result, stars, events);
    }
}

/// Records the verdict and its `round_end` event.
pub fn conclude(
    state: &mut KitchenState,
    rules: &Rules,
    result: RoundResult,
    stars: u8,
    events: &mut Vec<Event>,
) {
    let left = rules.time_limit.saturating_sub(state.tick);
    state.verdict = Some(Verdict {
        result,
        tick: state.tick,
        stars,
        ticks_left: left,
    });
    events.push(Event::hud(
        EventKind::RoundEnd,
        Payload {
            res: Some(result.name()),
            sc: Some(state.score),
            tgt: Some(rules.level.target_score),
            stars: Some(stars),
            ..Payload::default()
        },
    ));
}
