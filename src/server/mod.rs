//! The network side: HTTP routes, the WebSocket connection task, and `run`.
//!
//! `open(config, levels, db)` makes the `Shared` a server runs on (history attached);
//! `join(shared, bound)` makes it a `Node`, alone or in its cluster (`crate::cluster`: on a
//! PostgreSQL history it binds the internal listener and registers); `run(listener, node,
//! shutdown)` serves until `shutdown` resolves, so tests start a real server on port 0 and
//! the binary starts one on its configured address. The files: `routes` (the table of
//! public HTTP routes) over `rooms_api` (create, join, solo, status, bots), `quick` (quick
//! play, carrying out the directory's steps), `seat` (a seat's request and answer), `info`,
//! `seams` and `reply`; `internal` (the internal listener and its signed routes, for the
//! other nodes); `accept` (the accept loop, connection caps and timeouts) serves each
//! connection; `upgrade` (the `/ws/{code}` handshake, before warp) hands the socket to
//! `socket`, its task (the connection itself, its reading, rules and writing, is
//! `crate::net`). `replays_api` answers the replay viewer from `replay_cache` (answers kept
//! per file, built on the blocking pool by `replay_decode`), each address held to its share
//! of those requests by `replay_shares`. `torn` reindexes, at start,
//! the rounds a killed node left torn.

mod accept;
mod adopt;
mod assets;
mod body;
pub mod game_data;
mod history_api;
mod history_cache;
mod info;
mod internal;
mod metrics;
mod quick;
pub(crate) mod replay_cache;
mod replay_decode;
mod replay_shares;
mod replays_api;
mod reply;
mod resumes;
mod rooms_api;
mod routes;
mod seams;
mod seat;
mod socket;
mod torn;
mod upgrade;

use crate::cluster::Directory;
use crate::levels::Levels;
use crate::shared::Shared;
use crate::shared::config::ServerConfig;
use crate::shared::registry::RoomCmd;
use crate::store::{Store, StoreError};
use crate::wire::messages::RoomState;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

pub use info::census;

/// A room route's body as the routes parse it — `{name?, token?}`, or a bot's `{seat?}`
/// when `bot` — under the declared `content_type`: the refusal's status when refused.
/// (The HTTP body fuzz target's way in: `fuzz_entry::http_body`.)
pub fn parse_room_body(content_type: Option<&str>, bytes: &[u8], bot: bool) -> Result<(), u16> {
    let body = body::Body {
        content_type: content_type.map(str::to_string),
        bytes: bytes::Bytes::copy_from_slice(bytes),
    };
    rooms_api::parse_body(&body, bot).map_err(|refusal| refusal.status().as_u16())
}

/// Every file of the web client the server ships, with its size as sent gzipped.
pub fn shipped_assets() -> Vec<(String, usize)> {
    assets::shipped()
}

/// The shared state of a server on `config` and `levels`, with its history in the database
/// at `db` (what an earlier shutdown rescued put back, the database opened and migrated,
/// sessions loaded, the write chain started).
pub async fn open(
    config: ServerConfig,
    levels: Levels,
    db: &str,
) -> Result<Arc<Shared>, StoreError> {
    crate::store::rescue::recover(&config.rescue_dir, &config.data_dir);
    let store = Store::open(db).await?;
    crate::store::quests::set_campaign_size(&store, levels.campaign().count()).await?;
    let shared = Shared::new(config, levels);
    shared.attach_history(store).await?;
    Ok(shared)
}

/// A server ready to serve: its shared state, where its rooms are known, and in a
/// cluster its internal listener.
pub struct Node {
    pub shared: Arc<Shared>,
    pub directory: Arc<Directory>,
    internal: Option<TcpListener>,
    /// The replay API's cache budget (`UNDERCOOKED_REPLAY_CACHE_MB`).
    replay_cache_bytes: usize,
}

impl Node {
    /// The node with the replay API's answers kept in at most `mb` mebibytes.
    pub fn with_replay_cache_mb(mut self, mb: usize) -> Node {
        self.replay_cache_bytes = mb << 20;
        self
    }
}

/// Threads tokio's blocking pool may run at once. Replay reads and decodes, the start's
/// reindex and file reads of uploads go there; past this they queue rather than each
/// taking a thread (the pool's default, 512, let one address's downloads start hundreds).
pub const BLOCKING_THREADS: usize = 8;

