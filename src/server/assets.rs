//! The web client, embedded in the binary and served from it: `web/` at build time becomes
//! the files under `/`, with their content types, an `ETag` (a hash of the file) that
//! answers `304` to a browser that already has it, `Cache-Control: no-cache` (so a new
//! build is picked up at the next load, revalidated cheaply), and a gzip copy made once at
//! start for the browsers that accept it. The client's own tests (`web/test/`) are not
//! shipped.
//!
//! The client's pages (`/`, `/r/{code}`, `/watch/{code}`, `/replays`, `/replays/{id}`, `/quests`) are
//! all `index.html`: the page reads its own path.

use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::OnceLock;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::{Reply, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "web/"]
#[exclude = "test/*"]
struct Web;

struct Asset {
    body: Vec<u8>,
    /// Present when gzip makes the file smaller.
    gzip: Option<Vec<u8>>,
    etag: String,
    content_type: &'static str,
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.contains("svg")
        || content_type.contains("json")
}

fn assets() -> &'static BTreeMap<String, Asset> {
    static ASSETS: OnceLock<BTreeMap<String, Asset>> = OnceLock::new();
    ASSETS.get_or_init(|| {
        Web::iter()
            .filter_map(|path| {
                let file = Web::get(&path)?;
                let body = file.data.into_owned();
                let content_type = content_type(&path);
                let gzip = compressible(content_type)
                    .then(|| {
                        let mut enc = GzEncoder::new(Vec::new(), Compression::best());
                        enc.write_all(&body).ok()?;
                        enc.finish().ok()
                    })
                    .flatten()
                    .filter(|gz| gz.len() < body.len());
                let etag = format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(&body));
                let asset = Asset {
                    body,
                    gzip,
                    etag,
                    content_type,
                };
                Some((path.to_string(), asset))
            })
            .collect()
    })
}

/// Whether a request path is one of the client's pages (served as `index.html`).
fn is_page(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    matches!(
        parts.as_slice(),
        [""] | ["replays"] | ["replays", _] | ["r", _] | ["watch", _] | ["quests"]
    )
}

/// Whether `accept-encoding` takes gzip (a `q=0` refuses it).
fn takes_gzip(accept_encoding: Option<&str>) -> bool {
    accept_encoding.is_some_and(|a| {
        a.split(',').any(|part| {
            let mut it = part.split(';').map(str::trim);
            it.next() == Some("gzip") && !it.any(|p| p.replace(' ', "") == "q=0")
        })
    })
}

/// The file (or page) at `path`, or `None` when the client has no such thing.
pub fn serve(
    path: &str,
    accept_encoding: Option<&str>,
    if_none_match: Option<&str>,
) -> Option<Response> {
    let name = if is_page(path) {
        "index.html"
    } else {
        path.trim_start_matches('/')
    };
    let asset = assets().get(name)?;
    let mut resp =
        if if_none_match.is_some_and(|tag| tag.split(',').any(|t| t.trim() == asset.etag)) {
            warp::reply::with_status(warp::reply(), StatusCode::NOT_MODIFIED).into_response()
        } else {
            match (&asset.gzip, takes_gzip(accept_encoding)) {
                (Some(gz), true) => {
                    let mut r = Response::new(gz.clone().into());
                    r.headers_mut()
                        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                    r
                }
                _ => Response::new(asset.body.clone().into()),
            }
        };
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(tag) = HeaderValue::from_str(&asset.etag) {
        h.insert(header::ETAG, tag);
    }
    Some(resp)
}

/// Every shipped file and its size as sent to a browser that takes gzip (for the
/// first-load budget).
pub fn shipped() -> Vec<(String, usize)> {
    assets()
        .iter()
        .map(|(path, a)| (path.clone(), a.gzip.as_ref().map_or(a.body.len(), Vec::len)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_the_index_and_gzip_is_taken_only_when_offered() {
        assert!(
            is_page("/") && is_page("/r/ABCDE") && is_page("/replays/x") && is_page("/watch/ABCDE")
        );
        assert!(!is_page("/js/app.js") && !is_page("/api/levels"));
        assert!(takes_gzip(Some("gzip, deflate, br")));
        assert!(!takes_gzip(Some("gzip;q=0, br")));
        assert!(!takes_gzip(Some("br")));
        assert!(!takes_gzip(None));
    }

    #[test]
    fn the_index_is_embedded_with_an_etag() {
        let resp = serve("/", Some("gzip"), None).expect("the index is shipped");
        assert_eq!(resp.status(), StatusCode::OK);
        let tag = resp.headers()[header::ETAG].to_str().unwrap().to_string();
        let again = serve("/", None, Some(&tag)).unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert!(serve("/no/such/file.js", None, None).is_none());
    }
}
