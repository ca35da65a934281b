//! The few HTTP calls a load client makes (create a room, join it, read a level's layout),
//! over hyper's HTTP/1 client connection: one short connection per call, as a browser's
//! lobby would make them.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::Value;
use std::net::SocketAddr;

/// One request; the JSON answer (or the reason there is none).
pub async fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> Result<Value, String> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let (mut send, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| format!("HTTP handshake: {e}"))?;
    tokio::spawn(conn);
    let req = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let res = send
        .send_request(req)
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let status = res.status();
    let bytes = res
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?
        .to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("{method} {path}: {status} {v}"));
    }
    Ok(v)
}
