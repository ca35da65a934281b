//! What the attack and fault tests of a cluster share: nodes as processes of their own (so
//! they can be killed, paused and drained), rounds kept playing on them, a keep-alive HTTP
//! caller that hammers one route, and looks into the directory from the side (the
//! database, as an operator's `psql` would).

use crate::server::{self, Client, Got};
use serde_json::json;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A node running as a process of its own on 127.0.0.1.
pub struct Node {
    pub addr: SocketAddr,
    pub child: Child,
    /// Where its log lines go (`UNDERCOOKED_LOG=info`).
    pub log: PathBuf,
}

impl Node {
    /// `undercooked serve` on a free port, on database `url` with the key file `key`, the
    /// campaign's levels (150 s rounds), its data in `dir/<name>`, `env` added; once it
    /// answers HTTP.
    pub async fn start(
        dir: &Path,
        name: &str,
        url: &str,
        key: &Path,
        env: &[(&str, &str)],
    ) -> Node {
        Node::start_on(server::free_addr(), dir, name, url, key, "levels", env).await
    }

    /// `start`, on `addr` (a restart keeps its address), with the levels in `levels` (a
    /// folder of the repository: `tests/fixtures/levels` has 40 s rounds).
    pub async fn start_on(
        addr: SocketAddr,
        dir: &Path,
        name: &str,
        url: &str,
        key: &Path,
        levels: &str,
        env: &[(&str, &str)],
    ) -> Node {
        let data = dir.join(name);
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("a log file");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"));
        cmd.args(["serve", "--bind", &addr.to_string(), "--levels"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(levels))
            .arg("--data-dir")
            .arg(&data)
            .env("UNDERCOOKED_LOG", "info")
            .env("UNDERCOOKED_LOG_FORMAT", "json")
            .env("UNDERCOOKED_DB", url)
            .env("UNDERCOOKED_SESSION_KEY_FILE", key)
            .env("UNDERCOOKED_NODE_ID", name)
            .stdout(Stdio::null())
            .stderr(Stdio::from(out));
        // The test's players share a few loopback addresses: roomy shares, as in-process.
        for (k, v) in server::ROOMY {
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("serve starts");
        server::wait_up(addr).await;
        Node { addr, child, log }
    }

    /// Sends the node `signal` (`STOP`, `CONT`, `TERM`, `KILL`).
    pub fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {}", self.child.id());
    }

    /// What the node has logged so far.
    pub fn logged(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A round playing on the node at `addr`, its host's socket kept alive (read, and a `ping`
/// every 2 s) until `stop` is set: the room's code and round's key are in the history.
pub struct Playing {
    pub code: String,
    pub stop: Arc<AtomicBool>,
    pub task: tokio::task::JoinHandle<Option<u16>>,
}

impl Playing {
    /// A room opened on `addr` by a host from `from` (a loopback address) and its round of
    /// level 1 started.
    pub async fn start(from: &str, addr: SocketAddr) -> Playing {
        let (status, v) = server::http_from(
            from,
            addr,
            "POST",
            "/api/rooms",
            Some(&json!({"name": "Host"}).to_string()),
        )
        .await;
        assert_eq!(status, 201, "a room opens: {v}");
        let code = v["room_code"].as_str().expect("a code").to_string();
        let token = v["you"]["token"].as_str().expect("a token").to_string();
        let mut host = Client::hello_from(from, addr, &code, &token).await;
        host.send(json!({"type": "set_level", "level": "01_first_kitchen"}))
            .await;
        host.send(json!({"type": "start"})).await;
        host.expect("countdown").await;
        let stop = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(keep_alive(host, stop.clone()));
        Playing { code, stop, task }
    }

    /// The close code the server sends within `wait` (the socket kept alive meanwhile), or
    /// `None` when it stays open that long.
    pub async fn end_within(self, wait: Duration) -> Option<u16> {
        let started = Instant::now();
        while started.elapsed() < wait && !self.task.is_finished() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.end().await
    }

    /// Stops keeping the socket; the close code if the server closed it meanwhile.
    pub async fn end(self) -> Option<u16> {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.expect("the keeper ends")
    }
}

async fn keep_alive(mut c: Client, stop: Arc<AtomicBool>) -> Option<u16> {
    let mut pinged = Instant::now();
    let mut t = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match c.next(0.2).await {
            Some(Got::Closed(code)) => return code,
            Some(Got::Frame(_)) => c.log.clear(),
            None => {}
        }
        if pinged.elapsed() > Duration::from_secs(2) {
            t += 1;
            c.send(json!({"type": "ping", "t": t})).await;
            pinged = Instant::now();
        }
    }
    None
}

/// What a keep-alive caller got: answers by status, and the calls that got none.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    pub by_status: std::collections::BTreeMap<u16, u64>,
    pub failed: u64,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        for (s, n) in &other.by_status {
            *self.by_status.entry(*s).or_default() += n;
        }
        self.failed += other.failed;
    }

