//! The live-server harness: a real server on 127.0.0.1:0, a WebSocket client, raw HTTP.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};
use undercooked::shared::Shared;
use undercooked::shared::config::ServerConfig;

pub struct TestServer {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    /// Where its rooms are known (alone, or its cluster).
    pub directory: Arc<undercooked::cluster::Directory>,
    pub data: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<()>>,
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A server with the test levels and these environment overrides, in a fresh data folder.
pub async fn start(env: &[(&str, &str)]) -> TestServer {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let data = std::env::temp_dir().join(format!("undercooked-ws-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    start_in(&data, env).await
}

/// A server on an existing data folder (a restart).
pub async fn start_in(data: &std::path::Path, env: &[(&str, &str)]) -> TestServer {
    start_with(data, "tests/fixtures/levels", env).await
}

/// A server whose only level is `tests/fixtures/storm`'s event storm, in a fresh folder.
pub async fn start_storm(env: &[(&str, &str)]) -> TestServer {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let data = std::env::temp_dir().join(format!("undercooked-ws-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    start_with(&data, "tests/fixtures/storm", env).await
}

/// A server whose only level is `tests/fixtures/solo`'s open kitchen (roomy and quick: three
/// bots win it in seconds), in a fresh folder.
pub async fn start_solo(env: &[(&str, &str)]) -> TestServer {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let data = std::env::temp_dir().join(format!("undercooked-ws-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    start_with(&data, "tests/fixtures/solo", env).await
}

/// A server on the levels in `dir` (an absolute path), in a fresh data folder.
pub async fn start_levels(dir: &std::path::Path, env: &[(&str, &str)]) -> TestServer {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let data = std::env::temp_dir().join(format!("undercooked-ws-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    start_with(&data, &dir.to_string_lossy(), env).await
}

/// A server on the shipped campaign (`levels/`), in a fresh folder.
pub async fn start_campaign(env: &[(&str, &str)]) -> TestServer {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let data = std::env::temp_dir().join(format!("undercooked-ws-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    start_with(&data, "levels", env).await
}

/// The per-address shares and budgets, roomy: a test server's players share one address.
pub const ROOMY: &[(&str, &str)] = &[
    ("UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP", "1000000"),
    ("UNDERCOOKED_REQUESTS_PER_S", "1000000"),
    ("UNDERCOOKED_REQUEST_BURST", "1000000"),
    ("UNDERCOOKED_UPGRADES_PER_S", "1000000"),
    ("UNDERCOOKED_UPGRADE_BURST", "1000000"),
    ("UNDERCOOKED_ROOMS_PER_SESSION", "1000000"),
    ("UNDERCOOKED_ROOMS_PER_IP", "1000000"),
];

/// The shares and budgets at their defaults, for a test that attacks them.
pub const SHARES: &[(&str, &str)] = &[
    ("UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP", "8"),
    ("UNDERCOOKED_REQUESTS_PER_S", "20"),
    ("UNDERCOOKED_REQUEST_BURST", "60"),
    ("UNDERCOOKED_UPGRADES_PER_S", "2"),
    ("UNDERCOOKED_UPGRADE_BURST", "10"),
    ("UNDERCOOKED_ROOMS_PER_SESSION", "3"),
    ("UNDERCOOKED_ROOMS_PER_IP", "8"),
];

async fn start_with(data: &std::path::Path, levels: &str, env: &[(&str, &str)]) -> TestServer {
    let data = data.to_path_buf();
    // `UNDERCOOKED_DB` (a PostgreSQL URL) is the `serve` command's, not a server setting.
    let db = env
        .iter()
        .find(|(k, _)| *k == "UNDERCOOKED_DB")
        .map(|(_, v)| v.to_string());
    let mut env: Vec<(&str, &str)> = env
        .iter()
        .copied()
        .filter(|(k, _)| *k != "UNDERCOOKED_DB")
        .collect();
    // Every test's players come from 127.0.0.1: each address's shares are roomy unless the
    // test sets them (the attack tests of `tests/attacks/` set the defaults: `SHARES`).
    for (k, v) in ROOMY {
        if !env.iter().any(|(set, _)| set == k) {
            env.push((k, v));
        }
    }
    let mut config = ServerConfig::from_settings(&env).expect("test config");
    std::fs::create_dir_all(&data).unwrap();
    config.data_dir = data.clone();
    config.levels_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(levels);
    let levels = undercooked::levels::Levels::scanned(
        undercooked::levels::scan_dir(&config.levels_dir).unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let db = db.unwrap_or_else(|| format!("sqlite://{}", data.join("undercooked.db").display()));
    let shared = undercooked::server::open(config, levels, &db)
        .await
        .expect("the test server opens its history");
    let node = undercooked::server::join(shared.clone(), addr)
        .await
        .expect("the test server joins its cluster (on PostgreSQL)");
    let directory = node.directory.clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        undercooked::server::run(listener, node, async move {
            let _ = stopped.await;
        })
        .await
    });
    TestServer {
        addr,
        shared,
        directory,
        data,
        stop: Some(stop),
        handle: Some(handle),
    }
}

impl TestServer {
    pub async fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(h) = self.handle.take() {
            let _ = tokio::time::timeout(Duration::from_secs(6), h).await;
        }
    }

    /// A level the server offers.
    pub fn level(&self, id: &str) -> undercooked::sim::Level {
        self.shared
            .levels
            .get(id)
            .expect("a test level")
            .level
            .clone()
    }

    /// The replay files the server wrote.
    pub fn replays(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.data.join("replays"))
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// A loopback address with a port nothing listens on (for a server started as its own
/// process).
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// `undercooked serve` as a process of its own on 127.0.0.1:`port`, on the levels in
/// `levels` (relative to the checkout) with its data in `data`, logging at `warn` to
/// `stderr`, with `env` added.
pub fn serve_child(
    port: u16,
    levels: &str,
    data: &std::path::Path,
    env: &[(&str, &std::path::Path)],
    stderr: std::process::Stdio,
) -> std::process::Child {
    let levels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(levels);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"));
    cmd.args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--levels"])
        .arg(levels)
        .arg("--data-dir")
        .arg(data)
        .env("UNDERCOOKED_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(stderr);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Waits (up to 15 s) until a server started as its own process answers HTTP at `addr`.
/// Taking a connection is not enough: the listener is bound before the database opens, and
/// the kernel accepts connections on it meanwhile.
pub async fn wait_up(addr: SocketAddr) {
    let start = std::time::Instant::now();
    while !answers(addr).await {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the server did not come up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `GET /healthz` at `addr` gets an HTTP answer within a second.
async fn answers(addr: SocketAddr) -> bool {
    let ask = async {
        let mut s = TcpStream::connect(addr).await.ok()?;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .await
            .ok()?;
        let mut head = [0u8; 12];
        s.read_exact(&mut head).await.ok()?;
        Some(head.starts_with(b"HTTP/1.1 "))
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(1), ask).await,
        Ok(Some(true))
    )
}

/// `GET /api/session` as the player holding `token`.
pub async fn session_of(addr: SocketAddr, token: &str) -> (u16, Value) {
    get_as(addr, "/api/session", token).await
}

/// `GET path` as the player holding `token` (`Authorization: Bearer`).
pub async fn get_as(addr: SocketAddr, path: &str, token: &str) -> (u16, Value) {
    let bearer = format!("Bearer {token}");
    http(addr, "GET", path, None, &[("Authorization", &bearer)]).await
}

/// One HTTP/1.1 request over a fresh TCP connection: (status, JSON body or the raw text).
/// A body goes as `application/json` unless `headers` name another Content-Type.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let s = TcpStream::connect(addr).await.unwrap();
    http_on(s, addr, method, path, body, headers).await
}

/// A TCP connection to `addr` from the loopback address `from` (any of 127.0.0.0/8 on
/// Linux), so a test can be several clients at once.
pub async fn tcp_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    socket.connect(addr).await.unwrap()
}

/// `http`, from the loopback address `from`.
pub async fn http_from(
    from: &str,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, Value) {
    let s = tcp_from(from, addr).await;
    http_on(s, addr, method, path, body, &[]).await
}

async fn http_on(
    mut s: TcpStream,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let body = body.unwrap_or("");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    // A body is JSON, as the API takes it, unless the caller says otherwise.
    if !body.is_empty()
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        req.push_str("Content-Type: application/json\r\n");
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    let status: u16 = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    let body = if text
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

pub async fn create_room(addr: SocketAddr, name: &str) -> (String, String) {
    let (status, v) = http(
        addr,
        "POST",
        "/api/rooms",
        Some(&json!({"name": name}).to_string()),
        &[],
    )
    .await;
    assert_eq!(status, 201, "{v}");
    (
        v["room_code"].as_str().unwrap().to_string(),
        v["you"]["token"].as_str().unwrap().to_string(),
    )
}

pub async fn join_room(addr: SocketAddr, code: &str, name: &str) -> (u16, Value) {
    http(
        addr,
        "POST",
        &format!("/api/rooms/{code}/join"),
        Some(&json!({"name": name}).to_string()),
        &[],
    )
    .await
}

pub enum Got {
    Frame(Value),
    Closed(Option<u16>),
}

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Everything received, in order.
    pub log: Vec<Value>,
    pub closed: Option<Option<u16>>,
}

impl Client {
    pub async fn connect(addr: SocketAddr, code: &str) -> Client {
        let (ws, _) = connect_async(format!("ws://{addr}/ws/{code}"))
            .await
            .expect("ws connect");
        Client {
            ws,
            log: Vec::new(),
            closed: None,
        }
    }

    /// A socket from the loopback address `from`; `Err` with the HTTP status when the
    /// upgrade is refused.
    pub async fn connect_from(from: &str, addr: SocketAddr, code: &str) -> Result<Client, u16> {
        Client::over(tcp_from(from, addr).await, addr, code).await
    }

    /// The upgrade of `/ws/{code}` on a connected `tcp`.
    async fn over(tcp: TcpStream, addr: SocketAddr, code: &str) -> Result<Client, u16> {
        match tokio_tungstenite::client_async(
            format!("ws://{addr}/ws/{code}"),
            MaybeTlsStream::Plain(tcp),
        )
        .await
        {
            Ok((ws, _)) => Ok(Client {
                ws,
                log: Vec::new(),
                closed: None,
            }),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
            Err(e) => panic!("ws connect: {e}"),
        }
    }

    /// A socket whose receive buffer is `bytes` (the kernel's floor applies), so that a
    /// client that stops reading fills it, and then the server's, within seconds.
    pub async fn connect_small(addr: SocketAddr, code: &str, bytes: u32) -> Client {
        let sock = tokio::net::TcpSocket::new_v4().expect("a socket");
        sock.set_recv_buffer_size(bytes).expect("SO_RCVBUF");
        let tcp = sock.connect(addr).await.expect("connect");
        Client::over(tcp, addr, code)
            .await
            .expect("the upgrade is accepted")
    }

    /// `hello` with `token` on a socket from `from`, through its `welcome` and `lobby`.
    pub async fn hello_from(from: &str, addr: SocketAddr, code: &str, token: &str) -> Client {
        let mut c = Client::connect_from(from, addr, code)
            .await
            .expect("the upgrade is accepted");
        c.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
            .await;
        c.expect("welcome").await;
        c.expect("lobby").await;
        c
    }

    pub async fn hello(addr: SocketAddr, code: &str, token: &str) -> Client {
        let mut c = Client::connect(addr, code).await;
        c.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
            .await;
        let w = c.expect("welcome").await;
        assert_eq!(w["room"], code);
        c.expect("lobby").await;
        c
    }

    pub async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::text(v.to_string()))
            .await
            .expect("send");
    }

    pub async fn send_raw(&mut self, m: Message) -> bool {
        self.ws.send(m).await.is_ok()
    }

    /// The next frame or the close, waiting at most `secs`.
    pub async fn next(&mut self, secs: f64) -> Option<Got> {
        loop {
            let m = tokio::time::timeout(Duration::from_secs_f64(secs), self.ws.next())
                .await
                .ok()?;
            match m {
                Some(Ok(Message::Text(t))) => {
                    let v: Value =
                        serde_json::from_str(t.as_str()).expect("server frames are JSON");
                    self.log.push(v.clone());
                    return Some(Got::Frame(v));
                }
                Some(Ok(Message::Close(f))) => {
                    let code = f.map(|f| u16::from(f.code));
                    self.closed = Some(code);
                    return Some(Got::Closed(code));
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => {
                    self.closed.get_or_insert(None);
                    return Some(Got::Closed(None));
                }
            }
        }
    }

    /// Waits (up to 10 s) for a frame of this type, skipping others.
    pub async fn expect(&mut self, ty: &str) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline
                .saturating_duration_since(tokio::time::Instant::now())
                .as_secs_f64();
            match self.next(left.max(0.01)).await {
                Some(Got::Frame(v)) if v["type"] == ty => return v,
                Some(Got::Frame(_)) => continue,
                Some(Got::Closed(c)) => panic!("closed ({c:?}) while waiting for {ty}"),
                None => panic!(
                    "timed out waiting for {ty}; got {:?}",
                    self.log.iter().rev().take(3).collect::<Vec<_>>()
                ),
            }
        }
    }

    /// Waits (up to 60 s) for a frame of any of these types, skipping others.
    pub async fn expect_any(&mut self, types: &[&str]) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline
                .saturating_duration_since(tokio::time::Instant::now())
                .as_secs_f64();
            match self.next(left.max(0.01)).await {
                Some(Got::Frame(v)) if types.iter().any(|t| v["type"] == *t) => return v,
                Some(Got::Frame(_)) => continue,
                Some(Got::Closed(c)) => panic!("closed ({c:?}) while waiting for {types:?}"),
                None => panic!("timed out waiting for {types:?}"),
            }
        }
    }

    /// Waits for the close and returns its code.
    pub async fn expect_close(&mut self, secs: f64) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(secs);
        loop {
            if let Some(c) = self.closed {
                return c;
            }
            let left = deadline
                .saturating_duration_since(tokio::time::Instant::now())
                .as_secs_f64();
            match self.next(left.max(0.01)).await {
                Some(Got::Closed(c)) => return c,
                Some(Got::Frame(_)) => continue,
                None => panic!("no close within {secs} s"),
            }
        }
    }
}

use undercooked::wire::messages::client::input_message;

/// Plays one seat with a bot from the frames the socket delivers, until the `round` frame.
pub async fn play(mut c: Client, seat: u8, level: undercooked::sim::Level) -> Client {
    let mut team = undercooked::bots::BotTeam::new(&level, 20, &[seat]);
    let mut merged: Option<Value> = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while tokio::time::Instant::now() < deadline {
        match c.next(5.0).await {
            Some(Got::Frame(v)) if v["type"] == "snap" => {
                undercooked::wire::merge::apply_frame(&mut merged, &v["raw"])
                    .expect("frames merge");
                let view = undercooked::wire::view::FrameView::from_json(merged.as_ref().unwrap())
                    .expect("a merged frame decodes");
                for i in team.decide(&view) {
                    c.send(input_message(&i)).await;
                }
            }
            Some(Got::Frame(v)) if v["type"] == "round" => return c,
            Some(Got::Frame(_)) => {}
            Some(Got::Closed(code)) => panic!("seat {seat} closed ({code:?})"),
            None => panic!("seat {seat}: no frame for 5 s"),
        }
    }
    panic!("seat {seat}: the round did not end in time");
}

/// How a seat's play stopped (`play_on`).
pub enum Stop {
    /// The `round` frame.
    Round(Value),
    /// The socket closed (the server died or handed over): its code, the last tick seen.
    Closed(Option<u16>, u32),
}

/// Plays a seat with a bot from the frames it receives until the `round` frame or a close
/// (a round that outlives its server is played across the gap this way).
pub async fn play_on(c: &mut Client, seat: u8, level: &undercooked::sim::Level) -> Stop {
    let mut team = undercooked::bots::BotTeam::new(level, 20, &[seat]);
    let mut merged: Option<Value> = None;
    let mut tick = 0;
    loop {
        match c.next(30.0).await {
            Some(Got::Frame(v)) if v["type"] == "snap" => {
                undercooked::wire::merge::apply_frame(&mut merged, &v["raw"])
                    .expect("frames merge");
                let m = merged.as_ref().expect("a merged frame");
                tick = m["t"].as_u64().unwrap_or(0) as u32;
                let view = undercooked::wire::view::FrameView::from_json(m)
                    .expect("a merged frame decodes");
                for i in team.decide(&view) {
                    c.send(input_message(&i)).await;
                }
            }
            Some(Got::Frame(v)) if v["type"] == "round" => return Stop::Round(v),
            Some(Got::Frame(_)) => {}
            Some(Got::Closed(code)) => return Stop::Closed(code, tick),
            None => panic!("seat {seat}: no frame for 30 s"),
        }
    }
}

/// A two-seat round of the quick level, played by bots to its end: its room code.
pub async fn played_round(server: &TestServer) -> String {
    let (code, _, _, a, b) = two_player_round(server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let (ta, tb) = (
        tokio::spawn(play(a, 0, level.clone())),
        tokio::spawn(play(b, 1, level)),
    );
    ta.await.unwrap();
    tb.await.unwrap();
    code
}

/// A room with two seats, the level picked, the guest ready, and the round started.
pub async fn two_player_round(
    server: &TestServer,
    level: &str,
) -> (String, String, String, Client, Client) {
    two_player_round_at(server.addr, level).await
}

/// `two_player_round` on the server at `addr` (one started as its own process, say).
pub async fn two_player_round_at(
    addr: SocketAddr,
    level: &str,
) -> (String, String, String, Client, Client) {
    let (code, host) = create_room(addr, "Ann").await;
    let (_, joined) = join_room(addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let mut a = Client::hello(addr, &code, &host).await;
    let mut b = Client::hello(addr, &code, &guest).await;
    start_round(&mut a, &mut [&mut b], level).await;
    (code, host, guest, a, b)
}

/// The host picks `level`, every guest says it is ready, and the host starts the round as
/// soon as the lobby says it can.
pub async fn start_round(host: &mut Client, guests: &mut [&mut Client], level: &str) {
    host.send(json!({"type": "set_level", "level": level}))
        .await;
    for g in guests.iter_mut() {
        g.send(json!({"type": "ready"})).await;
    }
    loop {
        if host.expect("lobby").await["can_start"] == true {
            break;
        }
    }
    host.send(json!({"type": "start"})).await;
}
