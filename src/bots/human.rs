//! A stand-in for a person at a seat, for headless rounds that ask "what does the team do
//! with a human in it?".
//!
//! `Idle` is the person who presses Start and never touches the keys: it sends nothing, so
//! its cook stands on its spawn all round. `Scripted` plays the bots' own route (the planner
//! and the ways in `super::BotTeam`, with the other cooks seen as outsiders) at a person's
//! pace: after every press it stands still for a reaction pause drawn from
//! `REACTION_MS`, and each new job starts only after the same kind of pause (a person looks
//! before walking). The pauses are drawn from a small generator seeded by the round's seed,
//! so the same round plays the same way every time. Calibrated on `01_first_kitchen` under
//! the rules it was written against: alone it serves a soup about every 28 s, the pace
//! measured for a real player (issue 24).

use super::{BotInput, BotTeam};
use crate::sim::Level;
use crate::wire::view::FrameView;

/// A person's pause after a press, and before setting off on a new job, in milliseconds
/// (uniform between the two).
pub const REACTION_MS: (u32, u32) = (250, 400);
/// Ticks between keep-alive inputs while nothing changes (5 Hz at 20 Hz, like the client).
const KEEP_ALIVE_TICKS: u32 = 4;

/// How the person at a seat plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Human {
    /// Never moves, never presses.
    Idle,
    /// The bots' route at a person's pace.
    Scripted,
}

impl Human {
    pub fn parse(s: &str) -> Option<Human> {
        match s {
            "idle" => Some(Human::Idle),
            "scripted" => Some(Human::Scripted),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Human::Idle => "idle",
            Human::Scripted => "scripted",
        }
    }
}

/// One seat played like a person.
pub struct HumanCook {
    kind: Human,
    seat: u8,
    /// The route: a one-cook bot team for this seat.
    brain: BotTeam,
    tick_hz: u32,
    rng: u64,
    /// Until this tick the person stands still (reacting).
    pause_until: u32,
    /// What the route wants now: move and facing.
    want: ((i16, i16), Option<u8>),
    /// The route's job, to notice a new one.
    job: Option<super::plan::Goal>,
    seq: u64,
    last_sent: Option<((i16, i16), Option<u8>)>,
    last_sent_tick: u32,
}

impl HumanCook {
    pub fn new(kind: Human, level: &Level, tick_hz: u32, seat: u8, seed: u64) -> HumanCook {
        HumanCook {
            kind,
            seat,
            brain: BotTeam::new(level, tick_hz, &[seat]),
            tick_hz: tick_hz.max(1),
            // splitmix64's constant keeps seeds 0 and 1 apart; never zero (xorshift).
            rng: (seed ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(0xBF58_476D_1CE4_E5B9) | 1,
            pause_until: 0,
            want: ((0, 0), None),
            job: None,
            seq: 0,
            last_sent: None,
            last_sent_tick: 0,
        }
    }

    pub fn kind(&self) -> Human {
        self.kind
    }

    /// A reaction pause in ticks.
    fn reaction(&mut self) -> u32 {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let (lo, hi) = REACTION_MS;
        let ms = lo + (self.rng % (hi - lo + 1) as u64) as u32;
        (ms * self.tick_hz).div_ceil(1000)
    }

    /// The inputs this seat sends after seeing `view` (none for an idle person).
    pub fn decide(&mut self, view: &FrameView) -> Vec<BotInput> {
        if self.kind == Human::Idle {
            return Vec::new();
        }
        let mut press = false;
        for input in self.brain.decide(view) {
            self.want = (input.mv, input.face);
            press |= input.act;
        }
        let job = self.brain.goals().first().and_then(|(_, g)| *g);
        if job != self.job {
            // A new job: look before setting off.
            self.job = job;
            if job.is_some() {
                self.pause_until = self.pause_until.max(view.t + self.reaction());
            }
        }
        let paused = view.t < self.pause_until;
        let (sent, act) = if paused {
            (((0, 0), None), false)
        } else {
            (self.want, press)
        };
        if act {
            self.pause_until = view.t + self.reaction();
        }
        let changed = self.last_sent != Some(sent);
        if !(act || changed || view.t >= self.last_sent_tick + KEEP_ALIVE_TICKS) {
            return Vec::new();
        }
        self.seq += 1;
        self.last_sent = Some(sent);
        self.last_sent_tick = view.t;
        vec![BotInput {
            seat: self.seat,
            seq: self.seq,
            mv: sent.0,
            act,
            face: sent.1,
        }]
    }
}
