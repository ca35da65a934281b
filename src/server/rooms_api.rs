//! The rooms over HTTP: create, join, play solo, the host's bots, and a room's public
//! status (quick play is `quick`). Each asks the directory where its room is and carries
//! the answer out: here, the room is asked; on another node, the request goes to that
//! node's internal listener and its answer comes back as it is; nowhere, `404 room_gone`.
//! The `…_here` handlers are what the internal listener calls for another node.
//!
//! Bodies are parsed strictly (`body`, `seat`); create, join and quick all end in the
//! room's own reservation, so a seat is only ever given by the room.

use super::body::Body;
use super::info::bearer;
use super::reply::{answer, refuse, refuse_retry};
use super::seat::{SeatRequest, passed_on, reservation_reply, reserve, seat_request};
use crate::cluster::{Call, Directory, NoCode, Place, Reached};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::shared::registry::{Opener, RoomCmd, RoomHandle};
use crate::wire::messages::{Refusal, code};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use tokio::sync::oneshot;
use warp::http::StatusCode;
use warp::reply::Response;

/// Parses a room route's body as its route does (`{name?, token?}`, or a bot's `{seat?}`).
pub(super) fn parse_body(body: &Body, bot: bool) -> Result<(), Box<Response>> {
    if bot {
        body.parse::<BotBody>().map(|_| ())
    } else {
        super::seat::parse_seat_request(body).map(|_| ())
    }
}

fn storage_unavailable(why: impl Into<String>) -> Response {
    refuse_retry(
        StatusCode::SERVICE_UNAVAILABLE,
        "storage_unavailable",
        why,
        2,
    )
}

/// Opens a room on this node under `code` (claimed by quick play), or under a code the
/// directory gives (in a cluster: claimed there first; a draining node opens none), for
/// `opener`, within its shares (`shares_refuse`).
pub(super) async fn open_room_as(
    shared: &Arc<Shared>,
    directory: &Directory,
    code: Option<String>,
    opener: Opener,
) -> Result<(String, RoomHandle), Response> {
    let full = || {
        let why = format!(
            "the server is at its limit of {} rooms",
            shared.config.max_rooms
        );
        refuse(StatusCode::CONFLICT, code::ROOM_FULL, why)
    };
    if let Some(refused) = shares_refuse(shared, &opener) {
        return Err(refused);
    }
    let code = match code {
        Some(code) => Some(code),
        None => match directory.claim().await {
            Ok(code) => code,
            Err(NoCode::Draining) => {
                return Err(refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    code::ROOM_FULL,
                    "this node is draining (shutting down): it opens no rooms; try another",
                ));
            }
            Err(NoCode::Unreachable(e)) => {
                tracing::warn!(error = %e, "a room code could not be claimed in the directory");
                return Err(storage_unavailable(
                    "the cluster's room directory cannot be reached: no room can be opened now",
                ));
            }
        },
    };
    let opened = crate::room::spawn_as(shared, code, opener).ok_or_else(full)?;
    directory.opened(&opened.0);
    Ok(opened)
}

/// The rooms are shared out: one session holds at most `rooms_per_session` open at once,
/// one address `rooms_per_ip`, and the last quarter of `max_rooms` is kept for addresses
/// the server has let a socket in from (`Shared::known`). Past a share: `429` with
/// `Retry-After` (the unclaimed-seat grace: a room nobody came to is gone by then); past
/// the whole: `409 room_full`.
fn shares_refuse(shared: &Shared, opener: &Opener) -> Option<Response> {
    let c = &shared.config;
    let (by_session, by_address) = shared.rooms.held_by(opener.token.as_deref(), opener.source);
    let share = |why: String| {
        let after = c.unclaimed_seat_s.clamp(1, 3600) as u32;
        refuse_retry(
            StatusCode::TOO_MANY_REQUESTS,
            code::RATE_LIMITED,
            why,
            after,
        )
    };
    if by_session >= c.rooms_per_session as usize {
        return Some(share(format!(
            "your session holds {by_session} open rooms, its share; play in one or leave one first"
        )));
    }
    if by_address >= c.rooms_per_ip as usize {
        return Some(share(format!(
            "your address holds {by_address} open rooms, its share; try again when one closes"
        )));
    }
    let open = shared.rooms.len();
    let known = opener.source.is_some_and(|s| shared.known.knows(s));
    let reserve = c.max_rooms / 4;
    if open >= c.max_rooms || (!known && open >= c.max_rooms - reserve) {
        let why = format!("the server is at its limit of {} rooms", c.max_rooms);
        return Some(refuse(StatusCode::CONFLICT, code::ROOM_FULL, why));
    }
    None
}

