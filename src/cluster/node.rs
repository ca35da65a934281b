//! This node in its cluster: its registration in `nodes` (a stable id, a new epoch at every
//! start), where it is found, the node secret its requests are signed with, and the two
//! small connection pools the cluster works on — one for the players' requests (quick
//! play, claiming a code, finding a room's owner), one for the node's own upkeep (the
//! lease, publishing rooms, the janitor). Neither is the history's pool, and neither is the
//! other's: a flood of requests can exhaust the first and the lease is still renewed.

use super::secret::SecretFile;
use super::signing::Nonces;
use crate::store::StoreError;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

/// How long a lease lasts past its last renewal, and how often it is renewed.
pub const LEASE_S: i64 = 10;
pub const RENEW_EVERY_S: u64 = 2;

/// Connections for players' requests: above the quick plays allowed in flight
/// (`quick::IN_FLIGHT`), so claiming a code or finding a room's owner always has one.
pub const REQUEST_CONNECTIONS: u32 = 6;
/// Connections for the node's upkeep: the lease and publishing on one, the janitor on the
/// other.
pub const UPKEEP_CONNECTIONS: u32 = 2;

/// Where this node is found: by players (`public_ws`) and by other nodes (`internal_http`,
/// its internal listener).
#[derive(Clone, Debug)]
pub struct Addresses {
    pub node_id: String,
    pub public_ws: String,
    pub internal_http: String,
}

/// A node of the cluster as the directory has it (its lease live when read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub node_id: String,
    pub epoch: i64,
    pub public_ws: String,
    pub internal_http: String,
}

/// This node, registered.
pub struct Cluster {
    pub node_id: String,
    pub epoch: i64,
    pub public_ws: String,
    pub internal_http: String,
    /// Players' requests (a short acquire timeout, statement and lock timeouts).
    pub(super) requests: PgPool,
    /// The lease, publishing and the janitor.
    pub(super) upkeep: PgPool,
    pub(super) secret: SecretFile,
    pub(super) nonces: Nonces,
    pub(super) draining: AtomicBool,
    pub(super) lease: super::lease::LeaseState,
    pub(super) quick: super::quick::QuickState,
    pub(super) opened: super::directory::Opened,
    pub(super) max_players: u8,
}

/// A pool of `size` connections on `base`, each with these session settings.
async fn pool(
    base: &PgConnectOptions,
    size: u32,
    acquire: Duration,
    settings: &[(&str, &str)],
) -> Result<PgPool, sqlx::Error> {
    let opts = base.clone().options(settings.iter().copied());
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire)
        .connect_with(opts)
        .await
}

impl Cluster {
    /// Registers this node with a new epoch, on pools of its own made from the history's
    /// connect options. An id whose lease is still live belongs to a running node (or this
    /// node's previous run, killed less than `LEASE_S` ago): the registration waits for
    /// that lease to lapse, up to `LEASE_S` + 2 s, then is refused.
    pub async fn join(
        history: &PgPool,
        at: Addresses,
        secret: SecretFile,
        max_players: u8,
    ) -> Result<Cluster, StoreError> {
        let base = history.connect_options();
        let open = |e: sqlx::Error| StoreError::Open {
            db: "the cluster's directory".into(),
            error: e.to_string(),
        };
        let requests = pool(
            &base,
            REQUEST_CONNECTIONS,
            Duration::from_secs(1),
            &[("statement_timeout", "2s"), ("lock_timeout", "1s")],
        )
        .await
        .map_err(open)?;
        let upkeep = pool(
            &base,
            UPKEEP_CONNECTIONS,
            Duration::from_secs(2),
            &[("statement_timeout", "5s"), ("lock_timeout", "2s")],
        )
        .await
        .map_err(open)?;
        let deadline = std::time::Instant::now() + Duration::from_secs(LEASE_S as u64 + 2);
        let epoch = loop {
            if let Some(epoch) = super::lease::register(&upkeep, &at).await? {
                break epoch;
            }
            if std::time::Instant::now() > deadline {
                return Err(StoreError::Open {
                    db: "the cluster".into(),
                    error: format!(
                        "node id {} is held by a running node (its lease is live): give this node another id (UNDERCOOKED_NODE_ID) or stop the other",
                        at.node_id
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        tracing::info!(node = %at.node_id, epoch, public = %at.public_ws, internal = %at.internal_http, "joined the cluster");
        Ok(Cluster {
            node_id: at.node_id,
            epoch,
            public_ws: at.public_ws,
            internal_http: at.internal_http,
            requests,
            upkeep,
            secret,
            nonces: Nonces::default(),
            draining: AtomicBool::new(false),
            lease: super::lease::LeaseState::new(),
            quick: super::quick::QuickState::default(),
            opened: super::directory::Opened::default(),
            max_players,
        })
    }

    /// Where a player's socket for room `code` goes on this node.
    pub fn ws_url(&self, code: &str) -> String {
        format!("{}/ws/{code}", self.public_ws)
    }

    pub fn draining(&self) -> bool {
        self.draining.load(Relaxed)
    }

    /// Stops taking rooms: the directory says so at once, so quick play skips this node,
    /// and this node opens no room (its lobbies show no open seat from the next beat).
    pub async fn drain(&self) {
        self.draining.store(true, Relaxed);
        let marked = sqlx::query("UPDATE nodes SET draining = TRUE WHERE id = $1 AND epoch = $2")
            .bind(&self.node_id)
            .bind(self.epoch)
            .execute(&self.upkeep)
            .await;
        if let Err(e) = marked {
            tracing::warn!(error = %e, "the directory could not be told this node is draining");
        }
    }

    /// This node as the directory has it.
    pub fn as_owner(&self) -> Owner {
        Owner {
            node_id: self.node_id.clone(),
            epoch: self.epoch,
            public_ws: self.public_ws.clone(),
            internal_http: self.internal_http.clone(),
        }
    }
}
