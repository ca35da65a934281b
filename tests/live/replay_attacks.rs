//! Issue 23's crafted replay files through the replay API of a real `undercooked serve`:
//! each planted under an indexed round, `/frames` (and `/api/replays/{id}` when the header
//! is the broken part) answers `422` naming what is wrong, the server keeps answering
//! `/healthz`, and its peak memory stays under `PEAK_MB`. Before the readers were bounded,
//! the 2^50-byte level text killed the server (`memory allocation … failed`, exit −6) and
//! the newline block cost it about 3 GB and answered `200` with invalid JSON.

use crate::server;

use std::process::{Child, Command, Stdio};

#[path = "../crafted/mod.rs"]
mod crafted;

/// The server's peak resident memory allowed over the whole test. It idles at about
/// 20 MB here; decoding a crafted file is bounded by the 1 MiB frame cap.
const PEAK_MB: u64 = 150;

fn serve(port: u16, data: &std::path::Path) -> Child {
    server::serve_child(port, "levels", data, &[], Stdio::null())
}

/// The server's resident high-water mark in MB (it is alive: the kernel's own peak).
fn peak_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crafted_files_under_an_indexed_round_answer_422_and_the_server_stays_up() {
    // Given a server whose history indexed the first golden round from its replays folder.
    let data = std::env::temp_dir().join(format!("undercooked-attacks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(data.join("replays")).unwrap();
    let file = data.join("replays/01_first_kitchen.ucr");
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/replays/01_first_kitchen.ucr");
    std::fs::copy(golden, &file).unwrap();
    let indexed = Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .arg("reindex")
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert!(indexed.status.success(), "{indexed:?}");
    let addr = server::free_addr();
    let mut child = serve(addr.port(), &data);
    server::wait_up(addr).await;
    let (status, list) = server::http(addr, "GET", "/api/replays", None, &[]).await;
    assert_eq!(status, 200, "{list}");
    let id = list["replays"][0]["id"].as_str().unwrap().to_string();
    let frames_path = format!("/api/replays/{id}/frames");
    let (status, frames) = server::http(addr, "GET", &frames_path, None, &[]).await;
    assert_eq!(status, 200);
    assert!(frames["frames"].as_array().unwrap().len() > 100);

    for c in crafted::all() {
        // When the round's file is replaced by a crafted one and the viewer asks for it,
        std::fs::copy(crafted::path(c.name), &file).unwrap();
        let (status, body) = server::http(addr, "GET", &frames_path, None, &[]).await;
        // then the answer is 422 naming what is wrong,
        assert_eq!(status, 422, "{}: {body}", c.name);
        assert_eq!(body["code"], "unreadable", "{}: {body}", c.name);
        let msg = body["msg"].as_str().unwrap();
        assert!(msg.contains(c.says), "{}: {msg}", c.name);
        // the round's own answer reads its header (or says why it cannot),
        let (status, body) =
            server::http(addr, "GET", &format!("/api/replays/{id}"), None, &[]).await;
        match c.name {
            "crafted-huge-level-text" => {
                assert_eq!(status, 422, "{body}");
                assert!(body["msg"].as_str().unwrap().contains(c.says), "{body}");
            }
            _ => assert_eq!(status, 200, "{}: {body}", c.name),
        }
        // and the server is still up.
        let (status, _) = server::http(addr, "GET", "/healthz", None, &[]).await;
        assert_eq!(status, 200, "{}: the server answers /healthz", c.name);
    }
    let peak = peak_mb(child.id());
    eprintln!("server peak: {peak} MB");
    assert!(peak < PEAK_MB, "the server peaked at {peak} MB");
    child.kill().unwrap();
    child.wait().unwrap();
}
