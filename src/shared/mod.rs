//! What the rooms and the server share, below both: the settings, the levels, the
//! sessions, the room registry, the census, the connection gate, and the history's write
//! chain.
//!
//! One `Shared` is made when the server starts and handed (as an `Arc`) to every room and
//! every connection. The room imports this module and never the server; the server
//! imports both. `conn` is the one connection type both sides use.

pub mod census;
pub mod config;
pub mod conn;
pub mod gate;
pub mod registry;
pub mod sessions;

use crate::levels::Levels;
use crate::store::chain::{Chain, Notify};
use crate::store::{Store, StoreError};
use census::Census;
use config::ServerConfig;
use gate::Gate;
use registry::{Registry, RoomCmd};
use sessions::Sessions;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

pub struct Shared {
    pub config: ServerConfig,
    /// The campaign and test levels, loaded once at start.
    pub levels: Levels,
    pub sessions: Sessions,
    pub rooms: Registry,
    pub census: Census,
    /// The connection places (caps and reserve), taken by every accepted connection.
    pub gate: Arc<Gate>,
    /// The history (SQLite) and its write chain, once attached.
    store: OnceLock<Store>,
    chain: OnceLock<Chain>,
    next_conn: AtomicU64,
}

impl Shared {
    pub fn new(config: ServerConfig, levels: Levels) -> Arc<Shared> {
        Arc::new(Shared {
            gate: Gate::new(config.connections.clone()),
            config,
            levels,
            sessions: Sessions::default(),
            rooms: Registry::default(),
            census: Census::default(),
            store: OnceLock::new(),
            chain: OnceLock::new(),
            next_conn: AtomicU64::new(1),
        })
    }

    /// Opens the history: sessions are loaded from it, the write chain starts (replaying
    /// any outbox left by an earlier run), and quest completions are routed to their
    /// player's room.
    pub async fn attach_history(self: &Arc<Self>, store: Store) -> Result<(), StoreError> {
        self.sessions
            .preload(crate::store::sessions::load_all(&store).await?);
        let weak = Arc::downgrade(self);
        let notify: Notify = Arc::new(move |meta, completion| {
            let Some(shared) = weak.upgrade() else { return };
            if let Some(room) = shared.rooms.get(&meta.room_code) {
                let _ = room.tx.try_send(RoomCmd::QuestCompleted(completion));
            }
        });
        let chain =
            Chain::start(store.clone(), self.config.data_dir.join("outbox"), notify).await?;
        self.sessions.persist_with(chain.clone());
        let _ = self.chain.set(chain);
        let _ = self.store.set(store);
        Ok(())
    }

    /// The write chain, when the history is attached.
    pub fn chain(&self) -> Option<&Chain> {
        self.chain.get()
    }

    /// The database, when the history is attached.
    pub fn store(&self) -> Option<&Store> {
        self.store.get()
    }

    /// A fresh connection id (ids are never reused, so a late close names only itself).
    pub fn conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Relaxed)
    }
}
