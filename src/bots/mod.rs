//! Scripted cooks: a team of bots that play from the projected view a client gets.
//!
//! `BotTeam` controls some seats. Each tick it reads the latest `FrameView` (plus the level,
//! which is public) and returns the inputs its cooks send: a job from the planner (`plan`),
//! the next tile of a way planned with the teammates' ways (`traffic`), a press when beside
//! the station. A cook takes its tile the way the sim does (the floor of its position) and
//! never presses from a wire position on a tile edge, where the rounding hides which tile it
//! is on. Bots are deterministic given the views, send inputs on change plus a 5 Hz
//! keep-alive like a real client, and never touch the sim's state: headless rounds, load
//! tests and solo play with bot teammates all use them the same way.

pub mod human;
mod names;
pub mod nav;
pub mod plan;
pub mod traffic;

use crate::sim::grid::DIRS;
use crate::sim::items::Recipe;
use crate::sim::movement::clamp_intent;
use crate::sim::{Level, SEATS};
use crate::wire::view::FrameView;
use crate::wire::view::PlayerView;
use nav::Nav;
use plan::{Goal, Purpose, Situation};
use traffic::{Tile, Traffic, Walker};

/// One input a bot sends: the `input` message's content, as the sim takes it.
pub use crate::sim::CookInput as BotInput;

/// Ticks between keep-alive inputs (5 Hz at 20 Hz).
const KEEP_ALIVE_TICKS: u32 = 4;
/// Hundredths a cook may be off the line through the tile centres and still pass between
/// the tiles beside its way (half a tile less its radius of 0.35, less a margin).
const LANE: i32 = 12;
/// Ticks a bot waits after a press before pressing again (the press shows in the next frame).
const PRESS_COOLDOWN: u32 = 3;

struct BotCook {
    seat: u8,
    goal: Option<Goal>,
    seq: u64,
    last_sent: Option<((i16, i16), Option<u8>)>,
    last_sent_tick: u32,
    last_press_tick: Option<u32>,
    last_tile: (i32, i32),
    /// Ticks spent off its goal without changing tile.
    waited: u32,
    /// Until this tick the cook plans before its teammates (it waited too long).
    first_until: u32,
    /// Ticks kept off its goal, however often it planned first; a cook stuck this long
    /// steps back from its job for a while (so a knot of cooks comes undone).
    stuck: u32,
    /// Until this tick the cook has stepped back: no job, waiting at its parking tile.
    rest_until: u32,
}

pub struct BotTeam {
    nav: std::sync::Arc<Nav>,
    traffic: Traffic,
    recipes: Vec<Recipe>,
    plates: u32,
    /// Where each seat's cook waits when idle: the tile nearest its spawn beside no
    /// station, so an idle cook never stands where someone works.
    parking: Vec<Tile>,
    /// Distance fields to each seat's parking tile.
    spawn_fields: Vec<std::sync::Arc<Vec<u16>>>,
    tick_hz: u32,
    /// Hundredths of a tile a cook covers per tick at full speed.
    step_centi: i32,
    cooks: Vec<BotCook>,
}

