//! A request forwarded to the node that owns a room, over the nodes' internal HTTP: one
//! HTTP/1.1 exchange (hyper's client connection) on a fresh connection, with the node
//! secret and the player's address in headers, within `TIMEOUT`. No socket is proxied: the
//! answer names the owner's `ws_url`, and the player's socket goes there.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use std::time::Duration;

/// How long the owner has to answer before its lease decides (dead: `room_gone`).
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// The most an owner's answer may hold (its answers are small JSON objects).
const ANSWER_LIMIT: usize = 16 * 1024;

/// Why a forwarded request got no answer.
#[derive(Debug)]
pub enum Unanswered {
    /// No answer within `TIMEOUT`.
    TimedOut,
    /// The owner could not be reached, or its answer not read.
    Failed(String),
}

/// An owner's answer: its status and body.
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

/// Sends `method path` with `body` to `base` (`http://host:port`), as this node, for the
/// player at `source`.
pub async fn send(
    base: &str,
    method: &str,
    path: &str,
    body: Bytes,
    secret: &str,
    source: Option<&str>,
) -> Result<Answer, Unanswered> {
    match tokio::time::timeout(TIMEOUT, exchange(base, method, path, body, secret, source)).await {
        Ok(r) => r.map_err(Unanswered::Failed),
        Err(_) => Err(Unanswered::TimedOut),
    }
}

async fn exchange(
    base: &str,
    method: &str,
    path: &str,
    body: Bytes,
    secret: &str,
    source: Option<&str>,
) -> Result<Answer, String> {
    let authority = base
        .strip_prefix("http://")
        .ok_or_else(|| format!("{base} is not an http:// address"))?
        .trim_end_matches('/');
    let stream = tokio::net::TcpStream::connect(authority)
        .await
        .map_err(|e| format!("connecting to {authority}: {e}"))?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("host", authority)
        .header("content-type", "application/json")
        .header(super::SECRET_HEADER, secret);
    if let Some(source) = source {
        request = request.header(super::SOURCE_HEADER, source);
    }
    let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = Limited::new(response.into_body(), ANSWER_LIMIT)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok(Answer { status, body })
}