/// Opens room `code` here when quick play claimed it for this node and it is not open yet
/// (its first player may arrive before the request that opens it).
pub(super) async fn open_if_claimed(
    shared: &Arc<Shared>,
    directory: &Directory,
    code: &str,
    opener: Opener,
) {
    if shared.rooms.get(code).is_none() && directory.may_open(code).await {
        let _ = open_room_as(shared, directory, Some(code.to_string()), opener).await;
    }
}

/// Who opens a room for `who` from `from` (`quick`: quick play does).
pub(super) fn opener(who: &SeatRequest, from: Option<Source>, quick: bool) -> Opener {
    Opener {
        token: Some(who.token.clone()),
        source: from,
        quick,
    }
}

fn refusal_status(c: &str) -> StatusCode {
    match c {
        code::ROOM_GONE => StatusCode::NOT_FOUND,
        code::ROOM_FULL => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// `POST /api/rooms`: a new room here with the caller in seat 0 as host.
pub async fn create_room(
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, warp::Rejection> {
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    let (room, _) = match open_room_as(&shared, &directory, None, opener(&who, from, false)).await {
        Ok(opened) => opened,
        Err(refusal) => return Ok(refusal),
    };
    Ok(match reserve(&shared, &room, &who).await {
        Ok(r) => reservation_reply(&directory, StatusCode::CREATED, &room, r),
        Err(c) => refuse(refusal_status(c), c, "the new room refused the seat"),
    })
}

/// The answer to a request sent to a room's node, or why there is none.
fn reached(r: Reached) -> Response {
    match r {
        Reached::Answered(a) => passed_on(a),
        Reached::Gone => refuse(StatusCode::NOT_FOUND, code::ROOM_GONE, "no such room"),
        Reached::Unavailable(_) => {
            storage_unavailable("the room's node did not answer; try again in a moment")
        }
    }
}

/// Where room `code` is; `Err` is the answer when it is not here.
async fn place_or_answer(
    shared: &Shared,
    directory: &Directory,
    room: &str,
    elsewhere: impl FnOnce(&crate::cluster::Owner) -> Call,
) -> Result<(), Response> {
    match directory.place(shared, room).await {
        Ok(Place::Here) => Ok(()),
        Ok(Place::There(owner)) => Err(reached(directory.reach(&owner, &elsewhere(&owner)).await)),
        Ok(Place::Gone) => Err(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "no such room",
        )),
        // Its node died and another is taking its round over (docs/SCALING.md).
        Ok(Place::Moving) => Err(refuse_retry(
            StatusCode::SERVICE_UNAVAILABLE,
            "room_moving",
            "the room's node stopped and another node is taking its round over; ask again in a moment",
            1,
        )),
        Err(e) => {
            tracing::warn!(error = %e.0, room, "the room directory could not be read");
            Err(storage_unavailable(
                "the cluster's room directory cannot be reached",
            ))
        }
    }
}

/// `POST /api/rooms/{code}/join`: here, or forwarded to the room's node.
pub async fn join_room(
    room: String,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, warp::Rejection> {
    let call = |_: &crate::cluster::Owner| Call {
        method: "POST",
        path: format!("/internal/rooms/{room}/join"),
        body: body.bytes.clone(),
        source: from.map(Source::to_header),
        authorization: None,
    };
    if let Err(answer) = place_or_answer(&shared, &directory, &room, call).await {
        return Ok(answer);
    }
    Ok(join_here(room, shared, directory, body, from).await)
}

/// A join for a room on this node (the player's own, or one another node sent).
pub async fn join_here(
    room: String,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
) -> Response {
    seat_here(room, shared, directory, body, from, StatusCode::OK).await
}

/// Quick play on another node claimed `room` for this node: open it if it is not yet,
/// and seat the player (`201`).
pub async fn open_claimed(
    room: String,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
) -> Response {
    seat_here(room, shared, directory, body, from, StatusCode::CREATED).await
}

async fn seat_here(
    room: String,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
    status: StatusCode,
) -> Response {
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return *r,
    };
    open_if_claimed(&shared, &directory, &room, opener(&who, from, true)).await;
    match reserve(&shared, &room, &who).await {
        Ok(r) => reservation_reply(&directory, status, &room, r),
        Err(c) => {
            let why = if c == code::ROOM_FULL {
                "every seat is taken"
            } else {
                "no such room"
            };
            refuse(refusal_status(c), c, why)
        }
    }
}

/// Play solo: a new room with the caller in seat 0 as host and bots in the other seats, on
/// the highest level the caller's session has unlocked, waiting for its `start`.
pub async fn solo(
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
    from: Option<Source>,
) -> Result<Response, warp::Rejection> {
    let who: SeatRequest = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    let (room, handle) =
        match open_room_as(&shared, &directory, None, opener(&who, from, false)).await {
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
        Ok(r) => reservation_reply(&directory, StatusCode::CREATED, &room, r),
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

/// `POST /api/rooms/{code}/bots` `{seat?}`: the host puts a bot in a free seat (a host
/// whose page is on another node reaches the room's node).
pub async fn add_bot(
    room: String,
    auth: Option<String>,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: Body,
) -> Result<Response, warp::Rejection> {
    let call = |_: &crate::cluster::Owner| Call {
        method: "POST",
        path: format!("/internal/rooms/{room}/bots"),
        body: body.bytes.clone(),
        source: None,
        authorization: auth.clone(),
    };
    if let Err(answer) = place_or_answer(&shared, &directory, &room, call).await {
        return Ok(answer);
    }
    Ok(add_bot_here(room, auth, shared, body).await)
}

pub async fn add_bot_here(
    room: String,
    auth: Option<String>,
    shared: Arc<Shared>,
    body: Body,
) -> Response {
    let Some(token) = bearer(auth) else {
        return no_token();
    };
    let body: BotBody = match body.parse() {
        Ok(b) => b,
        Err(refusal) => return *refusal,
    };
    let seat = body.seat;
    match ask_room(&shared, &room, |reply| RoomCmd::AddBot {
        token,
        seat,
        reply,
    })
    .await
    {
        Ok(seat) => answer(StatusCode::CREATED, &json!({"seat": seat, "bot": true})),
        Err(r) => bot_refusal(r),
    }
}

/// `DELETE /api/rooms/{code}/bots/{seat}`: the host takes a bot out.
pub async fn remove_bot(
    room: String,
    seat: u8,
    auth: Option<String>,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
) -> Result<Response, warp::Rejection> {
    let call = |_: &crate::cluster::Owner| Call {
        method: "DELETE",
        path: format!("/internal/rooms/{room}/bots/{seat}"),
        body: bytes::Bytes::new(),
        source: None,
        authorization: auth.clone(),
    };
    if let Err(answer) = place_or_answer(&shared, &directory, &room, call).await {
        return Ok(answer);
    }
    Ok(remove_bot_here(room, seat, auth, shared).await)
}

pub async fn remove_bot_here(
    room: String,
    seat: u8,
    auth: Option<String>,
    shared: Arc<Shared>,
) -> Response {
    let Some(token) = bearer(auth) else {
        return no_token();
    };
    match ask_room(&shared, &room, |reply| RoomCmd::RemoveBot {
        token,
        seat,
        reply,
    })
    .await
    {
        Ok(()) => answer(StatusCode::OK, &json!({"seat": seat, "removed": true})),
        Err(r) => bot_refusal(r),
    }
}

/// `GET /api/rooms/{code}`: here, or the room's node's answer.
pub async fn room_status(
    room: String,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
) -> Result<Response, warp::Rejection> {
    let call = |_: &crate::cluster::Owner| Call {
        method: "GET",
        path: format!("/internal/rooms/{room}"),
        body: bytes::Bytes::new(),
        source: None,
        authorization: None,
    };
    if let Err(answer) = place_or_answer(&shared, &directory, &room, call).await {
        return Ok(answer);
    }
    Ok(status_here(room, shared, directory).await)
}

pub async fn status_here(room: String, shared: Arc<Shared>, directory: Arc<Directory>) -> Response {
    let gone = |why: &str| refuse(StatusCode::NOT_FOUND, code::ROOM_GONE, why);
    let Some(handle) = shared.rooms.get(&room) else {
        return gone("no such room");
    };
    let (reply, rx) = oneshot::channel();
    if handle.tx.send(RoomCmd::Status { reply }).await.is_err() {
        return gone("the room closed");
    }
    match rx.await {
        Ok(status) => {
            let mut body = serde_json::to_value(&status).unwrap_or_default();
            if let Some(url) = directory.ws_url(&room) {
                body["ws_url"] = json!(url);
            }
            answer(StatusCode::OK, &body)
        }
        Err(_) => gone("the room closed"),
    }
}
