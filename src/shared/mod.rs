//! What the rooms and the server share, below both: the settings (`config`), the levels,
//! the sessions (`sessions`, with their key, `session_key`, and the new-session quota per
//! address), the room registry and the room's commands (`registry`), the census of counters
//! (`census`), admission (`admission`: the connection caps, their permits and the
//! reserve), the per-address quotas a minute (`quota`: new sessions, quick plays), OS
//! randomness (`random`), the room threads, and the history (SQLite or PostgreSQL) with its
//! write chain.
//!
//! One `Shared` is made when the server starts and handed (as an `Arc`) to every room and
//! every connection. The room imports this module and never the server; the server and the
//! cluster (`crate::cluster`) import it, and it imports neither. The connection itself is
//! `crate::net`, below all three.

pub mod admission;
pub mod budget;
pub mod census;
pub mod config;
pub mod key_file;
pub mod pending;
pub mod quota;
pub mod random;
pub mod registry;
pub mod session_key;
pub mod sessions;

use crate::levels::Levels;
use crate::net::threads::RoomThreads;
use crate::store::chain::{Chain, Notify};
use crate::store::rescue::Rescue;
use crate::store::stored_replays::Uploads;
use crate::store::{Store, StoreError};
use admission::Admission;
use census::Census;
use config::ServerConfig;
use registry::{Registry, RoomCmd};
use session_key::SessionKey;
use sessions::Sessions;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

pub struct Shared {
    pub config: ServerConfig,
    /// The campaign and test levels, loaded once at start.
    pub levels: Levels,
    pub sessions: Sessions,
    pub rooms: Registry,
    /// The threads rooms and their sockets run on.
    pub threads: RoomThreads,
    pub census: Census,
    /// Finished rounds' replay bytes the disk has not taken yet, and where a shutdown
    /// writes what is left.
    pub rescue: Rescue,
    /// The connection permits (caps and reserve), taken by every accepted connection.
    pub admission: Arc<Admission>,
    /// The quick plays each address may ask for a minute.
    pub quick_plays: quota::Quota,
    /// Each address's budget of HTTP requests, and of socket upgrades (`budget`).
    pub requests: budget::Budget,
    pub upgrades: budget::Budget,
    /// Sockets that have not said `hello`, shared out by address (`pending`), and the
    /// addresses the server has let a socket in from (whom the reserve is kept for).
    pub pending: Arc<pending::PendingSockets>,
    pub known: pending::Known,
    /// The history (SQLite or PostgreSQL) and its write chain, once attached.
    store: OnceLock<Store>,
    chain: OnceLock<Chain>,
    /// On PostgreSQL: finished rounds' replay files on their way into the database.
    uploads: OnceLock<Uploads>,
    /// On PostgreSQL: the live logs of the rounds playing here, for adoption.
    log_stream: OnceLock<crate::store::log_stream::LogStream>,
    /// On a node alone, the replay files its start found with no result in the history.
    unfinished: Mutex<Vec<std::path::PathBuf>>,
    next_conn: AtomicU64,
}

impl Shared {
    pub fn new(config: ServerConfig, levels: Levels) -> Arc<Shared> {
        let threads = config
            .worker_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let rescue_dir = config.rescue_dir.clone();
        Arc::new(Shared {
            admission: Admission::new(config.connections.clone()),
            sessions: Sessions::new(config.new_sessions_per_min),
            quick_plays: quota::Quota::new(config.quick_plays_per_min),
            requests: budget::Budget::new(config.requests.0, config.requests.1),
            upgrades: budget::Budget::new(config.upgrades.0, config.upgrades.1),
            pending: pending::PendingSockets::new(
                config.connections.pending_sockets,
                config.connections.pending_per_ip,
            ),
            known: pending::Known::default(),
            config,
            levels,
            rooms: Registry::default(),
            threads: RoomThreads::new(threads),
            census: Census::default(),
            rescue: Rescue::new(rescue_dir),
            store: OnceLock::new(),
            chain: OnceLock::new(),
            uploads: OnceLock::new(),
            log_stream: OnceLock::new(),
            unfinished: Mutex::default(),
            next_conn: AtomicU64::new(1),
        })
    }

