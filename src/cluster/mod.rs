//! Several nodes over one PostgreSQL: this node's registration and lease (`nodes`), the
//! directory of the rooms it holds (`rooms_live`), and where another node's room is.
//!
//! Only a server whose history is PostgreSQL joins a cluster; on SQLite there is one node
//! and none of this runs. A node registers under a stable id with a new epoch, renews a
//! lease every 2 s (valid 10 s, on the database's clock) and publishes its rooms at most
//! once a second each (`crate::shared::cluster_upkeep`). Every read of the directory joins on a live lease, so the
//! rooms of a node that died leave it within 10 s without anyone cleaning up. A room's code
//! is claimed in the directory before the room opens, so codes are unique across nodes,
//! and a dead node's codes are not claimed again for an hour.
//!
//! Joins for a room held elsewhere are forwarded to its owner (`forward`), authenticated by
//! the node secret: every node derives it from the session key they share.

pub mod forward;

use crate::store::StoreError;
use sqlx::PgPool;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// How long a lease lasts past its last renewal, and how often it is renewed.
pub const LEASE_S: i64 = 10;
pub const RENEW_EVERY_S: u64 = 2;

/// The header a forwarded request carries the node secret in.
pub const SECRET_HEADER: &str = "x-undercooked-node-secret";
/// The header a forwarded request carries the player's address in.
pub const SOURCE_HEADER: &str = "x-undercooked-source";

/// Where this node is found: by players (`public_ws`) and by other nodes (`internal_http`).
#[derive(Clone, Debug)]
pub struct Addresses {
    pub node_id: String,
    pub public_ws: String,
    pub internal_http: String,
}

/// This node, registered.
pub struct Cluster {
    pub node_id: String,
    pub epoch: i64,
    pub public_ws: String,
    pub internal_http: String,
    secret: String,
    pub(crate) pool: PgPool,
    draining: AtomicBool,
}

/// The node that holds a room, as the directory has it (its lease live).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub node_id: String,
    pub epoch: i64,
    pub public_ws: String,
    pub internal_http: String,
}

