//! The rooms over HTTP: create, join, quick play, play solo, the host's bots, and a room's
//! public status.
//!
//! Bodies are parsed strictly (`body`: a JSON object sent as `application/json`, at most
//! 4 KB, unknown fields and duplicate keys refused);
//! create, join and quick all take the same `{name?, token?}` and end in the room's own
//! reservation, so a seat is only ever given by the room.

use super::body::Body;
use super::info::bearer;
use super::reply::{answer, refuse};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::shared::random;
use crate::shared::registry::{Reservation, RoomCmd, RoomHandle};
use crate::wire::messages::{Refusal, code, limits, renders_blank, sanitize_name};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use tokio::sync::oneshot;
use warp::Rejection;
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

/// Parses a room route's body as its route does (`{name?, token?}`, or a bot's `{seat?}`).
pub(super) fn parse_body(body: &Body, bot: bool) -> Result<(), Box<Response>> {
    if bot {
        body.parse::<BotBody>().map(|_| ())
    } else {
        parse_seat_request(body).map(|_| ())
    }
}

fn parse_seat_request(body: &Body) -> Result<SeatRequest, Box<Response>> {
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
    shared: &Shared,
    status: StatusCode,
    room: &str,
    r: Reservation,
) -> Response {
    let mut body =
        json!({"room_code": room, "you": {"token": r.token, "seat": r.seat, "host": r.host}});
    if let Some(c) = shared.cluster() {
        body["ws_url"] = json!(c.ws_url(room));
    }
    answer(status, &body)
}

/// Opens a room on this node. In a cluster its code is claimed in the directory first (a
/// code taken anywhere is drawn again), and a draining node opens none.
pub(super) async fn open_room(shared: &Arc<Shared>) -> Result<(String, RoomHandle), Response> {
    let full = || {
        let why = format!(
            "the server is at its limit of {} rooms",
            shared.config.max_rooms
        );
        refuse(StatusCode::CONFLICT, code::ROOM_FULL, why)
    };
    let Some(cluster) = shared.cluster() else {
        return crate::room::spawn(shared).ok_or_else(full);
    };
    if cluster.draining() {
        return Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            code::ROOM_FULL,
            "this node is draining (shutting down): it opens no rooms; try another",
        ));
    }
    if shared.rooms.len() >= shared.config.max_rooms {
        return Err(full());
    }
    for _ in 0..8 {
        let candidate = crate::shared::registry::room_code();
        match cluster
            .claim_code(&candidate, shared.config.max_players)
            .await
        {
            Ok(true) => return crate::room::spawn_as(shared, Some(candidate)).ok_or_else(full),
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "a room code could not be claimed in the directory");
                break;
            }
        }
    }
    Err(refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "storage_unavailable",
        "the cluster's room directory cannot be reached: no room can be opened now",
    ))
}

