//! What the server tells without a room: the levels, a session (with its quests), the
//! census (`/api/stats`; `/metrics` writes the same census in `metrics.rs`), and health.

use super::reply::{answer, refuse};
use crate::process::memory_mb;
use crate::shared::Shared;
use crate::store::quests::standings;
use crate::wire::layout::LevelLayout;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;
use warp::Rejection;
use warp::http::StatusCode;
use warp::reply::Response;

/// The token of an `Authorization: Bearer <token>` header. The scheme's name is
/// case-insensitive (RFC 7235 §2.1), so `bearer` and `BEARER` are the same scheme.
pub(super) fn bearer(auth: Option<String>) -> Option<String> {
    let auth = auth?;
    let (scheme, token) = auth.trim_start().split_once([' ', '\t'])?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
}

pub async fn levels(auth: Option<String>, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let unlocked = match bearer(auth) {
        Some(t) => shared.sessions.load(&t).await.map(|s| s.unlocked),
        None => None,
    };
    let list: Vec<Value> = shared
        .levels
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
    let broken: Vec<Value> = shared
        .levels
        .broken
        .iter()
        .map(|b| json!({"file": b.name, "errors": b.errors_by_name()}))
        .collect();
    Ok(answer(
        StatusCode::OK,
        &json!({"levels": list, "broken": broken}),
    ))
}

/// `GET /api/levels/{id}`: a level's layout, with the server's tick and snapshot rates.
pub async fn level_layout(id: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(source) = shared.levels.get(&id) else {
        let why = format!("no level {id:?} on this server");
        return Ok(refuse(StatusCode::NOT_FOUND, "not_found", why));
    };
    let mut body = serde_json::to_value(LevelLayout::of(&source.level)).unwrap_or_default();
    body["tick_hz"] = json!(shared.config.tick_hz);
    body["snapshot_hz"] = json!(shared.config.snapshot_hz);
    Ok(answer(StatusCode::OK, &body))
}

pub async fn session(auth: Option<String>, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(token) = bearer(auth) else {
        return Ok(refuse(
            StatusCode::UNAUTHORIZED,
            "no_session",
            "send Authorization: Bearer <token>",
        ));
    };
    let Some(s) = shared.sessions.load(&token).await else {
        return Ok(refuse(
            StatusCode::NOT_FOUND,
            "no_session",
            "this token has no session yet",
        ));
    };
    let quests: Vec<Value> = match shared.store() {
        Some(store) => standings(store, &s.id)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "a session's quests could not be read");
                Vec::new()
            })
            .into_iter()
            .map(|q| {
                json!({"id": q.id, "title": q.title, "target": q.target,
                       "progress": q.progress, "completed": q.completed})
            })
            .collect(),
        None => Vec::new(),
    };
    Ok(answer(
        StatusCode::OK,
        &json!({"name": s.name, "unlocked": s.unlocked, "quests": quests}),
    ))
}

/// A room thread held this long (no room on it ticking) fails the health check: its
/// players are frozen already.
pub const HELD: Duration = Duration::from_secs(2);

/// `/healthz`: the server answers, with its status. `storage` is `degraded` while history
/// writes fail (the server still plays; what it could not write is held and retried),
/// `none` without a database: still `200`, since taking a playing server out of rotation
/// for its disk would lock its players out. `rooms_stalled` counts the rooms whose timer
/// has not ticked for 0.5 s, and `tick_gap_max_s` is the longest any has gone without a
/// tick, now; past `HELD` the answer is `503` with `ok: false`, while the stall lasts.
pub fn health(shared: &Shared) -> (StatusCode, Value) {
    let storage = match shared.chain() {
        None => "none",
        Some(c) if c.stats.storage_degraded.load(Relaxed) => "degraded",
        Some(_) => "ok",
    };
    let (gap, stalled) = shared.rooms.tick_gaps(super::metrics::STALLED);
    let ok = gap <= HELD;
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let gap_s = (gap.as_secs_f64() * 1000.0).round() / 1000.0;
    let body =
        json!({"ok": ok, "storage": storage, "rooms_stalled": stalled, "tick_gap_max_s": gap_s});
    (status, body)
}

/// The census behind `/api/stats` and `/metrics`.
pub fn census(shared: &Shared) -> Value {
    let (by_state, spectators) = shared.rooms.headcount();
    let rooms: serde_json::Map<String, Value> = by_state
        .iter()
        .map(|(state, n)| (state.name().to_string(), json!(n)))
        .collect();
    let s = &shared.census;
    let refusals: serde_json::Map<String, Value> = s
        .refusals()
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let process = crate::process::now();
    let mut out = json!({
        "rooms": rooms,
        "sockets": s.sockets(),
        "spectators": spectators,
        "sockets_by_state": s
            .sockets_by_state()
            .iter()
            .map(|(state, n)| (state.name().to_string(), json!(n)))
            .collect::<serde_json::Map<String, Value>>(),
        "send_queue_max": s.send_queue_max.load(Relaxed),
        "send_queue_high_by_room": shared.rooms.send_queue_highs(),
        "memory_mb": memory_mb(),
        "refusals": refusals,
        "sessions_cached": shared.sessions.cached(),
        "connections": {
            "open": shared.admission.open(),
            "max": shared.config.connections.max,
            "refused": shared
                .admission
                .refusals()
                .iter()
                .map(|(why, n)| (why.name().to_string(), json!(n)))
                .collect::<serde_json::Map<String, Value>>(),
        },
    });
    let chain = shared.chain();
    // Without a database the history's totals read 0, under the same names.
    let history = chain.map_or_else(
        || crate::store::chain::ChainStats::default().totals(),
        |c| c.stats.totals(),
    );
    if let Some(map) = out.as_object_mut() {
        for (name, _, v) in s.totals() {
            map.insert(name.into(), json!(v));
        }
        for (name, _, v) in history {
            map.insert(name.into(), json!(v));
        }
        map.insert(
            "outbox_pending".into(),
            json!(chain.map_or(0, |c| c.stats.outbox_pending.load(Relaxed))),
        );
        map.insert(
            "storage_degraded".into(),
            json!(chain.is_some_and(|c| c.stats.storage_degraded.load(Relaxed))),
        );
        map.insert(
            "ticks".into(),
            json!({
                "observed": s.ticks.count(),
                "late": s.ticks.late.get(),
                "max_duration_ms": s.ticks.worst_us().0 as f64 / 1000.0,
                "max_lateness_ms": s.ticks.worst_us().1 as f64 / 1000.0,
            }),
        );
        map.insert(
            "process".into(),
            json!({"cpu_seconds": process.0, "resident_bytes": process.1}),
        );
    }
    out
}
