//! The fold: records in, kitchen states out.
//!
//! `RoundFold` is the one place where the log meets the sim. Input and seat records queue
//! for their tick; a `TickClosed` record steps the sim over the queue; `Ended` closes the round.
//! The live room feeds it records as it appends them, and `replay`/`verify` feed it a file:
//! the same code, so the same frames. A record that does not fit (a tick out of order, an
//! unknown seat, a record after `Ended`) is a `FoldError`, never a panic.

use super::records::{Header, Record};
use crate::sim::events::EMOTES;
use crate::sim::orders::conclude;
use crate::sim::{
    CookInput, Event, KitchenState, Level, RoundResult, Rules, SEATS, SeatChange, TickInputs, step,
};
use std::sync::Arc;

/// A record that does not fit the round so far, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FoldError(pub String);

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
    /// The buffer the state is encoded into for its hash, kept from tick to tick.
    scratch: Vec<u8>,
}

impl RoundFold {
    pub fn new(header: Header) -> Result<RoundFold, FoldError> {
        // The versions this build reads are the ones it has a frame codec for.
        super::frames::Codec::of_version(header.format_version)
            .map_err(|e| FoldError(format!("the header's {e}")))?;
        if header.sim_version > crate::sim::SIM_VERSION {
            return Err(FoldError(format!(
                "recorded by sim version {}, newer than this build's {}",
                header.sim_version,
                crate::sim::SIM_VERSION
            )));
        }
        if !(1..=240).contains(&header.tick_hz)
            || header.snapshot_hz == 0
            || !header.tick_hz.is_multiple_of(header.snapshot_hz)
        {
            return Err(FoldError(format!(
                "bad tick_hz {} / snapshot_hz {}",
                header.tick_hz, header.snapshot_hz
            )));
        }
        let level = Level::parse(&header.level_file, &header.level_toml)
            .map_err(|e| FoldError(format!("embedded level: {e}")))?;
        let rules = Arc::new(Rules::new(level, header.tick_hz).for_sim_version(header.sim_version));
        let mut ids = vec![String::new(); SEATS];
        let mut seats = Vec::new();
        for s in &header.seats {
            if s.seat as usize >= SEATS || seats.iter().any(|&(seat, _)| seat == s.seat) {
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
            scratch: Vec::new(),
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
            return Err(FoldError(format!("{what} after the Ended record")));
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
            Record::Started(_) => Err(FoldError("a second Started header".into())),
            Record::InputAccepted {
                tick,
                seat,
                seq,
                mv,
                act,
                face,
            } => {
                self.check_record(*tick, Some(*seat), "InputAccepted")?;
                if face.is_some_and(|f| f > 3) {
                    return Err(FoldError(format!("InputAccepted face {face:?} is not 0-3")));
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
            Record::Connected { tick, seat } => {
                self.queue(*tick, *seat, "Connected", SeatChange::Connected(*seat))
            }
            Record::Disconnected { tick, seat } => self.queue(
                *tick,
                *seat,
                "Disconnected",
                SeatChange::Disconnected(*seat),
            ),
            Record::Abandoned { tick, seat } => {
                self.queue(*tick, *seat, "Abandoned", SeatChange::Abandoned(*seat))
            }
            Record::Emoted { tick, seat, id } => {
                let index = EMOTES
                    .iter()
                    .position(|e| e == id)
                    .ok_or_else(|| FoldError(format!("unknown emote {id:?}")))?;
                self.queue(
                    *tick,
                    *seat,
                    "Emoted",
                    SeatChange::Emoted(*seat, index as u8),
                )
            }
            Record::Resynced { tick, seat, seq } => {
                self.queue(*tick, *seat, "Resynced", SeatChange::Resynced(*seat, *seq))
            }
            Record::TickClosed { tick, state_hash } => {
                self.check_record(*tick, None, "TickClosed")?;
                let hash = self.close_tick(events)?;
                Ok(Applied::Stepped {
                    hash_matches: hash == *state_hash,
                })
            }
            Record::FramesSent { .. } => {
                if self.ended.is_some() {
                    return Err(FoldError("FramesSent after the Ended record".into()));
                }
                Ok(Applied::Queued)
            }
            Record::Resumed { tick, .. } => {
                self.check_record(*tick, None, "Resumed")?;
                // A resume cuts the file after a closed tick: nothing waits for this one.
                if self.has_queued() {
                    return Err(FoldError(
                        "Resumed with records queued for an unclosed tick".into(),
                    ));
                }
                Ok(Applied::Queued)
            }
            Record::Ended { tick, result } => {
                self.check_record(*tick, None, "Ended")?;
                let result = *result;
                // A round cut short (a shutdown, a failed tick) may end with records of its
                // last tick accepted but never stepped: they are dropped with the tick. A
                // round that reached its verdict closed every tick it took records for.
                if self.has_queued() {
                    if result != RoundResult::Aborted {
                        return Err(FoldError(
                            "Ended with records still queued for an unclosed tick".into(),
                        ));
                    }
                    self.pending.clear();
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

    /// Whether records wait for the current tick to close.
    fn has_queued(&self) -> bool {
        !self.pending.inputs.is_empty() || !self.pending.seat_changes.is_empty()
    }

    /// Closes the current tick: steps the sim over what was queued for it and returns the
    /// new state's hash (what a `TickClosed` record carries).
    pub fn close_tick(&mut self, events: &mut Vec<Event>) -> Result<u64, FoldError> {
        if self.ended.is_some() {
            return Err(FoldError("TickClosed after the Ended record".into()));
        }
        if self.state.verdict.is_some() {
            return Err(FoldError(format!(
                "TickClosed {} after the verdict",
                self.state.tick
            )));
        }
        step(&mut self.state, &self.rules, &self.pending, events);
        self.pending.clear();
        Ok(self.state.state_hash_in(&mut self.scratch))
    }

    /// Whether the state just reached is a snapshot pass of the player audience: every
    /// `pass_period` ticks from tick 0, and the tick the verdict fell.
    pub fn is_pass(&self) -> bool {
        self.state.tick.is_multiple_of(self.pass_period())
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
