//! The lease: how a node says it is alive, and learns when it was not.
//!
//! A node registers with a new epoch and renews its lease every `RENEW_EVERY_S`, valid
//! `LEASE_S` on the database's clock. A renewal reads the lease it replaces, so a node
//! always learns whether its lease had lapsed (a pause, a long outage, a partition): such a
//! node says so in its log at `error`, and in the same transaction, under the janitor's
//! lock, takes back the rooms the directory still names it for (and un-aborts the rounds a
//! janitor aborted meanwhile, which play on) and gives up the others, which another node
//! has claimed since: their rooms close with `4401 room_gone`. So a node never plays on a
//! room it no longer holds, and never lets the directory go on calling its live rooms lost.
//!
//! `LeaseState` is what the node knows of its own lease without asking the database:
//! when it was last renewed (a monotonic clock, so a paused process counts the pause), and
//! whether its last renewal failed. `/healthz` reports it; the janitor stays quiet while it
//! is not sound.

use super::directory::{Holder, JANITOR_LOCK, Taken, take_back};
use crate::store::StoreError;
use serde_json::{Value, json};
use sqlx::PgPool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a lease lasts past its last renewal, and how often it is renewed.
pub const LEASE_S: i64 = 10;
pub const RENEW_EVERY_S: u64 = 2;

/// Where a node is found: by players (`public_ws`) and by other nodes (`internal_http`,
/// its internal listener).
#[derive(Clone, Debug)]
pub struct Addresses {
    pub node_id: String,
    pub public_ws: String,
    pub internal_http: String,
}

/// Registers `at` with a new epoch: `None` while another holder of its id has a live lease.
pub(super) async fn register(pool: &PgPool, at: &Addresses) -> Result<Option<i64>, StoreError> {
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
    .fetch_optional(pool)
    .await?;
    Ok(epoch.map(|(e,)| e))
}

/// What the node knows of its own lease.
pub struct LeaseState(Mutex<Known>);

struct Known {
    /// When the last renewal that succeeded was sent (registration counts).
    renewed: Instant,
    /// The last renewal's error, while renewals fail.
    failing: Option<String>,
    /// The last time the upkeep's database failed, or came back after failing.
    trouble: Option<Instant>,
    /// Another start of this node id took the registration.
    replaced: bool,
    /// The node left the cluster (its drain ended): nothing is renewed again.
    left: bool,
}

/// The lease as `/healthz` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Renewed, and the last renewal succeeded.
    Sound,
    /// The last renewal failed; the lease has not run out yet.
    Failing,
    /// The lease ran out (as far as this node can tell): other nodes no longer see its rooms.
    Lapsed,
    /// Another start of this node id holds the registration.
    Replaced,
}

impl LeaseState {
    pub(super) fn new() -> LeaseState {
        LeaseState(Mutex::new(Known {
            renewed: Instant::now(),
            failing: None,
            trouble: None,
            replaced: false,
            left: false,
        }))
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        crate::lock::lock(&self.0)
    }

    /// How long since the last successful renewal was sent.
    pub(super) fn since_renewed(&self) -> Duration {
        self.known().renewed.elapsed()
    }

    pub fn health(&self) -> Health {
        let k = self.known();
        if k.replaced {
            Health::Replaced
        } else if k.renewed.elapsed() >= Duration::from_secs(LEASE_S as u64) {
            Health::Lapsed
        } else if k.failing.is_some() {
            Health::Failing
        } else {
            Health::Sound
        }
    }

    /// `/healthz`'s `lease` object: its state, the seconds left as this node counts them,
    /// and the last renewal's error while it fails.
    pub fn report(&self) -> Value {
        let health = self.health();
        let k = self.known();
        let left = LEASE_S as f64 - k.renewed.elapsed().as_secs_f64();
        let state = match health {
            Health::Sound => "ok",
            Health::Failing => "renewal_failing",
            Health::Lapsed => "lapsed",
            Health::Replaced => "replaced",
        };
        let mut out = json!({"state": state, "left_s": (left * 10.0).round() / 10.0});
        if let Some(e) = &k.failing {
            out["error"] = json!(e);
        }
        out
    }

