//! The server under a small descriptor limit (`prlimit --nofile=256`), as the hardening
//! report tried it: 300 idle connections used to exhaust the descriptors, so every `accept`
//! failed (logged 20 times a second), `/healthz` timed out and a round could not start.

use crate::server;

use serde_json::json;
use server::{Client, create_room, free_addr, http_from, tcp_from, wait_up};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `undercooked serve` under 256 descriptors, logging warnings to `log`.
fn start(
    addr: std::net::SocketAddr,
    name: &str,
    env: &[(&str, &str)],
) -> (Child, std::path::PathBuf) {
    let data = std::env::temp_dir().join(format!("undercooked-fds-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    let log = data.join("server.log");
    let out = std::fs::File::create(&log).unwrap();
    let child = Command::new("prlimit")
        .args(["--nofile=256:256", "--"])
        .arg(env!("CARGO_BIN_EXE_undercooked"))
        .args(["serve", "--bind", &addr.to_string(), "--levels"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/levels"
        ))
        .arg("--data-dir")
        .arg(&data)
        .envs(env.iter().copied())
        .env("UNDERCOOKED_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(out)
        .spawn()
        .expect("prlimit (util-linux) runs the server");
    (child, log)
}

/// 300 idle connections from ten addresses (30 each, under the per-address cap).
async fn flood(addr: std::net::SocketAddr) -> Vec<tokio::net::TcpStream> {
    let mut held = Vec::new();
    for i in 0..300 {
        held.push(tcp_from(&format!("127.0.0.{}", 10 + i % 10), addr).await);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    held
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_256_descriptors_300_idle_connections_leave_health_checks_and_a_seated_round_working()
{
    // Given a server under 256 descriptors with its default caps (derived from the limit),
    let addr = free_addr();
    let (mut child, log) = start(addr, "defaults", &[]);
    wait_up(addr).await;
    // and a host seated in a room before anything happens,
    let (code, token) = create_room(addr, "Ann").await;
    let mut ann = Client::hello_from("127.0.0.1", addr, &code, &token).await;

    // when ten addresses open 300 idle connections,
    let held = flood(addr).await;

    // then health checks are still answered (from the reserve),
    let asked = http_from("127.0.0.3", addr, "GET", "/healthz", None);
    let (status, health) = tokio::time::timeout(Duration::from_secs(10), asked)
        .await
        .expect("/healthz answers");
    assert_eq!(status, 200, "{health}");
    let (_, stats) = http_from("127.0.0.3", addr, "GET", "/api/stats", None).await;
    let refused = stats["connections"]["refused"]["full"].as_u64().unwrap();
    assert!(refused > 0, "the flood met the cap: {stats}");
    // the seated host starts a round and it plays (its replay file still opens),
    ann.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    ann.send(json!({"type": "start"})).await;
    ann.expect("snap").await;
    // and accept never failed: the cap kept descriptors free.
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(!said.contains("accept failed"), "{said}");

    drop(held);
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_accept_runs_out_of_descriptors_the_loop_backs_off_says_so_once_a_second_and_recovers()
{
    // Given a server told to hold more connections than it has descriptors for,
    let addr = free_addr();
    let (mut child, log) = start(
        addr,
        "emfile",
        &[
            ("UNDERCOOKED_MAX_CONNECTIONS", "1000"),
            ("UNDERCOOKED_HEADER_TIMEOUT_S", "60"),
        ],
    );
    wait_up(addr).await;

    // when 300 idle connections exhaust them for 3 s,
    let started = Instant::now();
    let held = flood(addr).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lasted = started.elapsed().as_secs_f64();

    // then `accept` failures are logged, at most about once a second,
    let said = std::fs::read_to_string(&log).unwrap();
    let lines = said.lines().filter(|l| l.contains("accept failed")).count();
    assert!(lines >= 1, "the failure is told: {said}");
    assert!(
        lines as f64 <= lasted + 2.0,
        "{lines} lines in {lasted:.1} s: {said}"
    );
    assert!(
        said.contains("Too many open files") || said.contains("os error 24"),
        "{said}"
    );

    // and once the connections go, the server answers again.
    drop(held);
    let start = Instant::now();
    loop {
        let asked = tokio::time::timeout(
            Duration::from_secs(2),
            http_from("127.0.0.3", addr, "GET", "/healthz", None),
        )
        .await;
        if let Ok((200, _)) = asked {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the server did not recover"
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}
