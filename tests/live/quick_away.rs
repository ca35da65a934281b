//! Issue 34's honesty about rooms whose host went away: quick play never seats a stranger
//! in a lobby where nobody is left (the host closed the tab), and whoever comes in by the
//! room's link takes the crown and can start at once (nobody gone is waited for).

use crate::server::{self, Client};
use serde_json::{Value, json};

async fn quick(addr: std::net::SocketAddr, name: &str) -> Value {
    let body = json!({"name": name}).to_string();
    let (status, v) = server::http(addr, "POST", "/api/rooms/quick", Some(&body), &[]).await;
    assert!(status == 200 || status == 201, "{status} {v}");
    v
}

fn code_token(v: &Value) -> (String, String) {
    (
        v["room_code"].as_str().expect("a room").to_string(),
        v["you"]["token"].as_str().expect("a token").to_string(),
    )
}

#[tokio::test]
async fn quick_play_passes_a_lobby_whose_host_went_away_and_a_late_comer_can_start_it() {
    // The unclaimed-seat grace is long, as on a real server: the room stays open meanwhile.
    let mut server = server::start(&[("UNDERCOOKED_GUEST_IDLE_TIMEOUT_S", "60")]).await;
    let addr = server.addr;

    // Ann plays quick, connects and picks a level, then a second player joins her room
    // through quick play: a room with someone in it is where strangers go.
    let (room, ann) = code_token(&quick(addr, "Ann").await);
    let mut a = Client::hello(addr, &room, &ann).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    while a.expect("lobby").await["level"] != "01_quick_soup" {}
    let (with_ann, bea) = code_token(&quick(addr, "Bea").await);
    assert_eq!(
        with_ann, room,
        "a lobby with its host in it takes strangers"
    );
    let b = Client::hello(addr, &room, &bea).await;

    // Both close the tab: their seats stay theirs for the guest grace, nobody is in.
    drop(a);
    drop(b);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let (_, r) = server::http(addr, "GET", &format!("/api/rooms/{room}"), None, &[]).await;
        let seats = r["seats"].as_array().cloned().unwrap_or_default();
        if !seats.is_empty() && seats.iter().all(|s| s["connected"] == false) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still connected: {r}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    // Cid plays quick: not Ann's room (he would wait there for a host who is gone).
    let (cid_room, _) = code_token(&quick(addr, "Cid").await);
    assert_ne!(
        cid_room, room,
        "quick play seated Cid where everyone has gone"
    );

    // Dee comes in by the link: she gets the crown, and Start waits for nobody gone.
    let (status, joined) = server::join_room(addr, &room, "Dee").await;
    assert_eq!(status, 200, "{joined}");
    let dee = joined["you"]["token"].as_str().unwrap().to_string();
    let mut d = Client::connect(addr, &room).await;
    d.send(json!({"type": "hello", "p": 1, "token": dee, "name": null}))
        .await;
    let w = d.expect("welcome").await;
    assert_eq!(
        w["you"]["host"], true,
        "the crown goes to the one who is here: {w}"
    );
    let l = d.expect("lobby").await;
    assert_eq!(l["can_start"], true, "nobody gone is waited for: {l}");
    assert_eq!(l["start_refusal"], Value::Null, "{l}");
    d.send(json!({"type": "start"})).await;
    assert_eq!(d.expect("countdown").await["n"], 3);
    server.stop().await;
}
