//! Every row of the protocol's refusal-close table, plus eviction, rejoin and abandon, the
//! heartbeat, and a panicking tick that takes down one room only.

use crate::server;

use serde_json::json;
use server::{Client, Got};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn an_unknown_room_is_room_gone_4401() {
    let mut server = server::start(&[]).await;
    let mut c = Client::connect(server.addr, "ZZZZZ").await;
    c.send(json!({"type": "hello", "p": 1})).await;
    assert_eq!(c.expect("err").await["code"], "room_gone");
    assert_eq!(c.expect_close(5.0).await, Some(4401));
    server.stop().await;
}

#[tokio::test]
async fn an_unsupported_protocol_is_refused_4400_before_anything_else() {
    let mut server = server::start(&[]).await;
    let (code, _) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::connect(server.addr, &code).await;
    c.send(json!({"type": "hello", "p": 99})).await;
    assert_eq!(c.expect("err").await["code"], "protocol_mismatch");
    assert_eq!(c.expect_close(5.0).await, Some(4400));
    assert!(!c.log.iter().any(|v| v["type"] == "welcome"));
    server.stop().await;
}

#[tokio::test]
async fn no_hello_within_the_handshake_window_is_4400() {
    let mut server = server::start(&[]).await;
    let (code, _) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::connect(server.addr, &code).await;
    assert_eq!(c.expect_close(8.0).await, Some(4400));
    server.stop().await;
}

#[tokio::test]
async fn a_full_room_refuses_a_fresh_token_4402_over_http_and_socket() {
    let mut server = server::start(&[("UNDERCOOKED_MAX_PLAYERS", "1")]).await;
    let (code, _) = server::create_room(server.addr, "Ann").await;
    let (status, body) = server::join_room(server.addr, &code, "Bob").await;
    assert_eq!((status, body["code"].as_str()), (409, Some("room_full")));
    let mut c = Client::connect(server.addr, &code).await;
    c.send(json!({"type": "hello", "p": 1, "token": "fresh-token"}))
        .await;
    assert_eq!(c.expect("err").await["code"], "room_full");
    assert_eq!(c.expect_close(5.0).await, Some(4402));
    let (status, _) = server::join_room(server.addr, "NOPE1", "Bob").await;
    assert_eq!(status, 404);
    server.stop().await;
}

#[tokio::test]
async fn a_second_socket_for_a_token_evicts_the_first_and_its_late_close_changes_nothing() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut first = Client::hello(server.addr, &code, &token).await;
    let mut second = Client::hello(server.addr, &code, &token).await;
    assert_eq!(first.expect("err").await["code"], "evicted");
    assert_eq!(first.expect_close(5.0).await, Some(4403));
    drop(first); // the late close of the replaced socket
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    second.send(json!({"type": "ready"})).await;
    let l = second.expect("lobby").await;
    assert_eq!(
        l["seats"][0]["connected"], true,
        "the seat kept its new connection: {l}"
    );
    server.stop().await;
}

#[tokio::test]
async fn three_64_kib_frames_close_4404_a_huge_one_1009_and_a_4kb_frame_is_admitted() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::hello(server.addr, &code, &token).await;
    // exactly at the limit: admitted (it is a well-formed ping padded with spaces)
    let mut at_limit = json!({"type": "ping", "t": 1}).to_string();
    at_limit.push_str(&" ".repeat(4096 - at_limit.len()));
    c.send_raw(Message::text(at_limit)).await;
    c.expect("pong").await;
    // 64 KiB, text or binary (the protocol's own test): read, too_big, three strikes
    let big = "x".repeat(64 * 1024);
    c.send_raw(Message::text(big.clone())).await;
    assert_eq!(c.expect("err").await["code"], "too_big");
    c.send_raw(Message::binary(big.clone().into_bytes())).await;
    assert_eq!(c.expect("err").await["code"], "too_big");
    c.send_raw(Message::text(big)).await;
    assert_eq!(c.expect_close(5.0).await, Some(4404));
    // far over it: the transport does not read it, the socket closes 1009
    let mut d = Client::hello(server.addr, &code, &token).await;
    d.send_raw(Message::text("x".repeat(1 << 20))).await;
    assert_eq!(d.expect_close(5.0).await, Some(1009));
    server.stop().await;
}

