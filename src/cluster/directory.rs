//! The room directory (`rooms_live`): which node holds each room, as the nodes publish
//! their rooms. A code is claimed here before its room opens, so codes are unique across
//! the cluster; every read joins on a live lease, so a dead node's rooms leave it without
//! anyone deleting them; a row is only ever changed by the node it names (its publish, its
//! taking back after a lapse) or, for a lapsed node, by the janitor.
//!
//! Quick play may claim a code for another node (`quick`): that node opens the room when
//! the first player it was claimed for arrives (`may_open`), so a seat can be given in a
//! room whose opening is still on its way. `Opened` remembers the codes this process has
//! opened, so a closed room is never opened again by a late join in the second before its
//! row is deleted.

use super::lease::{Renewed, Row};
use super::node::{Cluster, Owner};
use sqlx::{Postgres, Transaction};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Codes this process opened, and when (kept 10 minutes: a closed room's row is deleted
/// within a second or two).
#[derive(Default)]
pub struct Opened(Mutex<HashMap<String, Instant>>);

const OPENED_KEPT: Duration = Duration::from_secs(600);

impl Opened {
    pub(super) fn note(&self, code: &str) {
        let mut m = crate::lock::lock(&self.0);
        if m.len() > 4096 {
            m.retain(|_, at| at.elapsed() < OPENED_KEPT);
        }
        m.insert(code.to_string(), Instant::now());
    }

    fn seen(&self, code: &str) -> bool {
        crate::lock::lock(&self.0).contains_key(code)
    }
}

impl Cluster {
    /// Claims `code` for a room about to open here: false when a room anywhere holds it (or
    /// a lost node held it within the hour).
    pub async fn claim_code(&self, code: &str) -> sqlx::Result<bool> {
        claim_for(
            &self.requests,
            code,
            &self.node_id,
            self.epoch,
            self.max_players as i64,
            0,
        )
        .await
    }

    /// The live node that holds room `code`, if any.
    pub(super) async fn owner_of(&self, code: &str) -> sqlx::Result<Option<Owner>> {
        let row: Option<(String, i64, String, String)> = sqlx::query_as(
            "SELECT n.id, n.epoch, n.public_ws, n.internal_http FROM rooms_live r
             JOIN nodes n ON n.id = r.node_id AND n.epoch = r.epoch
             WHERE r.code = $1 AND n.lease_until > now()",
        )
        .bind(code)
        .fetch_optional(&self.requests)
        .await?;
        Ok(row.map(|(node_id, epoch, public_ws, internal_http)| Owner {
            node_id,
            epoch,
            public_ws,
            internal_http,
        }))
    }

    /// Whether `owner`'s lease (at that epoch) is still live.
    pub(super) async fn alive(&self, owner: &Owner) -> sqlx::Result<bool> {
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT 1::BIGINT FROM nodes WHERE id = $1 AND epoch = $2 AND lease_until > now()",
        )
        .bind(&owner.node_id)
        .bind(owner.epoch)
        .fetch_optional(&self.requests)
        .await?;
        Ok(row.is_some())
    }

    /// Whether this node may open room `code` now: the directory names this node (this
    /// epoch) for it — quick play claimed it here — and this process never opened it.
    pub(super) async fn may_open(&self, code: &str) -> bool {
        if self.opened.seen(code) || self.draining() {
            return false;
        }
        let row: sqlx::Result<Option<(i64,)>> = sqlx::query_as(
            "SELECT 1::BIGINT FROM rooms_live WHERE code = $1 AND node_id = $2 AND epoch = $3",
        )
        .bind(code)
        .bind(&self.node_id)
        .bind(self.epoch)
        .fetch_optional(&self.requests)
        .await;
        matches!(row, Ok(Some(_)))
    }

    /// Writes the rows of `now` that differ from `published`, and deletes the rows of rooms
    /// in `published` that `now` no longer has; `published` becomes `now` as written.
    pub(super) async fn publish(
        &self,
        now: &BTreeMap<String, Row>,
        published: &mut BTreeMap<String, Row>,
    ) -> sqlx::Result<()> {
        for (code, row) in now {
            if published.get(code) == Some(row) {
                continue;
            }
            upsert(&self.upkeep, self, code, row).await?;
            published.insert(code.clone(), row.clone());
        }
        let closed: Vec<String> = published
            .keys()
            .filter(|c| !now.contains_key(*c))
            .cloned()
            .collect();
        if !closed.is_empty() {
            sqlx::query(
                "DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2 AND code = ANY($3)",
            )
            .bind(&self.node_id)
            .bind(self.epoch)
            .bind(&closed)
            .execute(&self.upkeep)
            .await?;
            for c in closed {
                published.remove(&c);
            }
        }
        Ok(())
    }
}

