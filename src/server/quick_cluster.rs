//! Quick play across the nodes of a cluster: the fullest open lobby on any live node that
//! is not draining takes the player, else a new room opens here.
//!
//! Finding a seat and taking it is one transaction under a cluster-wide advisory lock: the
//! candidate row is locked (`FOR UPDATE … SKIP LOCKED`), counted one seat fuller, and the
//! room's owner reserves the seat before the transaction commits, so twelve players asking
//! at once fill three rooms of four rather than racing into a fifth seat or twelve rooms.
//! The owner's room still has the last word: a refusal marks the row full and the next
//! candidate is tried. Quick play is thus one at a time across the cluster, each a few
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
        Ok(None) => create_here(&mut tx, shared, who).await,
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

/// A new room here with the player in it, counted in the directory as one seat taken
/// within quick play's transaction (so the next quick play finds it at once).
async fn create_here(tx: &mut Tx, shared: &Arc<Shared>, who: SeatRequest) -> Response {
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
    .execute(&mut **tx)
    .await
    {
        tracing::warn!(error = %e, room, "a new room's first seat was not counted in the directory");
    }
    answer
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
