//! The accept loop and each HTTP connection: who gets in, and how long they may take.
//!
//! A connection first takes a permit (`shared::admission`); refused, it is sent a
//! fixed `503` naming why, unread, and dropped, so a flood costs no task and no buffer. An
//! admitted connection is served by hyper with its header read timeout, which runs from the
//! moment the connection waits for a request (accepted, or its last answer sent): a silent
//! connection, headers trickled a byte at a time and an idle keep-alive connection all end
//! when it passes. A body must then arrive within the same window (`408`). A reserve permit
//! is served once, with a window of at most 2 s, and only for `/healthz`, `/metrics`,
//! `/api/stats` and `/ws/` (where the socket's `hello` must return a seated player).
//! Each request then takes a token from its address's request budget (and an upgrade one
//! from the upgrade budget) before anything else: past it, `429` with `Retry-After`.
//!
//! When `accept` itself fails for want of descriptors or memory (`EMFILE`, `ENFILE`,
//! `ENOBUFS`, `ENOMEM`) the loop backs off (10 ms doubling to 1 s) instead of spinning on
//! the waiting connection, and says so at most once a second, with how many it held back.

use super::reply::{busy, busy_body, refuse, refuse_retry};
use super::upgrade;
use crate::shared::Shared;
use crate::shared::admission::{Permit, Refused};
use crate::wire::messages::code;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use warp::http::StatusCode;
use warp::reply::Response;

/// The longest a reserve connection may take to ask.
const RESERVE_WINDOW: Duration = Duration::from_secs(2);

/// What answers the requests the upgrade did not take: warp's routes, as a service.
pub trait Routes:
    tower_service::Service<
        http::Request<hyper::body::Incoming>,
        Response = Response,
        Error = Infallible,
        Future: Send,
    > + Clone
    + Send
    + 'static
{
}

impl<T> Routes for T where
    T: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = Response,
            Error = Infallible,
            Future: Send,
        > + Clone
        + Send
        + 'static
{
}

/// Accepts and serves connections on `listener` until `shutdown` resolves.
pub async fn serve<R: Routes>(
    listener: TcpListener,
    shared: Arc<Shared>,
    routes: R,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let mut failing = Backoff::default();
    let mut refusals = Said::default();
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    if let Some(pause) = failing.failed(&e) {
                        tokio::time::sleep(pause).await;
                    }
                    continue;
                }
            },
        };
        failing.accepted();
        let permit = match shared.admission.admit(peer.ip()) {
            Ok(permit) => permit,
            Err(why) => {
                refusals.say(|held_back| {
                    tracing::info!(peer = %peer.ip(), reason = why.name(), held_back, "connection refused");
                });
                turn_away(&stream, why);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, permit, shared.clone(), routes.clone()));
    }
}

/// A fixed `503` written without waiting (a fresh socket's send buffer takes it), then the
/// connection is dropped.
fn turn_away(stream: &TcpStream, why: Refused) {
    let body = busy_body(why);
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let _ = stream.try_write(format!("{head}{body}").as_bytes());
}

