//! The WebSocket upgrade of `/ws/{code}`, done before a request reaches warp's routes.
//!
//! warp 0.4 builds its sockets with tungstenite's default 128 KiB read buffer per
//! connection and does not expose that setting; a thousand sockets then cost ~135 MiB. Here
//! the handshake is answered directly (the `Origin` check first, HTTP 403 outside the
//! allow-list), hyper hands over the upgraded connection, and tokio-tungstenite wraps it with
//! small buffers and transport limits four times `max_message_bytes` (so a frame somewhat
//! over the limit is answered `too_big`; a far bigger one closes the socket with 1009).

use super::duplex::Duplex;
use super::ear::Socket;
use super::reply::{busy, refuse};
use super::socket::serve;
use crate::shared::Shared;
use crate::shared::census::SocketState;
use crate::shared::gate::{Place, Refused};
use crate::shared::outbound::{self, Outbound};
use crate::shared::turns::Turns;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use warp::http::{StatusCode, header};
use warp::reply::{Reply, Response};

/// Small buffers (they grow for a big frame and shrink back), and transport limits near
/// the protocol's: a frame up to four times `max_message_bytes` (16 KiB by default) is read
/// whole and answered `too_big` by the guard; a bigger one is not buffered at all — the
/// socket closes with 1009 — so a client cannot make the server hold a megabyte per socket.
/// The read buffer is 1 KiB because tungstenite zeroes its free part before every read:
/// at 4 KiB that `memset` was 4 % of the server's user CPU under load (an input is ~100 B).
pub fn config(max_message_bytes: usize) -> WebSocketConfig {
    let limit = transport_limit(max_message_bytes);
    WebSocketConfig::default()
        .read_buffer_size(1024)
        .write_buffer_size(0)
        .max_write_buffer_size(limit * 2)
        .max_message_size(Some(limit))
        .max_frame_size(Some(limit))
}

/// The largest frame the transport reads.
pub fn transport_limit(max_message_bytes: usize) -> usize {
    (max_message_bytes * 4).max(16 * 1024)
}

fn header_has(req: &http::Request<Incoming>, name: header::HeaderName, token: &str) -> bool {
    req.headers()
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
}

/// Answers a WebSocket upgrade of `/ws/{code}`; `None` for every other request. The
/// socket keeps the connection's `place` until it closes.
pub fn try_upgrade(
    req: &mut http::Request<Incoming>,
    shared: &Arc<Shared>,
    place: &Arc<Place>,
) -> Option<Response> {
    let code = req.uri().path().strip_prefix("/ws/")?.to_string();
    if code.is_empty()
        || code.contains('/')
        || req.method() != http::Method::GET
        || !header_has(req, header::UPGRADE, "websocket")
    {
        return None;
    }
    let allowed = &shared.config.allowed_origins;
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok());
    if !allowed.is_empty() && !origin.is_some_and(|o| allowed.iter().any(|a| a == o)) {
        shared.census.refused(403);
        tracing::info!(room = %code, "refused a socket from an origin outside the allow-list");
        return Some(refuse(
            StatusCode::FORBIDDEN,
            "origin",
            "this origin may not open sockets here",
        ));
    }
    let Some(key) = req
        .headers()
        .get(header::SEC_WEBSOCKET_KEY)
        .map(|k| derive_accept_key(k.as_bytes()))
    else {
        return Some(refuse(
            StatusCode::BAD_REQUEST,
            "bad_upgrade",
            "a WebSocket upgrade needs Sec-WebSocket-Key",
        ));
    };
    if req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v != "13")
    {
        return Some(refuse(
            StatusCode::BAD_REQUEST,
            "bad_upgrade",
            "only WebSocket version 13 is spoken here",
        ));
    }
    // Sockets that have not said hello are capped: past it, refused before the upgrade.
    let pending = shared.census.sockets_in(SocketState::Handshake);
    if pending >= shared.config.connections.pending_sockets as u64 {
        shared.gate.refuse(Refused::PendingSockets);
        return Some(busy(Refused::PendingSockets));
    }
    // Counted as waiting for hello from now, before the client sees its 101, so the cap
    // holds against sockets opened back to back; `serve` moves it on from there.
    shared
        .census
        .socket_moved(None, Some(SocketState::Handshake));
    let on_upgrade = hyper::upgrade::on(&mut *req);
    let shared = shared.clone();
    let place = place.clone();
    tokio::spawn(async move {
        // The connection's own TCP stream (the accept loop serves hyper on it), taken off
        // this runtime so that it can join its room's home (`shared::homes`), where the
        // room writes frames to it directly.
        let upgraded = on_upgrade
            .await
            .map_err(|e| e.to_string())
            .and_then(|u| {
                u.downcast::<TokioIo<TcpStream>>()
                    .map_err(|_| "the upgraded connection is not a TCP stream".to_string())
            })
            .and_then(|parts| {
                let early = parts.read_buf;
                let stream = parts.io.into_inner().into_std();
                stream.map(|s| (s, early)).map_err(|e| e.to_string())
            });
        if let (Ok((stream, _)), bytes @ 1..) = (&upgraded, shared.config.socket_send_buffer) {
            // Bounds what the kernel holds for a client that stops reading.
            if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(stream, bytes) {
                tracing::warn!(error = %e, "could not set a socket's send buffer");
            }
        }
        // A socket that never got going leaves the census's handshake count.
        let lost = |shared: &Shared| {
            shared
                .census
                .socket_moved(Some(SocketState::Handshake), None)
        };
        let (stream, early) = match upgraded {
            Ok(taken) => taken,
            Err(e) => {
                lost(&shared);
                tracing::debug!(error = %e, "a WebSocket upgrade did not complete");
                return;
            }
        };
        let room = shared.rooms.get(&code);
        let home = room.as_ref().map_or(0, |room| room.home);
        let homes = shared.clone();
        homes.homes.spawn(home, async move {
            let stream = match outbound::stream(stream) {
                Ok(s) => s,
                Err(e) => {
                    lost(&shared);
                    tracing::warn!(error = %e, "a socket could not join its room's thread");
                    return;
                }
            };
            let cfg = config(shared.config.max_message_bytes);
            let turns = room.as_ref().map_or_else(Turns::none, |r| r.turns.clone());
            let out = Outbound::new(stream.clone(), turns);
            let duplex = Duplex::new(stream, out.clone());
            // Reading starts with whatever hyper had already read past the upgrade request.
            let socket =
                Socket::from_partially_read(duplex, early.to_vec(), Role::Server, Some(cfg));
            serve(socket, out, code, room, shared, place).await;
        });
    });
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
    if let Ok(v) = header::HeaderValue::from_str(&key) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    Some(resp)
}
