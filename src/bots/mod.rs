//! Scripted cooks: a team of bots that play from the projected view a client gets.
//!
//! `BotTeam` controls some seats. Each tick it reads the latest `FrameView` (plus the level,
//! which is public) and returns the inputs its cooks send: a job from the planner (`plan`),
//! the next tile of a way planned with the teammates' ways (`traffic`), a press when beside
//! the station. A cook takes its tile the way the sim does (the floor of its position) and
//! never presses from a wire position on a tile edge, where the rounding hides which tile it
//! is on. The team is told the seats people play (`with_people`; in a room, the seats not
//! flagged bot): a bot leaves a person the station the person uses or walks up to, goes round the
//! tile in front of a person, and when only a way through a person leads to its jobs it
//! waves (`take_emotes`) and waits off the way (docs/GAME.md, "Bots beside people"). Bots
//! are deterministic given the views, send inputs on change plus a 5 Hz
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
use nav::{Nav, UNREACHABLE};
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
/// Seconds a person may stand still facing a station before the bots stop leaving it to
/// them (a person working it is never still: the station's work shows as `working`).
const PERSON_IDLE_S: u32 = 5;
/// Seconds between two emotes of a bot that waits for a person to let it by.
const EMOTE_EVERY_S: u32 = 5;
/// The emote a bot sends to ask a person for the way (`sim::events::EMOTES`).
const ASK_EMOTE: &str = "wave";

