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

use sqlx::{PgPool, Postgres, Transaction};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The advisory lock the janitor holds while it closes a lost node's rooms, and a node
/// holds while it takes its rooms back: one or the other, never both at once.
pub const JANITOR_LOCK: i64 = 0x5543_4a41; // "UCJA"

/// A node's run as the directory's rows name it: its id and the epoch of this start.
#[derive(Clone, Copy, Debug)]
pub struct Holder<'a> {
    pub node_id: &'a str,
    pub epoch: i64,
}

/// A node of the cluster as the directory has it (its lease live when read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub node_id: String,
    pub epoch: i64,
    pub public_ws: String,
    pub internal_http: String,
}

impl Owner {
    /// A node as `SELECT id, epoch, public_ws, internal_http FROM nodes` reads it.
    fn from_row(
        (node_id, epoch, public_ws, internal_http): (String, i64, String, String),
    ) -> Owner {
        Owner {
            node_id,
            epoch,
            public_ws,
            internal_http,
        }
    }
}

/// A room as its node holds it, for the directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub state: &'static str,
    pub level: Option<String>,
    pub seated: i64,
    pub spectators: i64,
    pub open_seats: i64,
}

/// What a lapsed node's taking back found: its rooms still its own (kept), those another
/// node claimed since (to close), and the rounds the janitor had aborted that are open again.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Taken {
    pub kept: Vec<String>,
    pub lost: Vec<String>,
    pub rounds_resumed: u64,
}

/// Codes this process opened, and when (kept 10 minutes: a closed room's row is deleted
/// within a second or two).
#[derive(Default)]
pub struct Opened(Mutex<HashMap<String, Instant>>);

const OPENED_KEPT: Duration = Duration::from_secs(600);

impl Opened {
    pub fn note(&self, code: &str) {
        let mut m = crate::lock::lock(&self.0);
        if m.len() > 4096 {
            m.retain(|_, at| at.elapsed() < OPENED_KEPT);
        }
        m.insert(code.to_string(), Instant::now());
    }

    pub fn seen(&self, code: &str) -> bool {
        crate::lock::lock(&self.0).contains_key(code)
    }
}

/// The live node that holds room `code`, if any.
pub async fn owner_of(pool: &PgPool, code: &str) -> sqlx::Result<Option<Owner>> {
    let row: Option<(String, i64, String, String)> = sqlx::query_as(
        "SELECT n.id, n.epoch, n.public_ws, n.internal_http FROM rooms_live r
         JOIN nodes n ON n.id = r.node_id AND n.epoch = r.epoch
         WHERE r.code = $1 AND n.lease_until > now()",
    )
    .bind(code)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Owner::from_row))
}

/// Whether room `code` is a round whose node lapsed and that may be adopted: its row is
/// `playing` (or `adopting`) under a lapsed lease, and its open round has a stored log.
pub async fn moving(pool: &PgPool, code: &str) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1::BIGINT FROM rooms_live r
         WHERE r.code = $1 AND r.state IN ('playing', 'adopting')
           AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.epoch = r.epoch AND n.lease_until > now())
           AND EXISTS (SELECT 1 FROM rounds d JOIN round_logs g ON g.round_key = d.round_key AND g.start = 0
                       WHERE d.room_code = r.code AND d.result IS NULL)",
    )
    .bind(code)
    .fetch_optional(pool)
    .await?;
    Ok(row.is_some())
}

/// Room `code`, which the janitor gave to `me` for adoption from node `from` at `epoch`,
/// is `me`'s now: false when its row names someone else (another adoption won, or the
/// node came back).
pub async fn adopt_code<'e>(
    on: impl sqlx::PgExecutor<'e>,
    code: &str,
    from: (&str, i64),
    me: Holder<'_>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE rooms_live SET node_id = $4, epoch = $5, state = 'playing', updated = now()
         WHERE code = $1 AND node_id = $2 AND epoch = $3 AND state = 'adopting'",
    )
    .bind(code)
    .bind(from.0)
    .bind(from.1)
    .bind(me.node_id)
    .bind(me.epoch)
    .execute(on)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The live node with the fewest rooms (not draining): who adopts a lost node's round.
