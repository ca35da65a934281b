//! Scripted cooks: a team of bots that play from the projected view a client gets.
//!
//! `BotTeam` controls some seats. Each tick it reads the latest `FrameView` (plus the level,
//! which is public) and returns the inputs its cooks send: a goal from the planner, a walk
//! along the navigation field, a press when beside the station. Bots are deterministic given
//! the views and their own seed, send inputs on change plus a 5 Hz keep-alive like a real
//! client, and never touch the sim's state: headless rounds, load tests and solo play with
//! bot teammates all use them the same way.

mod names;
pub mod nav;
pub mod plan;

use crate::sim::items::Recipe;
use crate::sim::movement::clamp_intent;
use crate::sim::{Level, SEATS};
use crate::wire::view::FrameView;
use nav::Nav;
use plan::{Goal, Purpose, Situation};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// One input a bot sends: the `input` message's content, as the sim takes it.
pub use crate::sim::CookInput as BotInput;

/// Ticks between keep-alive inputs (5 Hz at 20 Hz).
const KEEP_ALIVE_TICKS: u32 = 4;
/// Ticks a bot waits after a press before pressing again (the press shows in the next frame).
const PRESS_COOLDOWN: u32 = 3;

struct BotCook {
    seat: u8,
    goal: Option<Goal>,
    seq: u64,
    last_sent: Option<((i16, i16), Option<u8>)>,
    last_sent_tick: u32,
    last_press_tick: Option<u32>,
    last_pos: (i32, i32),
    stuck: u32,
    sidestep: Option<((i32, i32), u32)>,
    /// The tile centre the cook is walking to; kept until reached, so a cook on a tile
    /// border does not flip between two plans.
    waypoint: Option<(i32, i32)>,
}

pub struct BotTeam {
    nav: std::sync::Arc<Nav>,
    recipes: Vec<Recipe>,
    plates: u32,
    spawns: [(u16, u16); SEATS],
    /// Hundredths of a tile a cook covers per tick at full speed.
    step_centi: i32,
    cooks: Vec<BotCook>,
    rng: Xoshiro256PlusPlus,
}

impl BotTeam {
    pub fn new(level: &Level, tick_hz: u32, seats: &[u8], seed: u64) -> BotTeam {
        let step_centi = ((level.tuning.max_speed * 100.0) / tick_hz as f64).floor() as i32;
        BotTeam {
            nav: std::sync::Arc::new(Nav::new(&level.grid)),
            recipes: level.recipes.clone(),
            plates: level.plates,
            spawns: level.grid.spawns(),
            step_centi: step_centi.max(1),
            cooks: seats
                .iter()
                .map(|&seat| BotCook {
                    seat,
                    goal: None,
                    seq: 0,
                    last_sent: None,
                    last_sent_tick: 0,
                    last_press_tick: None,
                    last_pos: (0, 0),
                    stuck: 0,
                    sidestep: None,
                    waypoint: None,
                })
                .collect(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EED_B075),
        }
    }

    /// The inputs the team sends after seeing `view`.
    pub fn decide(&mut self, view: &FrameView) -> Vec<BotInput> {
        let nav = self.nav.clone();
        let recipes = self.recipes.clone();
        let sit = Situation::new(view, &nav, &recipes, self.plates);
        let mut out = Vec::new();
        for k in 0..self.cooks.len() {
            let seat = self.cooks[k].seat;
            let Some(me) = view.p.iter().find(|p| p.seat == seat) else {
                continue;
            };
            if me.s == "disconnected" {
                continue;
            }
            let tile = (me.x.div_euclid(100), me.y.div_euclid(100));
            let claims: Vec<Goal> = self
                .cooks
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .filter_map(|(_, c)| c.goal)
                .collect();
            let candidates = sit.candidates(tile, me.h, &claims);
            let cook = &mut self.cooks[k];
            cook.goal = match (cook.goal, candidates.first()) {
                (Some(cur), Some(best))
                    if candidates.contains(&cur)
                        && (best.purpose != Purpose::Extinguish || cur == *best) =>
                {
                    Some(cur)
                }
                (_, best) => best.copied(),
            };
            let (mv, act, face) = if me.s == "stunned" {
                ((0, 0), false, None)
            } else {
                self.steer(k, view, (me.x, me.y), tile)
            };
            let cook = &mut self.cooks[k];
            let changed = cook.last_sent != Some((mv, face));
            if act || changed || view.t >= cook.last_sent_tick + KEEP_ALIVE_TICKS {
                cook.seq += 1;
                cook.last_sent = Some((mv, face));
                cook.last_sent_tick = view.t;
                if act {
                    cook.last_press_tick = Some(view.t);
                }
                out.push(BotInput {
                    seat,
                    seq: cook.seq,
                    mv,
                    act,
                    face,
                });
            }
        }
        out
    }

