//! The HTTP side: rooms, levels, the session, the census, metrics, health, the test seams,
//! and the `/ws/{code}` upgrade (with its `Origin` check before the upgrade).
//!
//! Bodies are parsed strictly (at most 4 KB, unknown fields and duplicate keys refused);
//! every refusal is `400 {"code", "msg"}` or the documented status, never a 500.

use super::shared::Shared;
use crate::room::{Reservation, RoomCmd};
use crate::wire::messages::{code, limits};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use tokio::sync::oneshot;
use warp::http::StatusCode;
use warp::reply::{Reply, Response, json as reply_json, with_status};
use warp::{Filter, Rejection};

const BODY_LIMIT: u64 = 4096;

fn answer(status: StatusCode, body: Value) -> Response {
    with_status(reply_json(&body), status).into_response()
}

fn refuse(status: StatusCode, code: &str, msg: impl Into<String>) -> Response {
    answer(status, json!({"code": code, "msg": msg.into()}))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    token: Option<String>,
}

/// Parses a `{name?, token?}` body strictly; an empty body is `{}`.
fn join_body(bytes: &[u8]) -> Result<JoinBody, Response> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(JoinBody::default());
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        refuse(
            StatusCode::BAD_REQUEST,
            code::BAD_JSON,
            "the body is not UTF-8",
        )
    })?;
    let value = crate::wire::strict::parse(text).map_err(|e| match e {
        crate::wire::strict::StrictError::NotJson(m) => {
            refuse(StatusCode::BAD_REQUEST, code::BAD_JSON, m)
        }
        crate::wire::strict::StrictError::DuplicateKey(m) => {
            refuse(StatusCode::BAD_REQUEST, code::BAD_FIELD, m)
        }
    })?;
    let body: JoinBody = serde_json::from_value(value)
        .map_err(|e| refuse(StatusCode::BAD_REQUEST, code::BAD_FIELD, e.to_string()))?;
    if let Some(t) = &body.token
        && (t.is_empty() || t.chars().count() > limits::TOKEN_MAX)
    {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            code::BAD_FIELD,
            "token must be 1-128 characters",
        ));
    }
    if body
        .name
        .as_ref()
        .is_some_and(|n| n.chars().count() > limits::NAME_RAW_MAX)
    {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            code::BAD_FIELD,
            "name must be at most 64 characters",
        ));
    }
    Ok(body)
}

async fn reserve(
    shared: &Shared,
    code_: &str,
    token: String,
    name: Option<String>,
) -> Result<Reservation, &'static str> {
    let room = shared.room(code_).ok_or(code::ROOM_GONE)?;
    let (reply, rx) = oneshot::channel();
    room.tx
        .send(RoomCmd::Reserve { token, name, reply })
        .await
        .map_err(|_| code::ROOM_GONE)?;
    rx.await.map_err(|_| code::ROOM_GONE)?
}

fn reservation_reply(status: StatusCode, room: &str, r: Reservation) -> Response {
    answer(
        status,
        json!({"room_code": room, "you": {"token": r.token, "seat": r.seat, "host": r.host}}),
    )
}