impl Cluster {
    /// Registers this node with a new epoch. An id whose lease is still live belongs to a
    /// running node (or this node's previous run, killed less than `LEASE_S` ago): the
    /// registration waits for that lease to lapse, up to `LEASE_S` + 2 s, then is refused.
    pub async fn join(pool: PgPool, at: Addresses, secret: String) -> Result<Cluster, StoreError> {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs(LEASE_S as u64 + 2);
        loop {
            let epoch: Option<(i64,)> = sqlx::query_as(
                "INSERT INTO nodes (id, epoch, public_ws, internal_http, lease_until, build)
                 VALUES ($1, 1, $2, $3, now() + make_interval(secs => $4), $5)
                 ON CONFLICT (id) DO UPDATE SET epoch = nodes.epoch + 1, public_ws = excluded.public_ws,
                   internal_http = excluded.internal_http, lease_until = excluded.lease_until,
                   draining = FALSE, rooms = 0, sockets = 0, build = excluded.build, started_at = now()
                 WHERE nodes.lease_until < now()
                 RETURNING epoch",
            )
            .bind(&at.node_id)
            .bind(&at.public_ws)
            .bind(&at.internal_http)
            .bind(LEASE_S as f64)
            .bind(env!("CARGO_PKG_VERSION"))
            .fetch_optional(&pool)
            .await?;
            if let Some((epoch,)) = epoch {
                tracing::info!(node = %at.node_id, epoch, public = %at.public_ws, internal = %at.internal_http, "joined the cluster");
                return Ok(Cluster {
                    node_id: at.node_id,
                    epoch,
                    public_ws: at.public_ws,
                    internal_http: at.internal_http,
                    secret,
                    pool,
                    draining: AtomicBool::new(false),
                });
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
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
    }

    /// Where a player's socket for room `code` goes on this node.
    pub fn ws_url(&self, code: &str) -> String {
        format!("{}/ws/{code}", self.public_ws)
    }

    /// Whether a forwarded request carries the node secret (compared in constant time).
    pub fn secret_ok(&self, given: &str) -> bool {
        let (a, b) = (self.secret.as_bytes(), given.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
    }

    pub fn secret(&self) -> &str {
        &self.secret
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
            .execute(&self.pool)
            .await;
        if let Err(e) = marked {
            tracing::warn!(error = %e, "the directory could not be told this node is draining");
        }
    }

    /// Claims `code` for a room about to open here: false when a room anywhere holds it (or
    /// a lost node held it within the hour).
    pub async fn claim_code(&self, code: &str, max_players: u8) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO rooms_live (code, node_id, epoch, state, open_seats) VALUES ($1, $2, $3, 'lobby', $4)
             ON CONFLICT (code) DO UPDATE SET node_id = excluded.node_id, epoch = excluded.epoch,
               state = 'lobby', level_id = NULL, seated = 0, spectators = 0, open_seats = excluded.open_seats, updated = now()
             WHERE rooms_live.updated < now() - interval '1 hour'
               AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = rooms_live.node_id
                               AND n.epoch = rooms_live.epoch AND n.lease_until > now())",
        )
        .bind(code)
        .bind(&self.node_id)
        .bind(self.epoch)
        .bind(max_players as i64)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The live node that holds room `code`, if any.
    pub async fn owner_of(&self, code: &str) -> sqlx::Result<Option<Owner>> {
        let row: Option<(String, i64, String, String)> = sqlx::query_as(
            "SELECT n.id, n.epoch, n.public_ws, n.internal_http FROM rooms_live r
             JOIN nodes n ON n.id = r.node_id AND n.epoch = r.epoch
             WHERE r.code = $1 AND n.lease_until > now()",
        )
        .bind(code)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(node_id, epoch, public_ws, internal_http)| Owner {
            node_id,
            epoch,
            public_ws,
            internal_http,
        }))
    }

    /// Whether `owner`'s lease (at that epoch) is still live.
    pub async fn alive(&self, owner: &Owner) -> sqlx::Result<bool> {
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT 1::BIGINT FROM nodes WHERE id = $1 AND epoch = $2 AND lease_until > now()",
        )
        .bind(&owner.node_id)
        .bind(owner.epoch)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }
}

/// The advisory lock one janitor at a time holds (an arbitrary, fixed key).
const JANITOR_LOCK: i64 = 0x5543_4a41; // "UCJA"

impl Cluster {
    /// Records the open rounds of rooms whose node's lease has lapsed as aborted, and
    /// marks those rooms `lost` in the directory (their codes wait an hour from now). One
    /// janitor at a time (an advisory lock; a node that finds it held skips this beat), and
    /// a round is only aborted while it has no result, so it is aborted once: the rounds
    /// this call aborted.
    pub async fn janitor(&self) -> sqlx::Result<u64> {
        let mut tx = self.pool.begin().await?;
        let (ours,): (bool,) = sqlx::query_as("SELECT pg_try_advisory_xact_lock($1)")
            .bind(JANITOR_LOCK)
            .fetch_one(&mut *tx)
            .await?;
        if !ours {
            return Ok(0);
        }
        let lapsed = "SELECT r.code FROM rooms_live r WHERE r.state <> 'lost' AND NOT EXISTS
            (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.epoch = r.epoch AND n.lease_until > now())";
        let aborted = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE rounds SET result = 'aborted', ended_at = EXTRACT(EPOCH FROM now())::BIGINT
             WHERE result IS NULL AND room_code IN ({lapsed})"
        )))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        let lost = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE rooms_live SET state = 'lost', open_seats = 0, updated = now() WHERE code IN ({lapsed})"
        )))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        if aborted > 0 || lost > 0 {
            tracing::info!(
                rounds_aborted = aborted,
                rooms_lost = lost,
                "a lost node's rooms were closed in the history"
            );
        }
        Ok(aborted)
    }
}
