//! Recorded rounds over HTTP, for the replay viewer: the list (from the history), one
//! round's header and level layout, its recorded frames, and the `.ucr` file itself.
//!
//! The frames are the ones the players were sent, read back from the replay file; the
//! viewer draws them with the live renderer. A round whose file is gone says so (`410`), one
//! whose file cannot be read says why (`422`). Files are read and decoded on the blocking
//! pool and the answers kept per file (`replay_cache`). On PostgreSQL a finished round's
//! replay is read from the copy stored in the database (`store::stored_replays`), so every
//! node serves every round; a round with no stored copy yet (still playing, or not uploaded)
//! is read from its file, where this node's disk has it.

use super::replay_cache::{CacheError, Kind, ReplayCache, Source};
use super::replay_decode::Decoded;
use super::reply::{answer, refuse};
use crate::shared::Shared;
use crate::store::{replays, stored_replays};
use crate::wire::messages::code;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
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

fn unavailable() -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "internal",
        "the history could not be read",
    )
}

/// Where a round's replay is (its stored copy, else its file), or the answer that says
/// there is none.
async fn source_of(shared: &Shared, id: &str) -> Result<Source, Response> {
    let store = shared.store().ok_or_else(no_history)?;
    let place = replays::replay_place(store, id).await.map_err(|e| {
        tracing::warn!(error = %e, "a replay's place could not be read");
        unavailable()
    })?;
    let Some((path, stored)) = place else {
        let why = format!("no recorded round {id:?}");
        return Err(refuse(StatusCode::NOT_FOUND, "not_found", why));
    };
    let path = PathBuf::from(path);
    match (stored_replays::stores_replays(store), stored) {
        (true, Some(size)) => Ok(Source::Stored {
            store: store.clone(),
            round_key: id.to_string(),
            size,
        }),
        // On PostgreSQL the recorded path is on the disk of the node that played the round.
        (true, None) if !path.exists() => Err(refuse(
            StatusCode::GONE,
            "replay_gone",
            "the replay of this round is not in the database yet and its file is not on this node's disk (a round's replay is uploaded when the round ends)",
        )),
        _ => Ok(Source::File(path)),
    }
}

fn gone(e: &std::io::Error) -> Response {
    let why = format!("the replay file of this round is gone ({e})");
    refuse(StatusCode::GONE, "replay_gone", why)
}

/// A round's `kind` answer from the cache (built on the blocking pool when missing), or the
/// refusal: `410` for a file that is gone, `422` for one that cannot be read.
async fn decoded(
    shared: &Shared,
    cache: &ReplayCache,
    id: &str,
    kind: Kind,
) -> Result<Arc<Decoded>, Response> {
    let source = source_of(shared, id).await?;
    match cache.get(&source, kind).await {
        Ok(d) => match &*d {
            Decoded::Unreadable(why) => Err(refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unreadable",
                format!("the replay file of this round is unreadable: {why}"),
            )),
            _ => Ok(d),
        },
        Err(CacheError::Gone(e)) => Err(gone(&e)),
        Err(e @ CacheError::Database(_)) => {
            tracing::warn!(error = %e, "a stored replay could not be read");
            Err(unavailable())
        }
        Err(e) => {
            tracing::warn!(error = %e, "a replay could not be decoded");
            Err(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "internal",
                "the replay could not be decoded",
            ))
        }
    }
}

/// `GET /api/replays/{id}`: the round's header (seats, seed, rates) and its level's layout,
/// from the level text the file carries.
pub async fn round(
    id: String,
    shared: Arc<Shared>,
    cache: Arc<ReplayCache>,
) -> Result<Response, Rejection> {
    let d = match decoded(&shared, &cache, &id, Kind::Round).await {
        Ok(d) => d,
        Err(r) => return Ok(r),
    };
    let Decoded::Round(meta) = &*d else {
        return Ok(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable",
            "no header",
        ));
    };
    let mut meta = meta.clone();
    if let Some(o) = meta.as_object_mut() {
        o.insert("id".into(), Value::from(id));
    }
    Ok(answer(StatusCode::OK, &meta))
}

/// `GET /api/replays/{id}/frames`: `{"frames": [...]}`, every recorded `snap` body in
/// order (gzip when the browser takes it: a round's frames shrink about tenfold).
pub async fn frames(
    id: String,
    accept_encoding: Option<String>,
    shared: Arc<Shared>,
    cache: Arc<ReplayCache>,
) -> Result<Response, Rejection> {
    let d = match decoded(&shared, &cache, &id, Kind::Frames).await {
        Ok(d) => d,
        Err(r) => return Ok(r),
    };
    let Decoded::Frames { plain, gzip } = &*d else {
        return Ok(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable",
            "no frames",
        ));
    };
    let mut resp = match accept_encoding.is_some_and(|a| a.contains("gzip")) {
        true => {
            let mut r = Response::new(gzip.clone().into());
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        }
        false => Response::new(plain.clone().into()),
    };
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

/// `GET /api/replays/{id}/file`: the `.ucr` file (its stored copy, byte for byte, on
/// PostgreSQL), as a download.
pub async fn file(id: String, shared: Arc<Shared>) -> Result<Response, Rejection> {
    let path = match source_of(&shared, &id).await {
        Ok(Source::File(p)) => p,
        Ok(Source::Stored {
            store, round_key, ..
        }) => {
            return Ok(match stored_replays::fetch(&store, &round_key).await {
                Ok(Some((bytes, _))) => download(&id, bytes),
                Ok(None) => gone(&std::io::Error::other(
                    "its stored copy is no longer in the database",
                )),
                Err(e @ stored_replays::GetError::TooBig(_)) => refuse(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "unreadable",
                    e.to_string(),
                ),
                Err(e) => {
                    tracing::warn!(error = %e, "a stored replay could not be read");
                    unavailable()
                }
            });
        }
        Err(r) => return Ok(r),
    };
    // Read on the blocking pool: a file read never holds an HTTP worker.
    let bytes = match tokio::task::spawn_blocking(move || crate::log::read_file(&path)).await {
        Ok(Ok(b)) => b,
        Ok(Err(crate::log::FileError::Io(e))) => return Ok(gone(&e)),
        Ok(Err(e)) => {
            let why = e.to_string();
            return Ok(refuse(StatusCode::UNPROCESSABLE_ENTITY, "unreadable", why));
        }
        Err(e) => return Ok(gone(&std::io::Error::other(e.to_string()))),
    };
    Ok(download(&id, bytes))
}

/// A replay's bytes as a `.ucr` download named by its round key.
fn download(id: &str, bytes: Vec<u8>) -> Response {
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
    resp
}
