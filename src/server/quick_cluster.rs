//! Quick play across the nodes of a cluster: the fullest open lobby on any live node that
//! is not draining takes the player, else a new room opens on the least-loaded live node.
//!
//! Finding a seat and taking it is one transaction under a cluster-wide advisory lock: the
//! candidate row is locked (`FOR UPDATE … SKIP LOCKED`), counted one seat fuller, and the
//! room's owner reserves the seat before the transaction commits, so twelve players asking
//! at once fill three rooms of four rather than racing into a fifth seat or twelve rooms.
//! The owner's room still has the last word: a refusal marks the row full and the next
//! candidate is tried. With none left, the live node that is not draining with the fewest
//! rooms in the directory (then the fewest sockets, then the lowest id) opens the room: this
//! node itself, or another one asked over `/internal/quick`; when that node does not give
//! a seat (no answer in `forward::TIMEOUT`, a refusal), the room opens here, so a player
//! always gets a seat. Quick play is thus one at a time across the cluster, each a few
//! milliseconds (a forward to another node, at most `forward::TIMEOUT`).

use super::reply::refuse;
use super::rooms_api::{SeatRequest, open_room, reservation_reply, reserve};
use crate::cluster::Cluster;
use crate::cluster::forward;
use crate::shared::Shared;
use crate::shared::admission::Source;
use serde_json::json;
use std::sync::Arc;
use warp::http::StatusCode;
use warp::reply::Response;

/// The advisory lock quick play holds (an arbitrary, fixed key).
const QUICK_PLAY_LOCK: i64 = 0x5543_5150; // "UCQP"

/// Rooms tried before quick play opens a new one.
const CANDIDATES: usize = 8;

/// `POST /api/rooms/quick`: across the cluster, or on this node alone (no cluster).
pub async fn quick_route(
    shared: Arc<Shared>,
    body: super::body::Body,
    from: Option<Source>,
) -> Result<Response, warp::Rejection> {
    let Some(cluster) = shared.cluster().cloned() else {
        return super::rooms_api::quick(shared, body, from).await;
    };
    let who = match super::rooms_api::seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    Ok(quick(&shared, &cluster, who, from).await)
}

async fn quick(
    shared: &Arc<Shared>,
    cluster: &Cluster,
    who: SeatRequest,
    from: Option<Source>,
) -> Response {
    let mut tx = match locked(cluster).await {
        Ok(tx) => tx,
        Err(e) => {
            tracing::warn!(error = %e, "quick play could not lock the room directory; a room opens here");
            return create_unlocked(shared, who).await;
        }
    };
    let answer = match seat_anywhere(&mut tx, shared, cluster, &who, from).await {
        Ok(Some(answer)) => answer,
        Ok(None) => create_least_loaded(&mut tx, shared, cluster, who, from).await,
        Err(e) => {
            tracing::warn!(error = %e, "quick play could not read the room directory; a room opens here");
            drop(tx);
            return create_unlocked(shared, who).await;
        }
    };
    if let Err(e) = tx.commit().await {
        tracing::warn!(error = %e, "quick play's directory update was not committed");
    }
    answer
}

type Tx = sqlx::Transaction<'static, sqlx::Postgres>;

