//! The kitchen's state: everything the fold folds, and nothing else.
//!
//! All integers (positions in 1/1000 tile, timers as the tick they fire on, quality in
//! thousandths), all `Vec`s in a fixed order, and the round's RNG inside: two states are
//! equal exactly when their canonical bytes are, which is what `state_hash` hashes.

use super::grid::StationKind;
use super::items::{Held, Ingredient};
use super::rules::{Rules, UNIT};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoundResult {
    Won,
    Lost,
    Aborted,
}

impl RoundResult {
    pub fn name(self) -> &'static str {
        match self {
            RoundResult::Won => "won",
            RoundResult::Lost => "lost",
            RoundResult::Aborted => "aborted",
        }
    }

    pub fn parse(s: &str) -> Option<RoundResult> {
        [RoundResult::Won, RoundResult::Lost, RoundResult::Aborted]
            .into_iter()
            .find(|r| r.name() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub result: RoundResult,
    pub tick: u32,
    pub stars: u8,
    /// Ticks left on the clock when the verdict fell.
    pub ticks_left: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cook {
    pub seat: u8,
    pub x: i32,
    pub y: i32,
    /// 0 up, 1 right, 2 down, 3 left.
    pub facing: u8,
    /// The persisted move intent, thousandths per axis, magnitude ≤ 1000.
    pub intent: (i16, i16),
    pub held: Option<Held>,
    /// The station this cook is working at and what the work is.
    pub work: Option<Work>,
    pub moved: bool,
    /// Stunned while `tick < stunned_until`.
    pub stunned_until: u32,
    pub connected: bool,
    pub abandoned: bool,
    pub disconnected_at: Option<u32>,
    pub parked: bool,
    pub score: u32,
    pub dishes_served: u32,
    pub missed_contrib: u32,
}

impl Cook {
    pub fn tile(&self) -> (i32, i32) {
        (self.x.div_euclid(UNIT), self.y.div_euclid(UNIT))
    }

    pub fn stunned(&self, tick: u32) -> bool {
        tick < self.stunned_until
    }

    /// Whether this cook takes part in collisions and presses.
    pub fn active(&self) -> bool {
        self.connected && !self.abandoned
    }
}

/// Work that goes on by itself while the cook stands still facing the station.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkKind {
    Chop,
    Wash,
    Extinguish,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    pub station: u16,
    pub kind: WorkKind,
}

/// A stove's pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pot {
    Empty,
    Filling {
        ing: Ingredient,
        n: u8,
    },
    /// `t` ticks of cooking done.
    Cooking {
        ing: Ingredient,
        t: u32,
    },
    /// `t` ticks since it was ready.
    Ready {
        ing: Ingredient,
        t: u32,
    },
    Burning {
        ing: Ingredient,
        t: u32,
    },
    Burnt,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Content {
    Shelf(Ingredient),
    /// What lies on the board and the chop progress (ticks) of a raw item.
    Board {
        item: Option<Held>,
        chop: u32,
    },
    Stove(Pot),
    Prep(Option<Held>),
    Serve,
    /// Clean and dirty plates, and the wash progress (ticks) of the plate being washed.
    Sink {
        clean: u8,
        dirty: u8,
        wash: u32,
    },
    Bin,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Station {
    pub content: Content,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub id: u32,
    pub recipe: super::items::Recipe,
    /// The order's value (rush orders are worth 1.5×).
    pub pts: u32,
    pub ticks_left: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fire {
    pub station: u16,
    pub spread_at: u32,
    /// Extinguishing work done, in ticks.
    pub progress: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spill {
    pub x: u16,
    pub y: u16,
    pub expires_at: u32,
    /// Seats this spill has already tripped (bit per seat).
    pub tripped: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cart {
    /// The waypoint the cart is heading to.
    pub next: u16,
    pub x: i32,
    pub y: i32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub served: u32,
    pub missed: u32,
    pub wasted: u32,
    pub lost_items: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KitchenState {
    /// Ticks stepped so far; the state is "at tick `tick`".
    pub tick: u32,
    pub score: u32,
    pub streak: u32,
    pub longest_streak: u32,
    pub cooks: Vec<Cook>,
    pub stations: Vec<Station>,
    pub orders: Vec<Order>,
    pub next_order_id: u32,
    pub next_order_at: u32,
    /// Orders whose timer fired while every slot was taken.
    pub orders_waiting: u32,
    pub fires: Vec<Fire>,
    pub spills: Vec<Spill>,
    pub carts: Vec<Cart>,
    pub next_spill_at: u32,
    /// Ticks at which a dirty plate reaches the first sink, ascending.
    pub plate_returns: Vec<u32>,
    pub counters: Counters,
    pub verdict: Option<Verdict>,
    pub rng: Xoshiro256PlusPlus,
}

impl KitchenState {
    /// The state at tick 0: cooks on their spawns (seat `i` on spawn `i+1`), stations empty,
    /// the first sink holding the level's plates.
    pub fn new(rules: &Rules, seats: &[(u8, bool)], seed: u64) -> KitchenState {
        let grid = &rules.level.grid;
        let spawns = grid.spawns();
        let cooks = seats
            .iter()
            .map(|&(seat, connected)| {
                let (sx, sy) = spawns[seat as usize % 4];
                Cook {
                    seat,
                    x: sx as i32 * UNIT + UNIT / 2,
                    y: sy as i32 * UNIT + UNIT / 2,
                    facing: 2,
                    intent: (0, 0),
                    held: None,
                    work: None,
                    moved: false,
                    stunned_until: 0,
                    connected,
                    abandoned: false,
                    disconnected_at: (!connected).then_some(0),
                    parked: false,
                    score: 0,
                    dishes_served: 0,
                    missed_contrib: 0,
                }
            })
            .collect();
        let mut plates_left = rules.level.plates.min(255) as u8;
        let stations = grid
            .stations()
            .iter()
            .map(|site| {
                let content = match site.kind {
                    StationKind::Shelf(ing) => Content::Shelf(ing),
                    StationKind::ChopBoard => Content::Board {
                        item: None,
                        chop: 0,
                    },
                    StationKind::Stove => Content::Stove(Pot::Empty),
                    StationKind::Prep => Content::Prep(None),
                    StationKind::Serve => Content::Serve,
                    StationKind::Bin => Content::Bin,
                    StationKind::Sink => {
                        let clean = std::mem::take(&mut plates_left);
                        Content::Sink {
                            clean,
                            dirty: 0,
                            wash: 0,
                        }
                    }
                };
                Station { content }
            })
            .collect();
        let carts = rules
            .level
            .carts
            .iter()
            .map(|path| Cart {
                next: 1,
                x: path[0].0 as i32 * UNIT + UNIT / 2,
                y: path[0].1 as i32 * UNIT + UNIT / 2,
            })
            .collect();
        KitchenState {
            tick: 0,
            score: 0,
            streak: 0,
            longest_streak: 0,
            cooks,
            stations,
            orders: Vec::new(),
            next_order_id: 1,
            next_order_at: rules.first_order,
            orders_waiting: 0,
            fires: Vec::new(),
            spills: Vec::new(),
            carts,
            next_spill_at: if rules.spill_every == 0 {
                u32::MAX
            } else {
                rules.spill_every
            },
            plate_returns: Vec::new(),
            counters: Counters::default(),
            verdict: None,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    pub fn cook(&self, seat: u8) -> Option<&Cook> {
        self.cooks.iter().find(|c| c.seat == seat)
    }

    pub fn cook_index(&self, seat: u8) -> Option<usize> {
        self.cooks.iter().position(|c| c.seat == seat)
    }

    pub fn fire_on(&self, station: usize) -> Option<usize> {
        self.fires
            .iter()
            .position(|f| f.station as usize == station)
    }

    pub fn ticks_left(&self, rules: &Rules) -> u32 {
        match self.verdict {
            Some(v) => v.ticks_left,
            None => rules.time_limit.saturating_sub(self.tick),
        }
    }

    /// The canonical bytes of the whole state (RNG included), written into `out` (cleared
    /// first): bincode of the derived encoding, in which every collection is an ordered
    /// `Vec`. Left empty if the encoding failed, which the derived encoding never does.
    fn canonical_into(&self, out: &mut Vec<u8>) {
        out.clear();
        if bincode::serde::encode_into_std_write(self, out, bincode::config::standard()).is_err() {
            out.clear();
        }
    }

    /// A 64-bit digest (XXH3) of the canonical bytes: equal states, equal hashes, on every
    /// machine. It catches divergence; it is not a security measure.
    pub fn state_hash(&self) -> u64 {
        self.state_hash_in(&mut Vec::new())
    }

    /// `state_hash`, with the canonical bytes encoded into `scratch`, which the caller
    /// keeps: a live room hashes its state every tick, and growing a fresh buffer to the
    /// state's size each time was most of the hash's cost.
    pub fn state_hash_in(&self, scratch: &mut Vec<u8>) -> u64 {
        self.canonical_into(scratch);
        xxhash_rust::xxh3::xxh3_64(scratch)
    }
}

/// A uniform draw in `[lo, hi]` from the round's RNG (widening multiply; no float).
pub fn draw_range(rng: &mut Xoshiro256PlusPlus, lo: u32, hi: u32) -> u32 {
    use rand_xoshiro::rand_core::Rng;
    let span = (hi - lo) as u64 + 1;
    let r = rng.next_u64();
    lo + ((r as u128 * span as u128) >> 64) as u32
}
