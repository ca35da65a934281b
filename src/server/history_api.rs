//! The history a player can see, over HTTP (docs/ROOMS.md, "History you can see"):
//!
//! - `GET /api/history/levels/{id}?by=score|time&page=N`: a level's leaderboard;
//! - `GET /api/history/me?page=N`: the caller's own rounds (`Authorization: Bearer`);
//! - `GET /api/history/me/levels/{id}`: the caller's scores on a level over time.
//!
//! Each answer comes from the store's paged reads (`store::boards`, `store::my_rounds`) on
//! the request's own task, never a room's, and is kept a few seconds (`history_cache`), so
//! a leaderboard opened by a hundred players costs one read. Every request has already
//! taken a token of its address's request budget in `accept`, like every other route, and
//! has `ROOM_ROUTE_BUDGET` to answer: a database that does not answer in time is a `503`
//! with `Retry-After`, never a held connection.

use super::history_cache::HistoryCache;
use super::info::bearer;
use super::reply::ROOM_ROUTE_BUDGET;
use super::reply::{answer, refuse, refuse_retry};
use crate::shared::Shared;
use crate::store::boards::{self, Ranking};
use crate::store::my_rounds;
use crate::wire::messages::code;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Rejection};

/// Rows on a page of a leaderboard or of the caller's rounds.
pub const PER_PAGE: u32 = 10;
/// The pages there are: past them the answer is a refusal, not a scan for nothing.
pub const MAX_PAGE: u32 = 99;
/// The rounds a level's plot draws, the latest.
pub const PLOT_ROUNDS: u32 = 50;
/// How long an answer is kept: a leaderboard is shared by everyone and moves slowly; the
/// caller's own rounds are kept briefly, so a round just played shows when the page opens.
const BOARD_TTL: Duration = Duration::from_secs(10);
const MINE_TTL: Duration = Duration::from_secs(2);

/// The query string; read as text so a bad value gets a sentence naming it.
#[derive(Deserialize)]
pub struct Query {
    page: Option<String>,
    by: Option<String>,
}

impl Query {
    fn page(&self) -> Result<u32, String> {
        let Some(raw) = &self.page else { return Ok(0) };
        match raw.trim().parse::<u32>() {
            Ok(n) if n <= MAX_PAGE => Ok(n),
            _ => Err(format!(
                "page must be a whole number from 0 to {MAX_PAGE}, got {raw:?}"
            )),
        }
    }

    fn ranking(&self) -> Result<Ranking, String> {
        match self.by.as_deref().map(str::trim) {
            None | Some("score") => Ok(Ranking::Score),
            Some("time") => Ok(Ranking::TimeLeft),
            Some(other) => Err(format!("by must be score or time, got {other:?}")),
        }
    }
}

fn bad(why: String) -> Response {
    refuse(StatusCode::BAD_REQUEST, code::BAD_FIELD, why)
}

fn unreadable(e: impl std::fmt::Display) -> Response {
    tracing::warn!(error = %e, "the history page could not be read");
    refuse_retry(
        StatusCode::SERVICE_UNAVAILABLE,
        "storage_unavailable",
        "the history could not be read; try again in a moment",
        2,
    )
}

fn no_level(id: &str) -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no level {id:?} on this server"),
    )
}

/// The refusal when the server keeps no history.
fn no_history() -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "no_history",
        "the server has no database",
    )
}

/// The caller's session id, from its bearer token, or the refusal that says why not.
async fn session_id(shared: &Shared, auth: Option<String>) -> Result<String, Response> {
    let Some(token) = bearer(auth) else {
        return Err(refuse(
            StatusCode::UNAUTHORIZED,
            "no_session",
            "send Authorization: Bearer <token>",
        ));
    };
    match shared.sessions.load(&token).await {
        Some(s) => Ok(s.id),
        None => Err(refuse(
            StatusCode::NOT_FOUND,
            "no_session",
            "this token has no session yet: play a round first",
        )),
    }
}

/// The whole-second clock of a round on a level this server has (else none).
fn clock_of(shared: &Shared, level_id: &str, result: &str, ticks: i64, hz: i64) -> Value {
    match shared.levels.get(level_id) {
        Some(l) => {
            let (left, used) = boards::clock(l.level.time_limit_s, ticks, hz, result == "won");
            json!({"time_left_s": left, "time_used_s": used})
        }
        None => json!({"time_left_s": null, "time_used_s": null}),
    }
}

fn with_clock(mut row: Value, clock: Value) -> Value {
    if let (Some(r), Some(c)) = (row.as_object_mut(), clock.as_object()) {
        r.extend(c.clone());
    }
    row
}

