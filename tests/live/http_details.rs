//! Small things an HTTP client notices: `HEAD` answers like `GET` without the body, the
//! `Authorization` scheme is case-insensitive, a bad `page` is named in a normal refusal, and
//! a name made only of marks that draw nothing is refused.

use crate::server;

use serde_json::json;
use server::{Client, http, session_of, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One request with no body; (the head lower-cased without its `date`, the bytes after it).
async fn raw(addr: std::net::SocketAddr, method: &str, path: &str) -> (String, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let split = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&out[..split]).to_ascii_lowercase();
    let head: Vec<&str> = head.lines().filter(|l| !l.starts_with("date:")).collect();
    (head.join("\n"), out[split + 4..].to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_answers_every_get_route_with_its_status_and_headers_and_no_body() {
    let mut s = start(&[]).await;
    for path in [
        "/api/levels",
        "/api/levels/01_quick_soup",
        "/api/replays",
        "/healthz",
        "/",
        "/style.css",
        "/api/rooms/NOSUCH",
        "/no/such/route",
    ] {
        let (get_head, get_body) = raw(s.addr, "GET", path).await;
        let (head_head, head_body) = raw(s.addr, "HEAD", path).await;
        assert!(!get_head.contains(" 405 "), "{path}: {get_head}");
        assert_eq!(head_head, get_head, "HEAD {path} answers as GET does");
        assert!(!get_body.is_empty(), "GET {path} has a body");
        assert!(
            head_body.is_empty(),
            "HEAD {path} sent a body: {head_body:?}"
        );
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authorization_scheme_is_case_insensitive() {
    let mut s = start(&[]).await;
    const TOKEN: &str = "case-token-1";
    let body = json!({"name": "Ann", "token": TOKEN}).to_string();
    let (status, created) = http(s.addr, "POST", "/api/rooms", Some(&body), &[]).await;
    assert_eq!(status, 201, "{created}");
    let code = created["room_code"].as_str().unwrap().to_string();
    let mut c = Client::hello(s.addr, &code, TOKEN).await;
    c.send(json!({"type": "ready"})).await;
    c.expect("lobby").await;
    assert_eq!(session_of(s.addr, TOKEN).await.0, 200);
    for auth in [
        format!("bearer {TOKEN}"),
        format!("BEARER {TOKEN}"),
        format!("BeArEr   {TOKEN}"),
    ] {
        let (status, me) = http(
            s.addr,
            "GET",
            "/api/session",
            None,
            &[("Authorization", &auth)],
        )
        .await;
        assert_eq!(status, 200, "{auth}: {me}");
        assert_eq!(me["name"], "Ann");
    }
    // Another scheme is still no token at all.
    let (status, _) = http(
        s.addr,
        "GET",
        "/api/session",
        None,
        &[("Authorization", &format!("Basic {TOKEN}"))],
    )
    .await;
    assert_eq!(status, 401);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_page_is_a_400_naming_the_parameter_never_an_internal_name() {
    let mut s = start(&[]).await;
    for page in ["-1", "x", "1.5", "99999999999"] {
        let (status, v) = http(
            s.addr,
            "GET",
            &format!("/api/replays?page={page}"),
            None,
            &[],
        )
        .await;
        assert_eq!(status, 400, "page={page}: {v}");
        assert_eq!(v["code"], "bad_field", "{v}");
        let msg = v["msg"].as_str().unwrap();
        assert!(msg.starts_with("page must be a whole number"), "{msg}");
        assert!(!msg.contains("Rejection"), "{msg}");
    }
    let (status, v) = http(s.addr, "GET", "/api/replays?page=0", None, &[]).await;
    assert_eq!((status, &v["page"]), (200, &json!(0)), "{v}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_of_only_combining_marks_or_selectors_is_refused() {
    let mut s = start(&[]).await;
    for name in [
        "\u{0301}\u{0308}\u{0301}",
        "\u{FE0F}\u{FE0F}",
        "\u{17B4}\u{17B5}",
        "\u{E0100} \u{0300}",
    ] {
        let body = json!({ "name": name }).to_string();
        let (status, v) = http(s.addr, "POST", "/api/rooms", Some(&body), &[]).await;
        assert_eq!(status, 400, "{name:?}: {v}");
        assert_eq!(v["code"], "bad_field", "{v}");
    }
    let body = json!({ "name": "Zoe\u{0308}" }).to_string();
    let (status, v) = http(s.addr, "POST", "/api/rooms", Some(&body), &[]).await;
    assert_eq!(status, 201, "a mark on a letter is a name: {v}");
    s.stop().await;
}