    /// Each cook's current goal (for tests and debugging).
    pub fn goals(&self) -> Vec<(u8, Option<Goal>)> {
        self.cooks.iter().map(|c| (c.seat, c.goal)).collect()
    }

    /// Each cook's waypoint and sidestep (for debugging).
    pub fn debug(&self) -> Vec<String> {
        self.cooks
            .iter()
            .map(|c| {
                format!(
                    "wp {:?} side {:?} stuck {}",
                    c.waypoint, c.sidestep, c.stuck
                )
            })
            .collect()
    }

    /// Where cook `k` goes this tick and whether it presses.
    fn steer(
        &mut self,
        k: usize,
        view: &FrameView,
        pos: (i32, i32),
        tile: (i32, i32),
    ) -> ((i16, i16), bool, Option<u8>) {
        let cook = &self.cooks[k];
        let seat = cook.seat;
        // Unstick: a cook that has not moved while walking takes a random side step.
        if let Some((target, until)) = cook.sidestep {
            if view.t < until {
                return (self.walk(pos, target), false, None);
            }
            self.cooks[k].sidestep = None;
        }
        let cook = &self.cooks[k];
        let Some(goal) = cook.goal else {
            let (sx, sy) = self.spawns[seat as usize % SEATS];
            let mv = self.walk(pos, (sx as i32, sy as i32));
            return self.unstick(k, view, pos, tile, mv, &[]);
        };
        let s = goal.station;
        let d = self.nav.dist(s, tile.0, tile.1);
        if d == 0 && (pos.0.rem_euclid(100) == 0 || pos.1.rem_euclid(100) == 0) {
            // On a tile's edge as the wire rounds it: the sim may have the cook on the
            // tile before (a press from there faces nothing). Step inside first.
            let mv = self.walk(pos, tile);
            return self.unstick(k, view, pos, tile, mv, &[]);
        }
        if d == 0 {
            // Beside the station: stop, face it, press (a press needs only the tile).
            let face = self.nav.facing_to(s, tile.0, tile.1);
            let working = view.p.iter().any(|p| p.seat == seat && p.s == "working");
            let cooled = cook
                .last_press_tick
                .is_none_or(|t| view.t >= t + PRESS_COOLDOWN);
            let wait_for_soup = goal.purpose == Purpose::TakeSoup && view.st[s].s == "working";
            let press = cooled && !(goal.is_work() && working) && !wait_for_soup;
            self.cooks[k].stuck = 0;
            return ((0, 0), press, face);
        }
        // Walk downhill; around other cooks when they stand in the way.
        // Other cooks' tiles are in the way; so are the next steps of teammates with a lower
        // seat, which have the right of way (symmetric cooks would mirror each other).
        let mut others: Vec<(i32, i32)> = view
            .p
            .iter()
            .filter(|p| p.seat != seat && p.s != "disconnected")
            .map(|p| (p.x.div_euclid(100), p.y.div_euclid(100)))
            .collect();
        others.extend(
            self.cooks
                .iter()
                .filter(|c| c.seat < seat)
                .filter_map(|c| c.waypoint),
        );
        let reached = |w: (i32, i32)| {
            (pos.0 - (w.0 * 100 + 50)).abs() <= 12 && (pos.1 - (w.1 * 100 + 50)).abs() <= 12
        };
        let near = |w: (i32, i32)| (w.0 - tile.0).abs() + (w.1 - tile.1).abs() <= 1;
        let kept = self.cooks[k]
            .waypoint
            .filter(|&w| !reached(w) && near(w) && !others.contains(&w));
        let next = match kept {
            Some(w) => Some(w),
            None => {
                let options = self.nav.downhill(s, tile.0, tile.1);
                // A teammate with a higher seat walking through my next tile gives way to
                // me (it detours around my tile and waypoint), so I wait for it; anyone
                // else in the way (a lower seat, a cook standing still, a human) I go round.
                let yields_to_me = |t: (i32, i32)| {
                    view.p.iter().any(|p| {
                        p.seat > seat
                            && p.s == "moving"
                            && (p.x.div_euclid(100), p.y.div_euclid(100)) == t
                            && self.cooks.iter().any(|c| c.seat == p.seat)
                    })
                };
                match options.iter().copied().find(|t| !others.contains(t)) {
                    Some(t) => Some(t),
                    None if options.first().is_some_and(|t| yields_to_me(*t)) => None,
                    None => self
                        .nav
                        .detour(s, tile.0, tile.1, &others)
                        .or(options.first().copied()),
                }
            }
        };
        self.cooks[k].waypoint = next;
        let mv = match next {
            Some(t) => self.walk(pos, t),
            None => (0, 0),
        };
        self.unstick(k, view, pos, tile, mv, &others)
    }

