//! One audience's chain of `snap` frames, pass by pass.
//!
//! An audience (the players, or a room's spectators) sees the kitchen at its passes: the
//! events of every tick since its last pass ride the next frame, and the frame is a delta
//! against the audience's previous one (full on the cadence). `Round` drives the players'
//! chain and `verify` re-runs it through this same type, so the frames `verify` compares
//! come from the code that sent them; the room drives the spectators' chain. A connection
//! that needs a full frame gets `full()`: the same pass, view and events, written whole.

use super::snapshot::{SnapEncoder, SnapFrame, encode_full};
use super::view::FrameView;
use crate::sim::Event;

#[derive(Default)]
pub struct PassEncoder {
    snap: SnapEncoder,
    /// Events since the last pass: they ride the next frame.
    unsent: Vec<Event>,
    /// The events the last pass carried.
    passed: Vec<Event>,
}

impl PassEncoder {
    pub fn new() -> PassEncoder {
        PassEncoder::default()
    }

    /// A tick's events, for the next pass.
    pub fn note(&mut self, events: &[Event]) {
        self.unsent.extend_from_slice(events);
    }

    /// Drops the events waiting for a pass (an audience nobody is in).
    pub fn forget_unsent(&mut self) {
        self.unsent.clear();
    }

    /// Encodes the next frame of the chain from `view` and the events since the last pass.
    pub fn pass(&mut self, view: FrameView, ids: &[String]) -> SnapFrame {
        let frame = self.snap.encode(view, &self.unsent, ids);
        std::mem::swap(&mut self.passed, &mut self.unsent);
        self.unsent.clear();
        frame
    }

    /// The last pass again, as a full frame (for a connection that must start over).
    pub fn full(&self, ids: &[String]) -> Option<SnapFrame> {
        self.snap
            .last_view()
            .map(|view| encode_full(view, &self.passed, ids))
    }

    /// The view of the last pass.
    pub fn last_view(&self) -> Option<&FrameView> {
        self.snap.last_view()
    }

    /// Events left out of frames by the per-frame cap, over the whole chain.
    pub fn events_dropped(&self) -> u64 {
        self.snap.events_dropped
    }
}
