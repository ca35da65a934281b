//! Several nodes on one PostgreSQL, given / when / then: a join through any node lands on
//! the room's owner (its `ws_url`), a round played there is in the shared history, a node
//! with another session key is refused, and a killed node's rooms leave the directory.

use crate::postgres;
use crate::server::{self, Client, TestServer};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A fresh folder for a test's shared files (the session key every node reads).
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    dir
}

/// `n` in-process nodes on database `url`, sharing the key file `key`.
async fn nodes(url: &str, key: &std::path::Path, n: usize) -> Vec<TestServer> {
    let key = key.display().to_string();
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(
            server::start(&[
                ("UNDERCOOKED_DB", url),
                ("UNDERCOOKED_SESSION_KEY_FILE", &key),
            ])
            .await,
        );
    }
    out
}

async fn post(node: &TestServer, path: &str, body: Value, token: Option<&str>) -> (u16, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    server::http(node.addr, "POST", path, Some(&body.to_string()), &headers).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_join_through_any_node_lands_on_the_owner_and_the_round_is_shared() {
    if !postgres::available() {
        return;
    }
    // Given three nodes on one database with one key,
    let url = postgres::database();
    let dir = folder("join");
    let mut n = nodes(&url, &dir.join("session.key"), 3).await;
    let a_ws = format!("ws://{}", n[0].addr);

    // when Ann creates a room on A, and Bob and Cy join it through B and C,
    let (status, ann) = post(&n[0], "/api/rooms", json!({"name": "Ann"}), None).await;
    assert_eq!(status, 201, "{ann}");
    let code = ann["room_code"].as_str().expect("a code").to_string();
    assert_eq!(ann["ws_url"], format!("{a_ws}/ws/{code}"), "{ann}");
    let (status, bob) = post(
        &n[1],
        &format!("/api/rooms/{code}/join"),
        json!({"name": "Bob"}),
        None,
    )
    .await;
    assert_eq!(status, 200, "{bob}");
    let (status, cy) = post(
        &n[2],
        &format!("/api/rooms/{code}/join"),
        json!({"name": "Cy"}),
        None,
    )
    .await;
    assert_eq!(status, 200, "{cy}");
    // then each answer names A's socket, and seats them in A's room;
    for (who, v, seat) in [("Bob", &bob, 1), ("Cy", &cy, 2)] {
        assert_eq!(v["ws_url"], format!("{a_ws}/ws/{code}"), "{who}: {v}");
        assert_eq!(v["you"]["seat"], seat, "{who}: {v}");
    }
    // any node answers the room's status, and a code nobody holds is gone everywhere.
    let (status, room) =
        server::http(n[2].addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
    assert_eq!(status, 200, "{room}");
    assert_eq!(
        room["seats"]
            .as_array()
            .map(|s| s.iter().filter(|x| x["name"].is_string()).count()),
        Some(3),
        "{room}"
    );
    let (status, gone) = server::http(n[1].addr, "GET", "/api/rooms/ZZZZZ", None, &[]).await;
    assert_eq!((status, gone["code"].as_str()), (404, Some("room_gone")));

    // When the three play a round on A with a bot (the host adds it on A),
    let token = |v: &Value| v["you"]["token"].as_str().expect("a token").to_string();
    let (status, bot) = post(
        &n[0],
        &format!("/api/rooms/{code}/bots"),
        json!({}),
        Some(&token(&ann)),
    )
    .await;
    assert_eq!(status, 201, "{bot}");
    let mut a = Client::hello(n[0].addr, &code, &token(&ann)).await;
    let b = Client::hello(n[0].addr, &code, &token(&bob)).await;
    let c = Client::hello(n[0].addr, &code, &token(&cy)).await;
    a.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    let mut b = b;
    let mut c = c;
    b.send(json!({"type": "ready"})).await;
    c.send(json!({"type": "ready"})).await;
    loop {
        if a.expect("lobby").await["can_start"] == true {
            break;
        }
    }
    a.send(json!({"type": "start"})).await;
    let level = n[0].level("01_quick_soup");
    let ends = [
        tokio::spawn(server::play(a, 0, level.clone())),
        tokio::spawn(server::play(b, 1, level.clone())),
        tokio::spawn(server::play(c, 2, level)),
    ];
    for e in ends {
        e.await.expect("a seat plays to the end");
    }
    // then its result is one row set in the shared history, which C's replay list shows.
    let deadline = Instant::now() + Duration::from_secs(15);
    let listed = loop {
        let (_, list) = server::http(n[2].addr, "GET", "/api/replays", None, &[]).await;
        let found = list["replays"]
            .as_array()
            .and_then(|r| {
                r.iter()
                    .find(|x| x["room_code"] == code.as_str() && x["result"].is_string())
            })
            .cloned();
        if let Some(found) = found {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "C never listed the round: {list}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        listed["players"].as_array().map(Vec::len),
        Some(4),
        "{listed}"
    );
    // And C serves the replay's frames from the copy A uploaded (tests/cluster/replays.rs
    // shows the copy is A's file byte for byte, with A's disk gone).
    let id = listed["id"].as_str().expect("a round key").to_string();
    let uploads = n[0]
        .shared
        .uploads()
        .expect("uploads run on PostgreSQL")
        .clone();
    let deadline = Instant::now() + Duration::from_secs(15);
    let relaxed = std::sync::atomic::Ordering::Relaxed;
    while uploads.pending() > 0 || uploads.stats.uploaded.load(relaxed) == 0 {
        assert!(Instant::now() < deadline, "A never uploaded the replay");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, frames) = server::http(
        n[2].addr,
        "GET",
        &format!("/api/replays/{id}/frames"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200, "{frames}");
    assert!(
        frames["frames"].as_array().is_some_and(|f| !f.is_empty()),
        "C serves the recorded frames"
    );
    for node in &mut n {
        node.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_with_another_session_key_is_refused() {
    if !postgres::available() {
        return;
    }
    // Given a node that started the cluster with one key,
    let url = postgres::database();
    let dir = folder("keys");
    let mut first = nodes(&url, &dir.join("one.key"), 1).await;
    // when a node starts with another,
    let mut config = undercooked::shared::config::ServerConfig::from_settings(&[(
        "UNDERCOOKED_SESSION_KEY_FILE",
        &dir.join("two.key").display().to_string(),
    )])
    .expect("settings");
    config.data_dir = dir.join("data");
    config.levels_dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/levels");
    let levels = undercooked::levels::Levels::scanned(
        undercooked::levels::scan_dir(&config.levels_dir).expect("levels"),
    );
    let refused = undercooked::server::open(config, levels, &url).await.err();
    // then it refuses to start, saying why.
    let why = refused.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        why.contains("another session key") && why.contains("UNDERCOOKED_SESSION_KEY_FILE"),
        "{why}"
    );
    first[0].stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_nodes_rooms_are_gone_everywhere_within_its_lease() {
    if !postgres::available() {
        return;
    }
    // Given node A as a process of its own, and node B, on one database,
    let url = postgres::database();
    let dir = folder("kill");
    let key = dir.join("session.key");
    let port = server::free_addr().port();
    let mut child = server::serve_child(
        port,
        "tests/fixtures/levels",
        &dir.join("a"),
        &[
            ("UNDERCOOKED_DB", std::path::Path::new(&url)),
            ("UNDERCOOKED_SESSION_KEY_FILE", &key),
        ],
        std::process::Stdio::null(),
    );
    let a = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    server::wait_up(a).await;
    let mut b = nodes(&url, &key, 1).await;
    let (code, _) = server::create_room(a, "Ann").await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _) =
            server::http(b[0].addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "B never saw A's room");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // when A is killed (no chance to say goodbye),
    let _ = child.kill();
    let _ = child.wait();
    let killed = Instant::now();
    // then within its lease B answers that the room is gone, for a join too.
    loop {
        let (status, v) = server::http(
            b[0].addr,
            "POST",
            &format!("/api/rooms/{code}/join"),
            Some("{}"),
            &[],
        )
        .await;
        if status == 404 {
            assert_eq!(v["code"], "room_gone", "{v}");
            break;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(13),
            "still {status} {v} after {:?}",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "kill -9 to room_gone on B: {:.1} s",
        killed.elapsed().as_secs_f64()
    );
    b[0].stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twelve_quick_plays_over_three_nodes_fill_three_rooms_of_four() {
    if !postgres::available() {
        return;
    }
    // Given three nodes and no rooms,
    let url = postgres::database();
    let dir = folder("quick");
    let mut n = nodes(&url, &dir.join("session.key"), 3).await;
    let addrs: Vec<std::net::SocketAddr> = n.iter().map(|s| s.addr).collect();
    // when twelve players ask for quick play at once, four through each node,
    let asks: Vec<_> = (0..12)
        .map(|i| {
            let addr = addrs[i % 3];
            tokio::spawn(async move {
                let body = json!({"name": format!("P{i}")}).to_string();
                server::http(addr, "POST", "/api/rooms/quick", Some(&body), &[]).await
            })
        })
        .collect();
    let mut rooms: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    for ask in asks {
        let (status, v) = ask.await.expect("an answer");
        assert!(status == 200 || status == 201, "{status} {v}");
        let code = v["room_code"].as_str().expect("a code").to_string();
        let seat = v["you"]["seat"]
            .as_u64()
            .expect("a seat, not a spectator's place");
        assert!(
            v["ws_url"].as_str().is_some_and(|u| u.ends_with(&code)),
            "{v}"
        );
        rooms.entry(code).or_default().push(seat);
    }
    // then they fill exactly three rooms of four, each seat given once.
    assert_eq!(rooms.len(), 3, "{rooms:?}");
    for (code, seats) in &mut rooms {
        seats.sort_unstable();
        assert_eq!(seats, &vec![0, 1, 2, 3], "{code}: {seats:?}");
        let (status, room) =
            server::http(addrs[0], "GET", &format!("/api/rooms/{code}"), None, &[]).await;
        assert_eq!(status, 200, "{room}");
    }
    for node in &mut n {
        node.stop().await;
    }
}
