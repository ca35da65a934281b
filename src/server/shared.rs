//! What every part of the server shares: settings, levels, sessions, the room registry and
//! the census counters behind `/api/stats` and `/metrics`.
//!
//! Rooms own their state; the registry only knows how to reach a room (its command channel)
//! and a few atomics the room keeps current (its state and head counts) for quick play and
//! the census. Counters are atomics so no request ever waits on a room.

use super::config::ServerConfig;
use crate::levels::LevelSource;
use crate::room::RoomCmd;
use crate::sessions::Sessions;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// What the registry knows of a room without asking it.
#[derive(Default)]
pub struct RoomInfo {
    /// `RoomState` as a number: 0 lobby, 1 countdown, 2 playing, 3 round_end, 4 closed.
    pub state: AtomicU8,
    pub seated: AtomicU8,
    pub spectators: AtomicU8,
}

#[derive(Clone)]
pub struct RoomEntry {
    pub tx: mpsc::Sender<RoomCmd>,
    pub info: Arc<RoomInfo>,
}

#[derive(Default)]
pub struct Stats {
    pub sockets: AtomicU64,
    pub send_queue_max: AtomicU64,
    pub rounds_started: AtomicU64,
    pub rounds_completed: AtomicU64,
    pub rounds_aborted: AtomicU64,
    pub inputs_received: AtomicU64,
    pub inputs_dropped: AtomicU64,
    pub stale_seqs: AtomicU64,
    pub clamped_moves: AtomicU64,
    pub input_gaps: AtomicU64,
    pub events_dropped: AtomicU64,
    pub refusals: Mutex<BTreeMap<u16, u64>>,
}

impl Stats {
    pub fn refused(&self, close_code: u16) {
        *self
            .refusals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(close_code)
            .or_insert(0) += 1;
    }

    pub fn queue_depth(&self, depth: usize) {
        self.send_queue_max.fetch_max(depth as u64, Relaxed);
    }
}

pub struct Shared {
    pub config: ServerConfig,
    /// The history (SQLite + its write chain), once attached.
    pub history: std::sync::OnceLock<(crate::store::Store, crate::store::chain::Chain)>,
    /// The campaign and test levels, loaded once at start.
    pub levels: Vec<LevelSource>,
    pub sessions: Sessions,
    pub rooms: Mutex<BTreeMap<String, RoomEntry>>,
    pub stats: Stats,
    next_conn: AtomicU64,
}

impl Shared {
    pub fn new(config: ServerConfig, levels: Vec<LevelSource>) -> Arc<Shared> {
        Arc::new(Shared {
            config,
            history: std::sync::OnceLock::new(),
            levels,
            sessions: Sessions::default(),
            rooms: Mutex::new(BTreeMap::new()),
            stats: Stats::default(),
            next_conn: AtomicU64::new(1),
        })
    }

    /// Opens the history: sessions are loaded from it, the write chain starts (replaying
    /// any outbox left by an earlier run), and quest completions are routed to their player.
    pub async fn attach_history(
        self: &Arc<Self>,
        store: crate::store::Store,
    ) -> Result<(), crate::store::StoreError> {
        use sqlx::Row;
        let rows = sqlx::query("SELECT id, token_hash, name, unlocked FROM sessions")
            .fetch_all(&store.pool)
            .await?;
        self.sessions.preload(
            rows.iter()
                .map(|r| crate::store::history::SessionRow {
                    id: r.get("id"),
                    token_hash: r.get("token_hash"),
                    name: r.get("name"),
                    unlocked: r.get::<i64, _>("unlocked") as u32,
                })
                .collect(),
        );
        let weak = Arc::downgrade(self);
        let notify: crate::store::chain::Notify = Arc::new(move |meta, completion| {
            let Some(shared) = weak.upgrade() else { return };
            if let Some(room) = shared.room(&meta.room_code) {
                let _ = room.tx.try_send(RoomCmd::Quest(completion));
            }
        });
        let chain = crate::store::chain::Chain::start(
            store.clone(),
            self.config.data_dir.join("outbox"),
            notify,
        )
        .await?;
        self.sessions.persist_with(chain.clone());
        let _ = self.history.set((store, chain));
        Ok(())
    }

    pub fn chain(&self) -> Option<&crate::store::chain::Chain> {
        self.history.get().map(|h| &h.1)
    }

    pub fn conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Relaxed)
    }

    pub fn room(&self, code: &str) -> Option<RoomEntry> {
        self.rooms
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(code)
            .cloned()
    }

    pub fn forget_room(&self, code: &str) {
        self.rooms
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(code);
    }

    pub fn campaign(&self) -> impl Iterator<Item = &LevelSource> {
        self.levels.iter().filter(|l| l.level.order > 0)
    }

    pub fn level(&self, id: &str) -> Option<&LevelSource> {
        self.levels.iter().find(|l| l.level.id == id)
    }

    /// The campaign level after `order`, or the last one when there is none.
    pub fn level_after(&self, order: u32) -> Option<&LevelSource> {
        self.campaign()
            .find(|l| l.level.order > order)
            .or_else(|| self.campaign().last())
    }

    pub fn level_with_order(&self, order: u32) -> Option<&LevelSource> {
        self.campaign().find(|l| l.level.order == order)
    }

    /// Resident memory high-water mark, in MiB (Linux; 0 elsewhere).
    pub fn memory_mb() -> f64 {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            })
            .map_or(0.0, |kb| (kb / 1024.0 * 10.0).round() / 10.0)
    }
}
