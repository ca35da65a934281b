//! Recorded rounds over HTTP, for the replay viewer: the list (from the history), one
//! round's header and level layout, its recorded frames, and the `.ucr` file itself.
//!
//! The frames are the ones the players were sent, read back from the replay file; the
//! viewer draws them with the live renderer. A round whose file is gone says so (`410`).

use super::reply::{answer, refuse};
use crate::log::{Record, frames, read_replay};
use crate::shared::Shared;
use crate::sim::Level;
use crate::store::replays;
use crate::wire::layout::LevelLayout;
use crate::wire::messages::code;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde::Deserialize;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use warp::Rejection;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

/// Rounds a page of the list holds.
const PER_PAGE: u32 = 20;

/// The list's query string. `page` is read as text and parsed here, so a bad one gets a
/// refusal naming it rather than warp's rejection (`page=-1`, `page=x`).
#[derive(Deserialize)]
pub struct Page {
    page: Option<String>,
}

impl Page {
    /// The page number (0 when absent), or the sentence naming what is wrong.
    fn number(&self) -> Result<u32, String> {
        let Some(raw) = &self.page else { return Ok(0) };
        raw.trim().parse::<u32>().map_err(|_| {
            format!(
                "page must be a whole number from 0 to {}, got {raw:?}",
                u32::MAX
            )
        })
    }
}

fn no_history() -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "no_history",
        "the server has no database",
    )
}

/// `GET /api/replays?page=N`: recorded rounds, newest first, 20 a page.
pub async fn list(page: Page, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let Some(store) = shared.store() else {
        return Ok(no_history());
    };
    let page = match page.number() {
        Ok(n) => n,
        Err(why) => return Ok(refuse(StatusCode::BAD_REQUEST, code::BAD_FIELD, why)),
    };
    Ok(match replays::list(store, page, PER_PAGE).await {
        Ok((rounds, more)) => answer(
            StatusCode::OK,
            &json!({"page": page, "more": more, "replays": rounds}),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "the replay list could not be read");
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "internal",
                "the history could not be read",
            )
        }
    })
}

/// The bytes of a round's replay file, or the answer that says why there are none.
async fn file_of(shared: &Shared, id: &str) -> Result<Vec<u8>, Response> {
    let store = shared.store().ok_or_else(no_history)?;
    let path = replays::replay_path(store, id)
        .await
        .ok()
        .flatten()
        .ok_or_else(|| {
            let why = format!("no recorded round {id:?}");
            refuse(StatusCode::NOT_FOUND, "not_found", why)
        })?;
    std::fs::read(&path).map_err(|e| {
        let why = format!("the replay file of this round is gone ({e})");
        refuse(StatusCode::GONE, "replay_gone", why)
    })
}

/// `GET /api/replays/{id}`: the round's header (seats, seed, rates) and its level's layout,
/// from the level text the file carries.
pub async fn round(id: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let bytes = match file_of(&shared, &id).await {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let unreadable = |why: String| refuse(StatusCode::UNPROCESSABLE_ENTITY, "unreadable", why);
    let read = match read_replay(&bytes) {
        Ok(r) => r,
        Err(e) => return Ok(unreadable(e.to_string())),
    };
    let Some(Record::Started(h)) = read.records.first() else {
        return Ok(unreadable("the file has no header".into()));
    };
    let level = match Level::parse(&h.level_file, &h.level_toml) {
        Ok(l) => l,
        Err(e) => return Ok(unreadable(e.to_string())),
    };
    let seats: Vec<_> = h
        .seats
        .iter()
        .map(|s| json!({"seat": s.seat, "id": s.player_id, "name": s.name, "color": s.color}))
        .collect();
    Ok(answer(
        StatusCode::OK,
        &json!({
            "id": id, "room_code": h.room_code, "round_no": h.round_no, "seed": h.seed.to_string(),
            "started_at": h.started_unix_s, "tick_hz": h.tick_hz, "snapshot_hz": h.snapshot_hz,
            "seats": seats, "layout": LevelLayout::of(&level),
            "ended": read.records.iter().any(|r| matches!(r, Record::Ended { .. })),
        }),
    ))
}

/// `GET /api/replays/{id}/frames`: `{"frames": [...]}`, every recorded `snap` body in
/// order (gzip when the browser takes it: a round's frames shrink about tenfold).
pub async fn frames(
    id: String,
    accept_encoding: Option<String>,
    shared: Arc<Shared>,
) -> Result<Response, Rejection> {
    let bytes = match file_of(&shared, &id).await {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let recorded = read_replay(&bytes)
        .map_err(|e| e.to_string())
        .and_then(|read| frames::recorded(&read.records));
    let list = match recorded {
        Ok(f) => f,
        Err(e) => return Ok(refuse(StatusCode::UNPROCESSABLE_ENTITY, "unreadable", e)),
    };
    let mut body = String::with_capacity(list.iter().map(|f| f.len() + 1).sum::<usize>() + 16);
    body.push_str("{\"frames\":[");
    body.push_str(&list.join(","));
    body.push_str("]}");
    let gzip = accept_encoding.is_some_and(|a| a.contains("gzip"));
    let mut resp = match gzip {
        true => {
            let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
            let _ = enc.write_all(body.as_bytes());
            let mut r = Response::new(enc.finish().unwrap_or_default().into());
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        }
        false => Response::new(body.into()),
    };
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

/// `GET /api/replays/{id}/file`: the `.ucr` file, as a download.
pub async fn file(id: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let bytes = match file_of(&shared, &id).await {
        Ok(b) => b,
        Err(r) => return Ok(r),
    };
    let mut resp = Response::new(bytes.into());
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    let name: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}.ucr\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}
