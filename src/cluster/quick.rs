//! Quick play's decision across the cluster: the fullest open lobby on a live node that is
//! not draining takes the player (`SeatIn`), else a new room opens on the least-loaded such
//! node (`OpenHere`, or `OpenOn` another node). The route handler carries the decision out
//! (a seat reserved here, or a request to the other node) and says how it went; a room
//! that refused is marked full, a node that did not answer is skipped for `SKIP_FAILED`,
//! and the next decision is asked for.
//!
//! A decision is one short transaction under a cluster-wide advisory lock, so twelve
//! players asking at once fill three rooms of four rather than twelve rooms: the lobby's
//! row is counted one seat fuller, or the new room's code is claimed for its node with the
//! player's seat counted, before the lock is released — and no HTTP call is ever made
//! while it is held (reserve, commit, then forward). The other node opens a room claimed
//! for it when its first player arrives (`Cluster::may_open`), whichever request comes
//! first. The lock is waited for at most `lock_timeout` (1 s, the request pool's setting);
//! at most `IN_FLIGHT` quick plays per node are at the lock or the database at once, the
//! rest are refused at once (`Busy`: `503` with `Retry-After`), so quick play never holds
//! more of the request pool than its share, and never any of the lease's.

use super::directory::{Holder, Owner, claim_for, mark_full, release};
use crate::shared::admission::Source;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The advisory lock quick play holds (an arbitrary, fixed key).
const QUICK_PLAY_LOCK: i64 = 0x5543_5150; // "UCQP"

/// Quick plays per node at the lock or the database at once (below the request pool's
/// `REQUEST_CONNECTIONS`).
pub const IN_FLIGHT: usize = 4;

/// Of those, how many one address (or IPv6 /64) may hold, waiting included: a caller with
/// one address never takes more than its share, and the others still get through.
pub const IN_FLIGHT_PER_ADDRESS: u32 = 2;

/// Quick plays that may wait for a permit (a burst of players asking at once): each holds
/// only its HTTP request while it waits, at most `WAIT`. Past them, `Busy` at once.
pub const WAITING: usize = 16;
const WAIT: Duration = Duration::from_secs(1);

/// How long a node that did not answer a quick play's request is skipped by this node.
pub const SKIP_FAILED: Duration = Duration::from_secs(10);

/// A node where a quick play's step is carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    Here,
    There(Owner),
}

/// What quick play does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuickStep {
    /// Take a seat in room `code` (its seat already counted in the directory).
    SeatIn { code: String, at: At },
    /// Open a room here (under `code` when the directory claimed one) with the player in it.
    OpenHere { code: Option<String> },
    /// Ask `node` to open room `code` (claimed for it) with the player in it.
    OpenOn { node: Owner, code: String },
}

/// How the steps so far went: what the next decision leaves out.
#[derive(Default, Debug)]
pub struct Tried {
    /// Rooms that refused a seat.
    pub full: Vec<String>,
    /// Nodes that did not answer, and the code claimed for each that it never opened.
    pub unanswered: Vec<(String, Option<String>)>,
}

impl Tried {
    /// `step` was carried out and refused: the room, or its node, is left out next time.
    pub fn refused(&mut self, step: &QuickStep) {
        if let QuickStep::SeatIn { code, .. } = step {
            self.full.push(code.clone());
        }
    }

    /// `step`'s node did not answer.
    pub fn unanswered(&mut self, step: &QuickStep) {
        match step {
            QuickStep::SeatIn {
                at: At::There(node),
                ..
            } => self.unanswered.push((node.node_id.clone(), None)),
            QuickStep::OpenOn { node, code } => self
                .unanswered
                .push((node.node_id.clone(), Some(code.clone()))),
            _ => {}
        }
    }
}

/// Why no decision was made.
#[derive(Debug)]
pub enum Busy {
    /// `IN_FLIGHT` quick plays are under way on this node.
    Full,
    /// The lock was not had within its timeout, or the database did not answer.
    Database(String),
}

/// Quick play's share of this node: its permits (and who holds them), and the nodes it
/// skips.
pub struct QuickState {
    permits: Arc<Semaphore>,
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    by_address: Arc<Mutex<HashMap<Source, u32>>>,
    skipped: Mutex<HashMap<String, Instant>>,
}

impl Default for QuickState {
    fn default() -> Self {
        QuickState {
            permits: Arc::new(Semaphore::new(IN_FLIGHT)),
            waiting: Arc::default(),
            by_address: Arc::default(),
            skipped: Mutex::default(),
        }
    }
}

/// A quick play under way on this node: given back when dropped.
pub struct QuickPermit {
    _share: Option<Share>,
    _permit: OwnedSemaphorePermit,
}

/// One address's count of quick plays under way, given back when dropped.
struct Share {
    source: Source,
    by_address: Arc<Mutex<HashMap<Source, u32>>>,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut m = crate::lock::lock(&self.by_address);
        if let Some(n) = m.get_mut(&self.source) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.source);
            }
        }
    }
}

/// A place in the line for a permit, given back when dropped.
struct Waiting(Arc<std::sync::atomic::AtomicUsize>);

