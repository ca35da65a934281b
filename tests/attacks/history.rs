//! The history routes hammered: given `undercooked serve` as a process of its own with the
//! golden rounds in its history and a victim's solo room playing, when one address sends 40
//! callers at `/api/history/…` for 20 s — leaderboards of every level, both orders and every
//! page (each a different question, so the answer cache is no help and churns), the
//! caller's rounds and plots under random tokens — never waiting for an answer before the
//! next question, then the address is held to its request budget (it is refused far more
//! than it is answered), the victim's snaps keep coming (largest gap under 100 ms), and
//! another address asking for a leaderboard once a second is answered every time, within
//! a second.

use crate::server;
use crate::{ONE, snap_gaps, victim_at};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CALLERS: usize = 40;
const ATTACK: Duration = Duration::from_secs(20);

/// One `GET path` from the loopback address `from` (with `auth` as a bearer token): its
/// status, or `None` when the connection was refused, cut or not answered in 5 s.
async fn get(from: &str, addr: SocketAddr, path: &str, auth: Option<&str>) -> Option<u16> {
    let ask = async {
        let socket = tokio::net::TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::new(from.parse().ok()?, 0)).ok()?;
        let mut s = socket.connect(addr).await.ok()?;
        let auth = auth.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.ok()?;
        let mut body = Vec::new();
        s.read_to_end(&mut body).await.ok()?;
        let head = String::from_utf8_lossy(&body[..body.len().min(32)]).to_string();
        head.split_whitespace().nth(1)?.parse().ok()
    };
    tokio::time::timeout(Duration::from_secs(5), ask)
        .await
        .ok()
        .flatten()
}

/// The attacker's `n`th question: a leaderboard page, or the caller's rounds or plot under
/// a token nobody has.
fn question(n: u64, levels: &[String]) -> (String, Option<String>) {
    let level = &levels[n as usize % levels.len()];
    let page = (n / 7) % 100;
    match n % 4 {
        0 => (
            format!("/api/history/levels/{level}?by=score&page={page}"),
            None,
        ),
        1 => (
            format!("/api/history/levels/{level}?by=time&page={page}"),
            None,
        ),
        2 => (
            format!("/api/history/me?page={page}"),
            Some(format!("{n:032x}")),
        ),
        _ => (
            format!("/api/history/me/levels/{level}"),
            Some(format!("{n:032x}")),
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_history_callers_from_one_address_leave_the_others_served() {
    let _one = ONE.lock().await;
    // The golden rounds, indexed into a fresh data folder's history.
    let data = std::env::temp_dir().join(format!("uc-history-flood-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let imported = data.join("imported");
    std::fs::create_dir_all(&imported).unwrap();
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("replays");
    let mut levels = Vec::new();
    for f in undercooked::log::replay_files(&goldens).unwrap() {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        levels.push(name.trim_end_matches(".ucr").to_string());
        std::fs::copy(&f, imported.join(&name)).unwrap();
    }
    let indexed = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .arg("reindex")
        .arg("--data-dir")
        .arg(&data)
        .arg(&imported)
        .output()
        .unwrap();
    assert!(indexed.status.success(), "{indexed:?}");
    let addr = server::free_addr();
    let mut child = server::serve_child(
        addr.port(),
        "levels",
        &data,
        &[],
        std::process::Stdio::null(),
    );
    server::wait_up(addr).await;
    let board = "/api/history/levels/01_first_kitchen?by=score&page=0";
    let (status, v) = server::http_from("127.0.0.4", addr, "GET", board, None).await;
    assert_eq!(status, 200, "{v}");
    assert!(!v["rounds"].as_array().unwrap().is_empty(), "{v}");
    let mut me = victim_at(addr).await;
    let (calm, _) = snap_gaps(&mut me, Duration::from_secs(1)).await;

    let stop = Arc::new(AtomicBool::new(false));
    // Answers by kind: 200, 429, 503, anything else, no answer.
    let counts: Arc<[AtomicU64; 5]> = Arc::new(Default::default());
    let next = Arc::new(AtomicU64::new(0));
    let levels = Arc::new(levels);
    let attackers: Vec<_> = (0..CALLERS)
        .map(|_| {
            let (stop, counts, next, levels) =
                (stop.clone(), counts.clone(), next.clone(), levels.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let (path, token) = question(n, &levels);
                    let kind = match get("127.0.0.3", addr, &path, token.as_deref()).await {
                        Some(200) => 0,
                        Some(429) => 1,
                        Some(503) => 2,
                        Some(_) => 3,
                        None => 4,
                    };
                    counts[kind].fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // Another address reads a leaderboard once a second: answered, and soon.
    let neighbour = tokio::spawn(async move {
        let (mut slowest, mut asked_n) = (Duration::ZERO, 0);
        let started = Instant::now();
        while started.elapsed() < ATTACK - Duration::from_secs(1) {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let page = format!("/api/history/levels/02_chop_and_salad?by=time&page={asked_n}");
            let asked = Instant::now();
            let status = get("127.0.0.4", addr, &page, None).await;
            assert_eq!(status, Some(200), "another address was refused {page}");
            slowest = slowest.max(asked.elapsed());
            asked_n += 1;
        }
        (slowest, asked_n)
    });
    let (worst, closed) = snap_gaps(&mut me, ATTACK).await;
    stop.store(true, Ordering::Relaxed);
    for a in attackers {
        a.await.unwrap();
    }
    let (slowest, asked) = neighbour.await.unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
    let [ok, limited, busy, other, none] =
        [0, 1, 2, 3, 4].map(|i| counts[i].load(Ordering::Relaxed));
    eprintln!(
        "{CALLERS} history callers for {ATTACK:?}: {ok} answered, {limited} refused 429, {busy} 503, {other} other, {none} unanswered; victim's largest snap gap {worst:?} (calm: {calm:?}); another address's {asked} leaderboards, the slowest {slowest:?}"
    );
    assert_eq!(closed, None, "the victim was closed");
    assert!(
        worst < Duration::from_millis(100),
        "a {worst:?} gap between snaps"
    );
    assert!(
        slowest < Duration::from_secs(1),
        "another address waited {slowest:?}"
    );
    // The address's budget (20 a second after a burst of 60) held: it got no more answers
    // than that allows, with room for the clock's edges.
    let allowed = 60 + 20 * ATTACK.as_secs() + 40;
    assert!(
        ok + busy + other <= allowed,
        "{ok} answered past the budget"
    );
    assert!(limited > ok, "the address was not held to its budget");
}
