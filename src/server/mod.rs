//! The network side: HTTP routes, the WebSocket connection task, and `run`.
//!
//! `run(listener, shared, shutdown)` serves until `shutdown` resolves, so tests start a
//! real server on port 0 and the binary starts one on its configured address.

pub mod config;
pub mod http;
pub mod shared;
pub mod socket;
pub mod upgrade;

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
    let routes = warp::service(http::routes(shared.clone()));
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let routes = routes.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(
                move |mut req: hyper::Request<hyper::body::Incoming>| {
                    let mut routes = routes.clone();
                    let shared = shared.clone();
                    async move {
                        if let Some(resp) = upgrade::try_upgrade(&mut req, &shared) {
                            return Ok::<_, std::convert::Infallible>(resp);
                        }
                        tower_service::Service::call(&mut routes, req).await
                    }
                },
            );
            // HTTP/1.1 only (no HTTP/2 preface sniffing): the API and the upgrade need nothing more.
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .with_upgrades();
            let _ = conn.await;
        });
    }
    tracing::info!("shutting down: closing every room");
    let _ = tokio::time::timeout(Duration::from_secs(4), close_rooms(&shared)).await;
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
