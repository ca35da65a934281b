//! The guardrails over real sockets: malformed floods, bursts, verb floods, strict parsing,
//! the input rules, and many handshakes at once.

use crate::server;

use serde_json::json;
use server::{Client, Got};
use tokio_tungstenite::tungstenite::Message;

async fn playing_room(server: &server::TestServer) -> (String, Client) {
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut a = Client::hello(server.addr, &code, &token).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    a.expect("lobby").await;
    a.send(json!({"type": "start"})).await;
    a.expect("snap").await;
    (code, a)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_malformed_frames_close_4404_and_nobody_else_notices() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut bystander = Client::hello(server.addr, &code, &token).await;
    let (other_code, other_token) = server::create_room(server.addr, "Bob").await;
    let mut abuser = Client::hello(server.addr, &other_code, &other_token).await;
    for i in 0..2000 {
        if !abuser
            .send_raw(Message::text(format!("{{not json {i}")))
            .await
        {
            break; // the server closed on us
        }
    }
    assert_eq!(abuser.expect_close(10.0).await, Some(4404));
    assert!(
        abuser.log.iter().any(|v| v["code"] == "bad_json"),
        "shape errors are answered"
    );
    assert!(
        abuser.log.iter().any(|v| v["code"] == "rate_limited"),
        "the bucket ran dry"
    );
    bystander.send(json!({"type": "ping", "t": 5})).await;
    assert_eq!(bystander.expect("pong").await["t"], 5);
    assert_eq!(
        server::http(server.addr, "GET", "/healthz", None, &[])
            .await
            .0,
        200
    );
    let stats = server::http(server.addr, "GET", "/api/stats", None, &[])
        .await
        .1;
    assert!(stats["refusals"]["4404"].as_u64().unwrap() >= 1, "{stats}");
    server.stop().await;
}

#[tokio::test]
async fn a_500_message_burst_is_rate_limited_then_closed_and_the_send_queue_stays_bounded() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut c = Client::hello(server.addr, &code, &token).await;
    for t in 0..500 {
        if !c
            .send_raw(Message::text(json!({"type": "ping", "t": t}).to_string()))
            .await
        {
            break;
        }
    }
    assert_eq!(c.expect_close(10.0).await, Some(4404));
    let pongs = c.log.iter().filter(|v| v["type"] == "pong").count();
    assert!(
        (30..=120).contains(&pongs),
        "about one bucket of pongs (40, plus what refills while the burst is read), got {pongs}"
    );
    assert!(c.log.iter().any(|v| v["code"] == "rate_limited"));
    let stats = server::http(server.addr, "GET", "/api/stats", None, &[])
        .await
        .1;
    assert!(stats["send_queue_max"].as_u64().unwrap() <= 4 * undercooked::net::SEND_QUEUE as u64);
    server.stop().await;
}

