//! The server's shared pools, each attacked by one address (or a few) beside a player who
//! must still be served, with every share and budget at its default (`server::SHARES`):
//! sockets that never say `hello` (a seated player reopening its socket is let in), rooms
//! opened by one token (others create, play solo and quick play; no quick player lands in
//! a squatter's room), and joins with random tokens (the database is asked about a token
//! only inside the address's request budget).

use crate::ONE;
use crate::server::{self, Client, SHARES};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A WebSocket upgrade of `/ws/{code}` from `from` that then says nothing: the stream while
/// the server holds it open (`None` when the upgrade was refused).
async fn silent_socket(from: &str, addr: SocketAddr, code: &str) -> Option<TcpStream> {
    let mut tcp = server::tcp_from(from, addr).await;
    let ask = format!(
        "GET /ws/{code} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(ask.as_bytes()).await.ok()?;
    let mut head = [0u8; 12];
    let read = tokio::time::timeout(Duration::from_secs(2), tcp.read_exact(&mut head)).await;
    (matches!(read, Ok(Ok(_))) && head.ends_with(b"101")).then_some(tcp)
}

/// The shares the attack tests run with are the server's defaults.
#[test]
fn the_attacks_run_at_the_default_shares() {
    let d = undercooked::shared::config::ServerConfig::default();
    let set = undercooked::shared::config::ServerConfig::from_settings(SHARES).unwrap();
    assert_eq!(
        (
            set.requests,
            set.upgrades,
            set.rooms_per_session,
            set.rooms_per_ip
        ),
        (d.requests, d.upgrades, d.rooms_per_session, d.rooms_per_ip)
    );
    assert_eq!(set.connections.pending_per_ip, d.connections.pending_per_ip);
}

/// Four addresses open sockets that never say `hello` as fast as they are let, each keeping
/// up to 64 open and opening another as soon as one is closed, for 20 s; meanwhile a seated
/// player reopens its socket to its own room once a second. At least 90 % of its reopenings
/// are let in (upgrade, `welcome`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_addresses_holding_silent_sockets_leave_a_seated_player_its_socket() {
    let _one = ONE.lock().await;
    let server = server::start(SHARES).await;
    let addr = server.addr;
    let (_, room) = server::http_from(
        "127.0.0.6",
        addr,
        "POST",
        "/api/rooms",
        Some(r#"{"name":"Sat"}"#),
    )
    .await;
    let code = room["room_code"].as_str().unwrap().to_string();
    let token = room["you"]["token"].as_str().unwrap().to_string();
    drop(Client::hello_from("127.0.0.6", addr, &code, &token).await);

    let stop = Instant::now() + Duration::from_secs(20);
    let opened = Arc::new(Mutex::new(0u64));
    let mut attackers = Vec::new();
    for from in ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"] {
        let (code, opened) = (code.clone(), opened.clone());
        attackers.push(tokio::spawn(async move {
            let mut held: Vec<(Instant, TcpStream)> = Vec::new();
            while Instant::now() < stop {
                // A socket the server closed at its hello window is replaced at once (the
                // window is at least 1 s).
                held.retain(|(at, _)| at.elapsed() < Duration::from_millis(900));
                if held.len() >= 64 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
                match silent_socket(from, addr, &code).await {
                    Some(s) => {
                        *opened.lock().unwrap() += 1;
                        held.push((Instant::now(), s));
                    }
                    None => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (mut tries, mut let_in) = (0, 0);
    while Instant::now() + Duration::from_secs(2) < stop {
        tries += 1;
        if let Ok(mut c) = Client::connect_from("127.0.0.6", addr, &code).await {
            c.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
                .await;
            if matches!(c.next(2.0).await, Some(server::Got::Frame(v)) if v["type"] == "welcome") {
                let_in += 1;
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    for a in attackers {
        a.await.unwrap();
    }
    let opened = *opened.lock().unwrap();
    eprintln!(
        "the seated player was let in {let_in} of {tries} times; the attackers opened {opened} silent sockets"
    );
    assert!(tries >= 10, "{tries} tries");
    assert!(
        let_in * 10 >= tries * 9,
        "the seated player was let in {let_in} of {tries} times"
    );
}

/// POST `path` from `from` with `body`: (status, answer).
async fn post(from: &str, addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    server::http_from(from, addr, "POST", path, Some(&body)).await
}

/// One address creates rooms with one token as fast as it is answered (four at a time) for
/// 12 s, while 45 other players (each from an address of its own) create a room, play solo
/// or quick play, one every 200 ms. At least 90 % of them are served, and no quick player is
/// seated in a room of the squatter's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_creating_rooms_leaves_the_others_their_rooms() {
    let _one = ONE.lock().await;
    let mut env = SHARES.to_vec();
    env.push(("UNDERCOOKED_MAX_ROOMS", "100"));
    let server = server::start(&env).await;
    let addr = server.addr;
    let (_, first) = post("127.0.0.2", addr, "/api/rooms", &json!({"name": "Sq"})).await;
    let token = first["you"]["token"].as_str().unwrap().to_string();
    let squatted = Arc::new(Mutex::new(BTreeSet::new()));
    squatted
        .lock()
        .unwrap()
        .insert(first["room_code"].as_str().unwrap().to_string());
    let stop = Instant::now() + Duration::from_secs(12);
    let mut squatters = Vec::new();
    for _ in 0..4 {
        let (token, squatted) = (token.clone(), squatted.clone());
        squatters.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            while Instant::now() < stop {
                let body = json!({"token": token});
                let (status, room) = post("127.0.0.2", addr, "/api/rooms", &body).await;
                if let Some(code) = room["room_code"].as_str() {
                    squatted.lock().unwrap().insert(code.to_string());
                }
                statuses.push(status);
            }
            statuses
        }));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut others = Vec::new();
    for i in 0..45u32 {
        let from = format!("127.0.1.{}", i + 1);
        let path = ["/api/rooms", "/api/rooms/solo", "/api/rooms/quick"][i as usize % 3];
        let body = json!({"name": format!("P{i}")});
        others.push(tokio::spawn(async move {
            let (status, answer) = post(&from, addr, path, &body).await;
            (path, status, answer)
        }));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut served = 0;
    let mut quick_rooms = Vec::new();
    let mut refused = Vec::new();
    for o in others {
        let (path, status, answer) = o.await.unwrap();
        if status == 200 || status == 201 {
            served += 1;
            if path.ends_with("quick") {
                quick_rooms.push(answer["room_code"].as_str().unwrap().to_string());
            }
        } else {
            refused.push((path, status, answer));
        }
    }
    let mut squatter = BTreeSet::new();
    for s in squatters {
        squatter.extend(s.await.unwrap());
    }
    let squatted = squatted.lock().unwrap().clone();
    eprintln!(
        "others served {served} of 45; the squatter held {} rooms in all, answered {squatter:?}",
        squatted.len()
    );
    assert!(served >= 41, "others served {served} of 45: {refused:?}");
    let landed: Vec<&String> = quick_rooms
        .iter()
        .filter(|c| squatted.contains(*c))
        .collect();
    assert!(
        landed.is_empty(),
        "quick players seated in the squatter's rooms: {landed:?}"
    );
}

/// The server's count of tokens looked up in the database.
async fn lookups(addr: SocketAddr) -> f64 {
    let (status, body) = server::http_from("127.0.0.7", addr, "GET", "/metrics", None).await;
    assert_eq!(status, 200);
    let text = body.as_str().unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("undercooked_session_lookups_total "))
        .expect("the session lookups are counted");
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// One address joins a room with a fresh random token as fast as it is answered (eight at
/// a time) for 5 s: the database is asked about at most the tokens its request budget lets
/// through (a burst of 60, then 20 a second), and a player from another address is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_flood_with_random_tokens_is_not_looked_up_past_its_budget() {
    let _one = ONE.lock().await;
    let server = server::start(SHARES).await;
    let addr = server.addr;
    let (code, _) = server::create_room(addr, "Host").await;
    let before = lookups(addr).await;
    let stop = Instant::now() + Duration::from_secs(5);
    let mut flooders = Vec::new();
    for f in 0..8u64 {
        let code = code.clone();
        flooders.push(tokio::spawn(async move {
            let (mut asked, mut limited) = (0u64, 0u64);
            while Instant::now() < stop {
                let token = format!(
                    "{:032x}",
                    (f << 48) ^ asked.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                );
                let path = format!("/api/rooms/{code}/join");
                let (status, _) = post("127.0.0.2", addr, &path, &json!({"token": token})).await;
                asked += 1;
                limited += (status == 429) as u64;
            }
            (asked, limited)
        }));
    }
    let mut asked = 0;
    let mut limited = 0;
    for f in flooders {
        let (a, l) = f.await.unwrap();
        asked += a;
        limited += l;
    }
    let looked_up = lookups(addr).await - before;
    // (The flood's first new sessions took the room's seats, as any player may.)
    let (status, opened) = post("127.0.0.8", addr, "/api/rooms", &json!({"name": "Ann"})).await;
    eprintln!(
        "{asked} joins with random tokens, {limited} answered 429; {looked_up} tokens looked up in the database"
    );
    assert_eq!(status, 201, "another address still opens a room: {opened}");
    assert!(asked > 500, "the flood asked {asked} times");
    assert!(
        looked_up <= 60.0 + 20.0 * 6.0,
        "{looked_up} tokens looked up in the database for {asked} joins"
    );
}
