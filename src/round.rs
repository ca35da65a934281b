//! A round being played and written down: the fold, the replay writer and the player
//! audience's encoder, driven record by record.
//!
//! `simulate` and the live room both play rounds through this type, so a headless round and
//! a live one produce the same kind of file: each record is checked by the fold before it
//! is appended (invariant 4: only what folds is written), each closed tick appends a `Tick`
//! with the state hash, each pass encodes one frame, and the frames go to the file in
//! deflated one-second blocks, with a flush after each so a crash loses at most a second.

use crate::log::frames::{FrameDeflater, PASSES_PER_BLOCK};
use crate::log::{FoldError, Header, Record, ReplayWriter, RoundFold};
use crate::sim::{Event, RoundResult};
use crate::wire::{SnapEncoder, project};
use std::io::{self, Write};

#[derive(Debug)]
pub enum RoundError {
    Fold(FoldError),
    Io(io::Error),
}

impl std::fmt::Display for RoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoundError::Fold(e) => write!(f, "the round log refused a record: {e}"),
            RoundError::Io(e) => write!(f, "writing the replay failed: {e}"),
        }
    }
}

impl std::error::Error for RoundError {}

impl From<FoldError> for RoundError {
    fn from(e: FoldError) -> Self {
        RoundError::Fold(e)
    }
}
impl From<io::Error> for RoundError {
    fn from(e: io::Error) -> Self {
        RoundError::Io(e)
    }
}

/// What closing one tick produced.
#[derive(Debug, Default)]
pub struct TickClosed {
    /// The sim's events of this tick (for the history's write chain).
    pub events: Vec<Event>,
    /// The player audience's `snap` body, when this tick was a pass.
    pub frame: Option<String>,
}

pub struct Round<W: Write> {
    pub fold: RoundFold,
    writer: ReplayWriter<W>,
    encoder: SnapEncoder,
    /// Events since the last pass: they ride the next frame.
    unsent: Vec<Event>,
    /// The events the last pass carried.
    passed: Vec<Event>,
    deflater: FrameDeflater,
    /// Passes pushed into the deflater since the last block was written.
    block_len: usize,
    block_first_pass: u32,
    passes: u32,
}

impl<W: Write> Round<W> {
    /// Writes the header and encodes the tick-0 frame (returned: a new round's first pass).
    pub fn start(header: Header, out: W) -> Result<(Round<W>, String), RoundError> {
        let fold = RoundFold::new(header.clone())?;
        let mut writer = ReplayWriter::new(out)?;
        writer.append(&Record::Header(header))?;
        let mut round = Round {
            fold,
            writer,
            encoder: SnapEncoder::new(),
            unsent: Vec::new(),
            passed: Vec::new(),
            deflater: FrameDeflater::default(),
            block_len: 0,
            block_first_pass: 0,
            passes: 0,
        };
        let frame = round.pass()?;
        Ok((round, frame))
    }

    /// Appends an input or seat record for the current tick.
    pub fn append(&mut self, record: Record) -> Result<(), RoundError> {
        if matches!(
            record,
            Record::Tick { .. } | Record::End { .. } | Record::Header(_) | Record::Frames { .. }
        ) {
            return Err(FoldError(format!(
                "{} records are written by the round itself",
                record.name()
            ))
            .into());
        }
        let mut events = Vec::new();
        self.fold.apply(&record, &mut events)?;
        self.writer.append(&record)?;
        Ok(())
    }

    /// Closes the current tick: steps the sim, appends the `Tick`, encodes a pass if due.
    pub fn close_tick(&mut self) -> Result<TickClosed, RoundError> {
        let tick = self.fold.state.tick;
        let mut events = Vec::new();
        let state_hash = self.fold.close_tick(&mut events)?;
        self.writer.append(&Record::Tick { tick, state_hash })?;
        self.unsent.extend(events.iter().cloned());
        let frame = if self.fold.is_pass() {
            Some(self.pass()?)
        } else {
            None
        };
        Ok(TickClosed { events, frame })
    }

    fn pass(&mut self) -> Result<String, RoundError> {
        let view = project(&self.fold.state, &self.fold.rules);
        let frame = self.encoder.encode(view, &self.unsent, &self.fold.ids);
        self.passed = std::mem::take(&mut self.unsent);
        self.deflater.push(&frame);
        self.block_len += 1;
        self.passes += 1;
        if self.block_len >= PASSES_PER_BLOCK {
            self.write_block()?;
        }
        Ok(frame)
    }

    fn write_block(&mut self) -> Result<(), RoundError> {
        if self.block_len > 0 {
            let deflated = self.deflater.cut();
            self.writer.append(&Record::Frames {
                first_pass: self.block_first_pass,
                deflated,
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
        let tick = self.fold.state.tick;
        let end = Record::End {
            tick,
            result: result.name().to_string(),
        };
        let mut events = Vec::new();
        self.fold.apply(&end, &mut events)?;
        self.writer.append(&end)?;
        self.writer.flush()?;
        Ok((self.writer.into_inner(), result))
    }

    /// The last pass's view and the events it carried (for audiences that need their own
    /// encoding of the same pass: full frames, spectators).
    pub fn last_pass(&self) -> (Option<&crate::wire::FrameView>, &[Event]) {
        (self.encoder.last_view(), &self.passed)
    }

    pub fn events_dropped(&self) -> u64 {
        self.encoder.events_dropped
    }
}
