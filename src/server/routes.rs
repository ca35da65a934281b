//! Every HTTP route of the server, as warp filters: the table of what answers where.
//! (`/ws/{code}` upgrades are answered before these, in `upgrade`; the web client's files
//! come last, for GETs no API route took.)

use super::body::Body;
use super::replay_cache::ReplayCache;
use super::reply::{answer, recover};
use super::{assets, info, replays_api, rooms_api, seams};
use crate::cluster::Directory;
use crate::shared::Shared;
use crate::shared::admission::Source;

use std::convert::Infallible;
use std::sync::Arc;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};
use warp::{Filter, Rejection};

/// The most a request body may hold.
const BODY_LIMIT: u64 = 4096;

fn with(
    shared: &Arc<Shared>,
) -> impl Filter<Extract = (Arc<Shared>,), Error = Infallible> + Clone + use<> {
    let shared = shared.clone();
    warp::any().map(move || shared.clone())
}

/// The address a request came from (`None` only for requests that did not come through
/// the accept loop).
fn from() -> impl Filter<Extract = (Option<Source>,), Error = Infallible> + Clone {
    warp::ext::optional::<Source>()
}

fn with_directory(
    directory: &Arc<Directory>,
) -> impl Filter<Extract = (Arc<Directory>,), Error = Infallible> + Clone + use<> {
    let directory = directory.clone();
    warp::any().map(move || directory.clone())
}

fn body() -> impl Filter<Extract = (Body,), Error = Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(warp::body::content_length_limit(BODY_LIMIT))
        .and(warp::body::bytes())
        .map(|content_type, bytes| Body {
            content_type,
            bytes,
        })
}

use super::reply::ROOM_ROUTE_BUDGET;

async fn budget(
    route: impl std::future::Future<Output = Result<Response, Rejection>>,
) -> Result<Response, Rejection> {
    match tokio::time::timeout(ROOM_ROUTE_BUDGET, route).await {
        Ok(answer) => answer,
        Err(_) => Ok(super::reply::refuse_retry(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            format!(
                "the database or the room's node did not answer within {} s; try again in a moment",
                ROOM_ROUTE_BUDGET.as_secs()
            ),
            2,
        )),
    }
}

/// `/api/rooms…`: create, quick, join, status, bots. (`/internal/…` is not here: the
/// other nodes reach it on the internal listener, `internal`.)
fn rooms(
    shared: &Arc<Shared>,
    directory: &Arc<Directory>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    let d = || with_directory(directory);
    let create = warp::path!("api" / "rooms")
        .and(warp::post())
        .and(with(shared))
        .and(d())
        .and(body())
        .and(from())
        .and_then(|s, d, b, f| budget(rooms_api::create_room(s, d, b, f)));
    let quick = warp::path!("api" / "rooms" / "quick")
        .and(warp::post())
        .and(with(shared))
        .and(d())
        .and(body())
        .and(from())
        .and_then(|s, d, b, f| budget(super::quick::quick(s, d, b, f)));
    let join = warp::path!("api" / "rooms" / String / "join")
        .and(warp::post())
        .and(with(shared))
        .and(d())
        .and(body())
        .and(from())
        .and_then(|r, s, d, b, f| budget(rooms_api::join_room(r, s, d, b, f)));
    let solo = warp::path!("api" / "rooms" / "solo")
        .and(warp::post())
        .and(with(shared))
        .and(d())
        .and(body())
        .and(from())
        .and_then(|s, d, b, f| budget(rooms_api::solo(s, d, b, f)));
    let auth = || warp::header::optional::<String>("authorization");
    let add_bot = warp::path!("api" / "rooms" / String / "bots")
        .and(warp::post())
        .and(auth())
        .and(with(shared))
        .and(d())
        .and(body())
        .and_then(|r, a, s, d, b| budget(rooms_api::add_bot(r, a, s, d, b)));
    let remove_bot = warp::path!("api" / "rooms" / String / "bots" / u8)
        .and(warp::delete())
        .and(auth())
        .and(with(shared))
        .and(d())
        .and_then(|r, seat, a, s, d| budget(rooms_api::remove_bot(r, seat, a, s, d)));
    let status = warp::path!("api" / "rooms" / String)
        .and(warp::get())
        .and(with(shared))
        .and(d())
        .and_then(|r, s, d| budget(rooms_api::room_status(r, s, d)));
    create
        .or(quick)
        .unify()
        .or(solo)
        .unify()
        .or(join)
        .unify()
        .or(add_bot)
        .unify()
        .or(remove_bot)
        .unify()
        .or(status)
        .unify()
}