fn refusal_status(c: &str) -> StatusCode {
    match c {
        code::ROOM_GONE => StatusCode::NOT_FOUND,
        code::ROOM_FULL => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// A new room with the caller in seat 0 as host.
async fn create(shared: &Arc<Shared>, who: SeatRequest) -> Response {
    let (room, _) = match open_room(shared).await {
        Ok(opened) => opened,
        Err(refusal) => return refusal,
    };
    match reserve(shared, &room, &who).await {
        Ok(r) => reservation_reply(shared, StatusCode::CREATED, &room, r),
        Err(c) => refuse(refusal_status(c), c, "the new room refused the seat"),
    }
}

pub async fn create_room(
    shared: Arc<Shared>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    Ok(match seat_request(&shared, &body, from).await {
        Ok(who) => create(&shared, who).await,
        Err(r) => *r,
    })
}

/// A join for a room on this node (the player's own, or one forwarded by another node).
pub async fn join_here(
    room: String,
    shared: Arc<Shared>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    Ok(match reserve(&shared, &room, &who).await {
        Ok(r) => reservation_reply(&shared, StatusCode::OK, &room, r),
        Err(c) => {
            let why = if c == code::ROOM_FULL {
                "every seat is taken"
            } else {
                "no such room"
            };
            refuse(refusal_status(c), c, why)
        }
    })
}

/// Quick play: the fullest open lobby that still has a seat (least empty first), else a
/// new room.
pub async fn quick(
    shared: Arc<Shared>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    for room in shared.rooms.open_lobbies(shared.config.max_players) {
        if let Ok(r) = reserve(&shared, &room, &who).await
            && r.seat.is_some()
        {
            return Ok(reservation_reply(&shared, StatusCode::OK, &room, r));
        }
    }
    Ok(create(&shared, who).await)
}

/// Play solo: a new room with the caller in seat 0 as host and bots in the other seats, on
/// the highest level the caller's session has unlocked, waiting for its `start`.
pub async fn solo(
    shared: Arc<Shared>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    let (room, handle) = match open_room(&shared).await {
        Ok(opened) => opened,
        Err(refusal) => return Ok(refusal),
    };
    let (reply, rx) = oneshot::channel();
    let cmd = RoomCmd::Solo {
        token: who.token,
        name: who.name,
        reply,
    };
    let answer_ = match handle.tx.send(cmd).await {
        Ok(()) => rx.await.map_err(|_| code::ROOM_GONE).and_then(|r| r),
        Err(_) => Err(code::ROOM_GONE),
    };
    Ok(match answer_ {
        Ok(r) => reservation_reply(&shared, StatusCode::CREATED, &room, r),
        Err(c) => refuse(refusal_status(c), c, "the new room could not be set up"),
    })
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BotBody {
    #[serde(default)]
    seat: Option<u8>,
}

/// The status of a refused bot request.
fn bot_refusal(r: Refusal) -> Response {
    let status = match r.code {
        code::NOT_HOST => StatusCode::FORBIDDEN,
        code::WRONG_STATE | code::ROOM_FULL => StatusCode::CONFLICT,
        code::ROOM_GONE => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    };
    refuse(status, r.code, r.msg)
}

/// Sends a room a bot command built around a reply channel; a room that is gone refuses.
async fn ask_room<T>(
    shared: &Shared,
    room: &str,
    cmd: impl FnOnce(oneshot::Sender<Result<T, Refusal>>) -> RoomCmd,
) -> Result<T, Refusal> {
    let gone = || Refusal::new(code::ROOM_GONE, "no such room");
    let handle = shared.rooms.get(room).ok_or_else(gone)?;
    let (reply, rx) = oneshot::channel();
    handle.tx.send(cmd(reply)).await.map_err(|_| gone())?;
    rx.await.map_err(|_| gone())?
}

fn no_token() -> Response {
    refuse(
        StatusCode::UNAUTHORIZED,
        "no_session",
        "send Authorization: Bearer <the host's token>",
    )
}

/// `POST /api/rooms/{code}/bots` `{seat?}`: the host puts a bot in a free seat.
pub async fn add_bot(
    room: String,
    auth: Option<String>,
    shared: Arc<Shared>,
    body: Body,
) -> Result<Response, Rejection> {
    let Some(token) = bearer(auth) else {
        return Ok(no_token());
    };
    let body: BotBody = match body.parse() {
        Ok(b) => b,
        Err(refusal) => return Ok(*refusal),
    };
    let seat = body.seat;
    Ok(
        match ask_room(&shared, &room, |reply| RoomCmd::AddBot {
            token,
            seat,
            reply,
        })
        .await
        {
            Ok(seat) => answer(StatusCode::CREATED, &json!({"seat": seat, "bot": true})),
            Err(r) => bot_refusal(r),
        },
    )
}

/// `DELETE /api/rooms/{code}/bots/{seat}`: the host takes a bot out.
pub async fn remove_bot(
    room: String,
    seat: u8,
    auth: Option<String>,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    let Some(token) = bearer(auth) else {
        return Ok(no_token());
    };
    Ok(
        match ask_room(&shared, &room, |reply| RoomCmd::RemoveBot {
            token,
            seat,
            reply,
        })
        .await
        {
            Ok(()) => answer(StatusCode::OK, &json!({"seat": seat, "removed": true})),
            Err(r) => bot_refusal(r),
        },
    )
}

pub async fn room_status(room: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let gone = |why: &str| refuse(StatusCode::NOT_FOUND, code::ROOM_GONE, why);
    let Some(handle) = shared.rooms.get(&room) else {
        return Ok(gone("no such room"));
    };
    let (reply, rx) = oneshot::channel();
    if handle.tx.send(RoomCmd::Status { reply }).await.is_err() {
        return Ok(gone("the room closed"));
    }
    Ok(match rx.await {
        Ok(status) => {
            let mut body = serde_json::to_value(&status).unwrap_or_default();
            if let Some(c) = shared.cluster() {
                body["ws_url"] = json!(c.ws_url(&room));
            }
            answer(StatusCode::OK, &body)
        }
        Err(_) => gone("the room closed"),
    })
}
