//! No log line holds a token, at any level: the server run at `trace` (human and JSON, and
//! with the WebSocket library asked for by name) while a client creates a room with its own
//! token, says hello, is welcomed, reads its session and has its socket killed through the
//! seam whose path carries the token.

use crate::server;

use serde_json::json;
use server::Client;
use std::io::Read;
use std::process::{Command, Stdio};

const TOKEN: &str = "tok-5ecret-7a9f3c1e88b24d06";

async fn logs_of_a_session(filter: &str, format: &str) -> String {
    let addr = server::free_addr();
    let port = addr.port();
    let data = std::env::temp_dir().join(format!("undercooked-logs-{}-{port}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .args(["serve", "--bind", &addr.to_string(), "--levels"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/levels"
        ))
        .arg("--data-dir")
        .arg(&data)
        .env("UNDERCOOKED_LOG", filter)
        .env("UNDERCOOKED_LOG_FORMAT", format)
        .env("UNDERCOOKED_TEST_MODE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    server::wait_up(addr).await;
    let body = json!({"name": "Ann", "token": TOKEN}).to_string();
    let (status, created) = server::http(addr, "POST", "/api/rooms", Some(&body), &[]).await;
    assert_eq!(status, 201, "{created}");
    let code = created["room_code"].as_str().unwrap().to_string();
    let mut c = Client::hello(addr, &code, TOKEN).await;
    c.send(json!({"type": "ready"})).await;
    c.expect("lobby").await;
    let (status, _) = server::session_of(addr, TOKEN).await;
    assert_eq!(status, 200);
    let (status, _) = server::http(
        addr,
        "POST",
        &format!("/api/test/kill_socket/{code}/{TOKEN}"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200);
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
    log
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_level_and_no_format_ever_writes_a_token() {
    for (filter, format) in [
        ("trace", "human"),
        ("trace", "json"),
        (
            "trace,tungstenite=trace,tokio_tungstenite=trace,warp=trace,hyper=trace",
            "human",
        ),
    ] {
        let log = logs_of_a_session(filter, format).await;
        // The filter was really at trace: the server's own trace and debug lines are there.
        assert!(
            log.contains("TRACE") || log.contains("DEBUG"),
            "{filter} {format}: {log}"
        );
        assert!(
            !log.contains(TOKEN) && !log.contains("5ecret"),
            "{filter} {format}: a token in the log:\n{}",
            log.lines()
                .filter(|l| l.contains("5ecret"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