fn refusal_status(c: &str) -> StatusCode {
    match c {
        code::ROOM_GONE => StatusCode::NOT_FOUND,
        code::ROOM_FULL => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

async fn create_room(shared: Arc<Shared>, bytes: bytes::Bytes) -> Result<Response, Rejection> {
    let body = match join_body(&bytes) {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let Some((room, _)) = crate::room::spawn(&shared) else {
        return Ok(refuse(
            StatusCode::CONFLICT,
            code::ROOM_FULL,
            format!(
                "the server is at its limit of {} rooms",
                shared.config.max_rooms
            ),
        ));
    };
    let token = body
        .token
        .unwrap_or_else(|| crate::sessions::random_hex(16));
    Ok(match reserve(&shared, &room, token, body.name).await {
        Ok(r) => reservation_reply(StatusCode::CREATED, &room, r),
        Err(c) => refuse(refusal_status(c), c, "the new room refused the seat"),
    })
}

async fn join_room(
    room: String,
    shared: Arc<Shared>,
    bytes: bytes::Bytes,
) -> Result<Response, Rejection> {
    let body = match join_body(&bytes) {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let token = body
        .token
        .unwrap_or_else(|| crate::sessions::random_hex(16));
    Ok(match reserve(&shared, &room, token, body.name).await {
        Ok(r) => reservation_reply(StatusCode::OK, &room, r),
        Err(c) => refuse(
            refusal_status(c),
            c,
            if c == code::ROOM_FULL {
                "every seat is taken"
            } else {
                "no such room"
            },
        ),
    })
}

/// Quick play: the fullest open lobby that still has a seat (least empty first), else a
/// new room.
async fn quick(shared: Arc<Shared>, bytes: bytes::Bytes) -> Result<Response, Rejection> {
    let body = match join_body(&bytes) {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let token = body
        .token
        .unwrap_or_else(|| crate::sessions::random_hex(16));
    let max = shared.config.max_players;
    let candidates: Vec<(u8, String)> = {
        let rooms = shared.rooms.lock().unwrap_or_else(|p| p.into_inner());
        let mut c: Vec<(u8, String)> = rooms
            .iter()
            .filter(|(_, e)| e.info.state.load(Relaxed) == 0 && e.info.seated.load(Relaxed) < max)
            .map(|(k, e)| (e.info.seated.load(Relaxed), k.clone()))
            .collect();
        c.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        c
    };
    for (_, room) in candidates {
        if let Ok(r) = reserve(&shared, &room, token.clone(), body.name.clone()).await
            && r.seat.is_some()
        {
            return Ok(reservation_reply(StatusCode::OK, &room, r));
        }
    }
    create_room(
        shared,
        bytes::Bytes::from(
            serde_json::to_vec(&json!({"token": token, "name": body.name})).unwrap_or_default(),
        ),
    )
    .await
}

async fn room_summary(room: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(entry) = shared.room(&room) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "no such room",
        ));
    };
    let (reply, rx) = oneshot::channel();
    if entry.tx.send(RoomCmd::Summary { reply }).await.is_err() {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "the room closed",
        ));
    }
    Ok(match rx.await {
        Ok(v) => answer(StatusCode::OK, v),
        Err(_) => refuse(StatusCode::NOT_FOUND, code::ROOM_GONE, "the room closed"),
    })
}

fn bearer(auth: Option<String>) -> Option<String> {
    auth.and_then(|a| a.strip_prefix("Bearer ").map(|t| t.trim().to_string()))
        .filter(|t| !t.is_empty())
}

async fn levels(auth: Option<String>, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let unlocked = bearer(auth)
        .and_then(|t| shared.sessions.get(&t))
        .map(|s| s.unlocked);
    let list: Vec<Value> = shared
        .campaign()
        .map(|l| {
            let lv = &l.level;
            let mut recipes: Vec<&str> = Vec::new();
            for r in &lv.recipes {
                if !recipes.contains(&r.id()) {
                    recipes.push(r.id());
                }
            }
            json!({
                "id": lv.id, "order": lv.order, "name": lv.name, "target": lv.target_score,
                "time_limit_s": lv.time_limit_s, "recipes": recipes,
                "unlocked": unlocked.map(|u| lv.order <= u),
            })
        })
        .collect();
    Ok(answer(StatusCode::OK, json!({"levels": list})))
}

async fn session(auth: Option<String>, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(token) = bearer(auth) else {
        return Ok(refuse(
            StatusCode::UNAUTHORIZED,
            "no_session",
            "send Authorization: Bearer <token>",
        ));
    };
    let Some(s) = shared.sessions.get(&token) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            "no_session",
            "this token has no session yet",
        ));
    };
    let mut quests = Vec::new();
    if let Some((store, _)) = shared.history.get() {
        use sqlx::Row;
        let rows = sqlx::query(
            "SELECT q.id, q.title, q.target, COALESCE(p.progress, 0) AS progress, p.completed_at
             FROM quests q LEFT JOIN quest_progress p ON p.quest_id = q.id AND p.session_id = ? ORDER BY q.id",
        )
        .bind(&s.id)
        .fetch_all(&store.pool)
        .await
        .unwrap_or_default();
        for r in rows {
            quests.push(json!({
                "id": r.try_get::<String, _>("id").unwrap_or_default(),
                "title": r.try_get::<String, _>("title").unwrap_or_default(),
                "target": r.try_get::<i64, _>("target").unwrap_or_default(),
                "progress": r.try_get::<i64, _>("progress").unwrap_or_default(),
                "completed": r.try_get::<Option<i64>, _>("completed_at").ok().flatten().is_some(),
            }));
        }
    }
    Ok(answer(
        StatusCode::OK,
        json!({"name": s.name, "unlocked": s.unlocked, "quests": quests}),
    ))
}

