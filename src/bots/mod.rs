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
//! asks to be let through (`take_emotes`) and waits off the way (docs/GAME.md, "Bots beside people"). Bots
//! are deterministic given the views, send inputs on change plus a 5 Hz
//! keep-alive like a real client, and never touch the sim's state: headless rounds, load
//! tests and solo play with bot teammates all use them the same way.
//!
//! By idea: this file is the team and its tick (`decide`: jobs, then ways, then inputs);
//! `plan`, `demand` and `jobs` choose jobs; `people` follows the people; `ways` and
//! `traffic` plan the ways; `steer` walks and presses; `nav` holds the distances.

mod demand;
pub mod human;
mod jobs;
mod names;
pub mod nav;
mod people;
pub mod plan;
mod steer;
pub mod traffic;
mod ways;

use crate::sim::Level;
use crate::sim::items::Recipe;
use crate::wire::view::FrameView;
use crate::wire::view::PlayerView;
use nav::{Nav, UNREACHABLE};
use people::Person;
use plan::{Goal, Purpose, Situation};
use steer::tile_of;
use traffic::{Tile, Traffic};

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
/// Seconds a person may stand still (neither walking nor working) and still count as at
/// work in the kitchen, for whom the bots leave plating and serving (`plan::Situation`).
const CRAFT_IDLE_S: u32 = 10;
/// Seconds between two emotes of a bot that waits for a person to let it by.
const EMOTE_EVERY_S: u32 = 5;
/// The emote a bot sends to ask a person for the way (`sim::events::EMOTES`).
const ASK_EMOTE: &str = "let_me_through";

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
    /// cook that waits for a person to clear the only way asks to be let through, at most once
    /// every `EMOTE_EVERY_S`. An emote changes nothing in the kitchen; the caller records
    /// it as a person's emote is recorded.
    pub fn take_emotes(&mut self) -> Vec<(u8, &'static str)> {
        std::mem::take(&mut self.emotes)
    }

    /// The inputs the team sends after seeing `view`: each cook's job first (each sees its
    /// teammates' jobs as claims), then the ways there, planned together, then the moves
    /// and presses that follow them.
    pub fn decide(&mut self, view: &FrameView) -> Vec<BotInput> {
        let nav = self.nav.clone();
        let recipes = self.recipes.clone();
        if !self.people_seats.is_empty() {
            self.follow_people(view);
        }
        let mut sit = Situation::new(view, &nav, &recipes, self.plates);
        sit.people = self.people_targets(view);
        sit.leave_craft = self.person_at_work(view);
        // Where people stand: no bot walks through one, and a job only a way through a
        // person reaches is no job for now.
        let walls: Vec<Tile> = self
            .people_in(view)
            .into_iter()
            .map(|p| tile_of(p.x, p.y))
            .collect();
        let outsiders = self.outsiders(view);
        let here: Vec<Option<(&PlayerView, Tile)>> = (0..self.cooks.len())
            .map(|k| self.choose_job(k, view, &mut sit, &walls, &outsiders))
            .collect();
        let paths = self.plan_ways(view, &here);
        self.inputs(view, &here, &paths)
    }

    /// Cooks outside the team (people, other teams' bots) say nothing of their plans. One
    /// that is not a person standing at a station and facing it is taken to be using it
    /// (for people, `Situation::people` says which stations they use or walk up to).
    fn outsiders(&self, view: &FrameView) -> Vec<Goal> {
        view.p
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
            .collect()
    }

    /// Cook `k`'s job for this view (kept while it is still among the best), and where the
    /// cook is; `None` when it is not in the kitchen (disconnected).
    fn choose_job<'v>(
        &mut self,
        k: usize,
        view: &'v FrameView,
        sit: &mut Situation<'_>,
        walls: &[Tile],
        outsiders: &[Goal],
    ) -> Option<(&'v PlayerView, Tile)> {
        let seat = self.cooks[k].seat;
        let me = view
            .p
            .iter()
            .find(|p| p.seat == seat && p.s != "disconnected")?;
        let tile = tile_of(me.x, me.y);
        let claims: Vec<Goal> = self
            .cooks
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .filter_map(|(_, c)| c.goal)
            .chain(outsiders.iter().copied())
            .collect();
        let (candidates, cut_off) = self.reachable_jobs(view, sit, tile, me.h, &claims, walls);
        let aside = match (&cut_off, candidates.is_empty()) {
            (Some(field), true) => Some(self.aside_tile(view, tile, field)),
            _ => None,
        };
        self.settle(k, view, &candidates, aside);
        Some((me, tile))
    }

    /// The jobs for a cook on `tile` holding `held`, best first. With people about, only
    /// those it can reach without passing through one (planned again without the stations
    /// cut off, so it finds the next job); and when people cut it off from every job it
    /// had, the distance field from its tile around them (to find a tile to wait on).
    fn reachable_jobs(
        &self,
        view: &FrameView,
        sit: &mut Situation<'_>,
        tile: Tile,
        held: Option<&str>,
        claims: &[Goal],
        walls: &[Tile],
    ) -> (Vec<Goal>, Option<Vec<u16>>) {
        sit.cut_off.clear();
        let candidates = sit.candidates(tile, held, claims);
        if walls.is_empty() {
            return (candidates, None);
        }
        let field = self.nav.field_from_avoiding(tile, walls);
        let (w, _) = self.nav.size();
        sit.cut_off = (0..view.st.len())
            .filter(|&s| {
                !self
                    .nav
                    .beside(s)
                    .iter()
                    .any(|b| field[b.1 as usize * w + b.0 as usize] != UNREACHABLE)
            })
            .collect();
        let reachable = sit.candidates(tile, held, claims);
        let cut_off = (reachable.is_empty() && !candidates.is_empty()).then_some(field);
        (reachable, cut_off)
    }

    /// Cook `k` takes its job: asks for the way while it waits aside (`let_me_through`, at most once
    /// every `EMOTE_EVERY_S`), rests while it has stepped back, and otherwise keeps its goal
    /// while that is still a candidate (a fire to put out first pre-empts it).
    fn settle(&mut self, k: usize, view: &FrameView, candidates: &[Goal], aside: Option<Tile>) {
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
            return;
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

    /// What each cook sends: its move and press when they change or it presses, else a
    /// keep-alive every `KEEP_ALIVE_TICKS`.
    fn inputs(
        &mut self,
        view: &FrameView,
        here: &[Option<(&PlayerView, Tile)>],
        paths: &[Tile],
    ) -> Vec<BotInput> {
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
}