    /// Opens the history: the session key is read (or made) in the data dir and rows of
    /// older builds rehashed under it, sessions that never finished a round and were not
    /// seen within the TTL are expired (then hourly), the write chain starts (replaying any
    /// outbox left by an earlier run), quest completions are routed to their player's
    /// room, and on PostgreSQL the replay uploads start (every local replay file the
    /// database does not hold yet queued first).
    pub async fn attach_history(self: &Arc<Self>, store: Store) -> Result<(), StoreError> {
        let key_file = self
            .config
            .session_key_file
            .clone()
            .unwrap_or_else(|| self.config.data_dir.join(session_key::FILE));
        let key = SessionKey::load_or_create_file(&key_file)
            .map_err(|e| StoreError::KeyFile(Box::new(e)))?;
        crate::store::sessions::check_key(&store, &key.fingerprint(), &key_file).await?;
        let rekeyed = crate::store::sessions::rekey(&store, |sha| key.rekey(sha)).await?;
        if rekeyed > 0 {
            tracing::info!(
                sessions = rekeyed,
                "session token hashes rekeyed under the session key"
            );
        }
        let weak = Arc::downgrade(self);
        let notify: Notify = Arc::new(move |meta, completion| {
            let Some(shared) = weak.upgrade() else { return };
            if let Some(room) = shared.rooms.get(&meta.room_code) {
                let _ = room.tx.try_send(RoomCmd::QuestCompleted(completion));
            }
        });
        let chain =
            Chain::start(store.clone(), self.config.data_dir.join("outbox"), notify).await?;
        self.sessions.attach(store.clone(), chain.clone(), key);
        let _ = self.chain.set(chain);
        let replays = self.config.data_dir.join("replays");
        if let Some(uploads) = Uploads::start(&store, &replays).await {
            let _ = self.uploads.set(uploads);
            if let Some(pool) = crate::store::stored_replays::pg(&store) {
                let stream = crate::store::log_stream::LogStream::start(pool.clone());
                let _ = self.log_stream.set(stream);
            }
        } else {
            // Alone: the local files whose round has no result, for `server::torn` to fold
            // (in a cluster the uploads find them, weighing the stored copies too).
            let files = crate::log::replay_files(&replays).unwrap_or_default();
            match crate::store::unfinished::unfinished(&store, files).await {
                Ok(files) => *crate::lock::lock(&self.unfinished) = files,
                Err(e) => {
                    tracing::warn!(error = %e, "the history could not be asked which local replays have no result: none is folded at this start (`undercooked reindex` does it)");
                }
            }
        }
        let _ = self.store.set(store.clone());
        expire_sessions(&store, self.config.session_ttl_s).await;
        tokio::spawn(session_upkeep(Arc::downgrade(self)));
        Ok(())
    }

    /// The write chain, when the history is attached.
    pub fn chain(&self) -> Option<&Chain> {
        self.chain.get()
    }

    /// The replay files this start found whose round the history has not finished (the
    /// uploads' torn rounds on PostgreSQL; `store::unfinished` alone), handed over once.
    pub fn take_unfinished(&self) -> Vec<std::path::PathBuf> {
        match self.uploads.get() {
            Some(uploads) => uploads.take_torn(),
            None => std::mem::take(&mut *crate::lock::lock(&self.unfinished)),
        }
    }

    /// The live log stream, when the history is on PostgreSQL.
    pub fn log_stream(&self) -> Option<&crate::store::log_stream::LogStream> {
        self.log_stream.get()
    }

    /// The replay uploads, when the history is on PostgreSQL.
    pub fn uploads(&self) -> Option<&Uploads> {
        self.uploads.get()
    }

    /// A round's replay file is complete on disk: on PostgreSQL it is uploaded (off the
    /// caller's thread; the call never waits).
    pub fn replay_finished(&self, path: &std::path::Path) {
        if let Some(uploads) = self.uploads.get() {
            uploads.finished(path.to_path_buf());
        }
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

/// A session nobody used for this long leaves the cache (the database keeps it).
const SESSION_IDLE: Duration = Duration::from_secs(600);

/// Deletes the sessions past their TTL that never finished a round (logged, never fatal).
async fn expire_sessions(store: &Store, ttl_s: u64) {
    let before = crate::store::unix_now() - ttl_s as i64;
    match crate::store::sessions::expire(store, before).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(sessions = n, "sessions expired (never finished a round)"),
        Err(e) => tracing::warn!(error = %e, "sessions could not be expired; next hour again"),
    }
}

/// Every minute, idle sessions leave the cache; every hour, expired ones leave the
/// database. Ends with the server.
async fn session_upkeep(shared: Weak<Shared>) {
    let mut minutes = 0u32;
    let mut every = tokio::time::interval(Duration::from_secs(60));
    every.tick().await;
    loop {
        every.tick().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.sessions.evict_idle(SESSION_IDLE);
        minutes += 1;
        if minutes.is_multiple_of(60)
            && let Some(store) = shared.store()
        {
            expire_sessions(store, shared.config.session_ttl_s).await;
        }
    }
}
