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
            // Distinct recipes (as ever), and each one's weight: how often it stands in the
            // level's list, which is how often orders draw it.
            let mut weights: Vec<(&str, u32)> = Vec::new();
            for r in &lv.recipes {
                match weights.iter_mut().find(|(id, _)| *id == r.id()) {
                    Some(w) => w.1 += 1,
                    None => weights.push((r.id(), 1)),
                }
            }
            let recipes: Vec<&str> = weights.iter().map(|w| w.0).collect();
            let recipe_weights: Vec<Value> = weights
                .iter()
                .map(|(id, n)| json!({"id": id, "weight": n}))
                .collect();
            // Won alone by the scripted person on how many of seeds 11-30 (`levels::alone`);
            // none of them: the level needs a team or bots, and the picker says so.
            let alone = crate::levels::alone::measured(l);
            json!({
                "id": lv.id, "order": lv.order, "name": lv.name, "target": lv.target_score,
                "alone": alone.map(|won| json!({"won": won, "of": crate::levels::alone::SEEDS.count()})),
                "needs_team": alone.map(|won| won == 0),
                "time_limit_s": lv.time_limit_s, "recipes": recipes,
                "unlocked": unlocked.map(|u| lv.order <= u),
                "recipe_weights": recipe_weights,
                "hazards": hazards_of(lv),
                "stars": star_thresholds(lv.time_limit_s),
                "points": super::game_data::points_of(lv),
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
        &json!({"levels": list, "broken": broken, "recipes": super::game_data::recipes(),
               "tip_max": crate::sim::rules::TIP_MAX}),
    ))
}

/// The clock each star needs: the seconds still left when the target is reached (the
/// sim's `stars_for`: at least half the limit for 3, a quarter for 2, any for 1).
fn star_thresholds(time_limit_s: f64) -> Value {
    json!([
        {"stars": 3, "time_left_s": time_limit_s / 2.0},
        {"stars": 2, "time_left_s": time_limit_s / 4.0},
        {"stars": 1, "time_left_s": 0.0},
    ])
}

/// What can go wrong on a level, as data the lobby puts in words: fire (any level with a
/// stove: a pot left too long burns and catches), spills, rushes, carts.
fn hazards_of(lv: &crate::sim::Level) -> Vec<Value> {
    let t = &lv.tuning;
    let mut out = Vec::new();
    let stove = lv
        .grid
        .stations()
        .iter()
        .any(|s| s.kind == crate::sim::grid::StationKind::Stove);
    if stove {
        out.push(
            json!({"kind": "fire", "burn_after_s": t.burn_grace_s + t.burn_s,
                        "spread_s": t.fire_spread_s}),
        );
    }
    if lv.spill_every_s > 0.0 {
        out.push(json!({"kind": "spills", "every_s": lv.spill_every_s,
                        "stun_s": t.slip_stun_s}));
    }
    if !lv.rush_at_s.is_empty() {
        out.push(json!({"kind": "rush", "at_s": lv.rush_at_s, "len_s": lv.rush_len_s}));
    }
    if !lv.carts.is_empty() {
        out.push(json!({"kind": "carts", "count": lv.carts.len(), "stun_s": t.cart_stun_s}));
    }
    out
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
                let description = quest_description(&q.kind, q.param.as_deref());
                json!({"id": q.id, "title": q.title, "target": q.target,
                       "progress": q.progress, "completed": q.completed,
                       "description": description})
            })
            .collect(),
        None => Vec::new(),
    };
    let best: serde_json::Map<String, Value> = match shared.store() {
        Some(store) => crate::store::sessions::bests(store, &s.id)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "a session's best rounds could not be read");
                Vec::new()
            })
            .into_iter()
            .map(|b| (b.level_id, json!({"stars": b.stars, "score": b.score})))
            .collect(),
        None => serde_json::Map::new(),
    };
    Ok(answer(
        StatusCode::OK,
        &json!({"name": s.name, "unlocked": s.unlocked, "quests": quests, "best": best}),
    ))
}

/// What counts towards a quest of `kind` (docs/HISTORY.md), in a sentence for the quests
/// panel.
fn quest_description(kind: &str, param: Option<&str>) -> String {
    match kind {
        "serve_recipe" => {
            let dish = param.unwrap_or("dish").replace('_', " ");
            format!("Counts every {dish} your cook serves.")
        }
        "extinguish" => "Counts every fire your cook puts out.".into(),
        "wash" => "Counts every plate your cook washes at the sink.".into(),
        "win_stars" => format!(
            "Done when your team wins a round with {} stars.",
            param.unwrap_or("3")
        ),
        "streak" => "Your team's longest run of serves in one round.".into(),
        "campaign" => "Counts the different levels you have won.".into(),
        "clean_run" => {
            "Counts your team's serves in a row without a missed order; a miss starts it over."
                .into()
        }
        "teammates" => {
            "Counts the different people you have cooked with (bots do not count).".into()
        }
        _ => String::new(),
    }
}

/// A room thread held this long (no room on it ticking) fails the health check: its
/// players are frozen already.
pub const HELD: Duration = Duration::from_secs(2);

/// `/healthz`: the server answers, with its status. `storage` is `degraded` while history
/// writes fail (the server still plays; what it could not write is held and retried),
/// `none` without a database: still `200`, since taking a playing server out of rotation
/// for its disk would lock its players out. `rooms_stalled` counts the rooms whose timer
/// has not ticked for 0.5 s, and `tick_gap_max_s` is the longest any has gone without a
/// tick, now; past `HELD` the answer is `503` with `ok: false`, while the stall lasts. A
/// cluster node adds its `lease` (`cluster::lease`): while its renewal fails, it has
/// lapsed, or another start of its id took it, the answer is `503` with `ok: false` —
/// the other nodes no longer count on it, and neither should a load balancer.
pub fn health(shared: &Shared, directory: &crate::cluster::Directory) -> (StatusCode, Value) {
    let storage = match shared.chain() {
        None => "none",
        Some(c) if c.stats.storage_degraded.load(Relaxed) => "degraded",
        Some(_) => "ok",
    };
    let (gap, stalled) = shared.rooms.tick_gaps(super::metrics::STALLED);
    let lease = directory.lease();
    let sound = lease
        .as_ref()
        .is_none_or(|(h, _)| *h == crate::cluster::Health::Sound);
    let ok = gap <= HELD && sound;
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let gap_s = (gap.as_secs_f64() * 1000.0).round() / 1000.0;
    let mut body =
        json!({"ok": ok, "storage": storage, "rooms_stalled": stalled, "tick_gap_max_s": gap_s});
    if let Some((_, report)) = lease {
        body["lease"] = report;
    }
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