/// Claims `code` for `node` at `epoch` with `seated` seats already given: false when a
/// room anywhere holds it (or a lost node held it within the hour).
pub(super) async fn claim_for<'e>(
    on: impl sqlx::PgExecutor<'e>,
    code: &str,
    node: &str,
    epoch: i64,
    max_players: i64,
    seated: i64,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "INSERT INTO rooms_live (code, node_id, epoch, state, seated, open_seats) VALUES ($1, $2, $3, 'lobby', $4, $5)
         ON CONFLICT (code) DO UPDATE SET node_id = excluded.node_id, epoch = excluded.epoch,
           state = 'lobby', level_id = NULL, seated = excluded.seated, spectators = 0,
           open_seats = excluded.open_seats, updated = now()
         WHERE rooms_live.updated < now() - interval '1 hour'
           AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = rooms_live.node_id
                           AND n.epoch = rooms_live.epoch AND n.lease_until > now())",
    )
    .bind(code)
    .bind(node)
    .bind(epoch)
    .bind(seated)
    .bind((max_players - seated).max(0))
    .execute(on)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Writes one room's row, while it names this node (this epoch).
async fn upsert<'e>(
    on: impl sqlx::PgExecutor<'e>,
    node: &Cluster,
    code: &str,
    row: &Row,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "INSERT INTO rooms_live (code, node_id, epoch, state, level_id, seated, spectators, open_seats, updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
         ON CONFLICT (code) DO UPDATE SET state = excluded.state, level_id = excluded.level_id,
           seated = excluded.seated, spectators = excluded.spectators, open_seats = excluded.open_seats, updated = now()
         WHERE rooms_live.node_id = excluded.node_id AND rooms_live.epoch = excluded.epoch",
    )
    .bind(code)
    .bind(&node.node_id)
    .bind(node.epoch)
    .bind(row.state)
    .bind(&row.level)
    .bind(row.seated)
    .bind(row.spectators)
    .bind(row.open_seats)
    .execute(on)
    .await?
    .rows_affected())
}

/// A lapsed node's lease is live again (in `tx`, under the janitor's lock): each of its
/// rooms whose row still names it (or has none) is its own again, with its real state;
/// the rounds the janitor aborted in those rooms meanwhile are open again (they play on);
/// rows naming it for rooms it no longer has are deleted; a room whose row names another
/// node now was claimed there and is given up.
pub(super) async fn take_back(
    tx: &mut Transaction<'static, Postgres>,
    node: &Cluster,
    rooms: &[(String, Row)],
) -> sqlx::Result<Renewed> {
    let (mut kept, mut lost) = (Vec::new(), Vec::new());
    for (code, row) in rooms {
        if upsert(&mut **tx, node, code, row).await? == 1 {
            kept.push(code.clone());
        } else {
            lost.push(code.clone());
        }
    }
    sqlx::query(
        "DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2 AND NOT (code = ANY($3))",
    )
    .bind(&node.node_id)
    .bind(node.epoch)
    .bind(&kept)
    .execute(&mut **tx)
    .await?;
    let rounds_resumed = sqlx::query(
        "WITH undone AS (DELETE FROM round_verdicts v USING rounds r
                         WHERE v.round_key = r.round_key AND v.node_id = $1 AND v.epoch = $2
                           AND r.room_code = ANY($3) AND r.result = 'aborted'
                         RETURNING v.round_key)
         UPDATE rounds SET result = NULL, ended_at = NULL WHERE round_key IN (SELECT round_key FROM undone)",
    )
    .bind(&node.node_id)
    .bind(node.epoch)
    .bind(&kept)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(Renewed::Lapsed {
        kept,
        lost,
        rounds_resumed,
    })
}

/// Marks room `code` as taking no more players (its node refused a seat in it).
pub(super) async fn mark_full<'e>(on: impl sqlx::PgExecutor<'e>, code: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE rooms_live SET open_seats = 0, updated = now() WHERE code = $1")
        .bind(code)
        .execute(on)
        .await?;
    Ok(())
}

/// Gives up a code quick play claimed for a node that did not answer (its room was never
/// opened, as far as anyone knows; if it was, the node's next publish writes it again).
pub(super) async fn release<'e>(
    on: impl sqlx::PgExecutor<'e>,
    code: &str,
    node: &str,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM rooms_live WHERE code = $1 AND node_id = $2")
        .bind(code)
        .bind(node)
        .execute(on)
        .await?;
    Ok(())
}