/// Levels, the session, the census, metrics, health.
fn info(
    shared: &Arc<Shared>,
    directory: &Arc<Directory>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    let auth = warp::header::optional::<String>("authorization");
    let levels = warp::path!("api" / "levels")
        .and(warp::get())
        .and(auth)
        .and(with(shared))
        .and_then(info::levels);
    let layout = warp::path!("api" / "levels" / String)
        .and(warp::get())
        .and(with(shared))
        .and_then(info::level_layout);
    let session = warp::path!("api" / "session")
        .and(warp::get())
        .and(auth)
        .and(with(shared))
        .and_then(info::session);
    let stats = warp::path!("api" / "stats")
        .and(warp::get())
        .and(with(shared))
        .map(|s: Arc<Shared>| answer(StatusCode::OK, &info::census(&s)));
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .and(with(shared))
        .map(|s: Arc<Shared>| {
            let text = super::metrics::text(&s);
            warp::reply::with_header(text, "content-type", super::metrics::CONTENT_TYPE)
                .into_response()
        });
    let health = warp::path!("healthz")
        .and(warp::get())
        .and(with(shared))
        .and(with_directory(directory))
        .map(|s: Arc<Shared>, d: Arc<Directory>| {
            let (status, body) = info::health(&s, &d);
            answer(status, &body)
        });
    levels
        .or(layout)
        .unify()
        .or(session)
        .unify()
        .or(stats)
        .unify()
        .or(metrics)
        .unify()
        .or(health)
        .unify()
}

/// Recorded rounds: the list, one round, its frames, its file.
fn replays(
    shared: &Arc<Shared>,
    cache_bytes: usize,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    let list = warp::path!("api" / "replays")
        .and(warp::get())
        .and(warp::query::<replays_api::Page>())
        .and(with(shared))
        .and_then(replays_api::list);
    // The decoded answers, kept per file for every request to the replay routes.
    let cache = Arc::new(ReplayCache::new(cache_bytes));
    let with_cache = move || {
        let cache = cache.clone();
        warp::any().map(move || cache.clone())
    };
    let round = warp::path!("api" / "replays" / String)
        .and(warp::get())
        .and(with(shared))
        .and(with_cache())
        .and(from())
        .and_then(replays_api::round);
    let frames = warp::path!("api" / "replays" / String / "frames")
        .and(warp::get())
        .and(warp::header::optional::<String>("accept-encoding"))
        .and(with(shared))
        .and(with_cache())
        .and(from())
        .and_then(replays_api::frames);
    let file = warp::path!("api" / "replays" / String / "file")
        .and(warp::get())
        .and(with(shared))
        .and(with_cache())
        .and(from())
        .and_then(replays_api::file);
    list.or(round).unify().or(frames).unify().or(file).unify()
}

/// The test seams: not found unless the server runs in test mode.
fn seams(
    shared: &Arc<Shared>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    let test_mode = shared.config.test_mode;
    let test_only = warp::any()
        .and_then(move || async move {
            if test_mode {
                Ok(())
            } else {
                Err(warp::reject::not_found())
            }
        })
        .untuple_one();
    let kill = warp::path!("api" / "test" / "kill_socket" / String / String)
        .and(warp::post())
        .and(test_only)
        .and(with(shared))
        .and_then(seams::kill_socket);
    let panic = warp::path!("api" / "test" / "panic_tick" / String)
        .and(warp::post())
        .and(test_only)
        .and(with(shared))
        .and_then(seams::panic_tick);
    let hold = warp::path!("api" / "test" / "hold_thread" / String / u64)
        .and(warp::post())
        .and(test_only)
        .and(with(shared))
        .and_then(seams::hold_thread);
    let fault = warp::path!("api" / "test" / "db_fault")
        .and(warp::post())
        .and(test_only)
        .and(with(shared))
        .and(body())
        .and_then(seams::db_fault);
    kill.or(panic).unify().or(hold).unify().or(fault).unify()
}

/// The web client: its files and pages (`assets`), for GETs no API route took. Any other
/// method is a plain not-found here (a method rejection would outrank other routes' 404s).
fn client() -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    warp::method()
        .and(warp::path::full())
        .and(warp::header::optional::<String>("accept-encoding"))
        .and(warp::header::optional::<String>("if-none-match"))
        .and_then(
            |method: warp::http::Method,
             path: warp::path::FullPath,
             encoding: Option<String>,
             tag: Option<String>| async move {
                if method != warp::http::Method::GET {
                    return Err(warp::reject::not_found());
                }
                assets::serve(path.as_str(), encoding.as_deref(), tag.as_deref())
                    .ok_or_else(warp::reject::not_found)
            },
        )
}

/// Every route of the server; what matches none is a JSON 404.
pub fn routes(
    shared: &Arc<Shared>,
    directory: &Arc<Directory>,
    replay_cache_bytes: usize,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone + use<> {
    rooms(shared, directory)
        .or(info(shared, directory))
        .unify()
        .or(replays(shared, replay_cache_bytes))
        .unify()
        .or(super::history_api::routes(shared))
        .unify()
        .or(seams(shared))
        .unify()
        .or(client())
        .unify()
        .recover(recover)
        .unify()
}
