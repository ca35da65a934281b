//! A level's numbers turned into the sim's integer units for one `tick_hz`.
//!
//! Durations become whole ticks once, here (round half up), and speeds become units per
//! tick (1 tile = 1000 units). After this point nothing in the sim touches a float.

use super::level::Level;

/// Units per tile.
pub const UNIT: i32 = 1000;
/// A cook's and a cart's radius, in units.
pub const RADIUS: i32 = 350;
/// The longest move a cook makes in one collision sub-step (0.25 tile).
pub const MAX_SUBSTEP: i32 = 250;
/// Seconds an empty order rail waits, at most, before its next order opens.
pub const REFILL_S: f64 = 1.0;
/// The tip of a dish served the tick its order opened; it falls with the order's time left.
pub const TIP_MAX: u64 = 20;
/// Seconds of disconnection before a cook's item is parked.
pub const PARK_AFTER_S: f64 = 3.0;

/// Seconds to whole ticks, half up. Inputs are validated finite and non-negative at load.
pub fn secs_to_ticks(seconds: f64, tick_hz: u32) -> u32 {
    (seconds * tick_hz as f64 + 0.5).floor() as u32
}

#[derive(Clone, Debug)]
pub struct Rules {
    pub level: Level,
    pub tick_hz: u32,
    pub time_limit: u32,
    pub speed: i32,
    pub cart_speed: i32,
    pub chop: u32,
    pub cook: u32,
    pub burn_grace: u32,
    pub burn: u32,
    pub wash: u32,
    pub extinguish: u32,
    pub plate_return: u32,
    pub fire_spread: u32,
    pub max_fires: usize,
    pub spill_life: u32,
    pub spill_every: u32,
    pub slip_stun: u32,
    pub cart_stun: u32,
    pub park: u32,
    pub first_order: u32,
    /// Ticks an empty rail waits, at most, for its next order (`REFILL_S`); 0: no refill
    /// (sim version 1).
    pub refill: u32,
    /// The tip of a dish served the tick its order opened (`TIP_MAX`; 10 in sim
    /// version 1).
    pub tip_max: u64,
    pub interval: (u32, u32),
    pub max_orders: usize,
    pub deadline: u32,
    pub miss_penalty: u32,
    /// (start tick, end tick) of each rush window.
    pub rushes: Vec<(u32, u32)>,
}

impl Rules {
    pub fn new(level: Level, tick_hz: u32) -> Rules {
        let t = |s: f64| secs_to_ticks(s, tick_hz);
        let per_tick =
            |tiles_per_s: f64| ((tiles_per_s * UNIT as f64) / tick_hz as f64 + 0.5).floor() as i32;
        let tuning = &level.tuning;
        let rush_len = t(level.rush_len_s).max(1);
        Rules {
            tick_hz,
            time_limit: t(level.time_limit_s).max(1),
            speed: per_tick(tuning.max_speed).max(1),
            cart_speed: per_tick(tuning.cart_speed).max(1),
            chop: t(tuning.chop_s).max(1),
            cook: t(tuning.cook_s).max(1),
            burn_grace: t(tuning.burn_grace_s).max(1),
            burn: t(tuning.burn_s).max(1),
            wash: t(tuning.wash_s).max(1),
            extinguish: t(tuning.extinguish_s).max(1),
            plate_return: t(tuning.plate_return_s),
            fire_spread: t(tuning.fire_spread_s).max(1),
            max_fires: tuning.max_fires as usize,
            spill_life: t(tuning.spill_life_s).max(1),
            spill_every: t(level.spill_every_s),
            slip_stun: t(tuning.slip_stun_s),
            cart_stun: t(tuning.cart_stun_s),
            park: t(PARK_AFTER_S),
            first_order: t(level.first_order_s),
            refill: t(REFILL_S).max(1),
            tip_max: TIP_MAX,
            interval: (t(level.interval_s[0]).max(1), t(level.interval_s[1]).max(1)),
            max_orders: level.max_orders as usize,
            deadline: t(level.deadline_s).max(1),
            miss_penalty: level.miss_penalty,
            rushes: level
                .rush_at_s
                .iter()
                .map(|&s| (t(s), t(s) + rush_len))
                .collect(),
            level,
        }
    }

    /// The rules as sim version `version` played them: version 1 (before the refilling
    /// rail and the tip of 20) had no refill and a tip of up to 10, so its replays still
    /// fold the same.
    pub fn for_sim_version(mut self, version: u32) -> Rules {
        if version < 2 {
            self.refill = 0;
            self.tip_max = 10;
        }
        self
    }

    /// Ticks to hundredths of a second (for the wire's 2-decimal seconds).
    pub fn ticks_to_centis(&self, ticks: u32) -> i64 {
        let num = ticks as i64 * 100;
        let hz = self.tick_hz as i64;
        (2 * num + hz) / (2 * hz)
    }

    pub fn points(&self, recipe: super::items::Recipe) -> u32 {
        self.level.points_of(recipe)
    }
}
