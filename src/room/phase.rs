//! The room's phase as a type: what a room holds in each state, and nothing it does not.
//!
//! A countdown has its next number and when it shows; a round being played has its
//! `Play` (the round, its input queue, the spectators' chain, its history handle); a
//! finished round has its `round` frame until the room moves on. The wire names
//! of these states (`RoomState`) come from here and nowhere else.

use crate::bots::BotTeam;
use crate::log::Accepted;
use crate::round::Round;
use crate::shared::Shared;
use crate::store::chain::Batch;
use crate::store::replay_file::ReplayFile;
use crate::store::rows::{EventRow, RoundMeta};
use crate::wire::PassEncoder;
use crate::wire::messages::{RoomState, ServerMsg};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

pub(super) enum Phase {
    Lobby,
    /// Shows `next` at `at` (3, 2, 1); at 0 the round starts.
    Countdown {
        next: u32,
        at: Instant,
    },
    Playing(Box<Play>),
    /// The round is over; its `round` frame goes out at `announce_at` (`None` once sent).
    RoundEnd {
        over: RoundOver,
        announce_at: Option<Instant>,
    },
    Closed,
}

pub(super) struct Play {
    pub round: Round<ReplayFile>,
    pub path: PathBuf,
    /// Accepted inputs waiting for the tick, with their seat.
    pub queue: Vec<(u8, Accepted)>,
    /// The bot cooks of this round, when it has any.
    pub bots: Option<BotTeam>,
    /// The spectators' chain (they see every second pass).
    pub spectators: PassEncoder,
    pub passes: u64,
    pub last_flush: Instant,
    pub seated: usize,
    pub events_dropped_seen: u64,
    /// The history's view of this round, and its count of batches not yet written.
    pub meta: Arc<RoundMeta>,
    pub pending: Arc<AtomicUsize>,
    /// Event rows gathered since the last hand-over: the history gets one batch a second
    /// (and the rest before the round's end), not one per tick.
    pub history: Vec<EventRow>,
    /// Pieces of work each seat finished this round (`store::quests::is_work`): a round's
    /// unlock goes to the seats with `WORK_TO_COUNT` of them, as the history credits it.
    pub work: [u32; crate::sim::SEATS],
    /// A round resumed from its log, waiting for its people (`resume`).
    pub waiting: Option<Waiting>,
    /// On a cluster node, the round's live log on its way to PostgreSQL (`stream`).
    pub stream: Option<super::stream::Streaming>,
}

impl Play {
    /// A round playing from `round`'s first tick (or, resumed, from where its log ends),
    /// with nothing gathered yet.
    pub fn new(
        round: Round<ReplayFile>,
        path: PathBuf,
        bots: Option<BotTeam>,
        seated: usize,
        meta: Arc<RoundMeta>,
        stream: Option<super::stream::Streaming>,
    ) -> Play {
        Play {
            round,
            path,
            bots,
            queue: Vec::new(),
            spectators: PassEncoder::new(),
            passes: 0,
            last_flush: Instant::now(),
            seated,
            events_dropped_seen: 0,
            meta,
            pending: Arc::new(AtomicUsize::new(0)),
            history: Vec::new(),
            work: [0; crate::sim::SEATS],
            waiting: None,
            stream,
        }
    }

    /// Hands the gathered event rows to the write chain as one batch (without waiting;
    /// dropped past 20 pending, as every batch).
    pub fn hand_over_history(&mut self, shared: &Shared, tick: u32) {
        if self.history.is_empty() {
            return;
        }
        let rows = std::mem::take(&mut self.history);
        if let Some(chain) = shared.chain() {
            chain.submit(Batch {
                meta: self.meta.clone(),
                tick,
                rows,
                pending: self.pending.clone(),
            });
        }
    }

    /// Appends a seat change for the current tick (a decided round takes no more).
    pub fn record(&mut self, accepted: Accepted) {
        if self.round.decided() {
            return;
        }
        if let Err(e) = self.round.append(accepted) {
            tracing::warn!(path = %self.path.display(), error = %e, "a seat record was refused by the round log");
        }
    }
}

/// A resumed round waiting for its people.
pub(super) struct Waiting {
    pub until: Instant,
    /// The people's seats that were connected when the file was cut.
    pub seats: Vec<u8>,
    pub tick: u32,
    pub away_s: u64,
}

/// A finished round, kept for the `round` frame and `next_level`.
pub(super) struct RoundOver {
    /// The `round` frame, before each viewer's `unlocked` is filled in.
    pub frame: ServerMsg,
    pub level_order: u32,
    pub won: bool,
}

impl Phase {
    /// The state the wire names.
    pub fn state(&self) -> RoomState {
        match self {
            Phase::Lobby => RoomState::Lobby,
            Phase::Countdown { .. } => RoomState::Countdown,
            Phase::Playing(_) => RoomState::Playing,
            Phase::RoundEnd { .. } => RoomState::RoundEnd,
            Phase::Closed => RoomState::Closed,
        }
    }
}
