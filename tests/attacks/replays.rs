//! Downloads of a replay without end: given `undercooked serve` as a process of its own (its
//! own runtime and allocator, as deployed) with the golden rounds in its history and a
//! victim's solo room playing, when one address holds 60 keep-alive connections asking for
//! a long round's `.ucr` file (12 MiB) as fast as it is answered, for 60 s, then the server's resident
//! memory stays under 300 MiB, comes back to within 64 MiB of where it started once the
//! attack stops, the victim's snaps keep coming (largest gap under 100 ms), and another
//! address still gets the file.
//!
//! The attackers are blocking sockets on OS threads bound to 127.0.0.3; they read every
//! answer whole and ask again at once, ignoring any `Retry-After`.

use crate::server;
use crate::{ONE, snap_gaps, victim_at};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CONNECTIONS: usize = 60;
const ATTACK: Duration = Duration::from_secs(60);

/// A process's resident bytes, from /proc (0 once it is gone).
fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:"));
    let kb = line.and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
    kb.unwrap_or(0) * 1024
}

/// One keep-alive connection from 127.0.0.3 asking for `path` until `stop`: answers counted
/// by status (200 and everything else).
fn downloader(
    addr: SocketAddr,
    path: String,
    stop: Arc<AtomicBool>,
    counts: Arc<[AtomicU64; 2]>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        while !stop.load(Ordering::Relaxed) {
            let Ok(tcp) = connect_from("127.0.0.3", addr) else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            let _ = tcp.set_read_timeout(Some(Duration::from_secs(10)));
            let mut writer = tcp.try_clone().expect("a second handle on the socket");
            let mut reader = BufReader::new(tcp);
            while !stop.load(Ordering::Relaxed) {
                if writer.write_all(request.as_bytes()).is_err() {
                    break;
                }
                let Some((status, length, close)) = read_head(&mut reader) else {
                    break;
                };
                let mut body = (&mut reader).take(length);
                if std::io::copy(&mut body, &mut std::io::sink()).ok() != Some(length) {
                    break;
                }
                counts[usize::from(status != 200)].fetch_add(1, Ordering::Relaxed);
                if close {
                    break;
                }
            }
        }
    })
}

/// One `GET path` from 127.0.0.4, its body read and dropped: its status.
fn fetch_once(addr: SocketAddr, path: &str) -> Option<u16> {
    let mut tcp = connect_from("127.0.0.4", addr).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut reader = BufReader::new(tcp);
    let (status, length, _) = read_head(&mut reader)?;
    let read = std::io::copy(&mut (&mut reader).take(length), &mut std::io::sink()).ok()?;
    (read == length).then_some(status)
}

/// A blocking TCP connection to `addr` from the loopback address `from`.
fn connect_from(from: &str, addr: SocketAddr) -> std::io::Result<TcpStream> {
    // std cannot bind before connecting; tokio's socket can, then hands the stream over.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        let from = from.parse().map_err(std::io::Error::other)?;
        socket.bind(SocketAddr::new(from, 0))?;
        socket.connect(addr).await
    })?;
    let std = stream.into_std()?;
    std.set_nonblocking(false)?;
    Ok(std)
}