/// A person (a cook outside the team) as the bots see one: where it stood, since when.
struct Person {
    seat: u8,
    pos: (i32, i32),
    /// The tick it last moved (or was first seen).
    moved_at: u32,
}

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
    /// Where it waits, off the way, while a person blocks the only way to its jobs.
    aside: Option<Tile>,
    /// When it last asked a person for the way (an emote).
    asked_at: Option<u32>,
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
    /// The cooks outside the team, followed from view to view.
    people: Vec<Person>,
    /// Emotes decided and not yet taken (`take_emotes`).
    emotes: Vec<(u8, &'static str)>,
    /// The seats people play (`with_people`): the cooks the team minds. Other cooks
    /// outside the team (another team's bots) are only in the way, as before.
    people_seats: Vec<u8>,
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
                    aside: None,
                    asked_at: None,
                })
                .collect(),
            people: Vec::new(),
            emotes: Vec::new(),
            people_seats: Vec::new(),
        }
    }

    /// The same team, told which seats people play (in a room: the seats not flagged bot).
    /// Without it the team minds nobody: cooks outside it are only walls on its ways, and
    /// one facing a station a claim on it (as the bots were before they minded people).
    pub fn with_people(mut self, seats: &[u8]) -> BotTeam {
        self.people_seats = seats.to_vec();
        self
    }

    /// The emotes the team's cooks send after the last `decide`, as (seat, emote id): a
    /// cook that waits for a person to clear the only way asks with a wave, at most once
    /// every `EMOTE_EVERY_S`. An emote changes nothing in the kitchen; the caller records
    /// it as a person's emote is recorded.
    pub fn take_emotes(&mut self) -> Vec<(u8, &'static str)> {
        std::mem::take(&mut self.emotes)
    }

    /// Follows the people (`with_people`) from this view: who moved, who has stood still
    /// since when.
    fn follow_people(&mut self, view: &FrameView) {
        let outside: Vec<&PlayerView> = view
            .p
            .iter()
            .filter(|p| p.s != "disconnected" && self.people_seats.contains(&p.seat))
            .collect();
        self.people
            .retain(|q| outside.iter().any(|p| p.seat == q.seat));
        for p in outside {
            match self.people.iter_mut().find(|q| q.seat == p.seat) {
                Some(q) if q.pos == (p.x, p.y) && p.s != "working" => {}
                Some(q) => {
                    q.pos = (p.x, p.y);
                    q.moved_at = view.t;
                }
                None => self.people.push(Person {
                    seat: p.seat,
                    pos: (p.x, p.y),
                    moved_at: view.t,
                }),
            }
        }
    }

    /// The stations people are using or heading to: the one a person faces (while it works
    /// it, or has not stood idle `PERSON_IDLE_S`), and the one two tiles ahead of a person
    /// on the move towards it. Only stations where a cook's work or item can be taken from
    /// under a person count: boards, stoves, counters, and any station a person works at
    /// (chopping, washing, putting out a fire).
    fn people_targets(&self, view: &FrameView) -> Vec<usize> {
        let mut out = Vec::new();
        for q in &self.people {
            let Some(p) = view.p.iter().find(|p| p.seat == q.seat) else {
                continue;
            };
            let Some(&(dx, dy)) = DIRS.get(p.f as usize) else {
                continue;
            };
            let (x, y) = tile_of(p.x, p.y);
            let still = view.t.saturating_sub(q.moved_at);
            let working = p.s == "working";
            let contested = |s: usize, working: bool| {
                view.st
                    .get(s)
                    .is_some_and(|st| working || matches!(st.k, "chop_board" | "stove" | "prep"))
            };
            if let Some(s) = self.nav.station_at(x + dx, y + dy) {
                if (working || still < PERSON_IDLE_S * self.tick_hz) && contested(s, working) {
                    out.push(s);
                }
            } else if still < self.tick_hz
                && self.nav.is_floor(x + dx, y + dy)
                && let Some(s) = self.nav.station_at(x + 2 * dx, y + 2 * dy)
                && contested(s, false)
            {
                out.push(s);
            }
        }
        out
    }

    /// Each person's tile and the tile in front of it.
    fn people_at(&self, view: &FrameView) -> Vec<(Tile, Tile)> {
        self.people
            .iter()
            .filter_map(|q| view.p.iter().find(|p| p.seat == q.seat))
            .map(|p| {
                let t = tile_of(p.x, p.y);
                let (dx, dy) = DIRS.get(p.f as usize).copied().unwrap_or((0, 0));
                (t, (t.0 + dx, t.1 + dy))
            })
            .collect()
    }

    /// A tile for cook `k` to wait on while a person blocks its way: the nearest it can reach
    /// (`field`, from its tile around the people) at least two steps from every person and
    /// not in front of one, beside no station if it can be; its own tile when none is.
    fn aside_tile(&self, view: &FrameView, tile: Tile, field: &[u16]) -> Tile {
        let (w, h) = self.nav.size();
        let people = self.people_at(view);
        let clear = |t: Tile| clear_of(&people, t);
        let mut best: Option<(bool, u16, Tile)> = None;
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let d = field[y as usize * w + x as usize];
                if d == UNREACHABLE || !clear((x, y)) {
                    continue;
                }
                let key = (self.nav.is_work(x, y), d, (x, y));
                if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                    best = Some(key);
                }
            }
        }
        best.map_or(tile, |(_, _, t)| t)
    }

    /// The inputs the team sends after seeing `view`.
    pub fn decide(&mut self, view: &FrameView) -> Vec<BotInput> {
        let nav = self.nav.clone();
        let recipes = self.recipes.clone();
        if !self.people_seats.is_empty() {
            self.follow_people(view);
        }
        let mut sit = Situation::new(view, &nav, &recipes, self.plates);
        sit.people = self.people_targets(view);
        // Where people stand: no bot walks through one, and a job only a way through a
        // person reaches is no job for now.
        let walls: Vec<Tile> = self
            .people
            .iter()
            .filter_map(|q| view.p.iter().find(|p| p.seat == q.seat))
            .map(|p| tile_of(p.x, p.y))
            .collect();
        // Cooks outside the team (people, other teams' bots) say nothing of their plans.
        // One that is not a person standing at a station and facing it is taken to be using
        // it (for people, `sit.people` says which stations they use or walk up to).
        let outsiders: Vec<Goal> = view
            .p
            .iter()
            .filter(|p| !self.people_seats.contains(&p.seat))
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
            sit.cut_off.clear();
            let mut candidates = sit.candidates(tile, me.h, &claims);
            // With people about: only the jobs it can reach without passing through one
            // (planned again without the stations cut off, so it finds the next job).
            let mut cut_off = None;
            if !walls.is_empty() {
                let field = nav.field_from_avoiding(tile, &walls);
                let (w, _) = nav.size();
                sit.cut_off = (0..view.st.len())
                    .filter(|&s| {
                        !nav.beside(s)
                            .iter()
                            .any(|b| field[b.1 as usize * w + b.0 as usize] != UNREACHABLE)
                    })
                    .collect();
                let reachable = sit.candidates(tile, me.h, &claims);
                if reachable.is_empty() && !candidates.is_empty() {
                    cut_off = Some(field);
                }
                candidates = reachable;
            }
            let aside = match (&cut_off, candidates.is_empty()) {
                (Some(field), true) => Some(self.aside_tile(view, tile, field)),
                _ => None,
            };
            let cook = &mut self.cooks[k];
            cook.aside = aside;
            if aside.is_some()
                && cook
                    .asked_at
                    .is_none_or(|t| view.t >= t + EMOTE_EVERY_S * self.tick_hz)
            {
                cook.asked_at = Some(view.t);
                self.emotes.push((cook.seat, ASK_EMOTE));
            }
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
        let walls: Vec<Tile> = self.people_at(view).iter().map(|&(t, _)| t).collect();
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
                    // An idle cook whose parking tile is at a person's side or in front
                    // of one waits elsewhere, as a cook a person blocks does.
                    let aside = cook.aside.or_else(|| {
                        let people = self.people_at(view);
                        (!clear_of(&people, park)).then(|| {
                            let field = self.nav.field_from_avoiding(tile, &walls);
                            self.aside_tile(view, tile, &field)
                        })
                    });
                    match aside {
                        Some(t) => (vec![t], std::sync::Arc::new(self.nav.field_to(&[t])), 3),
                        None => {
                            let field = self.spawn_fields[cook.seat as usize % SEATS].clone();
                            (vec![park], field, 3)
                        }
                    }
                }
            };
            let others: Vec<Tile> = view
                .p
                .iter()
                .filter(|p| p.seat != cook.seat && p.s != "disconnected")
                .flat_map(|p| body_tiles(p.x, p.y))
                .filter(|t| self.nav.is_floor(t.0, t.1))
                .collect();
            // The tile in front of each person: where it is about to walk or work.
            let avoid: Vec<Tile> = self
                .people
                .iter()
                .filter_map(|q| view.p.iter().find(|p| p.seat == q.seat))
                .filter_map(|p| {
                    let (x, y) = tile_of(p.x, p.y);
                    let (dx, dy) = DIRS.get(p.f as usize)?;
                    Some((x + dx, y + dy)).filter(|t| self.nav.is_floor(t.0, t.1))
                })
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
                    avoid,
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

/// Whether tile `t` is at least two steps from every person and not in front of one
/// (`people`: each person's tile and the tile in front of it).
fn clear_of(people: &[(Tile, Tile)], t: Tile) -> bool {
    people
        .iter()
        .all(|&(p, front)| (t.0 - p.0).abs() + (t.1 - p.1).abs() >= 2 && t != front)
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
