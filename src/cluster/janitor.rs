//! The janitor: the rooms and open rounds of a node that died are closed in the directory
//! and the history, so the replays list and `rounds` say what happened.
//!
//! It acts only on what it is sure of. Every node looks every `EVERY_S` for nodes whose
//! lease has lapsed while the directory still shows rooms of theirs; a node seen lapsed at
//! one look is acted on only if it is still lapsed at the next (a node that was merely
//! slow to renew after an outage has renewed by then). A janitor never acts on its own
//! node, nor while its own lease is not sound, nor for one lease period after its own
//! database failed or came back (what looks like everyone else's lapse may be the outage).
//! One janitor acts at a time (an advisory lock; a node that finds it held skips the beat).
//!
//! What it does: an open round of a lapsed node's room whose live log is stored
//! (`round_logs`, from offset 0) is an orphan: its room is marked `adopting` and the round
//! handed to a live node (`upkeep` sends it there), which re-folds it from the log and plays
//! on. Every other open round is recorded `aborted` (only while it has no result, so once),
//! with a verdict row naming the node and its epoch (`round_verdicts`: `reindex --from-db`
//! reads it, and a node that comes back un-aborts them), and its room is marked `lost`
//! (its code waits an hour). A room left `adopting` for 30 s (its adopter never took it) is
//! looked at again.

use super::directory::JANITOR_LOCK;
use sqlx::PgPool;
use std::collections::BTreeMap;
use std::time::Instant;

/// How often a node looks for lapsed nodes.
pub const EVERY_S: u64 = 2;
/// How long after its first look a lapse is confirmed by a second one.
const CONFIRM_AFTER_S: u64 = 2;

/// The lapsed nodes this node has seen, by (id, epoch), with when it first saw each.
#[derive(Default)]
pub struct Janitor {
    seen: BTreeMap<(String, i64), Instant>,
}

/// What one look did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub rounds_aborted: u64,
    pub rooms_lost: u64,
    /// Rounds to hand to a live node.
    pub orphans: Vec<Orphan>,
}

/// An open round of a lapsed node whose log is stored: a live node may adopt it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Orphan {
    pub round_key: String,
    pub room_code: String,
    /// The node (and epoch) whose lease lapsed.
    pub node_id: String,
    pub epoch: i64,
}

impl Janitor {
    /// One look on `pool`, by node `me`: notes the lapsed nodes, and closes the rooms of
    /// those it saw lapsed at its previous look too — unless it must `hold_off` (its own
    /// lease is not sound, or its database was in trouble within a lease period).
    pub async fn sweep(&mut self, pool: &PgPool, me: &str, hold_off: bool) -> sqlx::Result<Swept> {
        if hold_off {
            // What it saw before the trouble is no evidence now.
            self.seen.clear();
            return Ok(Swept::default());
        }
        let lapsed: Vec<(String, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT DISTINCT r.node_id, r.epoch FROM rooms_live r
             WHERE {OPEN} AND r.node_id <> $1 AND NOT EXISTS
               (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.epoch = r.epoch AND n.lease_until > now())"
        )))
        .bind(me)
        .fetch_all(pool)
        .await?;
        let now = Instant::now();
        let before = std::mem::take(&mut self.seen);
        let mut confirmed = Vec::new();
        for node in lapsed {
            match before.get(&node) {
                Some(first) if now.duration_since(*first).as_secs() >= CONFIRM_AFTER_S => {
                    confirmed.push(node.clone());
                    self.seen.insert(node, *first);
                }
                Some(first) => {
                    self.seen.insert(node, *first);
                }
                None => {
                    self.seen.insert(node, now);
                }
            }
        }
        if confirmed.is_empty() {
            return Ok(Swept::default());
        }
        let swept = close(pool, &confirmed).await?;
        if swept != Swept::default() {
            tracing::warn!(
                nodes = ?confirmed.iter().map(|(id, epoch)| format!("{id}#{epoch}")).collect::<Vec<_>>(),
                rounds_aborted = swept.rounds_aborted,
                rooms_lost = swept.rooms_lost,
                rounds_to_adopt = swept.orphans.len(),
                "lost nodes' rooms: rounds with a stored log go to a live node, the others are aborted"
            );
        }
        Ok(swept)
    }

    /// Whether a lapse waits for its confirming look (the upkeep looks sooner then).
    pub fn watching(&self) -> bool {
        !self.seen.is_empty()
    }
}

