//! What the browser gets over HTTP: the client's files (content types, ETag and 304,
//! gzip when offered, its pages all being the index), and the replay API (the list from
//! the history, a round's layout from its own file, its frames, the file itself, and a
//! round whose file is gone).

use crate::kitchen;
use crate::server;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A GET with these headers; (status, headers lower-cased, body bytes).
async fn get(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let split = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&out[..split]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut body = out[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, head, body)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&b[..end]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + n]);
        b = &b[end + 2 + n + 2..];
    }
    out
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        l.strip_prefix(&format!("{name}: "))
            .map(|v| v.trim().to_string())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_is_served_with_types_etags_and_gzip() {
    let mut server = server::start(&[]).await;
    let addr = server.addr;
    let (status, head, body) = get(addr, "/", &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(header(&head, "cache-control").as_deref(), Some("no-cache"));
    assert!(String::from_utf8_lossy(&body).contains("/js/app.js"));
    let etag = header(&head, "etag").unwrap();

    let (status, _, body) = get(addr, "/", &[("If-None-Match", &etag)]).await;
    assert_eq!((status, body.len()), (304, 0));

    for page in [
        "/r/ABCDE",
        "/watch/ABCDE",
        "/replays",
        "/replays/some-round",
        "/quests",
    ] {
        let (status, h, _) = get(addr, page, &[]).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(
            header(&h, "etag").as_deref(),
            Some(etag.as_str()),
            "{page} is the index"
        );
    }

    let (status, head, body) = get(addr, "/js/app.js", &[("Accept-Encoding", "gzip, br")]).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(header(&head, "content-encoding").as_deref(), Some("gzip"));
    let mut plain = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(&body[..])
        .read_to_string(&mut plain)
        .unwrap();
    assert!(plain.contains("route"));
    let (_, head, _) = get(addr, "/style.css", &[]).await;
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("text/css; charset=utf-8")
    );
    assert_eq!(
        header(&head, "content-encoding"),
        None,
        "no gzip unless offered"
    );

    // The icon browsers ask every page for (named in the page too): no 404 in any log.
    let (status, head, body) = get(addr, "/favicon.ico", &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("image/x-icon")
    );
    assert_eq!(&body[..4], &[0, 0, 1, 0], "an ICO file");
    assert!(
        String::from_utf8_lossy(&get(addr, "/", &[]).await.2).contains("href=\"/favicon.ico\""),
        "the page names its icon"
    );

    for missing in ["/js/nope.js", "/test/merge.test.mjs", "/api/nope"] {
        let (status, _, body) = get(addr, missing, &[]).await;
        assert_eq!(status, 404, "{missing}");
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["code"], "not_found");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_rounds_are_listed_drawn_downloaded_and_a_lost_file_says_so() {
    let mut server = server::start(&[]).await;
    let addr = server.addr;
    // The golden rounds, copied and indexed into this server's history.
    let dir = server.data.join("imported");
    std::fs::create_dir_all(&dir).unwrap();
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("replays");
    let files = undercooked::log::replay_files(&goldens).unwrap();
    for f in &files {
        std::fs::copy(f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let store = server.shared.store().unwrap();
    let report = kitchen::reindex(store, &dir).await;
    assert_eq!(report.rounds, files.len());

    let (status, _, body) = get(addr, "/api/replays", &[]).await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_slice(&body).unwrap();
    let rounds = list["replays"].as_array().unwrap();
    assert_eq!(
        (rounds.len(), list["more"].as_bool()),
        (files.len(), Some(false))
    );
    assert!(rounds[0]["players"].as_array().unwrap().len() == 4);
    // A headless round's id is its header's key (not its file's name).
    let level = "01_first_kitchen";
    let file = dir.join(format!("{level}.ucr"));
    let round = rounds.iter().find(|r| r["level_id"] == level).unwrap();
    let id = round["id"].as_str().unwrap().to_string();
    assert!(
        id.starts_with("LOCAL-1-0-") && id.len() == "LOCAL-1-0-".len() + 12,
        "a headless round's key: room, round, start 0 and 12 hex of its identity: {id}"
    );
    assert_eq!(round["result"], "won");
    // Its header starts at 0 (same seed, same bytes): the list dates it by its file instead
    // of 1 January 1970.
    let started = round["started_at"].as_i64().unwrap();
    assert!(
        started > 1_600_000_000,
        "a headless round is dated by its file: {started}"
    );

    let (status, _, body) = get(addr, &format!("/api/replays/{id}"), &[]).await;
    assert_eq!(status, 200);
    let meta: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(meta["layout"]["id"], level);
    assert_eq!(meta["layout"]["rows"][1], "#t..C.C..S#");
    assert_eq!(meta["tick_hz"], 20);
    assert_eq!(meta["ended"], true);

    let (status, head, body) = get(
        addr,
        &format!("/api/replays/{id}/frames"),
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-encoding").as_deref(), Some("gzip"));
    let mut json = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(&body[..])
        .read_to_string(&mut json)
        .unwrap();
    let frames: Value = serde_json::from_str(&json).unwrap();
    let frames = frames["frames"].as_array().unwrap();
    let rerun = undercooked::verify::replay_bytes(&std::fs::read(&file).unwrap());
    assert_eq!(frames.len(), rerun.frames.len(), "every recorded frame");
    assert_eq!(frames.last().unwrap()["s"], round["score"]);

    let (status, head, body) = get(addr, &format!("/api/replays/{id}/file"), &[]).await;
    assert_eq!(status, 200);
    let disposition = header(&head, "content-disposition").unwrap();
    // (the helper reads the head lower-cased)
    assert!(
        disposition.contains(&format!("{}.ucr", id.to_lowercase())),
        "{disposition} / {id}"
    );
    assert_eq!(body, std::fs::read(&file).unwrap());

    std::fs::remove_file(&file).unwrap();
    for path in [
        format!("/api/replays/{id}"),
        format!("/api/replays/{id}/frames"),
    ] {
        let (status, _, body) = get(addr, &path, &[]).await;
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, v["code"].as_str()),
            (410, Some("replay_gone")),
            "{path}"
        );
    }
    let (status, _, _) = get(addr, "/api/replays/no-such-round", &[]).await;
    assert_eq!(status, 404);
    server.stop().await;
}