impl BotTeam {
    pub fn new(level: &Level, tick_hz: u32, seats: &[u8]) -> BotTeam {
        let step_centi = ((level.tuning.max_speed * 100.0) / tick_hz as f64).floor() as i32;
        let nav = Nav::new(&level.grid);
        let spawns = level.grid.spawns();
        let parking: Vec<Tile> = spawns
            .iter()
            .map(|&(x, y)| nav.parking_near((x as i32, y as i32)))
            .collect();
        let spawn_fields = parking
            .iter()
            .map(|&t| std::sync::Arc::new(nav.field_to(&[t])))
            .collect();
        BotTeam {
            traffic: Traffic::new(&nav),
            nav: std::sync::Arc::new(nav),
            recipes: level.recipes.clone(),
            plates: level.plates,
            parking,
            spawn_fields,
            tick_hz: tick_hz.max(1),
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
                    last_tile: (-1, -1),
                    waited: 0,
                    first_until: 0,
                    stuck: 0,
                    rest_until: 0,
                })
                .collect(),
        }
    }

    /// The inputs the team sends after seeing `view`.
    pub fn decide(&mut self, view: &FrameView) -> Vec<BotInput> {
        let nav = self.nav.clone();
        let recipes = self.recipes.clone();
        let sit = Situation::new(view, &nav, &recipes, self.plates);
        // Cooks outside the team (people, other teams' bots) say nothing of their plans; one
        // standing at a station and facing it is taken to be using it.
        let outsiders: Vec<Goal> = view
            .p
            .iter()
            .filter(|p| p.s != "disconnected" && !self.cooks.iter().any(|c| c.seat == p.seat))
            .filter_map(|p| {
                let (x, y) = tile_of(p.x, p.y);
                let (dx, dy) = crate::sim::grid::DIRS.get(p.f as usize)?;
                let station = view
                    .st
                    .iter()
                    .position(|s| (s.x as i32, s.y as i32) == (x + dx, y + dy))?;
                Some(Goal {
                    station,
                    purpose: Purpose::Take,
                })
            })
            .collect();
        // Jobs first (each cook sees its teammates' jobs as claims) ...
        let mut here: Vec<Option<(&PlayerView, Tile)>> = Vec::new();
        for k in 0..self.cooks.len() {
            let seat = self.cooks[k].seat;
            let me = view
                .p
                .iter()
                .find(|p| p.seat == seat && p.s != "disconnected");
            let Some(me) = me else {
                here.push(None);
                continue;
            };
            let tile = tile_of(me.x, me.y);
            here.push(Some((me, tile)));
            let claims: Vec<Goal> = self
                .cooks
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .filter_map(|(_, c)| c.goal)
                .chain(outsiders.iter().copied())
                .collect();
            let candidates = sit.candidates(tile, me.h, &claims);
            let cook = &mut self.cooks[k];
            if view.t < cook.rest_until {
                cook.goal = None;
                continue;
            }
            cook.goal = match (cook.goal, candidates.first()) {
                (Some(cur), Some(best))
                    if candidates.contains(&cur)
                        && (best.purpose != Purpose::Extinguish || cur == *best) =>
                {
                    Some(cur)
                }
                (_, best) => best.copied(),
            };
        }
        // ... then the ways there, planned together.
        let paths = self.plan_ways(view, &here);
        let mut out = Vec::new();
        for (k, at) in here.iter().enumerate() {
            let Some((me, tile)) = *at else { continue };
            let (mv, act, face) = if me.s == "stunned" {
                ((0, 0), false, None)
            } else {
                self.steer(k, view, (me.x, me.y), tile, paths[k])
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
                    seat: cook.seat,
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

    /// Each cook's wait and priority (for debugging).
    pub fn debug(&self) -> Vec<String> {
        self.cooks
            .iter()
            .map(|c| format!("waited {} first until {}", c.waited, c.first_until))
            .collect()
    }

    /// The next tile of every cook's way (its own tile to stay), by cook.
    fn plan_ways(&mut self, view: &FrameView, here: &[Option<(&PlayerView, Tile)>]) -> Vec<Tile> {
        let mut walkers = Vec::new();
        let mut obstacles: Vec<Tile> = view
            .p
            .iter()
            .filter(|p| p.s != "disconnected" && !self.cooks.iter().any(|c| c.seat == p.seat))
            .map(|p| tile_of(p.x, p.y))
            .collect();
        // Where teammates stand at their own station: not a place to go.
        let parked: Vec<Tile> = here
            .iter()
            .zip(&self.cooks)
            .filter_map(|(at, c)| {
                let (_, tile) = (*at)?;
                let g = c.goal?;
                (self.nav.dist(g.station, tile.0, tile.1) == 0).then_some(tile)
            })
            .collect();
        for (k, at) in here.iter().enumerate() {
            let Some((me, tile)) = *at else { continue };
            let cook = &self.cooks[k];
            if me.s == "stunned" {
                obstacles.push(tile);
                continue;
            }
            let (goals, field, standing) = match cook.goal {
                Some(g) => {
                    let beside = self.nav.beside(g.station);
                    let mut goals: Vec<Tile> = beside
                        .iter()
                        .copied()
                        .filter(|t| *t == tile || !parked.contains(t))
                        .collect();
                    let mut field = self.nav.field(g.station);
                    if goals.is_empty() {
                        // Every place to use it is a teammate's, working there: queue one
                        // step back rather than contest the place (two cooks would trade it
                        // back and forth every tick).
                        let queue: Vec<Tile> = beside
                            .iter()
                            .flat_map(|b| DIRS.iter().map(move |(dx, dy)| (b.0 + dx, b.1 + dy)))
                            .filter(|t| {
                                self.nav.is_floor(t.0, t.1)
                                    && !beside.contains(t)
                                    && !parked.contains(t)
                            })
                            .collect();
                        goals = if queue.is_empty() { vec![tile] } else { queue };
                        field = std::sync::Arc::new(self.nav.field_to(&goals));
                    }
                    let standing = goals.contains(&tile);
                    (goals, field, standing as u8 + 1)
                }
                None => {
                    let park = self.parking[cook.seat as usize % SEATS];
                    let field = self.spawn_fields[cook.seat as usize % SEATS].clone();
                    (vec![park], field, 3)
                }
            };
            let others: Vec<Tile> = view
                .p
                .iter()
                .filter(|p| p.seat != cook.seat && p.s != "disconnected")
                .flat_map(|p| body_tiles(p.x, p.y))
                .filter(|t| self.nav.is_floor(t.0, t.1))
                .collect();
            let first = view.t < cook.first_until;
            walkers.push((
                k,
                Walker {
                    seat: cook.seat,
                    at: tile,
                    goals,
                    field,
                    rank: (if first { 0 } else { standing }, 0),
                    others,
                },
            ));
        }
        let list: Vec<Walker> = walkers.iter().map(|(_, w)| w.clone()).collect();
        let paths = self.traffic.plan(&self.nav, &list, &obstacles);
        let mut next: Vec<Tile> = here
            .iter()
            .map(|at| at.map_or((0, 0), |(_, t)| t))
            .collect();
        for ((k, _), path) in walkers.iter().zip(paths) {
            next[*k] = path.get(1).copied().unwrap_or(next[*k]);
        }
        next
    }

    /// Where cook `k` goes this tick and whether it presses, given the next tile of its way.
    fn steer(
        &mut self,
        k: usize,
        view: &FrameView,
        pos: (i32, i32),
        tile: Tile,
        next: Tile,
    ) -> ((i16, i16), bool, Option<u8>) {
        let tick_hz = self.tick_hz;
        let cook = &mut self.cooks[k];
        let at_goal = cook
            .goal
            .is_some_and(|g| self.nav.dist(g.station, tile.0, tile.1) == 0);
        // A cook kept off its goal too long plans first for a while (breaks any circle).
        if tile != cook.last_tile || at_goal || cook.goal.is_none() {
            cook.waited = 0;
            cook.stuck = 0;
        } else {
            cook.waited += 1;
            cook.stuck += 1;
            if cook.stuck >= 6 * tick_hz {
                cook.stuck = 0;
                cook.goal = None;
                cook.rest_until = view.t + 3 * tick_hz;
            }
            if cook.waited >= 2 * tick_hz {
                cook.waited = 0;
                cook.first_until = view.t + 3 * tick_hz;
            }
        }
        cook.last_tile = tile;
        if next != tile {
            return (self.walk(pos, next), false, None);
        }
        let cook = &self.cooks[k];
        let Some(goal) = cook.goal.filter(|_| at_goal) else {
            // Waiting (or idle): stand at the tile's centre, clear of the neighbours.
            return (self.walk(pos, tile), false, None);
        };
        if pos.0.rem_euclid(100) == 0 || pos.1.rem_euclid(100) == 0 {
            // On a tile's edge as the wire rounds it: the sim may have the cook on the
            // tile before (a press from there faces nothing). Step inside first.
            return (self.walk(pos, tile), false, None);
        }
        // Beside the station: stop, face it, press (a press needs only the tile).
        let s = goal.station;
        let face = self.nav.facing_to(s, tile.0, tile.1);
        let working = view
            .p
            .iter()
            .any(|p| p.seat == cook.seat && p.s == "working");
        let cooled = cook
            .last_press_tick
            .is_none_or(|t| view.t >= t + PRESS_COOLDOWN);
        let wait_for_soup = goal.purpose == Purpose::TakeSoup && view.st[s].s == "working";
        let press = cooled && !(goal.is_work() && working) && !wait_for_soup;
        ((0, 0), press, face)
    }

    /// A move towards the centre of tile `t` (the cook's own or a neighbour): first onto
    /// the line through the centres (a cook off it would catch a corner of the tiles beside
    /// its way), then along it, at full speed, slowing only to land on the centre.
    fn walk(&self, pos: (i32, i32), t: (i32, i32)) -> (i16, i16) {
        let (dx, dy) = (t.0 * 100 + 50 - pos.0, t.1 * 100 + 50 - pos.1);
        let along_x = dx.abs() >= dy.abs();
        let (dx, dy) = match (along_x, dx.abs() > LANE, dy.abs() > LANE) {
            (true, _, true) => (0, dy),
            (false, true, _) => (dx, 0),
            _ => (dx, dy),
        };
        let remaining = dx.abs().max(dy.abs());
        if remaining == 0 {
            return (0, 0);
        }
        let full = |d: i32| {
            if d.abs() >= self.step_centi {
                d.signum() * 1000
            } else {
                d * 1000 / self.step_centi
            }
        };
        clamp_intent(full(dx), full(dy))
    }
}

/// The tile a cook stands on, from the wire's hundredths: the floor, as the sim takes it.
/// (A wire value on a tile edge, `x.00`, may be the tile before by up to half a hundredth;
/// `steer` does not press from there.)
fn tile_of(x: i32, y: i32) -> Tile {
    (x.div_euclid(100), y.div_euclid(100))
}

/// The tiles a cook's body covers: its own, and the one beside where it stands more than
/// `LANE` off the centre line.
fn body_tiles(x: i32, y: i32) -> Vec<Tile> {
    let (tx, ty) = tile_of(x, y);
    let mut out = vec![(tx, ty)];
    let (ox, oy) = (x.rem_euclid(100) - 50, y.rem_euclid(100) - 50);
    if ox.abs() > LANE {
        out.push((tx + ox.signum(), ty));
    }
    if oy.abs() > LANE {
        out.push((tx, ty + oy.signum()));
    }
    out
}