/// The census behind `/api/stats` and `/metrics`.
pub fn census(shared: &Shared) -> Value {
    let mut by_state = [0u64; 5];
    let mut spectators = 0u64;
    for e in shared
        .rooms
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .values()
    {
        by_state[e.info.state.load(Relaxed).min(4) as usize] += 1;
        spectators += e.info.spectators.load(Relaxed) as u64;
    }
    let s = &shared.stats;
    let refusals: serde_json::Map<String, Value> = s
        .refusals
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    json!({
        "rooms": {"lobby": by_state[0], "countdown": by_state[1], "playing": by_state[2], "round_end": by_state[3], "closed": by_state[4]},
        "sockets": s.sockets.load(Relaxed),
        "spectators": spectators,
        "send_queue_max": s.send_queue_max.load(Relaxed),
        "memory_mb": Shared::memory_mb(),
        "rounds_started": s.rounds_started.load(Relaxed),
        "rounds_completed": s.rounds_completed.load(Relaxed),
        "rounds_aborted": s.rounds_aborted.load(Relaxed),
        "refusals": refusals,
        "inputs_received": s.inputs_received.load(Relaxed),
        "inputs_dropped": s.inputs_dropped.load(Relaxed),
        "stale_seqs": s.stale_seqs.load(Relaxed),
        "clamped_moves": s.clamped_moves.load(Relaxed),
        "input_gaps": s.input_gaps.load(Relaxed),
        "events_dropped": s.events_dropped.load(Relaxed),
        "batches_written": shared.chain().map_or(0, |c| c.stats.batches_written.load(Relaxed)),
        "batches_dropped": shared.chain().map_or(0, |c| c.stats.batches_dropped.load(Relaxed)),
        "events_written": shared.chain().map_or(0, |c| c.stats.events_written.load(Relaxed)),
        "write_errors": shared.chain().map_or(0, |c| c.stats.write_errors.load(Relaxed)),
        "outbox_pending": shared.chain().map_or(0, |c| c.stats.outbox_pending.load(Relaxed)),
    })
}

fn metrics_text(shared: &Shared) -> String {
    let c = census(shared);
    let mut out = String::new();
    let mut gauge = |name: &str, help: &str, kind: &str, lines: Vec<(String, Value)>| {
        out.push_str(&format!(
            "# HELP undercooked_{name} {help}\n# TYPE undercooked_{name} {kind}\n"
        ));
        for (labels, v) in lines {
            out.push_str(&format!("undercooked_{name}{labels} {v}\n"));
        }
    };
    let rooms = c["rooms"].as_object().cloned().unwrap_or_default();
    gauge(
        "rooms",
        "Rooms by state.",
        "gauge",
        rooms
            .into_iter()
            .map(|(k, v)| (format!("{{state=\"{k}\"}}"), v))
            .collect(),
    );
    for (name, help, kind) in [
        ("sockets", "Open WebSocket connections.", "gauge"),
        ("spectators", "Watching connections.", "gauge"),
        (
            "send_queue_max",
            "High-water mark of any connection's send queue.",
            "gauge",
        ),
        ("memory_mb", "Peak resident memory, MiB.", "gauge"),
        ("rounds_started", "Rounds started.", "counter"),
        (
            "rounds_completed",
            "Rounds that reached a verdict.",
            "counter",
        ),
        ("rounds_aborted", "Rounds aborted.", "counter"),
        ("inputs_received", "Input frames queued.", "counter"),
        (
            "inputs_dropped",
            "Input frames dropped by the per-tick queue.",
            "counter",
        ),
        (
            "stale_seqs",
            "Input frames behind the connection's seq.",
            "counter",
        ),
        (
            "clamped_moves",
            "Input moves clamped to magnitude 1.",
            "counter",
        ),
        ("input_gaps", "Input seq jumps larger than 3.", "counter"),
        (
            "events_dropped",
            "Events over the 24-per-frame cap.",
            "counter",
        ),
    ] {
        gauge(name, help, kind, vec![(String::new(), c[name].clone())]);
    }
    let refusals = c["refusals"].as_object().cloned().unwrap_or_default();
    gauge(
        "refusals",
        "Connections refused or closed, by close code.",
        "counter",
        refusals
            .into_iter()
            .map(|(k, v)| (format!("{{code=\"{k}\"}}"), v))
            .collect(),
    );
    out
}

