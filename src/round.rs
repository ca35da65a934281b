//! A round being played and written down: the fold, the replay writer and the players'
//! frames, driven record by record.
//!
//! `simulate` and the live room both play rounds through this type, so a headless round and
//! a live one produce the same kind of file: each accepted input or seat change is stamped
//! with the current tick and checked by the fold before it is appended (invariant 4: only
//! what folds is written), each closed tick appends a `TickClosed` with the state hash, each
//! pass encodes one frame (`PlayerPasses`, which `verify` re-runs too), and the frames go to
//! the file in compressed one-second blocks, with a flush after each so a crash loses at
//! most a second.

use crate::log::frames::{FrameCompressor, PASSES_PER_BLOCK};
use crate::log::{Accepted, FoldError, Header, Record, ReplayWriter, RoundFold};
use crate::sim::{Event, RoundResult, RoundSummary};
use crate::wire::{PassEncoder, SnapFrame, project};
use std::io::{self, Write};

#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error("the round log refused a record: {0}")]
    Fold(#[from] FoldError),
    #[error("writing the replay failed: {0}")]
    Io(#[from] io::Error),
}

/// The players' frames of a round: a pass at tick 0, then one after every tick that is a
/// pass (`RoundFold::is_pass`), each carrying the events since the one before. `Round`
/// sends these and `verify` re-runs them, through this one type.
#[derive(Default)]
pub struct PlayerPasses {
    encoder: PassEncoder,
}

impl PlayerPasses {
    /// The chain of a round that starts at `fold`, and its first frame.
    pub fn start(fold: &RoundFold) -> (PlayerPasses, SnapFrame) {
        let mut passes = PlayerPasses::default();
        let first = passes
            .encoder
            .pass(project(&fold.state, &fold.rules), &fold.ids);
        (passes, first)
    }

    /// After a tick closed with `events`: the frame, when that tick was a pass.
    pub fn after_tick(&mut self, fold: &RoundFold, events: &[Event]) -> Option<SnapFrame> {
        self.encoder.note(events);
        fold.is_pass().then(|| {
            self.encoder
                .pass(project(&fold.state, &fold.rules), &fold.ids)
        })
    }

    /// The chain itself (the last pass's view, and a full frame of it).
    pub fn encoder(&self) -> &PassEncoder {
        &self.encoder
    }
}

/// What closing one tick produced.
#[derive(Debug, Default)]
pub struct TickClosed {
    /// The tick that closed.
    pub tick: u32,
    /// The sim's events of this tick (for the history's write chain).
    pub events: Vec<Event>,
    /// The players' `snap`, when this tick was a pass.
    pub frame: Option<SnapFrame>,
}

pub struct Round<W: Write> {
    fold: RoundFold,
    writer: ReplayWriter<W>,
    players: PlayerPasses,
    compressor: FrameCompressor,
    /// Passes pushed into the compressor since the last block was written.
    block_len: usize,
    block_first_pass: u32,
    passes: u32,
}

impl<W: Write> Round<W> {
    /// Writes the header and encodes the tick-0 frame (returned: a new round's first pass).
    pub fn start(header: Header, out: W) -> Result<(Round<W>, SnapFrame), RoundError> {
        let fold = RoundFold::new(header.clone())?;
        let mut writer = ReplayWriter::new(out)?;
        writer.append(&Record::Started(header))?;
        let (players, first) = PlayerPasses::start(&fold);
        let mut round = Round {
            fold,
            writer,
            players,
            compressor: FrameCompressor::new()?,
            block_len: 0,
            block_first_pass: 0,
            passes: 0,
        };
        round.record_pass(&first)?;
        Ok((round, first))
    }

    /// Goes on with a round re-folded from its file (`crate::resume`): `fold` and
    /// `players` as the re-run of the file's prefix left them, `frames` every pass it
    /// re-encoded, of which the file had recorded the first `recorded`; `out` appends after
    /// the cut. Writes the `Resumed` record, and queues the frames the file had lost
    /// (re-encoded exactly as they were sent) at the head of the new frame stream.
    pub fn resume(
        mut fold: RoundFold,
        players: PlayerPasses,
        frames: &[(u32, SnapFrame)],
        recorded: usize,
        out: W,
        (stopped_unix_s, resumed_unix_s): (u64, u64),
    ) -> Result<Round<W>, RoundError> {
        let mut writer = ReplayWriter::continuing(out);
        let resumed = Record::Resumed {
            tick: fold.state.tick,
            stopped_unix_s,
            resumed_unix_s,
        };
        fold.apply(&resumed, &mut Vec::new())?;
        writer.append(&resumed)?;
        let mut round = Round {
            fold,
            writer,
            players,
            compressor: FrameCompressor::new()?,
            block_len: 0,
            block_first_pass: recorded as u32,
            passes: recorded as u32,
        };
        for (_, frame) in &frames[recorded.min(frames.len())..] {
            round.record_pass(frame)?;
        }
        round.writer.flush()?;
        Ok(round)
    }

    /// Appends an accepted input or seat change, stamped with the current tick.
    pub fn append(&mut self, accepted: Accepted) -> Result<(), RoundError> {
        let record = accepted.at(self.fold.state.tick);
        let mut events = Vec::new();
        self.fold.apply(&record, &mut events)?;
        self.writer.append(&record)?;
        Ok(())
    }

    /// Closes the current tick: steps the sim, appends the `TickClosed`, encodes a pass if
    /// due.
    pub fn close_tick(&mut self) -> Result<TickClosed, RoundError> {
        let tick = self.fold.state.tick;
        let mut events = Vec::new();
        let state_hash = self.fold.close_tick(&mut events)?;
        self.writer
            .append(&Record::TickClosed { tick, state_hash })?;
        let frame = self.players.after_tick(&self.fold, &events);
        if let Some(f) = &frame {
            self.record_pass(f)?;
        }
        Ok(TickClosed {
            tick,
            events,
            frame,
        })
    }

    fn record_pass(&mut self, frame: &SnapFrame) -> Result<(), RoundError> {
        self.compressor.push(frame.raw());
        self.block_len += 1;
        self.passes += 1;
        if self.block_len >= PASSES_PER_BLOCK {
            self.write_block()?;
        }
        Ok(())
    }

    fn write_block(&mut self) -> Result<(), RoundError> {
        if self.block_len > 0 {
            let compressed = self.compressor.cut()?;
            self.writer.append(&Record::FramesSent {
                first_pass: self.block_first_pass,
                compressed,
            })?;
            self.block_first_pass = self.passes;
            self.block_len = 0;
        }
        self.writer.flush()?;
        Ok(())
    }

    /// Writes what is buffered and flushes (the live room calls it at least once a second).
    pub fn flush(&mut self) -> Result<(), RoundError> {
        self.write_block()
    }

    /// Ends the round: the sim's verdict, or `aborted` when there is none (a shutdown).
    /// Returns the writer and the result written.
    pub fn finish(mut self) -> Result<(W, RoundResult), RoundError> {
        let result = self
            .fold
            .state
            .verdict
            .map_or(RoundResult::Aborted, |v| v.result);
        self.write_block()?;
        let end = Record::Ended {
            tick: self.fold.state.tick,
            result,
        };
        let mut events = Vec::new();
        self.fold.apply(&end, &mut events)?;
        self.writer.append(&end)?;
        self.writer.flush()?;
        Ok((self.writer.into_inner(), result))
    }

    /// Where the round is written (the live room takes its streamed bytes from it).
    pub fn out_mut(&mut self) -> &mut W {
        self.writer.get_mut()
    }

    /// The fold as it stands: the state, the rules, the header, the player ids.
    pub fn fold(&self) -> &RoundFold {
        &self.fold
    }

    /// Whether the sim has reached its verdict (the round takes no more records).
    pub fn decided(&self) -> bool {
        self.fold.state.verdict.is_some()
    }

    /// The players' chain (for a full frame of the last pass, and its view).
    pub fn players(&self) -> &PassEncoder {
        self.players.encoder()
    }

    /// What the round has come to so far.
    pub fn summary(&self) -> RoundSummary {
        RoundSummary::of(&self.fold.state, &self.fold.rules)
    }
}