impl Waiting {
    fn join(line: &Arc<std::sync::atomic::AtomicUsize>) -> Option<Waiting> {
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        line.fetch_update(AcqRel, Acquire, |n| (n < WAITING).then_some(n + 1))
            .ok()
            .map(|_| Waiting(line.clone()))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

impl QuickState {
    /// One of the node's quick-play permits for a caller from `from`, waited for at most
    /// `WAIT` in a line of at most `WAITING`: `None` at once when that address holds its
    /// share already (waiting included) or the line is full, or after `WAIT`.
    pub async fn permit(&self, from: Option<Source>) -> Option<QuickPermit> {
        let share = match from {
            Some(source) => {
                let mut m = crate::lock::lock(&self.by_address);
                let n = m.entry(source).or_insert(0);
                if *n >= IN_FLIGHT_PER_ADDRESS {
                    return None;
                }
                *n += 1;
                Some(Share {
                    source,
                    by_address: self.by_address.clone(),
                })
            }
            None => None,
        };
        // Refused below, the share (taken above) is given back as it drops.
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let _in_line = Waiting::join(&self.waiting)?;
                let wait = self.permits.clone().acquire_owned();
                tokio::time::timeout(WAIT, wait).await.ok()?.ok()?
            }
        };
        Some(QuickPermit {
            _share: share,
            _permit: permit,
        })
    }

    pub(super) fn skip(&self, node: &str) {
        crate::lock::lock(&self.skipped).insert(node.to_string(), Instant::now() + SKIP_FAILED);
    }

    pub(super) fn skipped(&self) -> Vec<String> {
        let mut m = crate::lock::lock(&self.skipped);
        let now = Instant::now();
        m.retain(|_, until| *until > now);
        m.keys().cloned().collect()
    }
}

type Tx = sqlx::Transaction<'static, sqlx::Postgres>;

/// A node's quick play as the decision sees it: where it decides, who it is, how many a
/// room seats, and the nodes it skips (those that did not answer, itself when draining).
pub struct Asking<'a> {
    pub pool: &'a PgPool,
    pub me: Holder<'a>,
    pub max_players: u8,
    pub skip: Vec<String>,
}

/// The next step of a quick play, given how the steps so far went (`tried`).
pub async fn decide(asking: &Asking<'_>, tried: &Tried) -> Result<QuickStep, Busy> {
    let db = |e: sqlx::Error| Busy::Database(e.to_string());
    let mut tx = asking.pool.begin().await.map_err(db)?;
    for code in &tried.full {
        mark_full(&mut *tx, code).await.map_err(db)?;
    }
    for (node, code) in &tried.unanswered {
        if let Some(code) = code {
            release(&mut *tx, code, node).await.map_err(db)?;
        }
    }
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(QUICK_PLAY_LOCK)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
    let step = match fullest_lobby(&mut tx, asking).await.map_err(db)? {
        Some(step) => step,
        None => new_room(&mut tx, asking).await.map_err(db)?,
    };
    tx.commit().await.map_err(db)?;
    Ok(step)
}

/// The fullest open lobby on a live node outside `skip`, its seat counted.
async fn fullest_lobby(tx: &mut Tx, asking: &Asking<'_>) -> sqlx::Result<Option<QuickStep>> {
    let row: Option<(String, String, i64, String, String)> = sqlx::query_as(
        "SELECT r.code, n.id, n.epoch, n.public_ws, n.internal_http FROM rooms_live r
         JOIN nodes n ON n.id = r.node_id AND n.epoch = r.epoch
         WHERE n.lease_until > now() AND NOT n.draining AND r.state = 'lobby' AND r.open_seats > 0
           AND NOT (n.id = ANY($1))
         ORDER BY r.seated DESC, r.code LIMIT 1
         FOR UPDATE OF r SKIP LOCKED",
    )
    .bind(&asking.skip)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((code, node_id, epoch, public_ws, internal_http)) = row else {
        return Ok(None);
    };
    sqlx::query(
        "UPDATE rooms_live SET seated = seated + 1, open_seats = GREATEST(open_seats - 1, 0), updated = now()
         WHERE code = $1",
    )
    .bind(&code)
    .execute(&mut **tx)
    .await?;
    let at = at(
        asking,
        Owner {
            node_id,
            epoch,
            public_ws,
            internal_http,
        },
    );
    Ok(Some(QuickStep::SeatIn { code, at }))
}

/// A new room's code claimed on the least-loaded live node outside `skip` (this node
/// when there is none), with the player's seat counted: the fewest rooms in the
/// directory (a room is there from its claim, so this counts rooms opened a moment
/// ago), then the fewest sockets, then the lowest id, the same from every node.
async fn new_room(tx: &mut Tx, asking: &Asking<'_>) -> sqlx::Result<QuickStep> {
    let node: Option<(String, i64, String, String)> = sqlx::query_as(
        "SELECT n.id, n.epoch, n.public_ws, n.internal_http FROM nodes n
         WHERE n.lease_until > now() AND NOT n.draining AND NOT (n.id = ANY($1))
         ORDER BY (SELECT COUNT(*) FROM rooms_live r WHERE r.node_id = n.id AND r.epoch = n.epoch),
                  n.sockets, n.id
         LIMIT 1",
    )
    .bind(&asking.skip)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((node_id, epoch, public_ws, internal_http)) = node else {
        return Ok(QuickStep::OpenHere { code: None });
    };
    let max = asking.max_players as i64;
    for _ in 0..8 {
        let code = crate::shared::registry::room_code();
        if claim_for(&mut **tx, &code, &node_id, epoch, max, 1).await? {
            let owner = Owner {
                node_id,
                epoch,
                public_ws,
                internal_http,
            };
            return Ok(match at(asking, owner) {
                At::Here => QuickStep::OpenHere { code: Some(code) },
                At::There(node) => QuickStep::OpenOn { node, code },
            });
        }
    }
    Ok(QuickStep::OpenHere { code: None })
}

fn at(asking: &Asking<'_>, owner: Owner) -> At {
    if owner.node_id == asking.me.node_id && owner.epoch == asking.me.epoch {
        At::Here
    } else {
        At::There(owner)
    }
}
