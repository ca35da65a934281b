//! What one walker's plan goes around (`Traffic::plan` makes one per walker): the
//! paths planned before it, people and stunned cooks, the cooks still to plan; from them,
//! which steps are free, what a step costs, and which goal tiles are good.

use super::{HORIZON, Obstacle, Tile, Walker};
use crate::bots::nav::UNREACHABLE;

/// What stepping onto a tile costs extra while a cook not yet planned stands there (at any
/// step, so waiting never makes it cheaper): a way round that is up to this much longer
/// is taken rather than moving a teammate off its work.
const OCCUPIED_COST: u32 = 3;

/// What stepping onto the tile in front of a person costs extra: a way round up to this
/// much longer is taken rather than cutting across where the person is going.
const PERSON_COST: u32 = 4;

/// One walker and everyone it plans around.
pub(super) struct Around<'a> {
    pub walker: &'a Walker,
    /// People and stunned cooks: walls at every step.
    pub obstacles: &'a [Obstacle],
    /// The paths of the walkers planned before this one.
    pub planned: &'a [Vec<Tile>],
    /// The tiles of the cooks that plan after it: free, but dearer to step on.
    pub waiting: &'a [Tile],
    /// The grid's width (the walker's distance field is row by row).
    pub width: usize,
}

impl Around<'_> {
    /// The A* estimate: steps from `t` to the walker's nearest goal (a long way where
    /// there is none).
    pub fn to_goal(&self, t: Tile) -> u32 {
        let d = self.walker.field[t.1 as usize * self.width + t.0 as usize];
        if d == UNREACHABLE {
            4 * HORIZON as u32
        } else {
            d as u32
        }
    }

    /// Whether anyone else is at `t` at `step`: a planned path (from the step before it
    /// gets there, so a cook in its way leaves in time), a person, or (now) any cook.
    fn taken(&self, t: Tile, step: usize) -> bool {
        self.planned
            .iter()
            .any(|p| p[step] == t || p.get(step + 1) == Some(&t))
            || self.obstacles.contains(&t)
            || (step == 0 && self.walker.others.contains(&t))
    }

    /// A cook steps onto a tile only when it is free both before and after the step:
    /// cooks are round and take time to leave a tile, so none follows another closely.
    pub fn may_enter(&self, from: Tile, to: Tile, step: usize) -> bool {
        !self.taken(to, step + 1) && (from == to || !self.taken(to, step))
    }

    /// A goal is good when nobody plans to stand there from the arrival on.
    pub fn goal_free(&self, t: Tile, from: usize) -> bool {
        self.walker.goals.contains(&t) && (from..=HORIZON).all(|s| !self.taken(t, s))
    }

    /// What one step onto `to` costs.
    pub fn step_cost(&self, to: Tile) -> u32 {
        let person = if to != self.walker.at && self.walker.avoid.contains(&to) {
            PERSON_COST
        } else {
            0
        };
        if to != self.walker.at && self.waiting.contains(&to) {
            1 + OCCUPIED_COST + person
        } else {
            1 + person
        }
    }
}
