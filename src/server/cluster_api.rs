//! The HTTP side of a cluster: a request for a room held by another node is sent on to its
//! owner (`to_owner`), and the owner answers forwarded joins on its internal route
//! (`internal_join`), which only a node holding the node secret may call (`not_a_node`;
//! quick play's `/internal/quick` checks it the same way).
//!
//! When the owner does not answer within `forward::TIMEOUT`, its lease decides: lapsed, the
//! room is gone (`room_gone`); live, the player is told to try again (503).

use super::body::Body;
use super::reply::refuse;
use crate::cluster::forward::{self, Unanswered};
use crate::cluster::{Cluster, SECRET_HEADER};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::wire::messages::code;
use bytes::Bytes;
use std::sync::Arc;
use warp::Rejection;
use warp::http::StatusCode;
use warp::reply::Response;

/// Sends `method path` for room `room` to the node that holds it, and answers with the
/// owner's answer (its `ws_url` names the owner's socket address).
pub async fn to_owner(
    cluster: &Cluster,
    room: &str,
    method: &str,
    path: &str,
    body: Bytes,
    from: Option<Source>,
    authorization: Option<&str>,
) -> Response {
    let gone = || refuse(StatusCode::NOT_FOUND, code::ROOM_GONE, "no such room");
    let owner = match cluster.owner_of(room).await {
        Ok(Some(owner)) if owner.node_id != cluster.node_id => owner,
        // Ours in the directory but not in our registry: it closed a moment ago.
        Ok(_) => return gone(),
        Err(e) => {
            tracing::warn!(error = %e, room, "the room directory could not be read");
            return unavailable("the cluster's room directory cannot be reached");
        }
    };
    let source = from.map(Source::to_header);
    let sender = forward::Sender {
        secret: cluster.secret(),
        source: source.as_deref(),
        authorization,
    };
    match forward::send(&owner.internal_http, method, path, body, sender).await {
        Ok(a) => passed_on(a),
        Err(why) => {
            let detail = match &why {
                Unanswered::TimedOut => "no answer in 2 s".to_string(),
                Unanswered::Failed(e) => e.clone(),
            };
            tracing::warn!(room, owner = %owner.node_id, why = %detail, "a request for another node's room got no answer");
            match cluster.alive(&owner).await {
                Ok(false) => gone(),
                _ => unavailable("the room's node did not answer; try again in a moment"),
            }
        }
    }
}

/// An owner's answer, passed on to the player as it came (its status and JSON body).
pub(super) fn passed_on(a: forward::Answer) -> Response {
    let mut r = Response::new(a.body.into());
    *r.status_mut() = StatusCode::from_u16(a.status).unwrap_or(StatusCode::BAD_GATEWAY);
    r.headers_mut().insert(
        "content-type",
        warp::http::HeaderValue::from_static("application/json"),
    );
    r
}

fn unavailable(why: &str) -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "storage_unavailable",
        why.to_string(),
    )
}

/// `POST /internal/rooms/{code}/join`: a join another node forwarded, for a room here.
pub async fn internal_join(
    room: String,
    secret: Option<String>,
    source: Option<String>,
    shared: Arc<Shared>,
    body: Body,
) -> Result<Response, Rejection> {
    if let Some(refusal) = not_a_node(&shared, secret.as_deref()) {
        return Ok(refusal);
    }
    let from = source.as_deref().and_then(Source::from_header);
    super::rooms_api::join_here(room, shared, body, from).await
}

/// The refusal of an internal route called without the node secret (`None`: a node of
/// this cluster is calling).
pub(super) fn not_a_node(shared: &Shared, secret: Option<&str>) -> Option<Response> {
    let trusted = shared
        .cluster()
        .is_some_and(|c| secret.is_some_and(|s| c.secret_ok(s)));
    (!trusted).then(|| {
        refuse(
            StatusCode::FORBIDDEN,
            "not_a_node",
            format!("only a node of this cluster may call this route (the {SECRET_HEADER} header)"),
        )
    })
}

/// The room's node, when the room is not here and this node is in a cluster.
fn elsewhere<'a>(shared: &'a Shared, room: &str) -> Option<&'a Arc<Cluster>> {
    if shared.rooms.get(room).is_some() {
        return None;
    }
    shared.cluster()
}

/// `POST /api/rooms/{code}/join`: here, or forwarded to the room's node.
pub async fn join_room(
    room: String,
    shared: Arc<Shared>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    if let Some(cluster) = elsewhere(&shared, &room) {
        let path = format!("/internal/rooms/{room}/join");
        return Ok(to_owner(cluster, &room, "POST", &path, body.bytes, from, None).await);
    }
    super::rooms_api::join_here(room, shared, body, from).await
}

/// `GET /api/rooms/{code}`: here, or the room's node's answer.
pub async fn room_status(room: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    if let Some(cluster) = elsewhere(&shared, &room) {
        let path = format!("/api/rooms/{room}");
        return Ok(to_owner(cluster, &room, "GET", &path, Bytes::new(), None, None).await);
    }
    super::rooms_api::room_status(room, shared).await
}

/// `POST /api/rooms/{code}/bots`: a host whose page is on another node reaches the owner.
pub async fn add_bot(
    room: String,
    auth: Option<String>,
    shared: Arc<Shared>,
    body: Body,
) -> Result<Response, Rejection> {
    if let Some(cluster) = elsewhere(&shared, &room) {
        let path = format!("/api/rooms/{room}/bots");
        let r = to_owner(
            cluster,
            &room,
            "POST",
            &path,
            body.bytes,
            None,
            auth.as_deref(),
        );
        return Ok(r.await);
    }
    super::rooms_api::add_bot(room, auth, shared, body).await
}

/// `DELETE /api/rooms/{code}/bots/{seat}`, likewise.
pub async fn remove_bot(
    room: String,
    seat: u8,
    auth: Option<String>,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    if let Some(cluster) = elsewhere(&shared, &room) {
        let path = format!("/api/rooms/{room}/bots/{seat}");
        let r = to_owner(
            cluster,
            &room,
            "DELETE",
            &path,
            Bytes::new(),
            None,
            auth.as_deref(),
        );
        return Ok(r.await);
    }
    super::rooms_api::remove_bot(room, seat, auth, shared).await
}
