//! `undercooked loadtest` against a real server process: one room of four bot-played
//! clients plays and is measured (and again with one planner and three walkers); bad arguments are refused by name.

use crate::server;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_undercooked"))
}

#[test]
fn one_room_of_four_bot_clients_plays_and_is_measured() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = std::env::temp_dir().join(format!("undercooked-loadtest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = bin()
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(&data)
        .env("UNDERCOOKED_LOG", "warn")
        // Every load client is 127.0.0.1: its shares are roomy.
        .envs(server::ROOMY.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(15), "no server");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Every seat planning (the default), then one planner and three walkers.
    let runs: Vec<(std::process::Output, &str)> = ["4", "1"]
        .into_iter()
        .map(|planners| {
            let out = bin()
                .args([
                    "loadtest",
                    "--url",
                    &format!("http://127.0.0.1:{port}"),
                    "--rooms",
                    "1",
                    "--duration",
                    "2",
                    "--planners",
                    planners,
                    "--json",
                ])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .unwrap();
            (out, planners)
        })
        .collect();
    let _ = server.kill();
    let _ = server.wait();
    for (out, planners) in runs {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(r["planners"].to_string(), planners, "{r}");
        assert_eq!(r["clients"], 4, "{r}");
        assert_eq!(
            r["handshake_ms"]["samples"], 4,
            "every seat was welcomed: {r}"
        );
        assert!(r["snaps_per_client_s"].as_f64().unwrap() > 15.0, "{r}");
        assert!(
            r["echo_ms"]["samples"].as_u64().unwrap() > 0,
            "the seats played: {r}"
        );
        assert_eq!(r["errors"], serde_json::json!({}), "{r}");
        assert_eq!(r["closes"], serde_json::json!({}), "{r}");
    }
}

#[test]
fn a_url_that_is_not_http_host_port_is_refused() {
    let out = bin()
        .args(["loadtest", "--url", "ws://x", "--rooms", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--url must be http://HOST:PORT"));
    let out = bin()
        .args(["loadtest", "--url", "http://127.0.0.1:1", "--rooms", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rooms must be between 1 and 10000"));
}