#[tokio::test]
async fn an_origin_outside_the_allow_list_is_refused_with_403_before_the_upgrade() {
    let mut server =
        server::start(&[("UNDERCOOKED_ALLOWED_ORIGINS", "https://good.example")]).await;
    let (code, _) = server::create_room(server.addr, "Ann").await;
    let headers = [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
        ("Origin", "https://evil.example"),
    ];
    let (status, _) =
        server::http(server.addr, "GET", &format!("/ws/{code}"), None, &headers).await;
    assert_eq!(status, 403);
    server.stop().await;
}

#[tokio::test]
async fn a_dropped_seat_rejoins_inside_the_grace_and_is_abandoned_after_it() {
    let mut server = server::start(&[
        ("UNDERCOOKED_GUEST_IDLE_TIMEOUT_S", "2"),
        ("UNDERCOOKED_TEST_MODE", "1"),
    ])
    .await;
    let addr = server.addr;
    let (code, host) = server::create_room(addr, "Ann").await;
    let (_, joined) = server::join_room(addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let mut a = Client::hello(addr, &code, &host).await;
    let b = Client::hello(addr, &code, &guest).await;
    // the test seam drops Bob's socket
    let (status, _) = server::http(
        addr,
        "POST",
        &format!("/api/test/kill_socket/{code}/{guest}"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200);
    drop(b);
    loop {
        let l = a.expect("lobby").await;
        if l["seats"][1]["connected"] == false {
            break;
        }
    }
    let mut b = Client::connect(addr, &code).await;
    b.send(json!({"type": "hello", "p": 1, "token": guest}))
        .await;
    let w = b.expect("welcome").await;
    assert_eq!(w["rejoined"], true);
    assert_eq!(w["you"]["seat"], 1);
    // now drop it for good: after the 2 s grace the seat is gone
    drop(b);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(8);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the seat was never abandoned"
        );
        let l = a.expect("lobby").await;
        if l["seats"].as_array().unwrap().len() == 1 {
            break;
        }
    }
    let (status, body) = server::http(
        addr,
        "POST",
        &format!("/api/test/kill_socket/{code}/nobody"),
        None,
        &[],
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("no_connection"))
    );
    server.stop().await;
}

#[tokio::test]
async fn the_test_seams_exist_only_in_test_mode() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let (status, _) = server::http(
        server.addr,
        "POST",
        &format!("/api/test/kill_socket/{code}/{token}"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}

#[tokio::test]
async fn a_panicking_tick_aborts_its_room_only() {
    let mut server = server::start(&[("UNDERCOOKED_TEST_MODE", "1")]).await;
    let addr = server.addr;
    let (doomed, t1) = server::create_room(addr, "Ann").await;
    let (fine, t2) = server::create_room(addr, "Bob").await;
    let mut a = Client::hello(addr, &doomed, &t1).await;
    let mut b = Client::hello(addr, &fine, &t2).await;
    for (c, _) in [(&mut a, 0), (&mut b, 1)] {
        c.send(json!({"type": "set_level", "level": "01_quick_soup"}))
            .await;
        c.expect("lobby").await;
        c.send(json!({"type": "start"})).await;
    }
    a.expect("snap").await;
    b.expect("snap").await;
    // An emote just before the panic: most often a record of the tick that panics.
    a.send(json!({"type": "emote", "id": "wave"})).await;
    let (status, _) = server::http(
        addr,
        "POST",
        &format!("/api/test/panic_tick/{doomed}"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(a.expect("err").await["code"], "internal");
    assert_eq!(a.expect_close(5.0).await, Some(4401));
    // the other room plays on
    for _ in 0..10 {
        b.expect("snap").await;
    }
    let (status, _) = server::http(addr, "GET", "/healthz", None, &[]).await;
    assert_eq!(status, 200);
    let stats = server::http(addr, "GET", "/api/stats", None, &[]).await.1;
    assert_eq!(stats["rounds_aborted"], 1);
    // the aborted round's replay is complete and verifies
    let replays = server.replays();
    let doomed_file = replays
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&doomed)
        })
        .unwrap();
    let verdict = undercooked::verify::replay_bytes(&std::fs::read(doomed_file).unwrap()).verdict;
    assert_eq!(verdict, undercooked::verify::Verdict::Identical);
    // and the database holds the aborted result
    server.shared.chain().unwrap().flushed().await;
    let result: Option<String> =
        sqlx::query_scalar("SELECT result FROM rounds WHERE room_code = ?")
            .bind(&doomed)
            .fetch_one(
                &server
                    .shared
                    .store()
                    .unwrap()
                    .sqlite()
                    .expect("a SQLite store"),
            )
            .await
            .unwrap();
    assert_eq!(result.as_deref(), Some("aborted"));
    server.stop().await;
}