    pub fn count(&self, status: u16) -> u64 {
        self.by_status.get(&status).copied().unwrap_or(0)
    }

    pub fn total(&self) -> u64 {
        self.by_status.values().sum::<u64>() + self.failed
    }
}

/// POSTs `body` to `path` on `addr` over one keep-alive connection from `from`, again and
/// again until `until` (a new connection when the server closes one), as fast as answers
/// come.
pub async fn hammer(
    from: String,
    addr: SocketAddr,
    path: String,
    body: String,
    until: Instant,
) -> Tally {
    let mut tally = Tally::default();
    let mut conn: Option<TcpStream> = None;
    while Instant::now() < until {
        let mut s = match conn.take() {
            Some(s) => s,
            None => match tokio::time::timeout(Duration::from_secs(2), connect_from(&from, addr))
                .await
            {
                Ok(Ok(s)) => s,
                _ => {
                    tally.failed += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let left = until.saturating_duration_since(Instant::now()) + Duration::from_secs(12);
        match tokio::time::timeout(left, exchange(&mut s, req.as_bytes())).await {
            Ok(Some((status, keep))) => {
                *tally.by_status.entry(status).or_default() += 1;
                if keep {
                    conn = Some(s);
                }
            }
            _ => tally.failed += 1,
        }
    }
    tally
}

async fn connect_from(from: &str, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from.parse().expect("an address"), 0))?;
    socket.connect(addr).await
}

/// One request on a keep-alive connection: its status, and whether the connection stays.
async fn exchange(s: &mut TcpStream, req: &[u8]) -> Option<(u16, bool)> {
    s.write_all(req).await.ok()?;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status: u16 = head.split_whitespace().nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let keep = !head.contains("connection: close");
    Some((status, keep))
}

/// One quick play from `from` through `addr` with a token of its own: (status, took).
pub async fn quick_play(from: &str, addr: SocketAddr, token: &str) -> (u16, Duration) {
    let t = Instant::now();
    let body = json!({"name": "Vic", "token": token}).to_string();
    let ask = server::http_from(from, addr, "POST", "/api/rooms/quick", Some(&body));
    match tokio::time::timeout(Duration::from_secs(30), ask).await {
        Ok((status, _)) => (status, t.elapsed()),
        Err(_) => (0, t.elapsed()),
    }
}

/// The p-quantile of `v` (sorted in place).
pub fn quantile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1]
}

/// What the directory and the history say, seen from the database.
pub struct Watch {
    pub pool: sqlx::PgPool,
}

impl Watch {
    pub async fn new(url: &str) -> Watch {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(3))
            .connect(url)
            .await
            .expect("connect");
        Watch { pool }
    }

    /// The least time left on any node's lease, in seconds (negative: lapsed).
    pub async fn least_lease_left(&self) -> Option<f64> {
        sqlx::query_scalar::<_, f64>(
            "SELECT EXTRACT(EPOCH FROM MIN(lease_until) - now())::FLOAT8 FROM nodes WHERE NOT draining",
        )
        .fetch_one(&self.pool)
        .await
        .ok()
    }

    /// Rooms the directory says are lost.
    pub async fn rooms_lost(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM rooms_live WHERE state = 'lost'")
            .fetch_one(&self.pool)
            .await
            .unwrap_or(-1)
    }

    /// Rounds the history says were aborted.
    pub async fn rounds_aborted(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM rounds WHERE result = 'aborted'")
            .fetch_one(&self.pool)
            .await
            .unwrap_or(-1)
    }

    /// The directory's row for room `code`: (node, state).
    pub async fn room(&self, code: &str) -> Option<(String, String)> {
        sqlx::query_as("SELECT node_id, state FROM rooms_live WHERE code = $1")
            .bind(code)
            .fetch_optional(&self.pool)
            .await
            .ok()
            .flatten()
    }
}
