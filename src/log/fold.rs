//! The fold: records in, kitchen states out.
//!
//! `RoundFold` is the one place where the log meets the sim. Input and seat records queue
//! for their tick; a `Tick` record steps the sim over the queue; `End` closes the round.
//! The live room feeds it records as it appends them, and `replay`/`verify` feed it a file:
//! the same code, so the same frames. A record that does not fit (a tick out of order, an
//! unknown seat, a record after `End`) is a `FoldError`, never a panic.

use super::records::{Header, Record};
use crate::sim::events::EMOTES;
use crate::sim::orders::conclude;
use crate::sim::{
    CookInput, Event, KitchenState, Level, RoundResult, Rules, SeatChange, TickInputs, step,
};
use std::fmt;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldError(pub String);

impl fmt::Display for FoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FoldError {}

/// What applying one record did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Queued for the current tick (inputs, seat records), or a `Frames` record.
    Queued,
    /// The sim stepped; `hash_matches` compares the record's hash with the fold's.
    Stepped { hash_matches: bool },
    /// The round closed; `matches` says whether the recorded result is the fold's verdict.
    Ended { matches: bool },
}

pub struct RoundFold {
    pub header: Header,
    pub rules: Arc<Rules>,
    pub state: KitchenState,
    /// Player id per seat index (frames name cooks by these).
    pub ids: Vec<String>,
    pending: TickInputs,
    ended: Option<RoundResult>,
}

impl RoundFold {
    pub fn new(header: Header) -> Result<RoundFold, FoldError> {
        if header.sim_version > crate::sim::SIM_VERSION {
            return Err(FoldError(format!(
                "recorded by sim version {}, newer than this build's {}",
                header.sim_version,
                crate::sim::SIM_VERSION
            )));
        }
        if !(1..=240).contains(&header.tick_hz)
            || header.snapshot_hz == 0
            || header.tick_hz % header.snapshot_hz != 0
        {
            return Err(FoldError(format!(
                "bad tick_hz {} / snapshot_hz {}",
                header.tick_hz, header.snapshot_hz
            )));
        }
        let level = Level::parse(&header.level_file, &header.level_toml)
            .map_err(|e| FoldError(format!("embedded level: {e}")))?;
        let rules = Arc::new(Rules::new(level, header.tick_hz));
        let mut ids = vec![String::new(); 4];
        let mut seats = Vec::new();
        for s in &header.seats {
            if s.seat >= 4 || seats.iter().any(|&(seat, _)| seat == s.seat) {
                return Err(FoldError(format!(
                    "header seat {} is out of range or repeated",
                    s.seat
                )));
            }
            ids[s.seat as usize] = s.player_id.clone();
            seats.push((s.seat, s.connected));
        }
        seats.sort_unstable();
        let state = KitchenState::new(&rules, &seats, header.seed);
        Ok(RoundFold {
            header,
            rules,
            state,
            ids,
            pending: TickInputs::default(),
            ended: None,
        })
    }

    pub fn ended(&self) -> Option<RoundResult> {
        self.ended
    }

    /// Ticks between two player snapshot passes.
    pub fn pass_period(&self) -> u32 {
        self.header.tick_hz / self.header.snapshot_hz
    }

    fn check_record(&self, tick: u32, seat: Option<u8>, what: &str) -> Result<(), FoldError> {
        if self.ended.is_some() {
            return Err(FoldError(format!("{what} after the End record")));
        }
        if tick != self.state.tick {
            return Err(FoldError(format!(
                "{what} for tick {tick} while the round is at tick {}",
                self.state.tick
            )));
        }
        if let Some(seat) = seat
            && self.state.cook(seat).is_none()
        {
            return Err(FoldError(format!(
                "{what} names seat {seat}, which is not in the round"
            )));
        }
        Ok(())
    }

