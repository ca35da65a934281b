//! A request sent to another node's internal listener: one HTTP/1.1 exchange (hyper's
//! client connection) on a fresh connection, signed on its own (`signing`), within
//! `TIMEOUT`. No socket is proxied: a forwarded seat's answer names the owner's `ws_url`,
//! and the player's socket goes there.

use super::directory::Owner;
use super::secret::NodeSecrets;
use super::signing::{self, Request, SOURCE_HEADER};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use std::time::Duration;

/// How long the other node has to answer before its lease decides (dead: `room_gone`).
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// The most an answer may hold (they are small JSON objects).
const ANSWER_LIMIT: usize = 16 * 1024;

/// Why a request got no answer.
#[derive(Debug)]
pub enum Unanswered {
    /// No answer within `TIMEOUT`.
    TimedOut,
    /// The node could not be reached, or its answer not read.
    Failed(String),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::TimedOut => write!(f, "no answer in {} s", TIMEOUT.as_secs()),
            Unanswered::Failed(e) => f.write_str(e),
        }
    }
}

/// A node's answer: its status and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

/// A request for another node: what it carries besides the signature.
pub struct Call {
    pub method: &'static str,
    /// An internal route (`/internal/…`).
    pub path: String,
    pub body: Bytes,
    /// The player's address key, as this node counts it.
    pub source: Option<String>,
    /// A host's `Authorization`, for its bot calls.
    pub authorization: Option<String>,
}

/// Sends `call` to `node`'s internal listener, signed with `secrets` as node `from`.
pub async fn send(
    secrets: &NodeSecrets,
    from: &str,
    node: &Owner,
    call: &Call,
) -> Result<Answer, Unanswered> {
    let nonce = crate::shared::random::hex(16);
    let signed = signing::sign(
        secrets,
        &Request {
            method: call.method,
            path: &call.path,
            node: from,
            source: call.source.as_deref(),
            authorization: call.authorization.as_deref(),
            body: &call.body,
        },
        crate::store::unix_now(),
        &nonce,
    );
    let exchange = exchange(&node.internal_http, call, &signed);
    match tokio::time::timeout(TIMEOUT, exchange).await {
        Ok(r) => r.map_err(Unanswered::Failed),
        Err(_) => Err(Unanswered::TimedOut),
    }
}

async fn exchange(
    base: &str,
    call: &Call,
    signed: &[(&'static str, String); 4],
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
        .method(call.method)
        .uri(&call.path)
        .header("host", authority)
        .header("content-type", "application/json")
        .header("content-length", call.body.len());
    for (name, value) in signed {
        request = request.header(*name, value);
    }
    if let Some(source) = &call.source {
        request = request.header(SOURCE_HEADER, source);
    }
    if let Some(auth) = &call.authorization {
        request = request.header("authorization", auth);
    }
    let request = request
        .body(Full::new(call.body.clone()))
        .map_err(|e| e.to_string())?;
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