    /// The upkeep's database failed (`error`), or answered again after failing.
    pub(super) fn trouble(&self, error: Option<String>) {
        let mut k = self.known();
        let was_failing = k.failing.is_some();
        if error.is_some() || was_failing {
            k.trouble = Some(Instant::now());
        }
        k.failing = error;
    }

    pub(super) fn renewed(&self, sent: Instant) {
        let mut k = self.known();
        k.renewed = sent;
        if k.failing.take().is_some() {
            k.trouble = Some(Instant::now());
        }
    }

    /// Another start of this node id took the registration.
    pub(super) fn replaced(&self) {
        self.known().replaced = true;
    }

    /// The node left the cluster: nothing is renewed again.
    pub(super) fn leave(&self) {
        self.known().left = true;
    }

    pub(super) fn left(&self) -> bool {
        self.known().left
    }

    /// Whether the janitor must hold off: this node's lease is not sound, or its database
    /// failed or came back within the last lease period (the others may not have renewed
    /// yet: what looks lapsed may be the outage, not a death).
    pub(super) fn janitor_holds_off(&self) -> bool {
        let health = self.health();
        let k = self.known();
        health != Health::Sound
            || k.trouble
                .is_some_and(|t| t.elapsed() < Duration::from_secs(LEASE_S as u64))
    }
}

/// What a renewal found.
#[derive(Debug, PartialEq, Eq)]
pub enum Renewed {
    /// The lease was live; it is extended.
    Live,
    /// The lease had lapsed: it is live again, and of this node's rooms these are still
    /// its own and these were claimed by another node since (to close).
    Lapsed(Taken),
    /// Another start of this node id holds the registration.
    Replaced,
}

/// Renews `me`'s lease with its counts (`rooms`, `sockets`, whether it is `draining`);
/// when it had lapsed, takes back (in the same transaction, under the janitor's lock) the
/// rooms in `rooms` that the directory still gives `me`.
pub async fn renew(
    pool: &PgPool,
    me: Holder<'_>,
    draining: bool,
    rooms: &[(String, super::directory::Row)],
    sockets: i64,
) -> sqlx::Result<Renewed> {
    let mut tx = pool.begin().await?;
    let was: Option<(bool,)> = sqlx::query_as(
        "WITH old AS (SELECT lease_until FROM nodes WHERE id = $1 AND epoch = $2 FOR UPDATE)
         UPDATE nodes SET lease_until = now() + make_interval(secs => $3), rooms = $4,
           sockets = $5, draining = $6
         FROM old WHERE nodes.id = $1 AND nodes.epoch = $2
         RETURNING old.lease_until > now()",
    )
    .bind(me.node_id)
    .bind(me.epoch)
    .bind(LEASE_S as f64)
    .bind(rooms.len() as i64)
    .bind(sockets)
    .bind(draining)
    .fetch_optional(&mut *tx)
    .await?;
    let renewed = match was {
        None => Renewed::Replaced,
        Some((true,)) => Renewed::Live,
        Some((false,)) => {
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(JANITOR_LOCK)
                .execute(&mut *tx)
                .await?;
            Renewed::Lapsed(take_back(&mut tx, me, rooms).await?)
        }
    };
    tx.commit().await?;
    Ok(renewed)
}

/// `me` leaves: its rows out of the directory and its lease ended now, in one transaction;
/// how many rows went.
pub async fn end(pool: &PgPool, me: Holder<'_>) -> sqlx::Result<u64> {
    let mut tx = pool.begin().await?;
    let rooms = super::directory::forget(&mut *tx, me).await?;
    sqlx::query(
        "UPDATE nodes SET lease_until = now(), draining = TRUE, rooms = 0, sockets = 0
         WHERE id = $1 AND epoch = $2",
    )
    .bind(me.node_id)
    .bind(me.epoch)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rooms)
}
