//! This node in its cluster: its registration in `nodes` (a stable id, a new epoch at every
//! start), where it is found, the node secret its requests are signed with, and the two
//! small connection pools the cluster works on — one for the players' requests (quick
//! play, claiming a code, finding a room's owner), one for the node's own upkeep (the
//! lease, publishing rooms, the janitor). Neither is the history's pool, and neither is the
//! other's: a flood of requests can exhaust the first and the lease is still renewed.

use super::directory::{self, Holder, Opened, Owner, Row, Taken};
use super::forward::{self, Answer, Call, Unanswered};
use super::janitor::{Janitor, Swept};
use super::lease::{self, Addresses, LEASE_S, LeaseState, Renewed};
use super::quick::{self, Asking, Busy, QuickState, QuickStep, Tried};
use super::secret::SecretFile;
use super::signing::Nonces;
use crate::store::StoreError;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

/// Connections for players' requests: above the quick plays allowed in flight
/// (`quick::IN_FLIGHT`), so claiming a code or finding a room's owner always has one.
pub const REQUEST_CONNECTIONS: u32 = 6;
/// Connections for the node's upkeep: the lease and publishing on one, the janitor on the
/// other.
pub const UPKEEP_CONNECTIONS: u32 = 2;

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
    pub(super) lease: LeaseState,
    pub(super) quick: QuickState,
    pub(super) opened: Opened,
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
            if let Some(epoch) = lease::register(&upkeep, &at).await? {
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
            lease: LeaseState::new(),
            quick: QuickState::default(),
            opened: Opened::default(),
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

    fn me(&self) -> Holder<'_> {
        Holder {
            node_id: &self.node_id,
            epoch: self.epoch,
        }
    }

    /// Claims `code` for a room about to open here: false when a room anywhere holds it (or
    /// a lost node held it within the hour). It shows no open seats until a person has
    /// come to it (the next publish says so): quick play seats no one in a reservation.
    pub async fn claim_code(&self, code: &str) -> sqlx::Result<bool> {
        directory::claim_for(&self.requests, code, &self.node_id, self.epoch, 0, 0).await
    }

    /// The live node that holds room `code`, if any.
    pub async fn owner_of(&self, code: &str) -> sqlx::Result<Option<Owner>> {
        directory::owner_of(&self.requests, code).await
    }

    /// Whether room `code` is playing a round whose node lapsed and that a live node may
    /// adopt (or is adopting): not gone, moving.
    pub async fn moving(&self, code: &str) -> sqlx::Result<bool> {
        directory::moving(&self.requests, code).await
    }

    /// Whether `owner`'s lease (at that epoch) is still live.
    pub async fn alive(&self, owner: &Owner) -> sqlx::Result<bool> {
        directory::alive(&self.requests, owner).await
    }

    /// Whether this node may open room `code` now: the directory names this node (this
    /// epoch) for it — quick play claimed it here — and this process never opened it.
    pub async fn may_open(&self, code: &str) -> bool {
        if self.opened.seen(code) || self.draining() {
            return false;
        }
        matches!(
            directory::claimed_for(&self.requests, code, self.me()).await,
            Ok(true)
        )
    }

    /// Publishes this node's rooms (`now`) against what it published before.
    pub async fn publish(
        &self,
        now: &BTreeMap<String, Row>,
        published: &mut BTreeMap<String, Row>,
    ) -> sqlx::Result<()> {
        directory::publish(&self.upkeep, self.me(), now, published).await
    }

    /// Renews the lease with the node's counts; when it had lapsed, takes back the rooms
    /// in `rooms` that the directory still gives this node, and says so at `error`.
    pub async fn renew(&self, rooms: &[(String, Row)], sockets: i64) -> sqlx::Result<Renewed> {
        let sent = std::time::Instant::now();
        let out = lease::renew(&self.upkeep, self.me(), self.draining(), rooms, sockets).await;
        match &out {
            Ok(Renewed::Replaced) => {
                self.lease.replaced();
                tracing::error!(node = %self.node_id, epoch = self.epoch, "another start of this node id took its registration: this node's rooms are no longer in the directory");
            }
            Ok(r) => {
                self.lease.renewed(sent);
                if let Renewed::Lapsed(Taken {
                    kept,
                    lost,
                    rounds_resumed,
                }) = r
                {
                    tracing::error!(
                        node = %self.node_id,
                        epoch = self.epoch,
                        rooms_kept = kept.len(),
                        rooms_claimed_elsewhere = lost.len(),
                        rounds_resumed,
                        "this node's lease had lapsed (the process was paused or cut off from the database): other nodes saw it as gone; it took back the rooms nobody claimed and closes the rest"
                    );
                }
            }
            Err(e) => self.lease.trouble(Some(e.to_string())),
        }
        out
    }

    /// Whether the node has left the cluster.
    pub fn left(&self) -> bool {
        self.lease.left()
    }

    /// At the end of a drain: this node's rows leave the directory and its lease ends now,
    /// so no janitor ever takes its closed rooms for lost ones.
    pub async fn leave(&self) {
        self.draining.store(true, Relaxed);
        self.lease.leave();
        match tokio::time::timeout(Duration::from_secs(3), lease::end(&self.upkeep, self.me()))
            .await
        {
            Ok(Ok(rooms)) => {
                tracing::info!(node = %self.node_id, rows_removed = rooms, "left the cluster: lease ended, rooms out of the directory")
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the directory could not be told this node left; its lease lapses within 10 s")
            }
            Err(_) => tracing::warn!(
                "the directory did not answer this node's leaving within 3 s; its lease lapses within 10 s"
            ),
        }
    }

    /// The next step of a quick play through this node (`quick::decide`), skipping the
    /// nodes that did not answer lately (and this one while it drains).
    pub async fn quick_step(&self, tried: &Tried) -> Result<QuickStep, Busy> {
        for (node, _) in &tried.unanswered {
            self.quick.skip(node);
        }
        let mut skip = self.quick.skipped();
        if self.draining() {
            skip.push(self.node_id.clone());
        }
        let asking = Asking {
            pool: &self.requests,
            me: self.me(),
            max_players: self.max_players,
            skip,
        };
        quick::decide(&asking, tried).await
    }

    /// Sends `call` to `node`'s internal listener, signed as this node.
    pub async fn send(&self, node: &Owner, call: &Call) -> Result<Answer, Unanswered> {
        forward::send(&self.secret.secrets(), &self.node_id, node, call).await
    }

    /// Takes round `round_key` in room `code` over from the lapsed node `from` (the
    /// janitor marked it for adoption): its stored log is cut where this node's file goes
    /// on (`at`), and the room's row names this node. False when the row names someone
    /// else now (another adoption won, or the node came back).
    pub async fn take_over(
        &self,
        round_key: &str,
        at: u64,
        code: &str,
        from: (&str, i64),
    ) -> sqlx::Result<bool> {
        let mut conn = self.requests.acquire().await?;
        crate::store::log_stream::cut(&mut conn, round_key, at).await?;
        directory::adopt_code(&mut *conn, code, from, self.me()).await
    }

    /// Hands `orphan` to the least loaded live node (this one, maybe), through its internal
    /// listener; one nobody takes is aborted as a round without a log is.
    pub async fn hand_over(&self, orphan: &super::janitor::Orphan) {
        let adopted = match directory::least_loaded(&self.upkeep).await {
            Ok(Some(node)) => {
                let call = Call {
                    method: "POST",
                    path: format!("/internal/rounds/{}/adopt", orphan.round_key),
                    body: serde_json::to_vec(orphan).unwrap_or_default().into(),
                    source: None,
                    authorization: None,
                };
                match self.send(&node, &call).await {
                    Ok(a) if a.status == 200 => {
                        tracing::info!(round = %orphan.round_key, room = %orphan.room_code, from = %orphan.node_id, to = %node.node_id, "a lost node's round was adopted");
                        true
                    }
                    Ok(a) => {
                        let why = String::from_utf8_lossy(&a.body).into_owned();
                        tracing::warn!(round = %orphan.round_key, to = %node.node_id, status = a.status, why = %why, "a lost node's round was not adopted; it is aborted");
                        false
                    }
                    Err(e) => {
                        tracing::warn!(round = %orphan.round_key, to = %node.node_id, error = ?e, "the adopter did not answer; the round is aborted");
                        false
                    }
                }
            }
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(error = %e, "no node to adopt a lost round could be found");
                false
            }
        };
        if !adopted && let Err(e) = super::janitor::give_up(&self.upkeep, orphan).await {
            tracing::warn!(error = %e, round = %orphan.round_key, "an unadopted round could not be aborted; the janitor looks again in 30 s");
        }
    }

    /// One look of this node's janitor (`janitor`), on the upkeep's pool.
    pub async fn sweep(&self, janitor: &mut Janitor) -> sqlx::Result<Swept> {
        let hold_off = self.lease.janitor_holds_off();
        janitor.sweep(&self.upkeep, &self.node_id, hold_off).await
    }
}
