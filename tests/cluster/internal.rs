//! The internal surface: a node's `/internal/…` routes answer only on its internal listener,
//! and only a request signed for itself, once. A join forwarded from B to A is captured on
//! the wire (A's internal address, as B knows it, is a recording relay) and replayed: to
//! A's internal listener it is refused as a replay, to A's public port it is not found,
//! and with its body or path changed its signature no longer verifies.

use crate::postgres;
use crate::server::{self, TestServer};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A relay from `listener` to `to` that keeps each request's bytes (one request per
/// connection, as nodes send them).
async fn relay(listener: TcpListener, to: SocketAddr, kept: Arc<Mutex<Vec<Vec<u8>>>>) {
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else {
            return;
        };
        let kept = kept.clone();
        tokio::spawn(async move {
            let request = read_request(&mut inbound).await;
            kept.lock().unwrap().push(request.clone());
            let mut out = TcpStream::connect(to).await.expect("A's internal listener");
            // One request a connection: the answer ends with the connection.
            let once =
                String::from_utf8_lossy(&request).replacen("\r\n", "\r\nconnection: close\r\n", 1);
            out.write_all(once.as_bytes())
                .await
                .expect("relay the request");
            let mut answer = Vec::new();
            let _ = out.read_to_end(&mut answer).await;
            let _ = inbound.write_all(&answer).await;
        });
    }
}

/// One HTTP/1.1 request's bytes: its head and its `content-length` body.
async fn read_request(s: &mut TcpStream) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                buf.truncate(end + 4 + length);
                return buf;
            }
        }
        let n = s.read(&mut chunk).await.expect("read the request");
        assert!(n > 0, "the request ended early");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Sends raw request bytes to `addr` (closing the connection after them): the status.
async fn send_raw(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let text = String::from_utf8_lossy(request).replacen("\r\n", "\r\nconnection: close\r\n", 1);
    s.write_all(text.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_captured_internal_request_replayed_is_refused_everywhere() {
    if !postgres::available() {
        return;
    }
    // Given node A, whose internal address as the other nodes know it is a relay that
    // keeps what passes, and node B,
    let url = postgres::database();
    let dir = crate::nodes::folder("internal");
    let key = dir.join("session.key").display().to_string();
    let internal = server::free_addr();
    let relay_at = TcpListener::bind("127.0.0.1:0").await.expect("a relay");
    let relay_url = format!("http://{}", relay_at.local_addr().expect("its address"));
    let a: TestServer = server::start(&[
        ("UNDERCOOKED_DB", url.as_str()),
        ("UNDERCOOKED_SESSION_KEY_FILE", &key),
        ("UNDERCOOKED_INTERNAL_BIND", &internal.to_string()),
        ("UNDERCOOKED_INTERNAL_URL", &relay_url),
    ])
    .await;
    let kept = Arc::new(Mutex::new(Vec::new()));
    tokio::spawn(relay(relay_at, internal, kept.clone()));
    let mut b = crate::nodes::nodes(&url, std::path::Path::new(&key), 1).await;
    // with a room on A, joined through B (so the join goes to A through the relay),
    let (code, _) = server::create_room(a.addr, "Ann").await;
    let (status, v) = server::join_room(b[0].addr, &code, "Bob").await;
    assert_eq!(status, 200, "the forwarded join seats Bob: {v}");
    let captured = kept
        .lock()
        .unwrap()
        .first()
        .cloned()
        .expect("the join was relayed");
    let text = String::from_utf8_lossy(&captured).to_string();
    assert!(
        text.starts_with(&format!("POST /internal/rooms/{code}/join ")),
        "{text}"
    );
    // when the captured request is sent again to A's internal listener, it is refused as
    // a replay;
    let (status, answer) = send_raw(internal, &captured).await;
    assert_eq!(status, 403, "{answer}");
    assert!(
        answer.contains("not_a_node") && answer.contains("seen before"),
        "{answer}"
    );
    // to A's public port, the internal route is not there at all;
    let (status, answer) = send_raw(a.addr, &captured).await;
    assert_eq!(status, 404, "{answer}");
    // with its body changed (another player's name) or its path (another room), its
    // signature does not verify;
    let other_body = text.replace("Bob", "Eve");
    let (status, answer) = send_raw(internal, other_body.as_bytes()).await;
    assert_eq!(status, 403, "{answer}");
    assert!(answer.contains("does not verify"), "{answer}");
    let other_path = text.replacen(
        &format!("/internal/rooms/{code}/join"),
        "/internal/rooms/ZZZZ/open",
        1,
    );
    let (status, answer) = send_raw(internal, other_path.as_bytes()).await;
    assert_eq!(status, 403, "{answer}");
    // and a request with no signature at all says which header is missing.
    let (status, body) = server::http(
        internal,
        "POST",
        &format!("/internal/rooms/{code}/join"),
        Some(&json!({"name": "Mallory"}).to_string()),
        &[],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["msg"]
            .as_str()
            .unwrap_or("")
            .contains("header is missing"),
        "{body}"
    );
    // Nothing of it reached the room: Ann and Bob only.
    let (_, room) = server::http(a.addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    let seated = room["seats"]
        .as_array()
        .map_or(0, |s| s.iter().filter(|s| !s.is_null()).count());
    assert_eq!(seated, 2, "{room}");
    for n in &mut b {
        n.stop().await;
    }
}
