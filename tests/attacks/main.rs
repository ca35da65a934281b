//! One client must not stall or sink the server, nor take what every other player needs.
//! Each file is one kind of attack, run beside a victim who must still be served: `floods`
//! (frames of every kind, a client that never reads), `replays` (downloads without end),
//! `history` (the history routes asked without end), `shares` (the pools every player
//! needs: sockets waiting to say `hello`, rooms, the request budget). These tests run one
//! at a time (the `ONE` lock), and in their own test binary, so nothing else shares the
//! machine's two cores with them.

#[path = "../server/mod.rs"]
mod server;

mod floods;
mod history;
mod replays;
mod shares;

use serde_json::json;
use server::{Client, Got, TestServer};
use std::time::{Duration, Instant};

/// These tests measure time: one at a time.
pub(crate) static ONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A victim: a solo room playing the first campaign level, its three bots taken out (with
/// an idle person beside them the bots would win the round, and its snaps end, within the
/// attack's window), read by `victim`.
pub(crate) async fn victim(server: &TestServer) -> Client {
    victim_at(server.addr).await
}

/// `victim`, on the server at `addr` (one started as its own process, say).
pub(crate) async fn victim_at(addr: std::net::SocketAddr) -> Client {
    let (status, solo) = server::http(
        addr,
        "POST",
        "/api/rooms/solo",
        Some(r#"{"name":"Victim"}"#),
        &[],
    )
    .await;
    assert_eq!(status, 201, "{solo}");
    let code = solo["room_code"].as_str().unwrap();
    let token = solo["you"]["token"].as_str().unwrap();
    let auth = format!("Bearer {token}");
    for seat in 1..=3 {
        let path = format!("/api/rooms/{code}/bots/{seat}");
        let (status, v) =
            server::http(addr, "DELETE", &path, None, &[("Authorization", &auth)]).await;
        assert!(status < 300, "bot {seat} out: {status} {v}");
    }
    let mut me = Client::hello_from("127.0.0.2", addr, code, token).await;
    me.send(json!({"type": "start"})).await;
    me.expect("snap").await;
    me
}

/// The victim's snaps for `window`: the largest gap between two, and whether it was
/// closed. It pings twice a second, as a player's client does (a silent one is closed
/// after 12 s).
pub(crate) async fn snap_gaps(
    me: &mut Client,
    window: Duration,
) -> (Duration, Option<Option<u16>>) {
    let end = Instant::now() + window;
    let (mut last, mut worst) = (Instant::now(), Duration::ZERO);
    let mut pinged = Instant::now() - Duration::from_secs(1);
    while Instant::now() < end {
        if pinged.elapsed() >= Duration::from_millis(500) {
            pinged = Instant::now();
            me.send(json!({"type": "ping", "t": 1})).await;
        }
        match me.next(1.0).await {
            Some(Got::Frame(v)) if v["type"] == "snap" => {
                let now = Instant::now();
                worst = worst.max(now - last);
                last = now;
            }
            Some(Got::Frame(_)) => {}
            Some(Got::Closed(code)) => return (worst, Some(code)),
            None => return (Duration::from_secs(1), None),
        }
    }
    (worst, None)
}

/// This process's resident bytes (the server is in it).
pub(crate) fn rss() -> u64 {
    undercooked::process::now().1
}
