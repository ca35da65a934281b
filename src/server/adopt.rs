//! `POST /internal/rounds/{key}/adopt`: this node takes over a round whose node's lease
//! lapsed (the janitor chose it: `cluster::janitor`, `Cluster::hand_over`).
//!
//! The round's live log is read back from PostgreSQL (`store::log_stream`, the chunks from
//! offset 0 to the first gap) into a local replay file, planned as a restart plans a file
//! (`resume::plan`: cut at its last closed tick, re-run with every frame compared), the
//! stored log is cut to the same place, the room's code is taken over in the directory (only
//! from the lapsed node, only while the janitor's `adopting` mark is on it), and the room
//! reopens here under that code (`room::reopen`), streaming its log on from the cut. A log
//! that is unreadable or departs from its re-run is refused by name (`422`), and the janitor
//! records the round `aborted` as for a round without a log: nothing is half-resumed.

use super::reply::{answer, refuse};
use crate::cluster::{Directory, Orphan};
use crate::room::{plan_file, reopen};
use crate::shared::Shared;
use crate::store::log_stream;
use serde_json::json;
use std::sync::Arc;
use warp::http::StatusCode;
use warp::reply::Response;

pub async fn adopt(
    round_key: String,
    body: bytes::Bytes,
    shared: Arc<Shared>,
    directory: Arc<Directory>,
) -> Response {
    let bad = |status, code, why: String| refuse(status, code, why);
    let orphan: Orphan = match serde_json::from_slice(&body) {
        Ok(o) => o,
        Err(e) => return bad(StatusCode::BAD_REQUEST, "bad_field", e.to_string()),
    };
    if orphan.round_key != round_key || round_key.contains(['/', '\\', '.']) {
        let why = format!(
            "round {round_key:?} is not the body's {:?}",
            orphan.round_key
        );
        return bad(StatusCode::BAD_REQUEST, "bad_field", why);
    }
    let (Some(cluster), Some(pool)) = (
        directory.cluster(),
        shared.store().and_then(crate::store::stored_replays::pg),
    ) else {
        let why = "this node is not in a cluster".to_string();
        return bad(StatusCode::CONFLICT, "wrong_state", why);
    };
    let unavailable = |e: &dyn std::fmt::Display| {
        tracing::warn!(error = %e, round = %round_key, "a round could not be adopted: the database");
        bad(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            e.to_string(),
        )
    };
    let (bytes, written_at) = match log_stream::load(pool, &round_key).await {
        Ok(l) => l,
        Err(e) => return unavailable(&e),
    };
    if bytes.is_empty() {
        let why = format!("round {round_key} has no stored log");
        return bad(StatusCode::UNPROCESSABLE_ENTITY, "unreadable", why);
    }
    let path = shared
        .config
        .data_dir
        .join("replays")
        .join(format!("{round_key}.ucr"));
    let file = path.clone();
    let planned = tokio::task::spawn_blocking(move || {
        std::fs::write(&file, &bytes).map_err(|e| e.to_string())?;
        plan_file(&file).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|r| r);
    let (plan, rebuilt) = match planned {
        Ok(p) => p,
        Err(why) => {
            let _ = std::fs::remove_file(&path);
            tracing::warn!(round = %round_key, why = %why, "a lost node's stored log is not resumed; the round is aborted");
            let why = format!("the stored log of round {round_key} is not resumed: {why}");
            return bad(StatusCode::UNPROCESSABLE_ENTITY, "unreadable", why);
        }
    };
    let claimed = cluster
        .take_over(
            &round_key,
            plan.cut_at,
            &orphan.room_code,
            (&orphan.node_id, orphan.epoch),
        )
        .await;
    match claimed {
        Ok(true) => {}
        Ok(false) => {
            let _ = std::fs::remove_file(&path);
            let why = format!("room {} is no longer being adopted", orphan.room_code);
            return bad(StatusCode::CONFLICT, "wrong_state", why);
        }
        Err(e) => return unavailable(&e),
    }
    let tick = plan.tick;
    match reopen(&shared, path, plan, rebuilt, written_at.max(0) as u64) {
        Ok(code) => {
            directory.opened(&code);
            answer(StatusCode::OK, &json!({"room": code, "tick": tick}))
        }
        Err(e) => {
            tracing::warn!(round = %round_key, error = %e, "an adopted round could not be reopened");
            bad(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
        }
    }
}
