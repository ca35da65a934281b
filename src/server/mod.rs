//! The network side: HTTP routes, the WebSocket connection task, and `run`.
//!
//! `run(listener, shared, shutdown)` serves until `shutdown` resolves, so tests start a
//! real server on port 0 and the binary starts one on its configured address.

pub mod config;
pub mod http;
pub mod shared;
pub mod socket;

use shared::Shared;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Serves HTTP and WebSocket on `listener` until `shutdown` resolves; then every room
/// finishes its round as aborted (its replay file completed) and closes its sockets with
/// 1001, within 5 s.
pub async fn run(
    listener: TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let routes = http::routes(shared.clone());
    let closing = shared.clone();
    let graceful = async move {
        shutdown.await;
        tracing::info!("shutting down: closing every room");
        let _ = tokio::time::timeout(Duration::from_secs(4), close_rooms(&closing)).await;
    };
    let server = warp::serve(routes)
        .incoming(listener)
        .graceful(graceful)
        .run();
    server.await;
}

async fn close_rooms(shared: &Shared) {
    let rooms: Vec<_> = shared
        .rooms
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .values()
        .cloned()
        .collect();
    let mut waits = Vec::new();
    for room in rooms {
        let (reply, rx) = tokio::sync::oneshot::channel();
        if room
            .tx
            .send(crate::room::RoomCmd::Shutdown { reply })
            .await
            .is_ok()
        {
            waits.push(rx);
        }
    }
    for w in waits {
        let _ = w.await;
    }
}
