//! Recorded rounds over HTTP, for the replay viewer: the list (from the history), one
//! round's header and level layout, its recorded frames, and the `.ucr` file itself.
//!
//! The frames are the ones the players were sent, read back from the replay file; the
//! viewer draws them with the live renderer. A round whose file is gone says so (`410`), one
//! whose file cannot be read says why (`422`). Files are read and decoded on the blocking
//! pool and the answers kept per file (`replay_cache`), the file itself among them. Each
//! address holds at most `replay_shares::PER_ADDRESS` of these requests at once; one more
//! waits its turn up to `replay_shares::WAIT`, then is refused `429 rate_limited` with
//! `Retry-After: 1`, before it costs a look-up. On PostgreSQL a finished round's
//! replay is read from the copy stored in the database (`store::stored_replays`), so every
//! node serves every round; a round with no stored copy yet (still playing, or not uploaded)
//! is read from its file, where this node's disk has it.

use super::replay_cache::{CacheError, Kind, Place, ReplayCache};
use super::replay_decode::Decoded;
use super::replay_shares::Share;
use super::reply::{answer, refuse, refuse_retry};
use crate::shared::Shared;
use crate::shared::admission::Source;
use crate::store::{replays, stored_replays};
use crate::wire::messages::code;
use crate::wire::messages::code::RATE_LIMITED;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use warp::Rejection;
use warp::Reply;
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
async fn source_of(shared: &Shared, id: &str) -> Result<Place, Response> {
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
        (true, Some(size)) => Ok(Place::Stored {
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
        _ => Ok(Place::File(path)),
    }
}

fn gone(e: &std::io::Error) -> Response {
    let why = format!("the replay file of this round is gone ({e})");
    refuse(StatusCode::GONE, "replay_gone", why)
}

/// A place in the address's share of the replay routes (waiting up to `WAIT` for one), or
/// the `429` past it. Taken first, so a refused request costs no look-up.
async fn share(cache: &ReplayCache, from: Option<Source>) -> Result<Share, Response> {
    cache.share(from).await.ok_or_else(|| {
        refuse_retry(
            StatusCode::TOO_MANY_REQUESTS,
            RATE_LIMITED,
            "your address has as many replay requests under way as it may; ask again in a second",
            1,
        )
    })
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
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let _share = match share(&cache, from).await {
        Ok(s) => s,
        Err(r) => return Ok(r),
    };
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
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let _share = match share(&cache, from).await {
        Ok(s) => s,
        Err(r) => return Ok(r),
    };
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
/// PostgreSQL), as a download, from the cache like the other answers: a round downloaded a
/// thousand times is read once and sent from one buffer. The download keeps its place in
/// the address's share until its last byte is sent, so one address sends at most
/// `PER_ADDRESS` files at once, however many connections it opens.
pub async fn file(
    id: String,
    shared: Arc<Shared>,
    cache: Arc<ReplayCache>,
    from: Option<Source>,
) -> Result<Response, Rejection> {
    let share = match share(&cache, from).await {
        Ok(s) => s,
        Err(r) => return Ok(r),
    };
    let d = match decoded(&shared, &cache, &id, Kind::File).await {
        Ok(d) => d,
        Err(r) => return Ok(r),
    };
    let Decoded::File(bytes) = &*d else {
        return Ok(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable",
            "no file",
        ));
    };
    Ok(download(&id, bytes.clone(), share))
}

/// Bytes a download hands to the connection at a time (slices of the kept buffer, never
/// copies).
const CHUNK: usize = 64 << 10;

/// The most bytes a second one download is sent at (a 150 s round's file, under 256 KB,
/// goes at once; a 12 MiB one in under a second). Unpaced, two downloads from one address
/// over loopback moved 2.2 GB a second, and the copying took the CPU a room's ticks need.
pub const RATE: u64 = 16 << 20;

/// A replay's bytes as a `.ucr` download named by its round key, sent in `CHUNK`s at up to
/// `RATE` while `share` is held (given back at the last chunk, or when the connection drops
/// the body).
fn download(id: &str, bytes: bytes::Bytes, share: Share) -> Response {
    let length = bytes.len();
    let started = tokio::time::Instant::now();
    let chunks =
        futures_util::stream::unfold((bytes, 0, share), move |(bytes, at, share)| async move {
            if at >= bytes.len() {
                return None;
            }
            // Paced: the bytes sent so far are never ahead of `RATE`.
            let due = started + Duration::from_secs_f64(at as f64 / RATE as f64);
            tokio::time::sleep_until(due).await;
            let end = (at + CHUNK).min(bytes.len());
            let chunk = bytes.slice(at..end);
            Some((
                Ok::<_, std::convert::Infallible>(chunk),
                (bytes, end, share),
            ))
        });
    let mut resp = warp::reply::stream(chunks).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
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