/// One HTTP connection, on its permit.
async fn connection<R: Routes>(stream: TcpStream, permit: Permit, shared: Arc<Shared>, routes: R) {
    let reserve = permit.reserve();
    let mut window = shared.config.connections.header_timeout;
    if reserve {
        window = window.min(RESERVE_WINDOW);
    }
    let permit = Arc::new(permit);
    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let (routes, shared, permit) = (routes.clone(), shared.clone(), permit.clone());
        async move {
            let mut answer = answer(req, &shared, &permit, routes, window).await;
            if reserve && answer.status() != StatusCode::SWITCHING_PROTOCOLS {
                // One answer on a reserve permit, whatever it is, then the permit is given
                // back. (Not hyper's keep-alive switch: that would also take `upgrade`
                // out of a returning player's 101.)
                answer.headers_mut().insert(
                    http::header::CONNECTION,
                    http::HeaderValue::from_static("close"),
                );
            }
            Ok::<_, Infallible>(answer)
        }
    });
    // HTTP/1.1 only (no HTTP/2 preface sniffing): the API and the upgrade need nothing more.
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(window);
    let _ = http
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// One request's answer: refused on a reserve permit it is not kept for, else the
/// WebSocket upgrade, else the routes (within `window`, or `408`).
async fn answer<R: Routes>(
    mut req: http::Request<hyper::body::Incoming>,
    shared: &Arc<Shared>,
    permit: &Arc<Permit>,
    mut routes: R,
    window: Duration,
) -> Response {
    if permit.reserve() && !reserve_serves(&req) {
        shared.admission.refuse(Refused::ReserveOnly);
        return busy(Refused::ReserveOnly);
    }
    req.extensions_mut().insert(permit.source());
    if let Some(over) = over_budget(&req, shared, permit) {
        return over;
    }
    if let Some(resp) = upgrade::try_upgrade(&mut req, shared, permit) {
        return resp;
    }
    // HEAD is answered as the GET of the same path (RFC 9110 §9.3.2): the routes see a GET,
    // and hyper, which knows the request was a HEAD, sends the status and headers (the
    // GET's `content-length` included) and never the body.
    if req.method() == http::Method::HEAD {
        *req.method_mut() = http::Method::GET;
    }
    let call = tower_service::Service::call(&mut routes, req);
    match tokio::time::timeout(window, call).await {
        Ok(Ok(answer)) => answer,
        Err(_) => refuse(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request's body did not arrive in time",
        ),
    }
}

/// A request past its address's budget (`shared::budget`): every request takes a token
/// from `requests`, a socket upgrade one from `upgrades` as well, before anything is done
/// for it (no route runs, no session is looked up). Past it: `429` with `Retry-After`.
fn over_budget(
    req: &http::Request<hyper::body::Incoming>,
    shared: &Shared,
    permit: &Permit,
) -> Option<Response> {
    let (source, now) = (permit.source(), Instant::now());
    let upgrade = req.uri().path().starts_with("/ws/");
    let taken = shared
        .requests
        .take(source, now)
        .and_then(|()| match upgrade {
            true => shared.upgrades.take(source, now),
            false => Ok(()),
        });
    let wait = taken.err()?;
    shared.admission.refuse(Refused::RequestBudget);
    let after_s = wait.as_secs_f64().ceil().clamp(1.0, 3600.0) as u32;
    Some(refuse_retry(
        StatusCode::TOO_MANY_REQUESTS,
        code::RATE_LIMITED,
        Refused::RequestBudget.why(),
        after_s,
    ))
}

/// What a reserve permit is kept for.
fn reserve_serves(req: &http::Request<hyper::body::Incoming>) -> bool {
    let path = req.uri().path();
    matches!(*req.method(), http::Method::GET | http::Method::HEAD)
        && (matches!(path, "/healthz" | "/metrics" | "/api/stats") || path.starts_with("/ws/"))
}

/// The accept loop's back-off while `accept` fails for want of resources.
#[derive(Default)]
struct Backoff {
    pause: Option<Duration>,
    said: Said,
}

impl Backoff {
    /// An `accept` error: how long to pause before the next (`None`: retry at once, the
    /// error was the one connection's, such as a reset before it was taken).
    fn failed(&mut self, e: &std::io::Error) -> Option<Duration> {
        use rustix::io::Errno;
        let starved = Errno::from_io_error(e).is_some_and(|n| {
            [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM].contains(&n)
        });
        self.said.say(|held_back| {
            tracing::warn!(error = %e, held_back, "accept failed");
        });
        if !starved {
            return None;
        }
        let pause = self.pause.map_or(Duration::from_millis(10), |p| {
            (p * 2).min(Duration::from_secs(1))
        });
        self.pause = Some(pause);
        Some(pause)
    }

    fn accepted(&mut self) {
        self.pause = None;
    }
}

/// A log line at most once a second; the ones held back in between are counted in the next.
#[derive(Default)]
struct Said {
    last: Option<Instant>,
    held_back: u64,
}

impl Said {
    fn say(&mut self, line: impl FnOnce(u64)) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|at| now.duration_since(at) < Duration::from_secs(1))
        {
            self.held_back += 1;
            return;
        }
        line(self.held_back);
        self.last = Some(now);
        self.held_back = 0;
    }
}
