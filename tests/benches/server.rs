//! `cargo bench --bench server`: the live server's figures for docs/PERFORMANCE.md.
//!
//! Starts the release binary as its own process on a free loopback port (so its RSS and CPU
//! are its own), then:
//! - 1000 concurrent handshakes (connect → `hello` → `welcome`): p50/p95/max, RSS growth;
//! - a 4-player room played by bot clients: input → first `snap` after it, `snap` downlink
//!   per player per second;
//! - server CPU per room-second with 10 such rooms playing;
//! - memory per idle room and per idle (seated, silent) socket, over 1000 of each.
//!
//! It reports; it asserts nothing about timings.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;
use undercooked::bots::BotTeam;
use undercooked::wire::merge::apply_frame;
use undercooked::wire::view::FrameView;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn proc_field(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// utime + stime of a process, in clock ticks (100 a second on Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
}

async fn http(port: u16, path: &str, body: &str) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    serde_json::from_str(text.split_once("\r\n\r\n").map_or("", |x| x.1)).unwrap_or(Value::Null)
}

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_server(env: &[(&str, &str)]) -> Server {
    let port = free_port();
    let data = std::env::temp_dir().join(format!("undercooked-bench-{port}"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_undercooked"));
    cmd.args([
        "serve",
        "--bind",
        &format!("127.0.0.1:{port}"),
        "--levels",
        concat!(env!("CARGO_MANIFEST_DIR"), "/levels"),
        "--data-dir",
    ])
    .arg(&data)
    .env("UNDERCOOKED_LOG", "warn")
    // Every client of the bench is 127.0.0.1 and many handshake at once: the per-address,
    // pending-socket and new-session caps and the shares and budgets (docs/SECURITY.md)
    // are lifted.
    .env("UNDERCOOKED_MAX_CONNECTIONS_PER_IP", "1000000")
    .env("UNDERCOOKED_NEW_SESSIONS_PER_MIN", "100000")
    .env("UNDERCOOKED_MAX_PENDING_SOCKETS", "1000000")
    .env("UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP", "1000000")
    .env("UNDERCOOKED_REQUESTS_PER_S", "1000000")
    .env("UNDERCOOKED_REQUEST_BURST", "1000000")
    .env("UNDERCOOKED_UPGRADES_PER_S", "1000000")
    .env("UNDERCOOKED_UPGRADE_BURST", "1000000")
    .env("UNDERCOOKED_ROOMS_PER_SESSION", "1000000")
    .env("UNDERCOOKED_ROOMS_PER_IP", "1000000")
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("the server starts");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Server { child, port }
}

async fn handshakes(n: usize) {
    let server = start_server(&[("UNDERCOOKED_MAX_INPUTS_PER_S", "100")]).await;
    let port = server.port;
    let mut rooms = Vec::new();
    for i in 0..n / 4 {
        let r = http(
            port,
            "/api/rooms",
            &json!({"name": format!("h{i}")}).to_string(),
        )
        .await;
        rooms.push((
            r["room_code"].as_str().unwrap().to_string(),
            r["you"]["token"].as_str().unwrap().to_string(),
        ));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_before = proc_field(server.child.id(), "VmRSS:");
    let wall = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..n {
        let (code, host) = rooms[i / 4].clone();
        // the room's creator holds seat 0; three guests take the rest
        let token = if i % 4 == 0 {
            host
        } else {
            format!("bench-{i}")
        };
        tasks.push(tokio::spawn(async move {
            let start = Instant::now();
            let (mut ws, _) = connect_async(format!("ws://127.0.0.1:{port}/ws/{code}"))
                .await
                .ok()?;
            ws.send(Message::text(
                json!({"type": "hello", "p": 1, "token": token}).to_string(),
            ))
            .await
            .ok()?;
            while let Some(Ok(m)) = ws.next().await {
                if let Message::Text(t) = m
                    && t.contains("\"welcome\"")
                {
                    let took = start.elapsed();
                    return Some((took, ws));
                }
            }
            None
        }));
    }
    let mut times = Vec::new();
    let mut sockets = Vec::new();
    for t in tasks {
        if let Ok(Some((took, ws))) = t.await {
            times.push(took.as_secs_f64() * 1000.0);
            sockets.push(ws);
        }
    }
    let wall = wall.elapsed().as_secs_f64();
    let rss_after = proc_field(server.child.id(), "VmRSS:");
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "{n} concurrent handshakes: {} welcomed in {wall:.2} s wall; p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms; server RSS {:.1} → {:.1} MiB (+{:.1} MiB)",
        times.len(),
        pct(0.5),
        pct(0.95),
        times.last().unwrap(),
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        (rss_after as f64 - rss_before as f64) / 1024.0
    );
    drop(sockets);
}

/// Memory per idle room and per idle socket: `n` rooms opened and left in the lobby, then
/// each room's host connected and silent (RSS growth over each step, divided by `n`).
async fn idle(n: usize) {
    let server = start_server(&[
        ("UNDERCOOKED_MAX_ROOMS", "5000"),
        ("UNDERCOOKED_EMPTY_ROOM_GRACE_S", "600"),
    ])
    .await;
    let (port, pid) = (server.port, server.child.id());
    let settle = || tokio::time::sleep(Duration::from_secs(2));
    settle().await;
    let rss0 = proc_field(pid, "VmRSS:");
    let mut rooms = Vec::new();
    for i in 0..n {
        let r = http(
            port,
            "/api/rooms",
            &json!({"name": format!("i{i}")}).to_string(),
        )
        .await;
        rooms.push((
            r["room_code"].as_str().unwrap().to_string(),
            r["you"]["token"].as_str().unwrap().to_string(),
        ));
    }
    settle().await;
    let rss1 = proc_field(pid, "VmRSS:");
    let mut sockets = Vec::new();
    for (code, token) in &rooms {
        let (mut ws, _) = connect_async(format!("ws://127.0.0.1:{port}/ws/{code}"))
            .await
            .unwrap();
        ws.send(Message::text(
            json!({"type": "hello", "p": 1, "token": token}).to_string(),
        ))
        .await
        .unwrap();
        while let Some(Ok(m)) = ws.next().await {
            if matches!(&m, Message::Text(t) if t.contains("\"lobby\"")) {
                break;
            }
        }
        sockets.push(ws);
    }
    settle().await;
    let rss2 = proc_field(pid, "VmRSS:");
    let kib = |a: u64, b: u64| (b as f64 - a as f64) / n as f64;
    println!(
        "{n} idle rooms: server RSS {:.1} → {:.1} MiB, {:.1} KiB a room; {} idle sockets (each room's host, seated, silent): → {:.1} MiB, {:.1} KiB a socket",
        rss0 as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        kib(rss0, rss1),
        sockets.len(),
        rss2 as f64 / 1024.0,
        kib(rss1, rss2),
    );
    drop(sockets);
}

async fn rooms_playing(n_rooms: usize, secs: u64) {
    let server = start_server(&[]).await;
    let port = server.port;
    let pid = server.child.id();
    let level = undercooked::levels::find(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/levels")),
        "01_first_kitchen",
    )
    .unwrap()
    .level;
    let mut tasks = Vec::new();
    for _ in 0..n_rooms {
        let r = http(port, "/api/rooms", "{}").await;
        let code = r["room_code"].as_str().unwrap().to_string();
        let host = r["you"]["token"].as_str().unwrap().to_string();
        // The host's socket sets the level and starts once the guests are ready.
        let (mut ws, _) = connect_async(format!("ws://127.0.0.1:{port}/ws/{code}"))
            .await
            .unwrap();
        ws.send(Message::text(
            json!({"type": "hello", "p": 1, "token": host}).to_string(),
        ))
        .await
        .unwrap();
        ws.send(Message::text(
            json!({"type": "set_level", "level": "01_first_kitchen"}).to_string(),
        ))
        .await
        .unwrap();
        let mut guests = Vec::new();
        for seat in 1..4u8 {
            let j = http(port, &format!("/api/rooms/{code}/join"), "{}").await;
            let token = j["you"]["token"].as_str().unwrap().to_string();
            let (mut g, _) = connect_async(format!("ws://127.0.0.1:{port}/ws/{code}"))
                .await
                .unwrap();
            g.send(Message::text(
                json!({"type": "hello", "p": 1, "token": token}).to_string(),
            ))
            .await
            .unwrap();
            g.send(Message::text(json!({"type": "ready"}).to_string()))
                .await
                .unwrap();
            guests.push((seat, g));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        ws.send(Message::text(json!({"type": "start"}).to_string()))
            .await
            .unwrap();
        let mut all = vec![(0u8, ws)];
        all.extend(guests);
        for (seat, sock) in all {
            let level = level.clone();
            tasks.push(tokio::spawn(play_socket(
                sock,
                seat,
                level,
                Duration::from_secs(secs + 5),
            )));
        }
    }
    // Let the countdowns run and the rounds settle into play, then measure the server's CPU.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (c0, t0) = (cpu_ticks(pid), Instant::now());
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (c1, t1) = (cpu_ticks(pid), Instant::now());
    let mut bytes = 0u64;
    let mut secs_seen = 0f64;
    let mut echoes: Vec<f64> = Vec::new();
    for t in tasks {
        if let Ok((b, s, e)) = t.await {
            bytes += b;
            secs_seen += s;
            echoes.extend(e);
        }
    }
    let players = (n_rooms * 4) as f64;
    let wall = t1.duration_since(t0).as_secs_f64();
    let cpu_s = (c1 - c0) as f64 / 100.0;
    echoes.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        echoes
            .get(((echoes.len() as f64 * p) as usize).min(echoes.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{n_rooms} rooms x 4 bot players, {wall:.1} s: server CPU {:.2} ms per room-second ({cpu_s:.2} s CPU); snap downlink {:.1} KB/s per player; input→next snap p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms ({} samples)",
        cpu_s * 1000.0 / (n_rooms as f64 * wall),
        bytes as f64 / 1000.0 / (secs_seen / players).max(0.001) / players,
        pct(0.5),
        pct(0.95),
        echoes.last().copied().unwrap_or(0.0),
        echoes.len()
    );
}

/// Plays a seat over an open socket; returns (snap bytes, seconds measured, echo samples).
async fn play_socket(
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    seat: u8,
    level: undercooked::sim::Level,
    run_for: Duration,
) -> (u64, f64, Vec<f64>) {
    let (mut tx, mut rx) = ws.split();
    let mut team = BotTeam::new(&level, 20, &[seat]);
    let mut merged = None;
    let (mut bytes, mut first_snap, mut measured_from) = (0u64, None::<Instant>, None::<Instant>);
    let mut echoes = Vec::new();
    let mut pending: Option<Instant> = None;
    let deadline = Instant::now() + run_for;
    while Instant::now() < deadline {
        let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_secs(10), rx.next()).await else {
            break;
        };
        let Message::Text(t) = m else { continue };
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        if v["type"] == "round" {
            break;
        }
        if v["type"] != "snap" {
            continue;
        }
        let first = *first_snap.get_or_insert_with(Instant::now);
        if first.elapsed() > Duration::from_secs(3) {
            measured_from.get_or_insert_with(Instant::now);
            bytes += t.len() as u64;
        }
        if let Some(sent) = pending.take() {
            echoes.push(sent.elapsed().as_secs_f64() * 1000.0);
        }
        apply_frame(&mut merged, &v["raw"]).unwrap();
        let view = FrameView::from_json(merged.as_ref().unwrap()).unwrap();
        for i in team.decide(&view) {
            let msg = undercooked::wire::messages::client::input_message(&i);
            if tx.send(Message::text(msg.to_string())).await.is_err() {
                break;
            }
            pending.get_or_insert_with(Instant::now);
        }
    }
    let secs = measured_from.map_or(0.0, |m| m.elapsed().as_secs_f64());
    (bytes, secs, echoes)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        println!("undercooked server bench (release binary as a separate process)");
        handshakes(1000).await;
        idle(1000).await;
        rooms_playing(1, 10).await;
        rooms_playing(10, 10).await;
    });
}
