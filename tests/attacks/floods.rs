//! Floods of every kind of frame, and a client that never reads: given a room playing on
//! the server's only room thread (`UNDERCOOKED_WORKER_THREADS=1`), when a client in another
//! room on that thread floods it with every kind of frame it can send, or never reads, then
//! the victim's snaps keep coming (its largest gap stays under 100 ms), the victim is never
//! closed, and the server's memory stays bounded.
//!
//! The flooders are raw sockets on their own OS threads, writing pre-built masked frames as
//! fast as the kernel takes them and opening a new socket whenever the server closes one,
//! so the attack lasts its whole window.

use crate::server::{self, Client, Got};
use crate::{ONE, rss, snap_gaps, victim};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const TEXT: u8 = 0x1;
const CONTINUE: u8 = 0x0;
const PING: u8 = 0x9;
const PONG: u8 = 0xA;

/// How long each flood lasts.
const ATTACK: Duration = Duration::from_secs(3);

/// Flooders at once, each in a room of its own on the victim's thread.
const FLOODERS: usize = 4;

/// A client's frame, masked.
fn masked(opcode: u8, fin: bool, payload: &[u8]) -> Vec<u8> {
    let key = [0x5a, 0x13, 0xc4, 0x7e];
    let mut out = vec![opcode | if fin { 0x80 } else { 0 }];
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    out.extend_from_slice(&key);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

/// A WebSocket opened by hand on a blocking socket: the upgrade, then whatever it writes.
fn open(addr: SocketAddr, code: &str) -> std::io::Result<TcpStream> {
    let mut tcp = TcpStream::connect(addr)?;
    tcp.set_write_timeout(Some(Duration::from_millis(200)))?;
    tcp.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(
        tcp,
        "GET /ws/{code} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )?;
    let mut head = BufReader::new(tcp.try_clone()?);
    let mut line = String::new();
    head.read_line(&mut line)?;
    if !line.contains(" 101 ") {
        return Err(std::io::Error::other(format!("upgrade refused: {line}")));
    }
    while line != "\r\n" {
        line.clear();
        if head.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(tcp)
}

#[derive(Clone, Copy, Debug)]
enum Flood {
    /// Tiny text frames (`{}`: refused, each answered).
    TinyFrames,
    /// Pings with 125-byte payloads, the answers never read.
    Pings,
    /// Pongs nobody asked for.
    UnsolicitedPongs,
    /// A text frame that never ends: empty continuation frames.
    Continuations,
    /// A socket that never says `hello`, flooding pongs.
    NoHello,
}

impl Flood {
    /// The bytes written over and over, and whether a `hello` goes first.
    fn load(self) -> (Vec<u8>, bool) {
        let frame = match self {
            Flood::TinyFrames => masked(TEXT, true, b"{}"),
            Flood::Pings => masked(PING, true, &[7; 125]),
            Flood::UnsolicitedPongs | Flood::NoHello => masked(PONG, true, b""),
            Flood::Continuations => masked(CONTINUE, false, b""),
        };
        // About 64 KiB a write: as many frames as the kernel takes at once.
        let n = (64 * 1024 / frame.len()).max(1);
        (frame.repeat(n), !matches!(self, Flood::NoHello))
    }
}

/// Floods room `code` as `token` until `stop`, on its own thread: how many sockets it
/// opened.
fn flooder(
    addr: SocketAddr,
    code: String,
    token: String,
    kind: Flood,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let (load, says_hello) = kind.load();
        let hello = masked(
            TEXT,
            true,
            json!({"type": "hello", "p": 1, "token": token})
                .to_string()
                .as_bytes(),
        );
        let mut sockets = 0;
        while !stop.load(Ordering::Relaxed) {
            let Ok(mut tcp) = open(addr, &code) else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            sockets += 1;
            if says_hello && tcp.write_all(&hello).is_err() {
                continue;
            }
            if let Flood::Continuations = kind {
                let _ = tcp.write_all(&masked(TEXT, false, b"{"));
            }
            while !stop.load(Ordering::Relaxed) && tcp.write_all(&load).is_ok() {}
        }
        sockets
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_flood_of_any_kind_stalls_a_room_on_the_same_thread_or_grows_memory() {
    let _one = ONE.lock().await;
    let mut server = server::start_campaign(&[("UNDERCOOKED_WORKER_THREADS", "1")]).await;
    let mut me = victim(&server).await;
    let mut flood_rooms = Vec::new();
    for _ in 0..FLOODERS {
        flood_rooms.push(server::create_room(server.addr, "Flood").await);
    }
    // The victim's gaps without an attack, for the report.
    let (calm, _) = snap_gaps(&mut me, Duration::from_secs(1)).await;
    let before = rss();
    let peak = Arc::new(AtomicU64::new(before));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (peak.clone(), sampling.clone());
        std::thread::spawn(move || {
            while sampling.load(Ordering::Relaxed) {
                peak.fetch_max(rss(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    for kind in [
        Flood::TinyFrames,
        Flood::Pings,
        Flood::UnsolicitedPongs,
        Flood::Continuations,
        Flood::NoHello,
    ] {
        let abuse_before = server
            .shared
            .census
            .refusals()
            .get(&4404)
            .copied()
            .unwrap_or(0);
        let stop = Arc::new(AtomicBool::new(false));
        let floods: Vec<_> = flood_rooms
            .iter()
            .map(|(room, token)| {
                flooder(server.addr, room.clone(), token.clone(), kind, stop.clone())
            })
            .collect();
        let (worst, closed) = snap_gaps(&mut me, ATTACK).await;
        stop.store(true, Ordering::Relaxed);
        let sockets = tokio::task::spawn_blocking(move || {
            floods.into_iter().map(|f| f.join().unwrap()).sum::<u64>()
        })
        .await
        .unwrap();
        let abused = server
            .shared
            .census
            .refusals()
            .get(&4404)
            .copied()
            .unwrap_or(0)
            - abuse_before;
        eprintln!(
            "{kind:?}: victim's largest snap gap {worst:?} (calm: {calm:?}); {FLOODERS} flooders opened {sockets} sockets, {abused} closed 4404"
        );
        assert_eq!(closed, None, "{kind:?}: the victim was closed");
        assert!(
            worst < Duration::from_millis(100),
            "{kind:?}: a {worst:?} gap between snaps"
        );
        assert!(
            abused >= 1,
            "{kind:?}: the flooder was never closed for abuse"
        );
    }
    sampling.store(false, Ordering::Relaxed);
    sampler.join().unwrap();
    let grown = peak.load(Ordering::Relaxed).saturating_sub(before);
    eprintln!("resident memory grew by {} KiB at most", grown / 1024);
    assert!(grown < 64 << 20, "memory grew by {} MiB", grown >> 20);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_never_reads_and_pings_holds_one_pong_and_is_ended_by_the_12_s_rule() {
    let _one = ONE.lock().await;
    // The server's kernel send buffer small, so a client that reads nothing fills it fast.
    let env = [
        ("UNDERCOOKED_WORKER_THREADS", "1"),
        ("UNDERCOOKED_SOCKET_SEND_BUFFER", "4096"),
    ];
    let mut server = server::start_campaign(&env).await;
    let mut me = victim(&server).await;
    // The never-reader plays a solo room of its own, so snaps pile up for it too.
    let (_, solo) = server::http(
        server.addr,
        "POST",
        "/api/rooms/solo",
        Some(r#"{"name":"Deaf"}"#),
        &[],
    )
    .await;
    let code = solo["room_code"].as_str().unwrap().to_string();
    let token = solo["you"]["token"].as_str().unwrap().to_string();
    let mut deaf = Client::connect_small(server.addr, &code, 2048).await;
    deaf.send(json!({"type": "hello", "p": 1, "token": token}))
        .await;
    deaf.expect("welcome").await;
    deaf.send(json!({"type": "start"})).await;
    let before = rss();
    let started = Instant::now();
    // 30 pings of 125 bytes a second (under the 40-a-second rate), answers never read.
    let pinger = tokio::spawn(async move {
        let payload = vec![7u8; 125];
        while started.elapsed() < Duration::from_secs(25) {
            let ping = tokio_tungstenite::tungstenite::Message::Ping(payload.clone().into());
            if !deaf.send_raw(ping).await {
                break;
            }
            tokio::time::sleep(Duration::from_millis(33)).await;
        }
        started.elapsed()
    });
    let mut worst = Duration::ZERO;
    let mut ended = None;
    while started.elapsed() < Duration::from_secs(25) && ended.is_none() {
        let (gap, closed) = snap_gaps(&mut me, Duration::from_secs(1)).await;
        assert_eq!(closed, None, "the victim was closed");
        worst = worst.max(gap);
        if server.shared.census.sockets() == 1 {
            ended = Some(started.elapsed());
        }
    }
    let grown = rss().saturating_sub(before);
    let pinged_for = pinger.await.unwrap();
    eprintln!(
        "never-reader ended after {ended:?} (its pings failed after {pinged_for:?}); victim's largest gap {worst:?}; memory grew {} KiB",
        grown / 1024
    );
    let ended = ended.expect("the server ended the never-reading socket");
    assert!(
        (Duration::from_secs(10)..=Duration::from_secs(20)).contains(&ended),
        "ended {ended:?} after it stopped reading"
    );
    assert!(
        worst < Duration::from_millis(100),
        "a {worst:?} gap between snaps"
    );
    let queue = server.shared.census.send_queue_max.load(Ordering::Relaxed);
    assert!(
        queue <= undercooked::net::SEND_QUEUE as u64,
        "a send queue of {queue}"
    );
    assert!(grown < 32 << 20, "memory grew by {} MiB", grown >> 20);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_silent_after_hello_that_then_pings_is_judged_by_its_last_frame() {
    let _one = ONE.lock().await;
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Quiet").await;
    let mut c = Client::hello(server.addr, &code, &token).await;
    // Silent for 9 s after its hello, then a ping every half second up to 14 s: its window
    // runs from its last frame, so at 12 s it is not closed.
    tokio::time::sleep(Duration::from_secs(9)).await;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        c.send(json!({"type": "ping", "t": 1})).await;
        if let Some(Got::Closed(code)) = c.next(0.5).await {
            panic!("closed ({code:?}) while it pinged");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_closes_1007() {
    let _one = ONE.lock().await;
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::hello(server.addr, &code, &token).await;
    // A text frame whose bytes are not UTF-8 (the client library would refuse to send one).
    let frame = tokio_tungstenite::tungstenite::protocol::frame::Frame::message(
        vec![b'{', 0xff, 0xfe, b'}'],
        tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode::Data(
            tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Text,
        ),
        true,
    );
    c.send_raw(tokio_tungstenite::tungstenite::Message::Frame(frame))
        .await;
    assert_eq!(c.expect_close(5.0).await, Some(1007));
    server.stop().await;
}
