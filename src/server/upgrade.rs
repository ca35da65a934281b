//! The WebSocket upgrade of `/ws/{code}`, done before a request reaches warp's routes.
//!
//! warp 0.4 would build the socket with tungstenite's 128 KiB read buffer per connection;
//! the server's connections read with their own, a kilobyte at rest (`net::read`). Here
//! the handshake is answered directly (the `Origin` check first, HTTP 403 outside the
//! allow-list), hyper hands over the upgraded TCP stream, and the stream moves to its
//! room's thread as a `net::Connection`, with the bytes hyper read past the request.

use super::reply::{busy, refuse};
use super::socket::serve;
use crate::net::{Connection, Limits, Ticks};
use crate::shared::Shared;
use crate::shared::admission::Permit;
use crate::shared::census::SocketState;
use crate::shared::pending::Pending;
use hyper::body::Incoming;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use warp::http::{StatusCode, header};
use warp::reply::{Reply, Response};

/// The longest frame or message a connection reads at all: four times
/// `max_message_bytes`, and at least 64 KiB, so the protocol's own test (a 64 KB frame,
/// text or binary, is answered `too_big` and counted) holds at every setting. A longer
/// one is not read: the socket closes with `1009`.
pub fn transport_limit(max_message_bytes: usize) -> usize {
    (max_message_bytes * 4).max(64 * 1024)
}

/// A connection's limits under the server's settings.
fn limits(shared: &Shared) -> Limits {
    let c = &shared.config;
    Limits {
        frames_per_s: c.max_inputs_per_s,
        message_bytes: c.max_message_bytes,
        frame_bytes: transport_limit(c.max_message_bytes),
        latency: Duration::from_millis(c.sim_latency_ms),
    }
}

fn header_has(req: &http::Request<Incoming>, name: header::HeaderName, token: &str) -> bool {
    req.headers()
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
}

/// Answers a WebSocket upgrade of `/ws/{code}`; `None` for every other request. The
/// socket keeps the connection's `permit` until it closes.
pub fn try_upgrade(
    req: &mut http::Request<Incoming>,
    shared: &Arc<Shared>,
    permit: &Arc<Permit>,
) -> Option<Response> {
    let code = req.uri().path().strip_prefix("/ws/")?.to_string();
    if code.is_empty()
        || code.contains('/')
        || req.method() != http::Method::GET
        || !header_has(req, header::UPGRADE, "websocket")
    {
        return None;
    }
    if let Some(refused) = origin_refused(req, shared, &code) {
        return Some(refused);
    }
    let key = match accept_key(req) {
        Ok(key) => key,
        Err(refused) => return Some(*refused),
    };
    // Sockets that have not said hello are capped, and one address holds only its share
    // of the places (the last of them kept for addresses let in before): past it, refused
    // before the upgrade.
    let source = permit.source();
    let pending = match shared.pending.admit(source, shared.known.knows(source)) {
        Ok(pending) => pending,
        Err(why) => {
            shared.admission.refuse(why);
            return Some(busy(why));
        }
    };
    // Counted as waiting for hello from now, before the client sees its 101, so the cap
    // holds against sockets opened back to back; `serve` moves it on from there.
    shared
        .census
        .socket_moved(None, Some(SocketState::Handshake));
    let on_upgrade = hyper::upgrade::on(&mut *req);
    tokio::spawn(take_over(
        on_upgrade,
        code,
        shared.clone(),
        permit.clone(),
        pending,
    ));
    Some(switching_protocols(&key))
}

/// The 403 for an `Origin` outside the allow-list (any is in it when it is empty).
fn origin_refused(req: &http::Request<Incoming>, shared: &Shared, code: &str) -> Option<Response> {
    let allowed = &shared.config.allowed_origins;
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok());
    if allowed.is_empty() || origin.is_some_and(|o| allowed.iter().any(|a| a == o)) {
        return None;
    }
    shared.census.refused(403);
    tracing::info!(room = %code, "refused a socket from an origin outside the allow-list");
    Some(refuse(
        StatusCode::FORBIDDEN,
        "origin",
        "this origin may not open sockets here",
    ))
}

/// The `Sec-WebSocket-Accept` for a version 13 upgrade; else the 400.
fn accept_key(req: &http::Request<Incoming>) -> Result<String, Box<Response>> {
    let bad = |why| Box::new(refuse(StatusCode::BAD_REQUEST, "bad_upgrade", why));
    let Some(key) = req.headers().get(header::SEC_WEBSOCKET_KEY) else {
        return Err(bad("a WebSocket upgrade needs Sec-WebSocket-Key"));
    };
    let version = req.headers().get(header::SEC_WEBSOCKET_VERSION);
    if version.is_none_or(|v| v != "13") {
        return Err(bad("only WebSocket version 13 is spoken here"));
    }
    Ok(derive_accept_key(key.as_bytes()))
}

/// The `101 Switching Protocols` answer.
fn switching_protocols(key: &str) -> Response {
    let mut resp =
        warp::reply::with_status(warp::reply(), StatusCode::SWITCHING_PROTOCOLS).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONNECTION,
        header::HeaderValue::from_static("upgrade"),
    );
    h.insert(
        header::UPGRADE,
        header::HeaderValue::from_static("websocket"),
    );
    if let Ok(v) = header::HeaderValue::from_str(key) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    resp
}

/// Once hyper hands the connection over: its own TCP stream, taken off this runtime to
/// its room's thread (`net::threads`), where the room writes frames to it directly and
/// its task serves it.
async fn take_over(
    on_upgrade: OnUpgrade,
    code: String,
    shared: Arc<Shared>,
    permit: Arc<Permit>,
    pending: Pending,
) {
    // A socket that never got going leaves the census's handshake count.
    let lost = |shared: &Shared| {
        shared
            .census
            .socket_moved(Some(SocketState::Handshake), None)
    };
    let (stream, early) = match upgraded(on_upgrade).await {
        Ok(taken) => taken,
        Err(e) => {
            lost(&shared);
            tracing::debug!(error = %e, "a WebSocket upgrade did not complete");
            return;
        }
    };
    if let bytes @ 1.. = shared.config.socket_send_buffer {
        // Bounds what the kernel holds for a client that stops reading.
        if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(&stream, bytes) {
            tracing::warn!(error = %e, "could not set a socket's send buffer");
        }
    }
    let room = shared.rooms.get(&code);
    let thread = room.as_ref().map_or(0, |room| room.thread);
    let threads = shared.clone();
    threads.threads.spawn(thread, async move {
        if let Err(e) = stream.set_nonblocking(true) {
            lost(&shared);
            tracing::warn!(error = %e, "a socket could not join its room's thread");
            return;
        }
        let ticks = room.as_ref().map_or_else(Ticks::none, |r| r.ticks.clone());
        let id = shared.conn_id();
        let conn = Connection::new(id, stream, early, limits(&shared), ticks);
        serve(conn, code, room, shared, permit, pending).await;
    });
}

/// The upgraded connection's TCP stream, and what hyper had already read past the request.
async fn upgraded(on_upgrade: OnUpgrade) -> Result<(std::net::TcpStream, Vec<u8>), String> {
    let upgraded = on_upgrade.await.map_err(|e| e.to_string())?;
    let parts = upgraded
        .downcast::<TokioIo<TcpStream>>()
        .map_err(|_| "the upgraded connection is not a TCP stream".to_string())?;
    let stream = parts
        .io
        .into_inner()
        .into_std()
        .map_err(|e| e.to_string())?;
    Ok((stream, parts.read_buf.to_vec()))
}