#[tokio::test]
async fn shutdown_closes_sockets_1001_and_completes_the_round_as_aborted() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut a = Client::hello(server.addr, &code, &token).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    a.expect("lobby").await;
    a.send(json!({"type": "start"})).await;
    a.expect("snap").await;
    server.stop().await;
    assert_eq!(a.expect_close(5.0).await, Some(1001));
    let replays = server.replays();
    let rerun = undercooked::verify::replay_bytes(&std::fs::read(&replays[0]).unwrap());
    assert_eq!(rerun.verdict, undercooked::verify::Verdict::Identical);
    assert_eq!(
        rerun.fold.unwrap().ended(),
        Some(undercooked::sim::RoundResult::Aborted)
    );
}

#[tokio::test]
async fn a_silent_socket_is_closed_1000_after_the_heartbeat_window() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::hello(server.addr, &code, &token).await;
    let start = std::time::Instant::now();
    let got = loop {
        match c.next(20.0).await {
            Some(Got::Closed(code)) => break code,
            Some(Got::Frame(_)) => continue,
            None => panic!("no close after 20 s"),
        }
    };
    assert_eq!(got, Some(1000));
    assert!(start.elapsed().as_secs_f64() >= 11.0);
    server.stop().await;
}

#[tokio::test]
async fn a_locked_level_is_refused_and_a_guest_cannot_pick_one() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut a = Client::hello(server.addr, &code, &token).await;
    a.send(json!({"type": "set_level", "level": "02_slow_soup"}))
        .await;
    assert_eq!(a.expect("err").await["code"], "level_locked");
    a.send(json!({"type": "set_level", "level": "99_nowhere"}))
        .await;
    assert_eq!(a.expect("err").await["code"], "bad_field");
    server.stop().await;
}

/// A room created over HTTP that nobody connects to is given up within the unclaimed-seat
/// grace, not held like a room with people in it; a seat reserved for a guest who never
/// comes is given up then too, while a seat whose player came stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reservation_nobody_claims_is_given_up_after_the_unclaimed_seat_grace() {
    let server = server::start(&[("UNDERCOOKED_UNCLAIMED_SEAT_S", "2")]).await;
    let addr = server.addr;
    let (empty, _) = server::create_room(addr, "Nobody").await;
    let (code, host) = server::create_room(addr, "Ann").await;
    let (_, joined) = server::join_room(addr, &code, "Ghost").await;
    assert_eq!(joined["you"]["seat"], 1);
    let mut a = Client::hello(addr, &code, &host).await;
    let (status, _) = server::http(addr, "GET", &format!("/api/rooms/{empty}"), None, &[]).await;
    assert_eq!(status, 200, "the room is there at first");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(8);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ghost's seat was not given up"
        );
        let l = a.expect("lobby").await;
        let seats = l["seats"].as_array().unwrap();
        if seats.len() == 1 {
            assert_eq!(
                seats[0]["connected"], true,
                "the host who came keeps its seat"
            );
            break;
        }
    }
    let (status, body) = server::http(addr, "GET", &format!("/api/rooms/{empty}"), None, &[]).await;
    assert_eq!(status, 404, "the room nobody came to is gone: {body}");
}