#[tokio::test]
async fn start_set_level_and_emote_floods_hold_the_host_check_and_the_emote_throttle() {
    let mut server = server::start(&[]).await;
    let (code, host) = server::create_room(server.addr, "Ann").await;
    let (_, joined) = server::join_room(server.addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let mut a = Client::hello(server.addr, &code, &host).await;
    let mut b = Client::hello(server.addr, &code, &guest).await;
    for _ in 0..10 {
        b.send(json!({"type": "start"})).await;
        b.send(json!({"type": "set_level", "level": "01_quick_soup"}))
            .await;
    }
    for _ in 0..10 {
        b.send(json!({"type": "emote", "id": "wave"})).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    while let Some(Got::Frame(_)) = b.next(0.3).await {}
    let not_host = b.log.iter().filter(|v| v["code"] == "not_host").count();
    assert_eq!(
        not_host, 20,
        "every start and set_level from a guest is refused"
    );
    let throttled = b.log.iter().filter(|v| v["code"] == "rate_limited").count();
    // 2 a second pass; on a loaded machine the ten may straddle a second, letting 2 more by
    assert!(
        (6..=8).contains(&throttled),
        "2 emotes a second pass, the rest are throttled: {throttled}"
    );
    while let Some(Got::Frame(_)) = a.next(0.3).await {}
    let emotes: usize = a
        .log
        .iter()
        .filter(|v| v["type"] == "ev")
        .map(|v| {
            v["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["kind"] == "emote")
                .count()
        })
        .sum();
    assert_eq!(
        emotes,
        10 - throttled,
        "the lobby emotes that passed are re-broadcast as ev events"
    );
    assert_eq!(
        a.log.iter().rfind(|v| v["type"] == "lobby").unwrap()["level"],
        serde_json::Value::Null
    );
    server.stop().await;
}

/// Given a client that sends a dozen room messages right behind its hello, without waiting
/// for its welcome, when the room takes the socket's reading over partway through (the
/// first are read by the socket's task and go through the mailbox, the rest the room reads
/// itself), then the room answers them in the order they were sent.
#[tokio::test]
async fn messages_right_behind_a_hello_are_handled_in_the_order_they_were_sent() {
    let mut server = server::start(&[]).await;
    for gap_ms in [0u64, 2, 5] {
        let (code, token) = server::create_room(server.addr, "Ann").await;
        let mut a = Client::connect(server.addr, &code).await;
        a.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
            .await;
        for i in 0..12 {
            // Each is refused with an `err` that names the level it asked for.
            a.send(json!({"type": "set_level", "level": format!("nowhere_{i}")}))
                .await;
            tokio::time::sleep(std::time::Duration::from_millis(gap_ms)).await;
        }
        let mut named = Vec::new();
        while named.len() < 12 {
            let err = a.expect("err").await;
            let msg = err["msg"].as_str().unwrap_or_default().to_string();
            let i = (0..12).find(|i| msg.contains(&format!("\"nowhere_{i}\"")));
            named.push(i.unwrap_or_else(|| panic!("an err for no level sent: {err}")));
        }
        assert_eq!(named, (0..12).collect::<Vec<_>>(), "gap {gap_ms} ms");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_second_hello_on_a_socket_is_wrong_state_and_mints_nothing() {
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ann").await;
    let mut a = Client::hello(server.addr, &code, &token).await;
    a.send(json!({"type": "hello", "p": 1, "token": null, "name": null}))
        .await;
    let err = a.expect("err").await;
    assert_eq!(err["code"], "wrong_state", "{err}");
    assert!(
        a.log.iter().filter(|m| m["type"] == "welcome").count() == 1,
        "no second welcome with a fresh token: {:?}",
        a.log
    );
    // The socket stays in its seat.
    a.send(json!({"type": "ready"})).await;
    let lobby = a.expect("lobby").await;
    assert_eq!(lobby["seats"][0]["ready"], true, "{lobby}");
    server.stop().await;
}

#[tokio::test]
async fn duplicate_keys_unknown_fields_and_positions_are_bad_fields() {
    let mut server = server::start(&[]).await;
    let (_, mut a) = playing_room(&server).await;
    a.send_raw(Message::text(r#"{"type":"ping","t":1,"t":2}"#))
        .await;
    assert_eq!(a.expect("err").await["code"], "bad_field");
    let with_pos = json!({"type": "input", "seq": 1, "move": {"x": 0, "y": 0}, "act": false, "face": null, "pos": {"x": 3, "y": 3}});
    a.send(with_pos).await;
    let e = a.expect("err").await;
    assert_eq!(
        (e["code"].as_str(), e["seq"].as_u64()),
        (Some("bad_field"), Some(1))
    );
    a.send(
        json!({"type": "input", "seq": 2, "move": {"x": 3, "y": 0}, "act": false, "face": null}),
    )
    .await;
    assert_eq!(a.expect("err").await["code"], "bad_field");
    a.send(json!({"type": "fly"})).await;
    assert_eq!(a.expect("err").await["code"], "unknown_type");
    a.send(json!({"type": "ready"})).await;
    assert_eq!(a.expect("err").await["code"], "wrong_state");
    server.stop().await;
}

#[tokio::test]
async fn the_seq_discipline_drops_resends_resyncs_replays_and_counts_gaps() {
    let mut server = server::start(&[]).await;
    let (_, mut a) = playing_room(&server).await;
    let input = |seq: u64| json!({"type": "input", "seq": seq, "move": {"x": 0.5, "y": 0}, "act": false, "face": null});
    a.send(input(5)).await; // a gap of 5 from 0: accepted, counted
    a.send(input(5)).await; // an idempotent resend: silent
    a.send(input(3)).await; // a replay: bad_field with its seq, and a resync event
    let e = a.expect("err").await;
    assert_eq!(
        (e["code"].as_str(), e["seq"].as_u64()),
        (Some("bad_field"), Some(3))
    );
    let mut resync = None;
    for _ in 0..20 {
        let s = a.expect("snap").await;
        if let Some(ev) = s["raw"]["e"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["k"] == "resync")
        {
            resync = Some(ev.clone());
            break;
        }
    }
    let resync = resync.expect("a resync event rides the snap");
    assert_eq!(
        (resync["i"].as_str(), resync["seq"].as_u64()),
        (Some("c0"), Some(5))
    );
    let stats = server::http(server.addr, "GET", "/api/stats", None, &[])
        .await
        .1;
    assert_eq!(stats["stale_seqs"], 1);
    assert_eq!(stats["input_gaps"], 1);
    assert_eq!(stats["inputs_received"], 1);
    assert_eq!(
        a.log.iter().filter(|v| v["type"] == "err").count(),
        1,
        "the resend was silent"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_handshakes_all_get_their_welcome() {
    // Every client here is 127.0.0.1: the per-address caps on connections and new sessions
    // are lifted (tests/live/limits.rs and tests/live/sessions.rs try them).
    let mut server = server::start(&[
        ("UNDERCOOKED_MAX_INPUTS_PER_S", "100"),
        ("UNDERCOOKED_MAX_CONNECTIONS_PER_IP", "1000"),
        ("UNDERCOOKED_NEW_SESSIONS_PER_MIN", "100000"),
    ])
    .await;
    let addr = server.addr;
    let mut codes = Vec::new();
    for i in 0..50 {
        codes.push(server::create_room(addr, &format!("host{i}")).await);
    }
    let mut tasks = Vec::new();
    for i in 0..200 {
        let (code, host) = codes[i / 4].clone();
        tasks.push(tokio::spawn(async move {
            let mut c = Client::connect(addr, &code).await;
            let token = if i % 4 == 0 {
                host
            } else {
                format!("guest-{i}")
            };
            c.send(json!({"type": "hello", "p": 1, "token": token}))
                .await;
            c.expect("welcome").await["you"]["seat"].as_u64()
        }));
    }
    let mut seated = 0;
    for t in tasks {
        if t.await.unwrap().is_some() {
            seated += 1;
        }
    }
    assert_eq!(seated, 200);
    let stats = server::http(addr, "GET", "/api/stats", None, &[]).await.1;
    assert_eq!(stats["rooms"]["lobby"], 50);
    server.stop().await;
}

#[tokio::test]
async fn http_bodies_are_parsed_strictly_and_never_500() {
    let mut server = server::start(&[]).await;
    let addr = server.addr;
    for (body, code) in [
        ("{nope", "bad_json"),
        (r#"{"name": 5}"#, "bad_field"),
        (r#"{"name": "a", "admin": true}"#, "bad_field"),
        (r#"{"name": "a", "name": "b"}"#, "bad_field"),
        // An array is not the object it spells: `["name", "token"]` sets nothing.
        (r#"["Mallory", "their-token"]"#, "bad_json"),
        ("5", "bad_json"),
        // A name that draws nothing (a Hangul filler, a blank Braille pattern).
        ("{\"name\": \"\u{3164}\"}", "bad_field"),
        ("{\"name\": \"\u{2800}\u{200B}\"}", "bad_field"),
    ] {
        let (status, v) = server::http(addr, "POST", "/api/rooms", Some(body), &[]).await;
        assert_eq!((status, v["code"].as_str()), (400, Some(code)), "{body}");
        assert!(v["msg"].is_string());
    }
    // A body must say it is JSON: a text/plain one is what a page elsewhere can post here
    // without asking, so it is refused (415), as is one with no Content-Type.
    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let (status, v) = server::http(
            addr,
            "POST",
            "/api/rooms",
            Some(r#"{"name": "Eve"}"#),
            &[("Content-Type", content_type)],
        )
        .await;
        assert_eq!((status, v["code"].as_str()), (415, Some("bad_json")), "{v}");
        assert!(v["msg"].as_str().unwrap().contains(content_type), "{v}");
    }
    let (status, _) = server::http(
        addr,
        "POST",
        "/api/rooms",
        Some(r#"{"name": "Eve"}"#),
        &[("Content-Type", "application/json; charset=utf-8")],
    )
    .await;
    assert_eq!(status, 201);
    let big = format!(r#"{{"name": "{}"}}"#, "x".repeat(5000));
    let (status, v) = server::http(addr, "POST", "/api/rooms", Some(&big), &[]).await;
    assert_eq!(status, 400, "{v}");
    let (status, v) = server::http(addr, "GET", "/api/session", None, &[]).await;
    assert_eq!(status, 401, "{v}");
    let (_, token) = server::create_room(addr, "Ann").await;
    let (status, v) = server::session_of(addr, &token).await;
    assert_eq!(
        (status, v["name"].as_str(), v["unlocked"].as_u64()),
        (200, Some("Ann"), Some(1))
    );
    let auth = format!("Bearer {token}");
    let (_, levels) = server::http(
        addr,
        "GET",
        "/api/levels",
        None,
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(levels["levels"][0]["unlocked"], true);
    assert_eq!(levels["levels"][1]["unlocked"], false);
    let (status, metrics) = server::http(addr, "GET", "/metrics", None, &[]).await;
    assert_eq!(status, 200);
    let metrics = metrics.as_str().unwrap();
    assert!(
        metrics.contains("undercooked_rooms{state=\"lobby\"} 2"),
        "{metrics}"
    );
    // The history's counters are there too, for an operator's alert on dropped batches.
    assert!(
        metrics.contains(
            "# TYPE undercooked_history_batches_dropped counter\nundercooked_history_batches_dropped_total 0"
        ),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_token_past_128_characters_and_a_room_past_the_cap_are_refused() {
    let mut server = server::start(&[("UNDERCOOKED_MAX_ROOMS", "2")]).await;
    let addr = server.addr;
    let long = json!({"name": "Ann", "token": "t".repeat(129)}).to_string();
    let (status, v) = server::http(addr, "POST", "/api/rooms", Some(&long), &[]).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (400, Some("bad_field")),
        "{v}"
    );
    // The socket says the same of a hello.
    let (code, _) = server::create_room(addr, "Bob").await;
    let mut c = Client::connect(addr, &code).await;
    c.send(json!({"type": "hello", "p": 1, "token": "t".repeat(129), "name": null}))
        .await;
    assert_eq!(c.expect("err").await["code"], "bad_field");
    // Two rooms are the cap: the third is refused, naming it.
    server::create_room(addr, "Cat").await;
    let (status, v) = server::http(addr, "POST", "/api/rooms", Some("{}"), &[]).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("room_full")),
        "{v}"
    );
    assert!(
        v["msg"].as_str().unwrap().contains("limit of 2 rooms"),
        "{v}"
    );
    server.stop().await;
}