/// A transaction holding quick play's advisory lock (released when it ends).
async fn locked(cluster: &Cluster) -> sqlx::Result<Tx> {
    let mut tx = cluster.pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(QUICK_PLAY_LOCK)
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// A seat in the fullest open lobby of the cluster, or `None` when none takes the player.
async fn seat_anywhere(
    tx: &mut Tx,
    shared: &Arc<Shared>,
    cluster: &Cluster,
    who: &SeatRequest,
    from: Option<Source>,
) -> sqlx::Result<Option<Response>> {
    for _ in 0..CANDIDATES {
        let row: Option<(String, String, String)> = sqlx::query_as(
            "SELECT r.code, n.id, n.internal_http FROM rooms_live r
             JOIN nodes n ON n.id = r.node_id AND n.epoch = r.epoch
             WHERE n.lease_until > now() AND NOT n.draining AND r.state = 'lobby' AND r.open_seats > 0
             ORDER BY r.seated DESC, r.code LIMIT 1
             FOR UPDATE OF r SKIP LOCKED",
        )
        .fetch_optional(&mut **tx)
        .await?;
        let Some((code, node, internal)) = row else {
            return Ok(None);
        };
        let seated = if node == cluster.node_id {
            match reserve(shared, &code, who).await {
                Ok(r) if r.seat.is_some() => {
                    Some(reservation_reply(shared, StatusCode::OK, &code, r))
                }
                _ => None,
            }
        } else {
            let body = json!({"token": who.token, "name": who.name}).to_string();
            let path = format!("/internal/rooms/{code}/join");
            let source = from.map(Source::to_header);
            let sender = forward::Sender {
                secret: cluster.secret(),
                source: source.as_deref(),
                authorization: None,
            };
            match forward::send(&internal, "POST", &path, body.into(), sender).await {
                Ok(a) if a.status == 200 && seat_given(&a.body) => {
                    Some(super::cluster_api::passed_on(a))
                }
                _ => None,
            }
        };
        match seated {
            Some(answer) => {
                sqlx::query(
                    "UPDATE rooms_live SET seated = seated + 1, open_seats = GREATEST(open_seats - 1, 0), updated = now()
                     WHERE code = $1",
                )
                .bind(&code)
                .execute(&mut **tx)
                .await?;
                return Ok(Some(answer));
            }
            None => {
                // The room said no (full, started, gone): the directory hears it now.
                sqlx::query(
                    "UPDATE rooms_live SET open_seats = 0, updated = now() WHERE code = $1",
                )
                .bind(&code)
                .execute(&mut **tx)
                .await?;
            }
        }
    }
    Ok(None)
}

/// Whether a forwarded join's answer gave a seat (not a spectator's place).
fn seat_given(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| v["you"]["seat"].is_u64())
}

/// The live node that is not draining with the fewest rooms in the directory (a room's
/// row is there from the moment its code is claimed, so this counts rooms opened a moment
/// ago, which the lease's `rooms` would only show at its next renewal), then the fewest
/// sockets, then the lowest id, so that the choice is the same from every node.
async fn least_loaded(tx: &mut Tx) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as(
        "SELECT n.id, n.internal_http FROM nodes n
         WHERE n.lease_until > now() AND NOT n.draining
         ORDER BY (SELECT COUNT(*) FROM rooms_live r WHERE r.node_id = n.id AND r.epoch = n.epoch),
                  n.sockets, n.id
         LIMIT 1",
    )
    .fetch_optional(&mut **tx)
    .await
}

/// A new room with the player in it on the least-loaded live node: here, or another node
/// asked over `/internal/quick`, falling back to here when that node gives no seat.
///
/// The advisory lock stays held while another node is asked (at most `forward::TIMEOUT`):
/// released earlier, the next quick play would not see the room being opened yet (its
/// code is claimed by the other node as it opens) and would open a second room on the same
/// node for its player, and twelve players asking at once would no longer fill three rooms
/// of four. A join forwarded by `seat_anywhere` holds it the same way.
async fn create_least_loaded(
    tx: &mut Tx,
    shared: &Arc<Shared>,
    cluster: &Cluster,
    who: SeatRequest,
    from: Option<Source>,
) -> Response {
    match least_loaded(tx).await {
        Ok(Some((node, internal))) if node != cluster.node_id => {
            if let Some(answer) = create_there(cluster, &node, &internal, &who, from).await {
                return answer;
            }
        }
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(error = %e, "quick play could not read the nodes' loads; a room opens here");
            // PostgreSQL refuses the rest of a transaction after a failed statement, so the
            // new room could not be counted in it.
            return create_unlocked(shared, who).await;
        }
    }
    create_here(tx, shared, who).await
}

