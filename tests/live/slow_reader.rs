//! A player whose client stops reading: the room never waits for it, the player's frames
//! wait in its send queue (what the kernel has not taken) up to 64, then `snap`s are dropped
//! for it alone, and when it reads again its stream starts over from a full frame. A client
//! that keeps a write waiting past the heartbeat window (12 s) is closed.

use crate::server;

use serde_json::{Value, json};
use server::{Client, Got};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;
use undercooked::net::SEND_QUEUE;

/// Reads for `secs`: the `snap` bodies that arrived.
async fn snaps(c: &mut Client, secs: u64) -> Vec<Value> {
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut got = Vec::new();
    while tokio::time::Instant::now() < until {
        match c.next(1.0).await {
            Some(Got::Frame(v)) if v["type"] == "snap" => got.push(v["raw"].clone()),
            Some(Got::Closed(code)) => panic!("closed ({code:?}) while catching up"),
            _ => {}
        }
    }
    got
}

#[tokio::test]
async fn a_player_who_stops_reading_misses_snaps_then_starts_over_from_a_full_frame() {
    // Given a round of two, the host's client with a small receive buffer
    // (and the server's kernel send buffer small, so that they fill in seconds, not minutes)
    let mut server = server::start(&[("UNDERCOOKED_SOCKET_SEND_BUFFER", "4096")]).await;
    let (code, host) = server::create_room(server.addr, "Ann").await;
    let (_, joined) = server::join_room(server.addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let mut a = Client::connect_small(server.addr, &code, 2048).await;
    a.send(json!({"type": "hello", "p": 1, "token": host, "name": null}))
        .await;
    a.expect("welcome").await;
    let mut b = Client::hello(server.addr, &code, &guest).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    b.send(json!({"type": "ready"})).await;
    while a.expect("lobby").await["can_start"] != true {}
    a.send(json!({"type": "start"})).await;
    a.expect("snap").await;

    // When the host stops reading (but keeps pinging, so it is not silent) while the guest
    // reads on, until the host's send queue is full, and 2 s more
    let reading = Arc::new(AtomicBool::new(true));
    let guest_reads = tokio::spawn({
        let reading = reading.clone();
        async move {
            let start = tokio::time::Instant::now();
            let mut pinged = start;
            let mut n = 0u32;
            while reading.load(Relaxed) {
                match b.next(1.0).await {
                    Some(Got::Frame(v)) if v["type"] == "snap" => n += 1,
                    Some(Got::Closed(code)) => panic!("the guest was closed ({code:?})"),
                    _ => {}
                }
                // Not silent either (the heartbeat window is 12 s).
                if pinged.elapsed() >= Duration::from_secs(1) {
                    pinged = tokio::time::Instant::now();
                    b.send(json!({"type": "ping", "t": 1})).await;
                }
            }
            (b, n, start.elapsed())
        }
    });
    let mut full_queue = false;
    for t in 0..40 {
        a.send(json!({"type": "ping", "t": t})).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let stats = server::http(server.addr, "GET", "/api/stats", None, &[])
            .await
            .1;
        if stats["send_queue_max"].as_u64() == Some(SEND_QUEUE as u64) {
            full_queue = true;
            break;
        }
    }
    assert!(
        full_queue,
        "the host's send queue filled to its bound, and no further"
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    reading.store(false, Relaxed);
    let (mut b, guest_snaps, took) = guest_reads.await.unwrap();

    // Then the guest's frames kept coming, and once the host reads again its stream has a
    // gap after which the next frame is full
    let rate = guest_snaps as f64 / took.as_secs_f64();
    assert!(
        rate >= 18.0,
        "the room did not wait for the host: the guest got {rate:.1} snaps a second"
    );
    let got = snaps(&mut a, 3).await;
    let ticks: Vec<u64> = got.iter().filter_map(|r| r["t"].as_u64()).collect();
    assert_eq!(ticks.len(), got.len(), "every snap has its tick");
    let gaps: Vec<usize> = (1..ticks.len())
        .filter(|&i| ticks[i] != ticks[i - 1] + 1)
        .collect();
    assert!(
        !gaps.is_empty(),
        "snaps were dropped for the host: {ticks:?}"
    );
    for &i in &gaps {
        assert!(ticks[i] > ticks[i - 1], "frames stay in order: {ticks:?}");
        assert_eq!(
            got[i]["full"],
            true,
            "the frame after a gap (tick {} → {}) is full",
            ticks[i - 1],
            ticks[i]
        );
    }
    // and the stream it read merges cleanly from its first full frame on
    let mut merged = None;
    let first_full = got
        .iter()
        .position(|r| r["full"] == true)
        .expect("a full frame");
    for raw in &got[first_full..] {
        undercooked::wire::merge::apply_frame(&mut merged, raw).expect("the host's frames merge");
    }

    // When the host stops reading again but keeps pinging, past the heartbeat window (the
    // guest reads and pings on)
    let stopped = tokio::time::Instant::now();
    let mut closed = None;
    for t in 0..40 {
        let _ = a
            .send_raw(tokio_tungstenite::tungstenite::Message::text(
                json!({"type": "ping", "t": t}).to_string(),
            ))
            .await;
        b.send(json!({"type": "ping", "t": t})).await;
        snaps(&mut b, 1).await;
        let stats = server::http(server.addr, "GET", "/api/stats", None, &[])
            .await
            .1;
        if stats["sockets"].as_u64() == Some(1) {
            closed = Some(stopped.elapsed().as_secs());
            break;
        }
    }
    // Then the server ended the connection: a write held 12 s ends the socket
    let closed = closed.expect("the server closed the host's connection");
    assert!(
        (10..=20).contains(&closed),
        "closed about 12 s after the writes stopped draining, at {closed} s"
    );
    server.stop().await;
}
