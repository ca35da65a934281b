//! Connection limits, tried as an attacker would on loopback: silent and slow connections
//! end at the header window, one address is held to its cap while other players play, at
//! the global cap only health checks and returning players get the reserve, and sockets that
//! have not said hello are capped. (Several clients at once: Linux routes all of
//! 127.0.0.0/8 to loopback, so each "address" here is a different 127.0.0.x.)

use crate::server;

use serde_json::json;
use server::{Client, TestServer, create_room, http, http_from, played_round, start, tcp_from};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use undercooked::shared::admission::Refused;

/// Reads until the server closes the connection (or `secs` pass: `None`).
async fn closed_within(mut s: impl AsyncReadExt + Unpin, secs: u64) -> Option<String> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(secs), async {
        let mut buf = [0u8; 1024];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|_| String::from_utf8_lossy(&got).into_owned())
}

/// Waits (up to 10 s) until `cond` holds of the server.
async fn until(s: &TestServer, what: &str, cond: impl Fn(&TestServer) -> bool) {
    let start = Instant::now();
    while !cond(s) {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// This test process may hold `n` descriptors (its soft limit raised toward the hard one:
/// a machine whose default is 1024 would otherwise run out of client sockets, not the
/// server of permits).
fn descriptors_for(n: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|c| c < n) {
        limit.current = Some(limit.maximum.map_or(n, |m| m.min(n)));
        let _ = setrlimit(Resource::Nofile, limit);
    }
    let now = getrlimit(Resource::Nofile).current;
    assert!(
        now.is_none_or(|c| c >= n),
        "this test needs {n} descriptors; the limit is {now:?}"
    );
}

fn refused(s: &TestServer, why: Refused) -> u64 {
    s.shared.admission.refusals()[why as usize].1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_a_trickled_header_and_an_idle_keep_alive_are_closed() {
    // Given a server whose connections have 1 s to send a request's head,
    let s = start(&[("UNDERCOOKED_HEADER_TIMEOUT_S", "1")]).await;

    // when one connection says nothing,
    let silent = TcpStream::connect(s.addr).await.unwrap();
    // one sends its headers a byte every 100 ms (slowloris),
    let (slow_read, mut slow_write) = TcpStream::connect(s.addr).await.unwrap().into_split();
    let trickle = tokio::spawn(async move {
        let head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        for b in head {
            if slow_write.write_all(&[*b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    // and one asks once and then idles on its keep-alive,
    let mut idle = TcpStream::connect(s.addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();

    // then the server closes each of them by itself,
    let silent = closed_within(silent, 8).await;
    assert_eq!(silent.as_deref(), Some(""), "a silent connection is closed");
    let slow = closed_within(slow_read, 8).await;
    let slow = slow.expect("a trickled header is cut off at the window");
    assert!(
        !slow.contains(" 200 "),
        "no answer to a header never finished: {slow}"
    );
    trickle.abort();
    let idle = closed_within(idle, 8)
        .await
        .expect("an idle keep-alive is closed");
    assert!(
        idle.starts_with("HTTP/1.1 200"),
        "its one request was answered: {idle}"
    );

    // while a client that asks in time is answered as ever.
    assert_eq!(http(s.addr, "GET", "/healthz", None, &[]).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_idle_connections_from_one_address_are_held_to_its_cap_while_others_play() {
    // Given a server with the default 64 connections per address (and a header window
    // longer than the test, so the idle connections stay),
    let s = start(&[("UNDERCOOKED_HEADER_TIMEOUT_S", "120")]).await;
    descriptors_for(2500);
    let cap = s.shared.config.connections.per_ip;
    assert_eq!(cap, 64, "the documented default");

    // when one address opens 1,000 connections and says nothing,
    let mut flood = Vec::new();
    for _ in 0..1000 {
        flood.push(tcp_from("127.0.0.2", s.addr).await);
    }
    until(&s, "every flood connection taken or refused", |s| {
        refused(s, Refused::PerAddress) == 1000 - cap as u64
    })
    .await;

    // then it holds exactly its cap, the rest were told why,
    assert_eq!(s.shared.admission.open(), cap);
    let told = closed_within(flood.pop().unwrap(), 5).await.unwrap();
    assert!(told.starts_with("HTTP/1.1 503"), "{told}");
    assert!(
        told.contains("your address holds all the connections"),
        "{told}"
    );

    // and another address still creates a room, joins it and plays a round to its end,
    let code = played_round(&s).await;
    let (status, room) = http(s.addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(room["state"], "round_end", "{room}");
    // with the flood's connections still held, and counted where an operator looks.
    let (_, stats) = http(s.addr, "GET", "/api/stats", None, &[]).await;
    assert_eq!(stats["connections"]["refused"]["per_address"], 1000 - cap);
    assert!(stats["connections"]["open"].as_u64().unwrap() >= cap as u64);
    drop(flood);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_health_checks_and_returning_players_get_the_reserve_and_nobody_else() {
    // Given a server holding 40 connections, 4 of them kept in reserve, and no
    // per-address cap in the way,
    let s = start(&[
        ("UNDERCOOKED_MAX_CONNECTIONS", "40"),
        ("UNDERCOOKED_CONNECTION_RESERVE", "4"),
        ("UNDERCOOKED_MAX_CONNECTIONS_PER_IP", "1000"),
        ("UNDERCOOKED_HEADER_TIMEOUT_S", "120"),
    ])
    .await;
    // and a player seated before it fills,
    let (code, token) = create_room(s.addr, "Ann").await;
    let mut ann = Client::hello(s.addr, &code, &token).await;
    until(&s, "only the player's socket held", |s| {
        s.shared.admission.open() == 1
    })
    .await;

    // when one address opens 100 idle connections,
    let mut flood = Vec::new();
    for _ in 0..100 {
        flood.push(tcp_from("127.0.0.2", s.addr).await);
    }
    until(&s, "the flood taken or refused", |s| {
        refused(s, Refused::Full) == 100 - 35
    })
    .await;
    // it gets every permit but the reserve (the player's socket holds one),
    assert_eq!(s.shared.admission.open(), 36);

    // the seated player keeps playing,
    ann.send(json!({"type": "ping", "t": 1})).await;
    ann.expect("pong").await;
    // a health check is answered from the reserve,
    let (status, health) = http_from("127.0.0.3", s.addr, "GET", "/healthz", None).await;
    assert_eq!(status, 200, "{health}");
    // but nothing else is: a new room is refused, saying why,
    let body = json!({"name": "Bea"}).to_string();
    let (status, busy) = http_from("127.0.0.3", s.addr, "POST", "/api/rooms", Some(&body)).await;
    assert_eq!(status, 503, "{busy}");
    assert_eq!(busy["code"], "busy");
    assert!(
        busy["msg"].as_str().unwrap().contains("connection limit"),
        "{busy}"
    );
    // and a reserve connection gets one answer, even a refusal, then is closed (it cannot
    // hold its permit by asking again and again);
    let mut again = tcp_from("127.0.0.3", s.addr).await;
    let ask = b"GET /api/levels HTTP/1.1\r\nHost: x\r\n\r\n";
    again.write_all(ask).await.unwrap();
    let mut first = [0u8; 512];
    let n = again.read(&mut first).await.unwrap();
    assert!(first[..n].starts_with(b"HTTP/1.1 503"));
    let _ = again.write_all(ask).await; // asked again on the same connection
    let rest = closed_within(again, 5)
        .await
        .expect("the connection is closed");
    assert!(
        !rest.contains("HTTP/1.1"),
        "a second answer on a reserve permit: {rest}"
    );
    // and so is a newcomer's socket, with room_full;
    let mut stranger = Client::connect_from("127.0.0.4", s.addr, &code)
        .await
        .unwrap();
    stranger
        .send(json!({"type": "hello", "p": 1, "token": "a-fresh-token", "name": "Cy"}))
        .await;
    let err = stranger.expect("err").await;
    assert_eq!(err["code"], "room_full", "{err}");
    assert_eq!(stranger.expect_close(5.0).await, Some(4402));

    // The player's connection drops and the flood takes its permit;
    drop(ann);
    until(&s, "the dropped socket's permit given back", |s| {
        s.shared.admission.open() == 35
    })
    .await;
    flood.push(tcp_from("127.0.0.2", s.addr).await);
    until(&s, "the flood holding every permit but the reserve", |s| {
        s.shared.admission.open() == 36
    })
    .await;
    // the player comes back to its seat through the reserve.
    let ann = Client::hello_from("127.0.0.1", s.addr, &code, &token).await;
    assert_eq!(ann.log[0]["you"]["seat"], 0, "{:?}", ann.log[0]);

    // Once the flood ends, anyone gets in again.
    drop(flood);
    until(&s, "the flood's permits given back", |s| {
        s.shared.admission.open() <= 2
    })
    .await;
    create_room(s.addr, "Bea").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_that_have_not_said_hello_are_capped() {
    // Given a server that lets 3 sockets wait for their hello at once,
    let s = start(&[("UNDERCOOKED_MAX_PENDING_SOCKETS", "3")]).await;
    let (code, token) = create_room(s.addr, "Ann").await;
    let mut quiet = Vec::new();
    for _ in 0..3 {
        quiet.push(
            Client::connect_from("127.0.0.1", s.addr, &code)
                .await
                .unwrap(),
        );
    }
    // when a fourth opens, it is refused before the upgrade;
    let refused_now = Client::connect_from("127.0.0.1", s.addr, &code).await;
    assert_eq!(refused_now.err(), Some(503));
    assert_eq!(refused(&s, Refused::PendingSockets), 1);

    // once one of them says hello, there is room for the next.
    quiet[0]
        .send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
        .await;
    quiet[0].expect("welcome").await;
    assert!(
        Client::connect_from("127.0.0.1", s.addr, &code)
            .await
            .is_ok()
    );
}
