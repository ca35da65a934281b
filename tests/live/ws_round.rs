//! Two scripted clients play a whole round over real sockets against a real server, a
//! spectator watches from the middle, and the round's replay verifies.

use crate::server;

use serde_json::{Value, json};
use server::{Client, TestServer, play};
use undercooked::wire::merge::{apply_frame, keyed};

fn snaps(c: &Client) -> Vec<&Value> {
    c.log
        .iter()
        .filter(|v| v["type"] == "snap")
        .map(|v| &v["raw"])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_play_a_round_a_spectator_watches_and_the_replay_verifies() {
    let mut server: TestServer = server::start(&[]).await;
    let addr = server.addr;
    let (code, host_token) = server::create_room(addr, "Ann").await;
    let (status, joined) = server::join_room(addr, &code, "Bob").await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["you"]["seat"], 1);
    let guest_token = joined["you"]["token"].as_str().unwrap().to_string();

    let mut a = Client::hello(addr, &code, &host_token).await;
    let mut b = Client::hello(addr, &code, &guest_token).await;
    // the host cannot start without a level, then without a ready guest
    a.send(json!({"type": "start"})).await;
    let e = a.expect("err").await;
    assert!(e["msg"].as_str().unwrap().starts_with("no_level"), "{e}");
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    let l = a.expect("lobby").await;
    assert_eq!(l["level"], "01_quick_soup");
    assert_eq!(l["can_start"], false);
    a.send(json!({"type": "start"})).await;
    let e = a.expect("err").await;
    assert!(
        e["msg"].as_str().unwrap().starts_with("no_ready_players"),
        "{e}"
    );
    // a guest cannot start
    b.send(json!({"type": "start"})).await;
    assert_eq!(b.expect("err").await["code"], "not_host");
    b.send(json!({"type": "ready"})).await;
    loop {
        let l = a.expect("lobby").await;
        if l["can_start"] == true {
            assert_eq!(l["seats"][1]["ready"], true);
            break;
        }
    }
    a.send(json!({"type": "start"})).await;
    for n in [3, 2, 1] {
        assert_eq!(a.expect("countdown").await["n"], n);
        assert_eq!(b.expect("countdown").await["n"], n);
    }

    let level = server.level("01_quick_soup");
    let (la, lb) = (level.clone(), level.clone());
    let ta = tokio::spawn(play(a, 0, la));
    let tb = tokio::spawn(play(b, 1, lb));

    // A spectator arrives mid-round.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (status, watch) = server::join_room(addr, &code, "Cat").await;
    assert_eq!(status, 200);
    assert_eq!(watch["you"]["seat"], Value::Null);
    let spect_token = watch["you"]["token"].as_str().unwrap().to_string();
    let mut s = Client::connect(addr, &code).await;
    s.send(json!({"type": "hello", "p": 1, "token": spect_token}))
        .await;
    let w = s.expect("welcome").await;
    assert_eq!(w["you"]["seat"], Value::Null);
    assert_eq!(w["state"], "playing");
    s.send(
        json!({"type": "input", "seq": 1, "move": {"x": 0, "y": 0}, "act": false, "face": null}),
    )
    .await;
    assert_eq!(s.expect("err").await["code"], "not_seated");
    let first = s.expect("snap").await;
    assert_eq!(
        first["raw"]["full"], true,
        "a new connection's first frame is full"
    );
    let t0 = first["raw"]["t"].as_i64().unwrap();
    let second = s.expect("snap").await;
    assert_eq!(
        second["raw"]["t"].as_i64().unwrap() - t0,
        2,
        "spectators get every second pass"
    );

    let a = ta.await.unwrap();
    let b = tb.await.unwrap();
    let round_s = s.expect("round").await;

    // The snap stream: first full, then deltas, a full every 20, a delta chain merged onto a
    // full equal to the next full.
    let sa: Vec<Value> = snaps(&a).into_iter().cloned().collect();
    assert_eq!(sa[0]["full"], true);
    assert_eq!(sa[1]["full"], false);
    assert!(sa[1].get("d").is_some());
    let fulls: Vec<usize> = sa
        .iter()
        .enumerate()
        .filter(|(_, f)| f["full"] == true)
        .map(|(i, _)| i)
        .collect();
    assert!(fulls.len() >= 3, "{fulls:?}");
    assert_eq!(fulls[1] - fulls[0], 20);
    let mut merged = None;
    for f in &sa[fulls[0]..fulls[1]] {
        apply_frame(&mut merged, f).unwrap();
    }
    let merged = merged.unwrap();
    let chain_tick = merged["t"].as_u64().unwrap() as u32;

    // The served event reached both players; the round frames are equal but for `unlocked`.
    let served = |c: &Client| {
        snaps(c).iter().any(|f| {
            f["e"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["k"] == "served")
        })
    };
    assert!(served(&a) && served(&b));
    let ra = a
        .log
        .iter()
        .rev()
        .find(|v| v["type"] == "round")
        .unwrap()
        .clone();
    let rb = b
        .log
        .iter()
        .rev()
        .find(|v| v["type"] == "round")
        .unwrap()
        .clone();
    assert_eq!(ra["result"], "won");
    assert!(ra["stars"].as_u64().unwrap() >= 1);
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("unlocked");
        v
    };
    assert_eq!(strip(ra.clone()), strip(rb.clone()));
    assert_eq!(strip(round_s), strip(ra.clone()));
    assert_eq!(
        ra["unlocked"], "02_slow_soup",
        "a win unlocks the next level for the players"
    );
    // no frame ever carried a token
    for c in [&a, &b, &s] {
        for v in &c.log {
            let text = v.to_string();
            assert!(
                !text.contains(&host_token) || v["type"] == "welcome",
                "a token leaked: {text}"
            );
            assert!(
                !text.contains(&guest_token) || v["type"] == "welcome",
                "a token leaked: {text}"
            );
        }
    }

    // to_lobby: back in the lobby, the spectator promoted into a free seat
    let mut a = a;
    a.send(json!({"type": "to_lobby"})).await;
    let l = a.expect("lobby").await;
    assert_eq!(l["state"], "lobby");
    let mut promoted = false;
    for _ in 0..5 {
        let l = s.expect("lobby").await;
        if l["seats"].as_array().unwrap().len() == 3 {
            promoted = true;
            break;
        }
    }
    assert!(promoted, "the spectator took the free seat");

    // The live round's replay verifies, frames included.
    let replays = server.replays();
    assert_eq!(replays.len(), 1, "{replays:?}");
    let bytes = std::fs::read(&replays[0]).unwrap();
    let rerun = undercooked::verify::replay_bytes(&bytes);
    assert_eq!(rerun.verdict, undercooked::verify::Verdict::Identical);
    // the frames the players got are the recorded ones
    assert_eq!(rerun.frames[5].1.raw(), sa[5].to_string());
    // the delta chain the client merged equals a full re-encode of the state at that tick
    let records = undercooked::log::read_replay(&bytes).unwrap().records;
    let undercooked::log::Record::Started(h) = &records[0] else {
        panic!()
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let mut ev = Vec::new();
    for r in &records[1..] {
        if fold.state.tick == chain_tick {
            break;
        }
        if !matches!(
            r,
            undercooked::log::Record::FramesSent { .. } | undercooked::log::Record::Ended { .. }
        ) {
            fold.apply(r, &mut ev).unwrap();
        }
    }
    let full = undercooked::wire::encode_full(
        &undercooked::wire::project(&fold.state, &fold.rules),
        &[],
        &fold.ids,
    );
    assert_eq!(
        keyed(&merged),
        keyed(&serde_json::from_str(full.raw()).unwrap())
    );
    let stats = server::http(addr, "GET", "/api/stats", None, &[]).await.1;
    assert_eq!(stats["rounds_completed"], 1);
    assert!(stats["inputs_received"].as_u64().unwrap() > 10);
    server.stop().await;
}
