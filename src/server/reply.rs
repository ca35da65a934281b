//! How the HTTP side answers: a JSON body with a status, a `{"code", "msg"}` refusal, and
//! warp's rejections turned into those refusals (never a 500).

use crate::shared::admission::Refused;
use crate::wire::messages::code;
use serde::Serialize;
use serde_json::json;
use warp::Rejection;
use warp::http::StatusCode;
use warp::reply::{Reply, Response, json as reply_json, with_status};

pub fn answer(status: StatusCode, body: &impl Serialize) -> Response {
    with_status(reply_json(body), status).into_response()
}

pub fn refuse(status: StatusCode, code: &str, msg: impl Into<String>) -> Response {
    answer(status, &json!({"code": code, "msg": msg.into()}))
}

/// A refusal that says when to ask again (`Retry-After`, seconds): a `429` past a quota, a
/// `503` while something shared is busy or away.
pub fn refuse_retry(
    status: StatusCode,
    code: &str,
    msg: impl Into<String>,
    after_s: u32,
) -> Response {
    let mut r = refuse(status, code, msg);
    r.headers_mut()
        .insert("retry-after", warp::http::HeaderValue::from(after_s));
    r
}

/// The `503 busy` refusal of the connection caps, naming which.
pub fn busy(why: Refused) -> Response {
    refuse(StatusCode::SERVICE_UNAVAILABLE, "busy", why.why())
}

/// `busy`'s body, for a connection turned away before hyper has it.
pub fn busy_body(why: Refused) -> String {
    json!({"code": "busy", "msg": why.why()}).to_string()
}

/// Rejections become JSON answers: unknown routes 404, oversized or wrong bodies 400.
pub async fn recover(r: Rejection) -> Result<Response, std::convert::Infallible> {
    Ok(if r.is_not_found() {
        refuse(StatusCode::NOT_FOUND, "not_found", "no such route")
    } else if r.find::<warp::reject::PayloadTooLarge>().is_some() {
        refuse(StatusCode::BAD_REQUEST, "too_big", "the body is over 4 KB")
    } else if r.find::<warp::reject::MethodNotAllowed>().is_some() {
        refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "method",
            "that method is not allowed here",
        )
    } else if r.find::<warp::reject::LengthRequired>().is_some() {
        refuse(
            StatusCode::BAD_REQUEST,
            "length_required",
            "send a Content-Length",
        )
    } else if r.find::<warp::reject::InvalidQuery>().is_some() {
        refuse(
            StatusCode::BAD_REQUEST,
            code::BAD_FIELD,
            "the query string could not be read",
        )
    } else {
        // Never warp's own names (`Rejection(…)`): they say nothing to a client.
        refuse(
            StatusCode::BAD_REQUEST,
            code::BAD_FIELD,
            "the request could not be read",
        )
    })
}

/// How long a room route may take, its database calls and another node's answer
/// included: past it the answer is `503 storage_unavailable` (with `Retry-After`), well
/// before the connection's own window (`UNDERCOOKED_HEADER_TIMEOUT_S`, 10 s) would cut it
/// off with a `408` that blames the client.
pub const ROOM_ROUTE_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);