    /// Applies one record; the sim's events of a stepped tick are appended to `events`.
    pub fn apply(
        &mut self,
        record: &Record,
        events: &mut Vec<Event>,
    ) -> Result<Applied, FoldError> {
        match record {
            Record::Header(_) => Err(FoldError("a second Header".into())),
            Record::Input {
                tick,
                seat,
                seq,
                mv,
                act,
                face,
            } => {
                self.check_record(*tick, Some(*seat), "Input")?;
                if face.is_some_and(|f| f > 3) {
                    return Err(FoldError(format!("Input face {face:?} is not 0-3")));
                }
                self.pending.inputs.push(CookInput {
                    seat: *seat,
                    seq: *seq,
                    mv: *mv,
                    act: *act,
                    face: *face,
                });
                Ok(Applied::Queued)
            }
            Record::Connect { tick, seat } => {
                self.queue(*tick, *seat, "Connect", SeatChange::Connected(*seat))
            }
            Record::Disconnect { tick, seat } => {
                self.queue(*tick, *seat, "Disconnect", SeatChange::Disconnected(*seat))
            }
            Record::Abandon { tick, seat } => {
                self.queue(*tick, *seat, "Abandon", SeatChange::Abandoned(*seat))
            }
            Record::Emote { tick, seat, id } => {
                let index = EMOTES
                    .iter()
                    .position(|e| e == id)
                    .ok_or_else(|| FoldError(format!("unknown emote {id:?}")))?;
                self.queue(
                    *tick,
                    *seat,
                    "Emote",
                    SeatChange::Emoted(*seat, index as u8),
                )
            }
            Record::Resync { tick, seat, seq } => {
                self.queue(*tick, *seat, "Resync", SeatChange::Resynced(*seat, *seq))
            }
            Record::Tick { tick, state_hash } => {
                self.check_record(*tick, None, "Tick")?;
                let hash = self.close_tick(events)?;
                Ok(Applied::Stepped {
                    hash_matches: hash == *state_hash,
                })
            }
            Record::Frames { .. } => {
                if self.ended.is_some() {
                    return Err(FoldError("Frames after the End record".into()));
                }
                Ok(Applied::Queued)
            }
            Record::End { tick, result } => {
                self.check_record(*tick, None, "End")?;
                let result = RoundResult::parse(result).ok_or_else(|| {
                    FoldError(format!("End result {result:?} is not won/lost/aborted"))
                })?;
                if !self.pending.inputs.is_empty() || !self.pending.seat_changes.is_empty() {
                    return Err(FoldError(
                        "End with records still queued for an unclosed tick".into(),
                    ));
                }
                if self.state.verdict.is_none() && result == RoundResult::Aborted {
                    conclude(
                        &mut self.state,
                        &self.rules,
                        RoundResult::Aborted,
                        0,
                        events,
                    );
                }
                let matches = self.state.verdict.is_some_and(|v| v.result == result);
                self.ended = Some(result);
                Ok(Applied::Ended { matches })
            }
        }
    }

    /// Whether an input would change nothing at all: no press, no input of the seat queued
    /// this tick, and the same move intent and facing the cook already has (a keep-alive).
    /// Such inputs are not written to the log; the fold would ignore them anyway.
    pub fn input_is_noop(&self, seat: u8, mv: (i16, i16), act: bool, face: Option<u8>) -> bool {
        if act || self.pending.inputs.iter().any(|i| i.seat == seat) {
            return false;
        }
        let Some(cook) = self.state.cook(seat) else {
            return false;
        };
        let intent = crate::sim::movement::clamp_intent(mv.0 as i32, mv.1 as i32);
        let facing = face
            .or_else(|| crate::sim::movement::facing_of(intent))
            .unwrap_or(cook.facing);
        cook.active() && cook.intent == intent && cook.facing == facing
    }

    /// Closes the current tick: steps the sim over what was queued for it and returns the
    /// new state's hash (what a `Tick` record carries).
    pub fn close_tick(&mut self, events: &mut Vec<Event>) -> Result<u64, FoldError> {
        if self.ended.is_some() {
            return Err(FoldError("Tick after the End record".into()));
        }
        if self.state.verdict.is_some() {
            return Err(FoldError(format!(
                "Tick {} after the verdict",
                self.state.tick
            )));
        }
        step(&mut self.state, &self.rules, &self.pending, events);
        self.pending.clear();
        Ok(self.state.state_hash())
    }

    /// Whether the state just reached is a snapshot pass of the player audience: every
    /// `pass_period` ticks from tick 0, and the tick the verdict fell.
    pub fn is_pass(&self) -> bool {
        self.state.tick % self.pass_period() == 0
            || self
                .state
                .verdict
                .is_some_and(|v| v.tick == self.state.tick)
    }

    fn queue(
        &mut self,
        tick: u32,
        seat: u8,
        what: &str,
        change: SeatChange,
    ) -> Result<Applied, FoldError> {
        self.check_record(tick, Some(seat), what)?;
        self.pending.seat_changes.push(change);
        Ok(Applied::Queued)
    }
}