/// `GET /api/history/levels/{id}`.
async fn leaderboard(
    id: String,
    q: Query,
    shared: Arc<Shared>,
    cache: Arc<HistoryCache>,
) -> Response {
    let (page, ranking) = match (q.page(), q.ranking()) {
        (Ok(p), Ok(r)) => (p, r),
        (Err(why), _) | (_, Err(why)) => return bad(why),
    };
    let Some(level) = shared.levels.get(&id) else {
        return no_level(&id);
    };
    let Some(store) = shared.store() else {
        return no_history();
    };
    let by = if ranking == Ranking::Score {
        "score"
    } else {
        "time"
    };
    let key = format!("board:{id}:{by}:{page}");
    if let Some(v) = cache.get(&key, BOARD_TTL) {
        return answer(StatusCode::OK, &*v);
    }
    let (rows, more) = match boards::leaderboard(store, &id, ranking, page, PER_PAGE).await {
        Ok(x) => x,
        Err(e) => return unreadable(e),
    };
    let rounds: Vec<Value> = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let clock = clock_of(&shared, &id, &r.result, r.ticks, r.tick_hz);
            let mut v = with_clock(json!(r), clock);
            v["rank"] = json!(page * PER_PAGE + i as u32 + 1);
            v
        })
        .collect();
    let body = Arc::new(json!({
        "level": id, "name": level.level.name, "order": level.level.order,
        "target": level.level.target_score, "time_limit_s": level.level.time_limit_s,
        "by": by, "page": page, "more": more, "rounds": rounds,
    }));
    cache.put(key, body.clone());
    answer(StatusCode::OK, &*body)
}

/// `GET /api/history/me`.
async fn mine(
    auth: Option<String>,
    q: Query,
    shared: Arc<Shared>,
    cache: Arc<HistoryCache>,
) -> Response {
    let page = match q.page() {
        Ok(p) => p,
        Err(why) => return bad(why),
    };
    let Some(store) = shared.store() else {
        return no_history();
    };
    let session = match session_id(&shared, auth).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let key = format!("me:{session}:{page}");
    if let Some(v) = cache.get(&key, MINE_TTL) {
        return answer(StatusCode::OK, &*v);
    }
    let (rows, more) = match my_rounds::rounds_of(store, &session, page, PER_PAGE).await {
        Ok(x) => x,
        Err(e) => return unreadable(e),
    };
    let rounds: Vec<Value> = rows
        .into_iter()
        .map(|r| {
            let clock = clock_of(&shared, &r.level_id, &r.result, r.ticks, r.tick_hz);
            let name = shared.levels.get(&r.level_id).map(|l| l.level.name.clone());
            let mut v = with_clock(json!(r), clock);
            v["level_name"] = json!(name);
            v
        })
        .collect();
    let body = Arc::new(json!({"page": page, "more": more, "rounds": rounds}));
    cache.put(key, body.clone());
    answer(StatusCode::OK, &*body)
}

/// `GET /api/history/me/levels/{id}`.
async fn my_level(
    id: String,
    auth: Option<String>,
    shared: Arc<Shared>,
    cache: Arc<HistoryCache>,
) -> Response {
    let Some(level) = shared.levels.get(&id) else {
        return no_level(&id);
    };
    let Some(store) = shared.store() else {
        return no_history();
    };
    let session = match session_id(&shared, auth).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let key = format!("me:{session}:level:{id}");
    if let Some(v) = cache.get(&key, MINE_TTL) {
        return answer(StatusCode::OK, &*v);
    }
    let points = match my_rounds::scores_on(store, &session, &id, PLOT_ROUNDS).await {
        Ok(x) => x,
        Err(e) => return unreadable(e),
    };
    let body = Arc::new(json!({
        "level": id, "name": level.level.name, "target": level.level.target_score,
        "rounds": points,
    }));
    cache.put(key, body.clone());
    answer(StatusCode::OK, &*body)
}

/// A route's answer within `ROOM_ROUTE_BUDGET`, else `503` with `Retry-After`.
async fn in_time(
    route: impl std::future::Future<Output = Response>,
) -> Result<Response, Rejection> {
    Ok(match tokio::time::timeout(ROOM_ROUTE_BUDGET, route).await {
        Ok(r) => r,
        Err(_) => refuse_retry(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            format!(
                "the history did not answer within {} s; try again in a moment",
                ROOM_ROUTE_BUDGET.as_secs()
            ),
            2,
        ),
    })
}

/// The three routes, sharing one cache.
pub fn routes(
    shared: &Arc<Shared>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone + use<> {
    let cache = Arc::new(HistoryCache::new());
    let shared = shared.clone();
    let with = move || {
        let (s, c) = (shared.clone(), cache.clone());
        warp::any()
            .map(move || (s.clone(), c.clone()))
            .untuple_one()
    };
    let auth = || warp::header::optional::<String>("authorization");
    let board = warp::path!("api" / "history" / "levels" / String)
        .and(warp::get())
        .and(warp::query::<Query>())
        .and(with())
        .and_then(|id, q, s, c| in_time(leaderboard(id, q, s, c)));
    let me = warp::path!("api" / "history" / "me")
        .and(warp::get())
        .and(auth())
        .and(warp::query::<Query>())
        .and(with())
        .and_then(|a, q, s, c| in_time(mine(a, q, s, c)));
    let level = warp::path!("api" / "history" / "me" / "levels" / String)
        .and(warp::get())
        .and(auth())
        .and(with())
        .and_then(|id, a, s, c| in_time(my_level(id, a, s, c)));
    board.or(me).unify().or(level).unify()
}