/// An answer's status, body length and whether the server closes after it.
fn read_head(r: &mut impl BufRead) -> Option<(u16, u64, bool)> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let status = line.split_whitespace().nth(1)?.parse().ok()?;
    let (mut length, mut close) = (0, false);
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim().to_ascii_lowercase();
        if l.is_empty() {
            return Some((status, length, close));
        }
        if let Some(n) = l.strip_prefix("content-length:") {
            length = n.trim().parse().ok()?;
        }
        close |= l == "connection: close";
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_downloads_from_one_address_neither_sink_the_memory_nor_stall_a_room() {
    let _one = ONE.lock().await;
    // The golden rounds, indexed into a fresh data folder's history.
    let data = std::env::temp_dir().join(format!("uc-replay-flood-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let imported = data.join("imported");
    std::fs::create_dir_all(&imported).unwrap();
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("replays");
    for f in undercooked::log::replay_files(&goldens).unwrap() {
        std::fs::copy(&f, imported.join(f.file_name().unwrap())).unwrap();
    }
    let indexed = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .arg("reindex")
        .arg("--data-dir")
        .arg(&data)
        .arg(&imported)
        .output()
        .unwrap();
    assert!(indexed.status.success(), "{indexed:?}");
    // The attacker asks for the longest round in the history: its file made 12 MiB, about
    // three quarters of an hour at the protocol's highest input rate (`log::file`'s figure).
    // `/file` sends the bytes as they are, so the padding changes nothing but the size.
    std::fs::OpenOptions::new()
        .write(true)
        .open(imported.join("04_kitchen_fire.ucr"))
        .and_then(|f| f.set_len(12 << 20))
        .unwrap();
    let addr = server::free_addr();
    let mut child = server::serve_child(
        addr.port(),
        "levels",
        &data,
        &[],
        std::process::Stdio::null(),
    );
    server::wait_up(addr).await;
    let (status, list) = server::http(addr, "GET", "/api/replays", None, &[]).await;
    assert_eq!(status, 200, "{list}");
    let round = list["replays"].as_array().unwrap().iter();
    let id = round
        .filter(|r| r["level_id"] == "04_kitchen_fire")
        .find_map(|r| r["id"].as_str().map(String::from))
        .expect("the golden round of level 4 is in the history");
    let path = format!("/api/replays/{id}/file");
    let (status, _) = server::http_from("127.0.0.4", addr, "GET", &path, None).await;
    assert_eq!(status, 200);
    let mut me = victim_at(addr).await;
    let (calm, _) = snap_gaps(&mut me, Duration::from_secs(1)).await;
    let before = rss_of(child.id());

    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(before));
    let sampler = {
        let (peak, stop, pid) = (peak.clone(), stop.clone(), child.id());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(rss_of(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let attackers: Vec<_> = (0..CONNECTIONS)
        .map(|_| downloader(addr, path.clone(), stop.clone(), counts.clone()))
        .collect();
    // Another address asks for the file every 5 s: it is answered, and soon.
    let neighbour = tokio::spawn({
        let path = path.clone();
        async move {
            let mut slowest = Duration::ZERO;
            let started = Instant::now();
            while started.elapsed() < ATTACK - Duration::from_secs(5) {
                tokio::time::sleep(Duration::from_secs(5)).await;
                let asked = Instant::now();
                // Read on a blocking thread and thrown away: 12 MiB parsed on this runtime
                // would stall the victim's reads here and show as a gap that is not the
                // server's.
                let path = path.clone();
                let status = tokio::task::spawn_blocking(move || fetch_once(addr, &path))
                    .await
                    .unwrap();
                assert_eq!(status, Some(200), "another address was refused the file");
                slowest = slowest.max(asked.elapsed());
            }
            slowest
        }
    });
    let (worst, closed) = snap_gaps(&mut me, ATTACK).await;
    stop.store(true, Ordering::Relaxed);
    tokio::task::spawn_blocking(move || {
        for a in attackers {
            a.join().unwrap();
        }
        sampler.join().unwrap();
    })
    .await
    .unwrap();
    let slowest = neighbour.await.unwrap();
    // Idle blocking threads end and freed memory goes back to the system.
    tokio::time::sleep(Duration::from_secs(15)).await;
    let after = rss_of(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
    let [before, peak, after] = [before, peak.load(Ordering::Relaxed), after].map(|b| b >> 20);
    let [served, refused] = [0, 1].map(|i| counts[i].load(Ordering::Relaxed));
    eprintln!(
        "{CONNECTIONS} downloaders: {served} files served, {refused} refusals; server RSS {before} MiB before, {peak} MiB at most, {after} MiB 15 s after; victim's largest snap gap {worst:?} (calm: {calm:?}); another address's slowest download {slowest:?}"
    );
    assert_eq!(closed, None, "the victim was closed");
    assert!(peak < 300, "the server grew to {peak} MiB");
    assert!(
        after < before + 64,
        "the server kept {after} MiB after the attack ({before} MiB before)"
    );
    assert!(
        worst < Duration::from_millis(100),
        "a {worst:?} gap between snaps"
    );
    assert!(
        slowest < Duration::from_secs(2),
        "another address waited {slowest:?}"
    );
}