/// How long an idle blocking thread lives: briefly, so a burst's threads, and what the
/// allocator holds for them, are given back soon after it.
pub const BLOCKING_KEEP_ALIVE: Duration = Duration::from_secs(2);

/// Why a node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("binding the internal listener on {addr} (UNDERCOOKED_INTERNAL_BIND): {error}")]
    Bind {
        addr: std::net::SocketAddr,
        error: std::io::Error,
    },
    #[error(transparent)]
    Cluster(#[from] crate::cluster::JoinError),
    #[error(
        "UNDERCOOKED_HANDOFF is for a node alone: in a cluster a dead node's rounds are adopted by the others, and a SIGTERM drains (docs/SCALING.md)"
    )]
    HandoffInCluster,
}

/// Makes `shared` a node serving players at `public`: alone (a SQLite history), or in its
/// cluster (PostgreSQL): the internal listener bound (`--internal-bind`), the node
/// registered, its upkeep started, and the rounds it was killed in reindexed (`torn`).
pub async fn join(shared: Arc<Shared>, public: std::net::SocketAddr) -> Result<Node, JoinError> {
    let clustered = shared
        .store()
        .is_some_and(|s| s.dialect() == crate::store::db::Dialect::Postgres);
    // The rounds its last run left without a result: a node alone resumes those it can
    // (`resumes`); the rest are folded from their files as they are.
    if clustered && shared.config.handoff {
        return Err(JoinError::HandoffInCluster);
    }
    let unfinished = shared.take_unfinished();
    let torn = match clustered {
        true => unfinished,
        false => resumes::resume_all(&shared, unfinished).await,
    };
    tokio::spawn(torn::reindex(Arc::downgrade(&shared), torn));
    if !clustered {
        return Ok(Node {
            shared,
            directory: Arc::new(Directory::Single),
            internal: None,
            replay_cache_bytes: replay_cache::DEFAULT_MB << 20,
        });
    }
    let addr = shared.config.internal_bind;
    let internal = TcpListener::bind(addr)
        .await
        .map_err(|error| JoinError::Bind { addr, error })?;
    let bound = internal
        .local_addr()
        .map_err(|error| JoinError::Bind { addr, error })?;
    let directory = Arc::new(Directory::join(&shared, public, bound).await?);
    if let (Some(stream), Some(c)) = (shared.log_stream(), directory.cluster()) {
        stream.joined(&c.node_id, c.epoch);
    }
    Ok(Node {
        shared,
        directory,
        internal: Some(internal),
        replay_cache_bytes: replay_cache::DEFAULT_MB << 20,
    })
}