    /// A cook that has not moved for a while although it tries to takes a random side step.
    fn unstick(
        &mut self,
        k: usize,
        view: &FrameView,
        pos: (i32, i32),
        tile: (i32, i32),
        mv: (i16, i16),
        others: &[(i32, i32)],
    ) -> ((i16, i16), bool, Option<u8>) {
        let cook = &mut self.cooks[k];
        if pos == cook.last_pos && mv != (0, 0) {
            cook.stuck += 1;
        } else {
            cook.stuck = 0;
        }
        cook.last_pos = pos;
        if cook.stuck >= 6 {
            cook.stuck = 0;
            let dirs = [(0, -1), (1, 0), (0, 1), (-1, 0)];
            let pick = (self.rng.next_u64() % 4) as usize;
            for n in 0..4 {
                let (dx, dy) = dirs[(pick + n) % 4];
                let t = (tile.0 + dx, tile.1 + dy);
                if self.nav.is_floor(t.0, t.1) && !others.contains(&t) {
                    self.cooks[k].sidestep = Some((t, view.t + 6));
                    self.cooks[k].waypoint = None;
                    return (self.walk(pos, t), false, None);
                }
            }
        }
        (mv, false, None)
    }

    /// A move towards the centre of tile `t`: one of eight compass directions at full speed
    /// (so a straight walk is one unchanging input), slowing only to land on the centre.
    fn walk(&self, pos: (i32, i32), t: (i32, i32)) -> (i16, i16) {
        let (dx, dy) = (t.0 * 100 + 50 - pos.0, t.1 * 100 + 50 - pos.1);
        let snap = |d: i32, other: i32| {
            if d.abs() * 3 < other.abs() {
                0
            } else {
                d.signum()
            }
        };
        let (sx, sy) = (snap(dx, dy), snap(dy, dx));
        let remaining = dx.abs().max(dy.abs());
        if remaining == 0 {
            return (0, 0);
        }
        let full = if sx != 0 && sy != 0 { 707 } else { 1000 };
        let mag = if remaining >= self.step_centi {
            full
        } else {
            full * remaining / self.step_centi
        };
        clamp_intent(sx * mag, sy * mag)
    }
}
