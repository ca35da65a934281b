//! The test seams, served only with `UNDERCOOKED_TEST_MODE=1`: kill a token's socket,
//! make a room's next tick panic, hold a room's thread, make the database slow, failing or
//! read-only.

use super::body::Body;
use super::reply::{answer, refuse};
use crate::shared::Shared;
use crate::shared::registry::RoomCmd;
use crate::wire::messages::code;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;
use tokio::sync::oneshot;
use warp::Rejection;
use warp::http::StatusCode;
use warp::reply::Response;

pub async fn kill_socket(
    room: String,
    token: String,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    let none = |why: &str| refuse(StatusCode::NOT_FOUND, "no_connection", why);
    let Some(handle) = shared.rooms.get(&room) else {
        return Ok(none("no such room"));
    };
    let (reply, rx) = oneshot::channel();
    let _ = handle.tx.send(RoomCmd::Kill { token, reply }).await;
    Ok(match rx.await {
        Ok(true) => answer(StatusCode::OK, &json!({"killed": true})),
        _ => none("that token holds no live socket here"),
    })
}

pub async fn panic_tick(room: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(handle) = shared.rooms.get(&room) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "no such room",
        ));
    };
    let _ = handle.tx.send(RoomCmd::PanicNextTick).await;
    Ok(answer(StatusCode::OK, &json!({"armed": true})))
}

/// Holds the thread of room `room` for `ms` milliseconds (at most 10 s), as a room thread
/// that something keeps busy would be: every room on it stops ticking meanwhile.
pub async fn hold_thread(
    room: String,
    ms: u64,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    let Some(handle) = shared.rooms.get(&room) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "no such room",
        ));
    };
    let held = Duration::from_millis(ms.min(10_000));
    let _ = handle.tx.send(RoomCmd::HoldThread(held)).await;
    Ok(answer(
        StatusCode::OK,
        &json!({"held_ms": held.as_millis() as u64}),
    ))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FaultBody {
    #[serde(default)]
    slow_ms: u64,
    #[serde(default)]
    fail: bool,
    /// Makes the storage read-only as SQLite sees it (`query_only` on every write
    /// connection: writes fail with `SQLITE_READONLY`), or writable again.
    read_only: Option<bool>,
}

pub async fn db_fault(shared: Arc<Shared>, body: Body) -> Result<Response, Rejection> {
    let body: FaultBody = match body.parse() {
        Ok(b) => b,
        Err(refusal) => return Ok(*refusal),
    };
    let Some(chain) = shared.chain() else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            "no_history",
            "the server has no database",
        ));
    };
    chain.faults.slow_ms.store(body.slow_ms, Relaxed);
    chain.faults.fail.store(body.fail, Relaxed);
    if let Some(on) = body.read_only {
        chain
            .faults
            .read_only
            .store(if on { 1 } else { 2 }, Relaxed);
    }
    Ok(answer(
        StatusCode::OK,
        &json!({"slow_ms": body.slow_ms, "fail": body.fail, "read_only": body.read_only}),
    ))
}
