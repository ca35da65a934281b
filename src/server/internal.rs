//! The internal listener: where the other nodes of a cluster reach this one
//! (`--internal-bind`, loopback by default; keep it on a private network). It serves only
//! the `/internal/…` routes, and the public listener serves none of them (`404`). Every
//! request must carry a signature another node made for it alone (`cluster::signing`): one
//! without, stale, replayed, or for another path or body is `403 not_a_node`.
//!
//! | route | what the other node asks |
//! |---|---|
//! | `POST /internal/rooms/{code}/join` | a join for a room here (a player's, through that node), or quick play's seat |
//! | `POST /internal/rooms/{code}/open` | quick play claimed `code` for this node: open it (if not yet) and seat the player |
//! | `GET /internal/rooms/{code}` | the room's status |
//! | `POST /internal/rooms/{code}/bots`, `DELETE …/bots/{seat}` | the host's bot calls, its `Authorization` passed on |
//! | `POST /internal/rounds/{key}/adopt` | the janitor hands this node a lost node's round (`adopt`) |
//!
//! The listener holds at most `CONNECTIONS` connections; each has 5 s to send its request.

use super::body::Body;
use super::reply::{recover, refuse};
use super::rooms_api;
use crate::cluster::Directory;
use crate::cluster::signing::{self, Headers, Request, SOURCE_HEADER};
use crate::shared::Shared;
use crate::shared::admission::Source;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use warp::http::{HeaderMap, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

/// Connections the internal listener holds at once.
const CONNECTIONS: usize = 256;
/// How long a connection has to send its request.
const WINDOW: Duration = Duration::from_secs(5);

/// A request that passed the signature check: who the player is, as the other node said.
struct Signed {
    source: Option<Source>,
    authorization: Option<String>,
    body: Body,
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// Checks the signature over the method, the path, the headers it covers and the body.
fn signed(
    directory: &Arc<Directory>,
) -> impl Filter<Extract = (Signed,), Error = Rejection> + Clone + use<> {
    let directory = directory.clone();
    warp::method()
        .and(warp::path::full())
        .and(warp::header::headers_cloned())
        .and(warp::body::content_length_limit(4096))
        .and(warp::body::bytes())
        .and_then(
            move |method: warp::http::Method,
                  path: warp::path::FullPath,
                  h: HeaderMap,
                  bytes: bytes::Bytes| {
                let directory = directory.clone();
                async move {
                    let source = header(&h, SOURCE_HEADER);
                    let authorization = header(&h, "authorization");
                    let got = Headers {
                        node: header(&h, signing::NODE_HEADER),
                        time: header(&h, signing::TIME_HEADER),
                        nonce: header(&h, signing::NONCE_HEADER),
                        signature: header(&h, signing::SIGNATURE_HEADER),
                    };
                    let req = Request {
                        method: method.as_str(),
                        path: path.as_str(),
                        node: "",
                        source,
                        authorization,
                        body: &bytes,
                    };
                    if let Err(why) = directory.verify(&got, &req) {
                        tracing::warn!(path = %path.as_str(), from = ?got.node, why = %why, "an internal request was refused");
                        return Err(warp::reject::custom(NotANode(why.to_string())));
                    }
                    Ok(Signed {
                        source: source.and_then(Source::from_header),
                        authorization: authorization.map(str::to_string),
                        body: Body {
                            content_type: header(&h, "content-type").map(str::to_string),
                            bytes,
                        },
                    })
                }
            },
        )
}

#[derive(Debug)]
struct NotANode(String);
impl warp::reject::Reject for NotANode {}

async fn refused(r: Rejection) -> Result<Response, Infallible> {
    if let Some(NotANode(why)) = r.find::<NotANode>() {
        return Ok(refuse(
            StatusCode::FORBIDDEN,
            "not_a_node",
            format!("only a node of this cluster may call this route: {why}"),
        ));
    }
    recover(r).await
}

/// The internal routes.
fn routes(
    shared: &Arc<Shared>,
    directory: &Arc<Directory>,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone + use<> {
    let with = {
        let (s, d) = (shared.clone(), directory.clone());
        move || {
            let (s, d) = (s.clone(), d.clone());
            warp::any()
                .map(move || (s.clone(), d.clone()))
                .untuple_one()
        }
    };
    let join = warp::path!("internal" / "rooms" / String / "join")
        .and(warp::post())
        .and(signed(directory))
        .and(with())
        .and_then(|code: String, s: Signed, shared, directory| async move {
            Ok::<_, Rejection>(
                rooms_api::join_here(code, shared, directory, s.body, s.source).await,
            )
        });
    let open = warp::path!("internal" / "rooms" / String / "open")
        .and(warp::post())
        .and(signed(directory))
        .and(with())
        .and_then(|code: String, s: Signed, shared, directory| async move {
            Ok::<_, Rejection>(
                rooms_api::open_claimed(code, shared, directory, s.body, s.source).await,
            )
        });
    let status = warp::path!("internal" / "rooms" / String)
        .and(warp::get())
        .and(signed(directory))
        .and(with())
        .and_then(|code: String, _: Signed, shared, directory| async move {
            Ok::<_, Rejection>(rooms_api::status_here(code, shared, directory).await)
        });
    let add_bot = warp::path!("internal" / "rooms" / String / "bots")
        .and(warp::post())
        .and(signed(directory))
        .and(with())
        .and_then(
            |code: String, s: Signed, shared, _directory: Arc<Directory>| async move {
                Ok::<_, Rejection>(
                    rooms_api::add_bot_here(code, s.authorization, shared, s.body).await,
                )
            },
        );
    let remove_bot = warp::path!("internal" / "rooms" / String / "bots" / u8)
        .and(warp::delete())
        .and(signed(directory))
        .and(with())
        .and_then(
            |code: String, seat: u8, s: Signed, shared, _directory: Arc<Directory>| async move {
                Ok::<_, Rejection>(
                    rooms_api::remove_bot_here(code, seat, s.authorization, shared).await,
                )
            },
        );
    let adopt = warp::path!("internal" / "rounds" / String / "adopt")
        .and(warp::post())
        .and(signed(directory))
        .and(with())
        .and_then(|key: String, s: Signed, shared, directory| async move {
            Ok::<_, Rejection>(super::adopt::adopt(key, s.body.bytes, shared, directory).await)
        });
    join.or(open)
        .unify()
        .or(adopt)
        .unify()
        .or(status)
        .unify()
        .or(add_bot)
        .unify()
        .or(remove_bot)
        .unify()
        .recover(refused)
        .unify()
}

/// Serves the internal routes on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
    shutdown: impl Future<Output = ()>,
) {
    let service = warp::service(routes(&shared, &directory));
    let permits = Arc::new(tokio::sync::Semaphore::new(CONNECTIONS));
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "the internal listener's accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Full: the connection is dropped (the other node's request fails and it tries
        // another node, or says so).
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            continue;
        };
        let service = service.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(WINDOW);
            let svc = hyper::service::service_fn(move |req| {
                let mut s = service.clone();
                async move {
                    let call = tower_service::Service::call(&mut s, req);
                    match tokio::time::timeout(WINDOW, call).await {
                        Ok(Ok(r)) => Ok::<_, Infallible>(r),
                        Ok(Err(never)) => match never {},
                        Err(_) => Ok(refuse(
                            StatusCode::REQUEST_TIMEOUT,
                            "timeout",
                            "the internal request took too long",
                        )),
                    }
                }
            });
            let _ = http
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                .await;
        });
    }
}