/// A room the janitor may act on: not lost, and not being adopted (unless that stalled).
const OPEN: &str =
    "r.state <> 'lost' AND (r.state <> 'adopting' OR r.updated < now() - interval '30 seconds')";

/// An orphan nobody could adopt: aborted and lost, as a round without a log is.
pub async fn give_up(pool: &PgPool, o: &Orphan) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "WITH aborted AS (
           UPDATE rounds SET result = 'aborted', ended_at = EXTRACT(EPOCH FROM now())::BIGINT
           WHERE result IS NULL AND round_key = $1 RETURNING round_key)
         INSERT INTO round_verdicts (round_key, result, node_id, epoch)
         SELECT round_key, 'aborted', $2, $3 FROM aborted ON CONFLICT (round_key) DO NOTHING",
    )
    .bind(&o.round_key)
    .bind(&o.node_id)
    .bind(o.epoch)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE rooms_live SET state = 'lost', open_seats = 0, updated = now()
         WHERE code = $1 AND node_id = $2 AND epoch = $3",
    )
    .bind(&o.room_code)
    .bind(&o.node_id)
    .bind(o.epoch)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// Closes the rooms of `nodes` (each still lapsed at this instant), under the lock.
async fn close(pool: &PgPool, nodes: &[(String, i64)]) -> sqlx::Result<Swept> {
    let mut tx = pool.begin().await?;
    let (ours,): (bool,) = sqlx::query_as("SELECT pg_try_advisory_xact_lock($1)")
        .bind(JANITOR_LOCK)
        .fetch_one(&mut *tx)
        .await?;
    if !ours {
        return Ok(Swept::default());
    }
    let ids: Vec<&str> = nodes.iter().map(|(id, _)| id.as_str()).collect();
    let epochs: Vec<i64> = nodes.iter().map(|(_, e)| *e).collect();
    // The rooms of those nodes, still lapsed now (one may have renewed since the look).
    let rooms = format!(
        "SELECT r.code FROM rooms_live r
        JOIN UNNEST($1::TEXT[], $2::BIGINT[]) AS gone(id, epoch)
          ON r.node_id = gone.id AND r.epoch = gone.epoch
        WHERE {OPEN} AND NOT EXISTS
          (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.epoch = r.epoch AND n.lease_until > now())"
    );
    // Their open rounds whose log is stored from its start: marked for adoption.
    let orphans: Vec<(String, String, String, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "WITH moving AS (
           UPDATE rooms_live l SET state = 'adopting', updated = now()
           FROM rounds d
           WHERE l.code IN ({rooms}) AND d.room_code = l.code AND d.result IS NULL
             AND EXISTS (SELECT 1 FROM round_logs g WHERE g.round_key = d.round_key AND g.start = 0)
           RETURNING d.round_key, l.code, l.node_id, l.epoch)
         SELECT * FROM moving"
    )))
    .bind(&ids)
    .bind(&epochs)
    .fetch_all(&mut *tx)
    .await?;
    let adopting: Vec<&str> = orphans.iter().map(|o| o.1.as_str()).collect();
    let rooms = format!("SELECT code FROM ({rooms}) x WHERE NOT (code = ANY($3))");
    let rounds_aborted = sqlx::query(sqlx::AssertSqlSafe(format!(
        "WITH aborted AS (
           UPDATE rounds SET result = 'aborted', ended_at = EXTRACT(EPOCH FROM now())::BIGINT
           WHERE result IS NULL AND room_code IN ({rooms})
           RETURNING round_key, room_code)
         INSERT INTO round_verdicts (round_key, result, node_id, epoch)
         SELECT a.round_key, 'aborted', l.node_id, l.epoch FROM aborted a
         JOIN rooms_live l ON l.code = a.room_code
         ON CONFLICT (round_key) DO NOTHING"
    )))
    .bind(&ids)
    .bind(&epochs)
    .bind(&adopting)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    let rooms_lost = sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE rooms_live SET state = 'lost', open_seats = 0, updated = now() WHERE code IN ({rooms})"
    )))
    .bind(&ids)
    .bind(&epochs)
    .bind(&adopting)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(Swept {
        rounds_aborted,
        rooms_lost,
        orphans: orphans
            .into_iter()
            .map(|(round_key, room_code, node_id, epoch)| Orphan {
                round_key,
                room_code,
                node_id,
                epoch,
            })
            .collect(),
    })
}
