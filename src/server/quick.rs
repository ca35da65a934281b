//! `POST /api/rooms/quick`: a seat in the fullest open lobby, else a new room — on this node
//! alone or across the cluster, as the directory decides (`cluster::QuickStep`). This file
//! carries each step out: a seat reserved here, a room opened here, or a request to the
//! node the step names; a refusal or a node that did not answer is told back to the
//! directory with the next step asked for, up to `CANDIDATES` times; then a room opens here,
//! so a player nearly always gets a seat.
//!
//! Before any of it, the caller's address must have a quick play left this minute
//! (`429 rate_limited`), and on a cluster node one of its `cluster::IN_FLIGHT` permits must
//! be free (`503 busy` with `Retry-After`, at once).

use super::reply::{refuse, refuse_retry};
use super::rooms_api::open_room_as;
use super::seat::{SeatRequest, passed_on, reservation_reply, reserve, seat_request};
use crate::cluster::{At, Busy, Call, Directory, QuickStep, Reached, Tried};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::wire::messages::code;
use serde_json::json;
use std::sync::Arc;
use warp::http::StatusCode;
use warp::reply::Response;

/// Steps tried before quick play opens a room here.
const CANDIDATES: usize = 8;

pub async fn quick(
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    body: super::body::Body,
    from: Option<Source>,
) -> Result<Response, warp::Rejection> {
    if let Some(from) = from
        && !shared.quick_plays.admit(from, std::time::Instant::now())
    {
        return Ok(refuse_retry(
            StatusCode::TOO_MANY_REQUESTS,
            code::RATE_LIMITED,
            format!(
                "your address asked for quick play {} times this minute; try again shortly",
                shared.quick_plays.per_minute()
            ),
            10,
        ));
    }
    let who = match seat_request(&shared, &body, from).await {
        Ok(who) => who,
        Err(r) => return Ok(*r),
    };
    let _permit = match directory.quick_permit(from).await {
        Ok(p) => p,
        Err(_) => {
            return Ok(busy(
                "this node is answering as many quick plays as it takes at once (or as many as one address may ask at once)",
            ));
        }
    };
    let mut tried = Tried::default();
    for _ in 0..CANDIDATES {
        let step = match directory.quick_step(&shared, &tried).await {
            Ok(step) => step,
            Err(Busy::Full) => return Ok(busy("quick play is busy")),
            Err(Busy::Database(e)) => {
                tracing::warn!(error = %e, "quick play could not decide (the directory's lock or database)");
                return Ok(busy(
                    "quick play could not reach the room directory in time",
                ));
            }
        };
        match carry_out(&shared, &directory, &step, &who, from).await {
            Outcome::Seated(answer) => return Ok(answer),
            Outcome::Refused => tried.refused(&step),
            Outcome::Unanswered => tried.unanswered(&step),
        }
    }
    Ok(open_here(&shared, &directory, None, &who, from).await)
}

fn busy(why: &str) -> Response {
    refuse_retry(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        format!("{why}; try again in a moment"),
        1,
    )
}

/// How one step went.
enum Outcome {
    /// The player has a seat: the answer to send.
    Seated(Response),
    /// The room refused (full, started, gone).
    Refused,
    /// The node named did not answer.
    Unanswered,
}

async fn carry_out(
    shared: &Arc<Shared>,
    directory: &Directory,
    step: &QuickStep,
    who: &SeatRequest,
    from: Option<Source>,
) -> Outcome {
    match step {
        QuickStep::SeatIn { code, at: At::Here } => {
            let opener = super::rooms_api::opener(who, from, true);
            super::rooms_api::open_if_claimed(shared, directory, code, opener).await;
            match reserve(shared, code, who).await {
                Ok(r) if r.seat.is_some() => {
                    Outcome::Seated(reservation_reply(directory, StatusCode::OK, code, r))
                }
                _ => Outcome::Refused,
            }
        }
        QuickStep::SeatIn {
            code,
            at: At::There(node),
        } => {
            let path = format!("/internal/rooms/{code}/join");
            ask(directory, node, path, who, from, 200).await
        }
        QuickStep::OpenHere { code } => {
            Outcome::Seated(open_here(shared, directory, code.clone(), who, from).await)
        }
        QuickStep::OpenOn { node, code } => {
            let path = format!("/internal/rooms/{code}/open");
            ask(directory, node, path, who, from, 201).await
        }
    }
}

/// Asks `node` for a seat at `path`; a seat given (status `want`) is passed on.
async fn ask(
    directory: &Directory,
    node: &crate::cluster::Owner,
    path: String,
    who: &SeatRequest,
    from: Option<Source>,
    want: u16,
) -> Outcome {
    let call = Call {
        method: "POST",
        path,
        body: json!({"token": who.token, "name": who.name})
            .to_string()
            .into(),
        source: from.map(Source::to_header),
        authorization: None,
    };
    match directory.reach(node, &call).await {
        Reached::Answered(a) if a.status == want && seat_given(&a.body) => {
            Outcome::Seated(passed_on(a))
        }
        Reached::Answered(a) => {
            tracing::info!(node = %node.node_id, status = a.status, "a node gave quick play no seat");
            Outcome::Refused
        }
        Reached::Gone | Reached::Unavailable(_) => Outcome::Unanswered,
    }
}

/// Whether an answer gave a seat (not a spectator's place).
fn seat_given(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| v["you"]["seat"].is_u64())
}

/// A new room here (under `code` when the directory claimed one) with the player seated.
async fn open_here(
    shared: &Arc<Shared>,
    directory: &Directory,
    code: Option<String>,
    who: &SeatRequest,
    from: Option<Source>,
) -> Response {
    let opener = super::rooms_api::opener(who, from, true);
    let room = match open_room_as(shared, directory, code, opener).await {
        Ok((room, _)) => room,
        Err(refusal) => return refusal,
    };
    match reserve(shared, &room, who).await {
        Ok(r) => reservation_reply(directory, StatusCode::CREATED, &room, r),
        Err(c) => refuse(StatusCode::CONFLICT, c, "the new room refused the seat"),
    }
}