async fn kill_socket(
    room: String,
    token: String,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    let Some(entry) = shared.room(&room) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            "no_connection",
            "no such room",
        ));
    };
    let (reply, rx) = oneshot::channel();
    let _ = entry.tx.send(RoomCmd::Kill { token, reply }).await;
    Ok(match rx.await {
        Ok(true) => answer(StatusCode::OK, json!({"killed": true})),
        _ => refuse(
            StatusCode::NOT_FOUND,
            "no_connection",
            "that token holds no live socket here",
        ),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultBody {
    #[serde(default)]
    slow_ms: u64,
    #[serde(default)]
    fail: bool,
}

async fn db_fault(shared: Arc<Shared>, bytes: bytes::Bytes) -> Result<Response, Rejection> {
    let body: FaultBody = match serde_json::from_slice(&bytes) {
        Ok(b) => b,
        Err(e) => {
            return Ok(refuse(
                StatusCode::BAD_REQUEST,
                code::BAD_FIELD,
                e.to_string(),
            ));
        }
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
    Ok(answer(
        StatusCode::OK,
        json!({"slow_ms": body.slow_ms, "fail": body.fail}),
    ))
}

async fn panic_tick(room: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(entry) = shared.room(&room) else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            code::ROOM_GONE,
            "no such room",
        ));
    };
    let _ = entry.tx.send(RoomCmd::PanicNextTick).await;
    Ok(answer(StatusCode::OK, json!({"armed": true})))
}

/// Every route of the server.
pub fn routes(
    shared: Arc<Shared>,
) -> impl Filter<Extract = (Response,), Error = std::convert::Infallible> + Clone {
    let with = {
        let shared = shared.clone();
        warp::any().map(move || shared.clone())
    };
    let body = warp::body::content_length_limit(BODY_LIMIT).and(warp::body::bytes());
    let create = warp::path!("api" / "rooms")
        .and(warp::post())
        .and(with.clone())
        .and(body)
        .and_then(create_room);
    let quickplay = warp::path!("api" / "rooms" / "quick")
        .and(warp::post())
        .and(with.clone())
        .and(body)
        .and_then(quick);
    let join = warp::path!("api" / "rooms" / String / "join")
        .and(warp::post())
        .and(with.clone())
        .and(body)
        .and_then(join_room);
    let summary = warp::path!("api" / "rooms" / String)
        .and(warp::get())
        .and(with.clone())
        .and_then(room_summary);
    let auth = warp::header::optional::<String>("authorization");
    let levels_r = warp::path!("api" / "levels")
        .and(warp::get())
        .and(auth)
        .and(with.clone())
        .and_then(levels);
    let session_r = warp::path!("api" / "session")
        .and(warp::get())
        .and(auth)
        .and(with.clone())
        .and_then(session);
    let stats = warp::path!("api" / "stats")
        .and(warp::get())
        .and(with.clone())
        .map(|s: Arc<Shared>| answer(StatusCode::OK, census(&s)));
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .and(with.clone())
        .map(|s: Arc<Shared>| {
            warp::reply::with_header(
                metrics_text(&s),
                "content-type",
                "text/plain; version=0.0.4",
            )
            .into_response()
        });
    let health = warp::path!("healthz")
        .and(warp::get())
        .map(|| answer(StatusCode::OK, json!({"ok": true})));
    let test_mode = shared.config.test_mode;
    let test_gate = warp::any()
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
        .and(test_gate)
        .and(with.clone())
        .and_then(kill_socket);
    let panic = warp::path!("api" / "test" / "panic_tick" / String)
        .and(warp::post())
        .and(test_gate)
        .and(with.clone())
        .and_then(panic_tick);
    let fault = warp::path!("api" / "test" / "db_fault")
        .and(warp::post())
        .and(test_gate)
        .and(with.clone())
        .and(body)
        .and_then(db_fault);
    create
        .or(quickplay)
        .unify()
        .or(join)
        .unify()
        .or(summary)
        .unify()
        .or(levels_r)
        .unify()
        .or(session_r)
        .unify()
        .or(stats)
        .unify()
        .or(metrics)
        .unify()
        .or(health)
        .unify()
        .or(kill)
        .unify()
        .or(panic)
        .unify()
        .or(fault)
        .unify()
        .recover(recover)
        .unify()
}

/// Rejections become JSON answers: unknown routes 404, oversized or wrong bodies 400.
async fn recover(r: Rejection) -> Result<Response, std::convert::Infallible> {
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
    } else {
        refuse(StatusCode::BAD_REQUEST, code::BAD_FIELD, format!("{r:?}"))
    })
}
