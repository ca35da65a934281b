//! What a round came to: the figures its end is told by.
//!
//! One projection of a decided (or cut-short) state feeds every place a round's end is
//! shown: the `round` frame (`wire::messages`), the history's row (`store`), and
//! `undercooked replay`'s print-out, so the three cannot disagree.

use super::rules::Rules;
use super::state::{Counters, KitchenState, RoundResult};

/// One cook's share of the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CookSummary {
    pub seat: u8,
    pub score: u32,
    pub dishes_served: u32,
    pub missed_contrib: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundSummary {
    pub level_id: String,
    pub level_order: u32,
    pub level_name: String,
    /// The verdict, `None` while the round is undecided (a file cut short).
    pub result: Option<RoundResult>,
    pub score: u32,
    pub target: u32,
    pub stars: u8,
    pub ticks: u32,
    pub tick_hz: u32,
    /// Time left on the clock, in hundredths of a second (half up).
    pub time_left_centis: i64,
    pub counters: Counters,
    pub longest_streak: u32,
    /// Seat order.
    pub cooks: Vec<CookSummary>,
}

impl RoundSummary {
    pub fn of(state: &KitchenState, rules: &Rules) -> RoundSummary {
        let level = &rules.level;
        RoundSummary {
            level_id: level.id.clone(),
            level_order: level.order,
            level_name: level.name.clone(),
            result: state.verdict.map(|v| v.result),
            score: state.score,
            target: level.target_score,
            stars: state.verdict.map_or(0, |v| v.stars),
            ticks: state.tick,
            tick_hz: rules.tick_hz,
            time_left_centis: rules.ticks_to_centis(state.ticks_left(rules)),
            counters: state.counters,
            longest_streak: state.longest_streak,
            cooks: state
                .cooks
                .iter()
                .map(|c| CookSummary {
                    seat: c.seat,
                    score: c.score,
                    dishes_served: c.dishes_served,
                    missed_contrib: c.missed_contrib,
                })
                .collect(),
        }
    }

    /// The round as it was written to have ended (an aborted round has no stars).
    pub fn ended_as(mut self, result: RoundResult) -> RoundSummary {
        self.result = Some(result);
        if result == RoundResult::Aborted {
            self.stars = 0;
        }
        self
    }

    /// A round cut short without a verdict is aborted.
    pub fn or_aborted(self) -> RoundSummary {
        match self.result {
            Some(_) => self,
            None => self.ended_as(RoundResult::Aborted),
        }
    }

    pub fn won(&self) -> bool {
        self.result == Some(RoundResult::Won)
    }

    /// Won or lost (not aborted, not undecided).
    pub fn decided(&self) -> bool {
        matches!(self.result, Some(RoundResult::Won | RoundResult::Lost))
    }

    pub fn cook(&self, seat: u8) -> Option<&CookSummary> {
        self.cooks.iter().find(|c| c.seat == seat)
    }
}