/// Asks node `node` to open a room with the player seated; `None` (logged) when it gave no
/// seat. A node that timed out may still have opened the room: its seat, never claimed by
/// a socket, lapses as any unclaimed reservation does, and the room closes empty.
async fn create_there(
    cluster: &Cluster,
    node: &str,
    internal: &str,
    who: &SeatRequest,
    from: Option<Source>,
) -> Option<Response> {
    let body = json!({"token": who.token, "name": who.name}).to_string();
    let source = from.map(Source::to_header);
    let sender = forward::Sender {
        secret: cluster.secret(),
        source: source.as_deref(),
        authorization: None,
    };
    match forward::send(internal, "POST", "/internal/quick", body.into(), sender).await {
        Ok(a) if a.status == 201 && seat_given(&a.body) => Some(super::cluster_api::passed_on(a)),
        Ok(a) => {
            let said = String::from_utf8_lossy(&a.body);
            tracing::warn!(node, status = a.status, answer = %said, "the least-loaded node opened no room for quick play; a room opens here");
            None
        }
        Err(why) => {
            let why = match why {
                forward::Unanswered::TimedOut => "no answer in 2 s".to_string(),
                forward::Unanswered::Failed(e) => e,
            };
            tracing::warn!(node, why = %why, "the least-loaded node did not answer quick play; a room opens here");
            None
        }
    }
}

/// A new room here with the player in it, and its first seat counted in the directory
/// (`counted`: quick play's transaction, or the pool for a room another node asked for),
/// so that the next quick play finds it at once.
async fn open_seated<'e>(
    counted: impl sqlx::PgExecutor<'e>,
    shared: &Arc<Shared>,
    who: SeatRequest,
) -> Response {
    let (room, _) = match open_room(shared).await {
        Ok(opened) => opened,
        Err(refusal) => return refusal,
    };
    let answer = match reserve(shared, &room, &who).await {
        Ok(r) => reservation_reply(shared, StatusCode::CREATED, &room, r),
        Err(c) => return refuse(StatusCode::CONFLICT, c, "the new room refused the seat"),
    };
    if let Err(e) = sqlx::query(
        "UPDATE rooms_live SET seated = 1, open_seats = GREATEST(open_seats - 1, 0), updated = now() WHERE code = $1",
    )
    .bind(&room)
    .execute(counted)
    .await
    {
        tracing::warn!(error = %e, room, "a new room's first seat was not counted in the directory");
    }
    answer
}

/// A new room here, counted within quick play's transaction.
async fn create_here(tx: &mut Tx, shared: &Arc<Shared>, who: SeatRequest) -> Response {
    open_seated(&mut **tx, shared, who).await
}

/// `POST /internal/quick`: another node's quick play found no open seat and chose this
/// node, the least loaded, to open a room with its player seated. Only a node of this
/// cluster may ask. The asking node holds quick play's lock meanwhile, so this takes none.
pub async fn internal_quick(
    secret: Option<String>,
    source: Option<String>,
    shared: Arc<Shared>,
    body: super::body::Body,
) -> Result<Response, warp::Rejection> {
    if let Some(refusal) = super::cluster_api::not_a_node(&shared, secret.as_deref()) {
        return Ok(refusal);
    }
    let Some(cluster) = shared.cluster().cloned() else {
        // `not_a_node` refuses every call on a node outside a cluster.
        return Ok(refuse(
            StatusCode::FORBIDDEN,
            "not_a_node",
            "this server is not in a cluster",
        ));
    };
    let from = source.as_deref().and_then(Source::from_header);
    let who = match super::rooms_api::seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    Ok(open_seated(&cluster.pool, &shared, who).await)
}

/// A new room without the directory's lock (the database did not answer).
async fn create_unlocked(shared: &Arc<Shared>, who: SeatRequest) -> Response {
    let (room, _) = match open_room(shared).await {
        Ok(opened) => opened,
        Err(refusal) => return refusal,
    };
    match reserve(shared, &room, &who).await {
        Ok(r) => reservation_reply(shared, StatusCode::CREATED, &room, r),
        Err(c) => refuse(StatusCode::CONFLICT, c, "the new room refused the seat"),
    }
}
