//! Bot cooks in live rooms: play solo sets a room up with bots, the host adds and removes
//! them over HTTP (and nobody else can), a round with bots is won while the person only
//! watches, and its replay verifies with the bots' inputs in it.

use crate::server;

use serde_json::{Value, json};
use server::Client;
use undercooked::log::Record;

async fn post(
    server: &server::TestServer,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> (u16, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    server::http(server.addr, "POST", path, Some(body), &headers).await
}

/// Walks seat 0 to `to` (x first, then y) from the frames it gets, then stands still (with
/// a keep-alive) until the `round` frame, which it returns.
async fn walk_to_then_wait(c: &mut Client, to: (f64, f64)) -> Value {
    let mut merged: Option<Value> = None;
    let mut seq = 0;
    let mut last = (0.0, 0.0);
    let mut sent = std::time::Instant::now();
    loop {
        if sent.elapsed().as_secs() >= 4 {
            sent = std::time::Instant::now();
            c.send(json!({"type": "ping", "t": 1})).await;
        }
        let v = c.expect_any(&["snap", "round"]).await;
        if v["type"] == "round" {
            return v;
        }
        undercooked::wire::merge::apply_frame(&mut merged, &v["raw"]).unwrap();
        let me = &merged.as_ref().unwrap()["p"][0];
        let (x, y) = (me["x"].as_f64().unwrap(), me["y"].as_f64().unwrap());
        let mv = if (x - to.0).abs() > 0.1 {
            ((to.0 - x).signum(), 0.0)
        } else if (y - to.1).abs() > 0.1 {
            (0.0, (to.1 - y).signum())
        } else {
            (0.0, 0.0)
        };
        if mv != last {
            last = mv;
            sent = std::time::Instant::now();
            seq += 1;
            c.send(json!({"type": "input", "seq": seq, "move": {"x": mv.0, "y": mv.1}, "act": false, "face": null}))
                .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_solo_is_a_room_of_bots_that_wins_and_replays() {
    let mut server = server::start_solo(&[]).await;
    let (status, solo) = post(&server, "/api/rooms/solo", r#"{"name":"Ann"}"#, None).await;
    assert_eq!(status, 201, "{solo}");
    assert_eq!(
        (solo["you"]["seat"].as_u64(), solo["you"]["host"].as_bool()),
        (Some(0), Some(true))
    );
    let code = solo["room_code"].as_str().unwrap().to_string();
    let token = solo["you"]["token"].as_str().unwrap().to_string();
    let (_, room) =
        server::http(server.addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(
        room["level"], "01_open_kitchen",
        "the highest level a new session has"
    );
    let seats = room["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 4);
    assert_eq!(seats.iter().filter(|s| s["bot"] == true).count(), 3);
    assert!(
        seats[1..]
            .iter()
            .all(|s| s["connected"] == true && s["ready"] == true)
    );

    let mut me = Client::hello(server.addr, &code, &token).await;
    me.send(json!({"type": "start"})).await;
    me.expect("countdown").await;
    // The person steps down a tile, out of the bots' way, and stands there; the three bots
    // cook. (A person who stands between the bots' spawns can still gridlock them: the bot
    // issue's work.)
    let round = walk_to_then_wait(&mut me, (2.5, 4.5)).await;
    assert_eq!(round["result"], "won", "{round}");
    assert!(
        round["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Bot 2")
    );

    let replays = server.replays();
    let bytes = std::fs::read(&replays[0]).unwrap();
    let rerun = undercooked::verify::replay_bytes(&bytes);
    assert_eq!(rerun.verdict, undercooked::verify::Verdict::Identical);
    let records = undercooked::log::read_replay(&bytes).unwrap().records;
    let Record::Started(h) = &records[0] else {
        panic!()
    };
    assert_eq!(h.seats.len(), 4);
    assert!(
        h.seats[1..]
            .iter()
            .all(|s| s.session_id.starts_with("bot-") && s.connected)
    );
    let bot_inputs = records
        .iter()
        .filter(|r| matches!(r, Record::InputAccepted { seat, .. } if *seat > 0))
        .count();
    assert!(
        bot_inputs > 10,
        "the bots' inputs are in the log ({bot_inputs})"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_host_adds_and_removes_bots_and_only_in_the_lobby() {
    let mut server = server::start(&[]).await;
    let (code, host) = server::create_room(server.addr, "Ann").await;
    let (_, joined) = server::join_room(server.addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let bots = format!("/api/rooms/{code}/bots");

    let (status, v) = post(&server, &bots, "", None).await;
    assert_eq!((status, v["code"].as_str()), (401, Some("no_session")));
    let (status, v) = post(&server, &bots, "", Some(&guest)).await;
    assert_eq!((status, v["code"].as_str()), (403, Some("not_host")));
    let (status, v) = post(&server, &bots, r#"{"seat": 1}"#, Some(&host)).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("room_full")),
        "seat 1 is Bob's"
    );
    let (status, v) = post(&server, &bots, r#"{"seat": 9}"#, Some(&host)).await;
    assert_eq!((status, v["code"].as_str()), (400, Some("bad_field")));
    let (status, v) = post(&server, &bots, "", Some(&host)).await;
    assert_eq!((status, v["seat"].as_u64()), (201, Some(2)), "{v}");

    let mut a = Client::hello(server.addr, &code, &host).await;
    let (_, room) =
        server::http(server.addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(room["seats"][2]["bot"], true);
    assert_eq!(room["seats"][2]["name"], "Bot 3");

    let auth = format!("Bearer {host}");
    let del = |seat: u8| format!("/api/rooms/{code}/bots/{seat}");
    let (status, v) = server::http(
        server.addr,
        "DELETE",
        &del(1),
        None,
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (400, Some("bad_field")),
        "Bob is no bot"
    );
    let (status, _) = server::http(
        server.addr,
        "DELETE",
        &del(2),
        None,
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(status, 200);
    let (_, room) =
        server::http(server.addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(room["open_seats"], 2);

    // With a round on, bots stay as they are.
    post(&server, &bots, "", Some(&host)).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    loop {
        if a.expect("lobby").await["can_start"] == true {
            break;
        }
    }
    a.send(json!({"type": "start"})).await;
    a.expect("countdown").await;
    let (status, v) = post(&server, &bots, "", Some(&host)).await;
    assert_eq!((status, v["code"].as_str()), (409, Some("wrong_state")));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_level_layout_is_served_and_unknown_ids_are_not_found() {
    let mut server = server::start(&[]).await;
    let (status, l) =
        server::http(server.addr, "GET", "/api/levels/01_quick_soup", None, &[]).await;
    assert_eq!(status, 200, "{l}");
    assert_eq!(l["rows"][1], "#tCKSW#");
    assert_eq!(
        (l["width"].as_u64(), l["height"].as_u64()),
        (Some(7), Some(5))
    );
    assert_eq!(l["stations"][0]["k"], "spawn_shelf");
    assert_eq!(l["recipes"][0]["picture"], "dish_tomato_soup");
    assert_eq!(l["tick_hz"], 20);
    for bad in [
        "/api/levels/nope",
        "/api/levels/..%2Fetc",
        "/api/levels/%00",
    ] {
        let (status, v) = server::http(server.addr, "GET", bad, None, &[]).await;
        assert_eq!(status, 404, "{bad}: {v}");
    }
    server.stop().await;
}
