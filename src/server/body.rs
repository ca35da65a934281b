//! Request bodies: a JSON object sent as `application/json`, parsed strictly, or nothing.
//!
//! Every body the API takes is a small object (`{name?, token?}`, `{seat?}`), so a body must
//! be one: an array is refused (serde would otherwise fill a struct from it, `["name",
//! "token"]` setting both), and so is any other content type — a `text/plain` body is what
//! a browser sends cross-origin without asking first, and the API is not meant to be posted
//! to that way. An empty body is the object with nothing in it. Duplicate keys and unknown
//! fields are refused, as on the socket.

use super::reply::refuse;
use crate::wire::messages::code;
use crate::wire::strict::{StrictError, parse};
use serde::de::DeserializeOwned;
use warp::http::StatusCode;
use warp::reply::Response;

/// A request's body as the routes hand it over: its declared type and its bytes.
pub struct Body {
    pub content_type: Option<String>,
    pub bytes: bytes::Bytes,
}

impl Body {
    /// The body as `T` (`T::default()` when empty), or the answer refusing it.
    pub fn parse<T: DeserializeOwned + Default>(&self) -> Result<T, Box<Response>> {
        let bad = |status, code: &str, msg: String| Box::new(refuse(status, code, msg));
        if self.bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(T::default());
        }
        let json = self.content_type.as_deref().is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
        if !json {
            let got = self.content_type.as_deref().unwrap_or("no Content-Type");
            return Err(bad(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                code::BAD_JSON,
                format!("a body must be sent as application/json (got {got})"),
            ));
        }
        let text = std::str::from_utf8(&self.bytes).map_err(|_| {
            bad(
                StatusCode::BAD_REQUEST,
                code::BAD_JSON,
                "the body is not UTF-8".into(),
            )
        })?;
        let value = parse(text).map_err(|e| match e {
            StrictError::NotJson(m) => bad(StatusCode::BAD_REQUEST, code::BAD_JSON, m),
            StrictError::DuplicateKey(m) => bad(StatusCode::BAD_REQUEST, code::BAD_FIELD, m),
        })?;
        if !value.is_object() {
            return Err(bad(
                StatusCode::BAD_REQUEST,
                code::BAD_JSON,
                "the body must be a JSON object".into(),
            ));
        }
        serde_json::from_value(value)
            .map_err(|e| bad(StatusCode::BAD_REQUEST, code::BAD_FIELD, e.to_string()))
    }
}