/// Serves HTTP and WebSocket on `listener` (and, in a cluster, the other nodes on the
/// internal listener) until `shutdown` resolves; then every room finishes its round as
/// aborted (its replay file completed) and closes its sockets with 1001, within 4 s; then,
/// within `GRACE`, the history takes every round's result and the disk every replay file's
/// end; what is left then goes to the rescue folder (`rescue`). A cluster node drains
/// first, and at the end leaves the directory (its rows deleted, its lease ended).
pub async fn run(listener: TcpListener, node: Node, shutdown: impl Future<Output = ()>) {
    let Node {
        shared,
        directory,
        internal,
        replay_cache_bytes,
    } = node;
    let routes = warp::service(routes::routes(&shared, &directory, replay_cache_bytes));
    let (stop_internal, internal_stopped) = tokio::sync::oneshot::channel::<()>();
    let internal = internal.map(|l| {
        tokio::spawn(internal::serve(
            l,
            shared.clone(),
            directory.clone(),
            async move {
                let _ = internal_stopped.await;
            },
        ))
    });
    // Finished rounds' replay bytes a refusing disk has not taken, tried once a second.
    let retry = {
        let shared = shared.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                shared.rescue.retry();
            }
        })
    };
    // In a cluster a shutdown drains first: no new rooms, the rounds playing end (up to
    // the drain grace), while the node still serves their sockets. A handoff does not
    // wait: its rounds go on at the next start.
    let handoff = shared.config.handoff;
    let drained = {
        let (shared, directory) = (shared.clone(), directory.clone());
        async move {
            shutdown.await;
            if !handoff {
                drain(&shared, &directory).await;
            }
        }
    };
    accept::serve(listener, shared.clone(), routes, drained).await;
    if handoff {
        tracing::info!("handing over: every round stops at a tick boundary for the next start");
    } else {
        tracing::info!("shutting down: closing every room");
    }
    let _ = tokio::time::timeout(Duration::from_secs(4), close_rooms(&shared, handoff)).await;
    if handoff {
        // The `1012` closes reach the clients (a browser that sees the connection reset
        // instead says only that it was lost): a moment for the sockets to write them.
        let closing = std::time::Instant::now();
        while shared.census.sockets() > 0 && closing.elapsed() < HANDOFF_CLOSE {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    retry.abort();
    if tokio::time::timeout(GRACE, settled(&shared)).await.is_err() {
        write_out(&shared);
    }
    let _ = stop_internal.send(());
    if let Some(task) = internal {
        let _ = task.await;
    }
    directory.leave().await;
    // The rooms have ended; their threads end with whatever sockets still run there.
    shared.threads.stop();
}

/// How long a handoff waits for its sockets to send their closes before it exits.
const HANDOFF_CLOSE: Duration = Duration::from_millis(300);

/// How long a drained node keeps serving after its last round ended, for the results.
const DRAIN_LINGER: Duration = Duration::from_secs(2);

/// A clustered node's drain: marked draining, it waits until none of its rooms is
/// counting down or playing, or `UNDERCOOKED_DRAIN_GRACE_S` pass. A node alone (SQLite)
/// does not wait.
async fn drain(shared: &Shared, directory: &Directory) {
    if directory.cluster().is_none() {
        return;
    }
    directory.drain().await;
    let grace = Duration::from_secs(shared.config.drain_grace_s);
    tracing::info!(
        grace_s = grace.as_secs(),
        "draining: no new rooms; waiting for the rounds to end"
    );
    let started = std::time::Instant::now();
    loop {
        let (by_state, _) = shared.rooms.headcount();
        let playing: u64 = [RoomState::Countdown, RoomState::Playing]
            .iter()
            .map(|s| by_state.get(s).copied().unwrap_or(0))
            .sum();
        if playing == 0 || started.elapsed() >= grace {
            // A round that ended while draining has its results frames still on the way:
            // its players get them before their sockets close.
            if playing == 0 && !started.elapsed().is_zero() && started.elapsed() < grace {
                tokio::time::sleep(DRAIN_LINGER.min(grace - started.elapsed())).await;
            }
            tracing::info!(rounds_playing = playing, "drained");
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// How long a shutdown waits for the history and the disk to take what rounds left.
pub const GRACE: Duration = Duration::from_secs(5);

/// Resolves once every round's result is in the database, every replay file's end on disk
/// and, on PostgreSQL, every finished replay uploaded (tried four times a second: the disk
/// or the database may come back meanwhile; a replay not uploaded stays on disk and is
/// uploaded at the next start).
async fn settled(shared: &Shared) {
    loop {
        if let Some(chain) = shared.chain() {
            chain.flushed().await;
        }
        let files = shared.rescue.retry();
        let results = shared.chain().map_or(0, |c| c.results_pending());
        let uploads = shared.uploads().map_or(0, |u| u.pending());
        if files == 0 && results == 0 && uploads == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// After the grace: what only memory holds is written for the next start, and said.
fn write_out(shared: &Shared) {
    let dir = shared.rescue.dir();
    let files = shared.rescue.write_out();
    let results = shared.chain().map(|c| c.write_out(dir)).unwrap_or_default();
    let waiting = shared.chain().map_or(0, |c| c.results_pending());
    tracing::warn!(
        rescue_dir = %dir.display(),
        replay_ends_rescued = files.done,
        results_rescued = results.done,
        dropped = files.failed + results.failed,
        results_not_in_database = waiting,
        replays_not_uploaded = shared.uploads().map_or(0, |u| u.pending()),
        "shutdown: the history or the disk did not take everything within {} s; what was left is written for the next start",
        GRACE.as_secs()
    );
}

async fn close_rooms(shared: &Shared, handoff: bool) {
    let mut waits = Vec::new();
    for room in shared.rooms.all() {
        let (reply, rx) = tokio::sync::oneshot::channel();
        let cmd = match handoff {
            true => RoomCmd::Handoff { reply },
            false => RoomCmd::Shutdown { reply },
        };
        if room.tx.send(cmd).await.is_ok() {
            waits.push(rx);
        }
    }
    for w in waits {
        let _ = w.await;
    }
}