pub async fn least_loaded(pool: &PgPool) -> sqlx::Result<Option<Owner>> {
    let row: Option<(String, i64, String, String)> = sqlx::query_as(
        "SELECT id, epoch, public_ws, internal_http FROM nodes
         WHERE lease_until > now() AND NOT draining ORDER BY rooms, id LIMIT 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Owner::from_row))
}

/// Whether `owner`'s lease (at that epoch) is still live.
pub async fn alive(pool: &PgPool, owner: &Owner) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1::BIGINT FROM nodes WHERE id = $1 AND epoch = $2 AND lease_until > now()",
    )
    .bind(&owner.node_id)
    .bind(owner.epoch)
    .fetch_optional(pool)
    .await?;
    Ok(row.is_some())
}

/// Whether the directory names `me` for room `code` (quick play claimed it for that node).
pub async fn claimed_for(pool: &PgPool, code: &str, me: Holder<'_>) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1::BIGINT FROM rooms_live WHERE code = $1 AND node_id = $2 AND epoch = $3",
    )
    .bind(code)
    .bind(me.node_id)
    .bind(me.epoch)
    .fetch_optional(pool)
    .await?;
    Ok(row.is_some())
}

/// Writes the rows of `now` that differ from `published`, and deletes the rows of rooms in
/// `published` that `now` no longer has; `published` becomes `now` as written.
pub async fn publish(
    pool: &PgPool,
    me: Holder<'_>,
    now: &BTreeMap<String, Row>,
    published: &mut BTreeMap<String, Row>,
) -> sqlx::Result<()> {
    for (code, row) in now {
        if published.get(code) == Some(row) {
            continue;
        }
        upsert(pool, me, code, row).await?;
        published.insert(code.clone(), row.clone());
    }
    let closed: Vec<String> = published
        .keys()
        .filter(|c| !now.contains_key(*c))
        .cloned()
        .collect();
    if !closed.is_empty() {
        sqlx::query("DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2 AND code = ANY($3)")
            .bind(me.node_id)
            .bind(me.epoch)
            .bind(&closed)
            .execute(pool)
            .await?;
        for c in closed {
            published.remove(&c);
        }
    }
    Ok(())
}

/// Deletes every row of `me` (a node leaving the cluster).
pub async fn forget<'e>(on: impl sqlx::PgExecutor<'e>, me: Holder<'_>) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2")
            .bind(me.node_id)
            .bind(me.epoch)
            .execute(on)
            .await?
            .rows_affected(),
    )
}

/// Claims `code` for `node` at `epoch` with `seated` seats already given: false when a
/// room anywhere holds it (or a lost node held it within the hour).
pub async fn claim_for<'e>(
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

/// Writes one room's row, while it names `me`.
async fn upsert<'e>(
    on: impl sqlx::PgExecutor<'e>,
    me: Holder<'_>,
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
    .bind(me.node_id)
    .bind(me.epoch)
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
pub async fn take_back(
    tx: &mut Transaction<'static, Postgres>,
    me: Holder<'_>,
    rooms: &[(String, Row)],
) -> sqlx::Result<Taken> {
    let (mut kept, mut lost) = (Vec::new(), Vec::new());
    for (code, row) in rooms {
        if upsert(&mut **tx, me, code, row).await? == 1 {
            kept.push(code.clone());
        } else {
            lost.push(code.clone());
        }
    }
    sqlx::query(
        "DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2 AND NOT (code = ANY($3))",
    )
    .bind(me.node_id)
    .bind(me.epoch)
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
    .bind(me.node_id)
    .bind(me.epoch)
    .bind(&kept)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(Taken {
        kept,
        lost,
        rounds_resumed,
    })
}

/// Marks room `code` as taking no more players (its node refused a seat in it).
pub async fn mark_full<'e>(on: impl sqlx::PgExecutor<'e>, code: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE rooms_live SET open_seats = 0, updated = now() WHERE code = $1")
        .bind(code)
        .execute(on)
        .await?;
    Ok(())
}

/// Gives up a code quick play claimed for a node that did not answer (its room was never
/// opened, as far as anyone knows; if it was, the node's next publish writes it again).
pub async fn release<'e>(
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
