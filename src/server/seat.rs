//! Who asks for a seat, and the seat's answer: the `{name?, token?}` body every seat route
//! takes (create, join, quick, solo), parsed strictly, with its token's session looked up;
//! the room's own reservation (a seat is only ever given by the room); and the answer,
//! which in a cluster names the room's socket on its node (`ws_url`). An answer another
//! node gave is passed on as it came (`passed_on`).

use super::body::Body;
use super::reply::{answer, refuse};
use crate::cluster::{Answer, Directory};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::shared::random;
use crate::shared::registry::{Reservation, RoomCmd};
use crate::wire::messages::{code, limits, renders_blank, sanitize_name};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::oneshot;
use warp::http::StatusCode;
use warp::reply::Response;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    token: Option<String>,
}

/// Who asks for a seat: the token (minted when the body has none) and the name.
pub(super) struct SeatRequest {
    pub(super) token: String,
    pub(super) name: Option<String>,
}

/// Parses a `{name?, token?}` body strictly (an empty body is `{}`) and looks its token's
/// session up; a token the server does not know (or none) starts a session, which the
/// address `from` may do `UNDERCOOKED_NEW_SESSIONS_PER_MIN` times a minute. A refusal is
/// the answer to send.
pub(super) async fn seat_request(
    shared: &Shared,
    body: &Body,
    from: Option<Source>,
) -> Result<SeatRequest, Box<Response>> {
    let who = parse_seat_request(body)?;
    match shared.sessions.admit(Some(&who.token), from).await {
        Ok(()) => Ok(who),
        Err(r) => Err(Box::new(refuse(
            StatusCode::TOO_MANY_REQUESTS,
            r.code,
            r.msg,
        ))),
    }
}

pub(super) fn parse_seat_request(body: &Body) -> Result<SeatRequest, Box<Response>> {
    let bad = |code: &str, msg: String| Box::new(refuse(StatusCode::BAD_REQUEST, code, msg));
    let body: JoinBody = body.parse()?;
    if let Some(t) = &body.token
        && (t.is_empty() || t.chars().count() > limits::TOKEN_MAX)
    {
        return Err(bad(
            code::BAD_FIELD,
            "token must be 1-128 characters".into(),
        ));
    }
    if body
        .name
        .as_ref()
        .is_some_and(|n| n.chars().count() > limits::NAME_RAW_MAX)
    {
        return Err(bad(
            code::BAD_FIELD,
            "name must be at most 64 characters".into(),
        ));
    }
    if body
        .name
        .as_ref()
        .is_some_and(|n| !n.is_empty() && renders_blank(&sanitize_name(n)))
    {
        return Err(bad(
            code::BAD_FIELD,
            "name shows nothing once invisible characters are taken out".into(),
        ));
    }
    Ok(SeatRequest {
        token: body.token.unwrap_or_else(|| random::hex(16)),
        name: body.name,
    })
}

/// Asks room `room` on this node for a seat for `who`.
pub(super) async fn reserve(
    shared: &Shared,
    room: &str,
    who: &SeatRequest,
) -> Result<Reservation, &'static str> {
    let handle = shared.rooms.get(room).ok_or(code::ROOM_GONE)?;
    let (reply, rx) = oneshot::channel();
    let cmd = RoomCmd::Reserve {
        token: who.token.clone(),
        name: who.name.clone(),
        reply,
    };
    handle.tx.send(cmd).await.map_err(|_| code::ROOM_GONE)?;
    rx.await.map_err(|_| code::ROOM_GONE)?
}

/// The seat's answer; in a cluster it names the socket's address on this node (`ws_url`,
/// additive), which a join forwarded from another node passes on to the player.
pub(super) fn reservation_reply(
    directory: &Directory,
    status: StatusCode,
    room: &str,
    r: Reservation,
) -> Response {
    let mut body =
        json!({"room_code": room, "you": {"token": r.token, "seat": r.seat, "host": r.host}});
    if let Some(url) = directory.ws_url(room) {
        body["ws_url"] = json!(url);
    }
    answer(status, &body)
}

/// Another node's answer, passed on to the player as it came (its status and JSON body).
pub(super) fn passed_on(a: Answer) -> Response {
    let mut r = Response::new(a.body.into());
    *r.status_mut() = StatusCode::from_u16(a.status).unwrap_or(StatusCode::BAD_GATEWAY);
    r.headers_mut().insert(
        "content-type",
        warp::http::HeaderValue::from_static("application/json"),
    );
    r
}
