//! Several nodes on one PostgreSQL, given / when / then: a join through any node lands on
//! the room's owner (its `ws_url`), a round played there is in the shared history, a node
//! with another session key is refused, a killed node's rooms leave the directory (its
//! round aborted once, even by two janitors at the same instant) and its restart reindexes
//! the round it was killed in, and quick play with no open seat opens on the least-loaded
//! node.

use crate::postgres;
use crate::server::{self, Client, TestServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fresh folder for a test's shared files (the session key every node reads).
pub(crate) fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    dir
}

/// `n` in-process nodes on database `url`, sharing the key file `key`.
pub(crate) async fn nodes(url: &str, key: &std::path::Path, n: usize) -> Vec<TestServer> {
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

pub(crate) async fn post(
    node: &TestServer,
    path: &str,
    body: Value,
    token: Option<&str>,
) -> (u16, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    server::http(node.addr, "POST", path, Some(&body.to_string()), &headers).await
}

/// Node A as a process of its own (so it can be killed or sent SIGTERM) on 127.0.0.1:`port`,
/// its data in `data`, on database `url` with the key file `key`; once it answers HTTP.
async fn node_process(port: u16, data: &Path, url: &str, key: &Path) -> std::process::Child {
    let child = server::serve_child(
        port,
        "tests/fixtures/levels",
        data,
        &[
            ("UNDERCOOKED_DB", Path::new(url)),
            ("UNDERCOOKED_SESSION_KEY_FILE", key),
        ],
        std::process::Stdio::null(),
    );
    server::wait_up(std::net::SocketAddr::from(([127, 0, 0, 1], port))).await;
    child
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
    let (mut b, mut c) = (b, c);
    server::start_round(&mut a, &mut [&mut b, &mut c], "01_quick_soup").await;
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
async fn a_killed_nodes_rooms_are_gone_within_its_lease_and_its_round_aborted_once() {
    if !postgres::available() {
        return;
    }
    // Given node A as a process of its own, and node B, on one database,
    let url = postgres::database();
    let dir = folder("kill");
    let key = dir.join("session.key");
    let port = server::free_addr().port();
    let a = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut child = node_process(port, &dir.join("a"), &url, &key).await;
    let mut b = nodes(&url, &key, 1).await;
    // with a round playing on A,
    let (code, host) = server::create_room(a, "Ann").await;
    let mut ann = Client::hello(a, &code, &host).await;
    ann.send(json!({"type": "set_level", "level": "01_quick_soup"}))
        .await;
    ann.send(json!({"type": "start"})).await;
    ann.expect("countdown").await;
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let deadline = Instant::now() + Duration::from_secs(8);
    loop {
        let (status, _) =
            server::http(b[0].addr, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
        let open: Option<(Option<String>,)> =
            sqlx::query_as("SELECT result FROM rounds WHERE room_code = $1")
                .bind(&code)
                .fetch_optional(&pool)
                .await
                .expect("rounds");
        if status == 200 && open == Some((None,)) {
            break;
        }
        assert!(Instant::now() < deadline, "B never saw A's room and round");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // whose first events (Ann's emotes) have reached the history, so A's replay file
    // holds them too (the room flushes its file as it hands its events over),
    let round: String = sqlx::query_scalar("SELECT round_key FROM rounds WHERE room_code = $1")
        .bind(&code)
        .fetch_one(&pool)
        .await
        .expect("the round's key");
    let deadline = Instant::now() + Duration::from_secs(10);
    while events_of(&pool, &round).await == 0 {
        assert!(
            Instant::now() < deadline,
            "no event of the round reached the history"
        );
        ann.send(json!({"type": "emote", "id": "wave"})).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // when A is killed (no chance to say goodbye),
    let _ = child.kill();
    let _ = child.wait();
    let killed = Instant::now();
    // then within its lease B answers that the room is gone, for a join too;
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
    let gone_after = killed.elapsed();
    // the round A left open is recorded as aborted by a janitor (B's: it sees A lapsed
    // at two looks, 5 s apart), once;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (result,): (Option<String>,) =
            sqlx::query_as("SELECT result FROM rounds WHERE room_code = $1")
                .bind(&code)
                .fetch_one(&pool)
                .await
                .expect("rounds");
        if result.as_deref() == Some("aborted") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the lost round was never aborted: {result:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let cluster = b[0].directory.cluster().expect("B is clustered");
    let mut janitor = undercooked::cluster::Janitor::default();
    for _ in 0..2 {
        let again = cluster.sweep(&mut janitor).await.expect("janitor");
        assert_eq!(
            again.rounds_aborted, 0,
            "a second janitor finds nothing left to abort"
        );
    }
    // The write chain's batches in flight die with a killed process; here all of the
    // round's events are taken out of the history, so that only A's file has them.
    let written = events_of(&pool, &round).await;
    sqlx::query("DELETE FROM events WHERE round_key = $1")
        .bind(&round)
        .execute(&pool)
        .await
        .expect("delete the round's events");
    // And A, restarted, comes back with a new epoch, while its old code stays unclaimed;
    let mut child = node_process(port, &dir.join("a"), &url, &key).await;
    let (epoch,): (i64,) = sqlx::query_as("SELECT epoch FROM nodes WHERE id = $1")
        .bind(a.to_string())
        .fetch_one(&pool)
        .await
        .expect("A's registration");
    assert_eq!(epoch, 2, "a new epoch for the restarted node");
    assert!(
        !cluster.claim_code(&code).await.expect("claim"),
        "the lost code is not reused"
    );
    // and it reindexes the round it was killed in from its file, unasked: the events are
    // back in the history (the round stays aborted), and its file is stored whole,
    let deadline = Instant::now() + Duration::from_secs(20);
    while events_of(&pool, &round).await < written {
        assert!(
            Instant::now() < deadline,
            "the restarted node did not reindex its torn round: {} of {written} events",
            events_of(&pool, &round).await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (result, ticks): (Option<String>, i64) =
        sqlx::query_as("SELECT result, ticks FROM rounds WHERE round_key = $1")
            .bind(&round)
            .fetch_one(&pool)
            .await
            .expect("rounds");
    assert_eq!(result.as_deref(), Some("aborted"));
    assert!(
        ticks > 0,
        "the aborted round keeps how far it got: {ticks} ticks"
    );
    let replays = dir.join("a").join("replays");
    let file = std::fs::read(replays.join(format!("{round}.ucr"))).expect("A's torn replay");
    let stored: Option<Vec<u8>> =
        sqlx::query_scalar("SELECT bytes FROM replay_files WHERE round_key = $1")
            .bind(&round)
            .fetch_optional(&pool)
            .await
            .expect("replay_files");
    assert!(
        stored == Some(file),
        "the torn file is stored as it is on A's disk"
    );
    // so that a reindex run by hand over A's replays finds nothing left to add.
    let replays = replays.display().to_string();
    let (status, out, err) =
        crate::replays::undercooked(&["reindex", "--db", &url, &replays], &dir);
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.contains("reindexed 1 of 1 files") && out.contains(": 0 new events,"),
        "{out}"
    );
    // And a history rebuilt elsewhere from the stored replays keeps the janitor's verdict,
    // which no file holds: the round is `aborted` there too, with the node that was lost.
    let fresh = postgres::database();
    let (status, out, err) =
        crate::replays::undercooked(&["reindex", "--db", &fresh, "--from-db", &url], &dir);
    assert_eq!(status, 0, "{out}{err}");
    let rebuilt = sqlx::PgPool::connect(&fresh).await.expect("connect");
    let (result, lost): (Option<String>, Option<String>) = sqlx::query_as(
        "SELECT r.result, v.node_id FROM rounds r LEFT JOIN round_verdicts v USING (round_key)
         WHERE r.round_key = $1",
    )
    .bind(&round)
    .fetch_one(&rebuilt)
    .await
    .expect("the rebuilt round");
    assert_eq!(
        result.as_deref(),
        Some("aborted"),
        "the rebuilt round's result"
    );
    assert_eq!(lost, Some(a.to_string()), "the verdict names the lost node");
    let _ = child.kill();
    let _ = child.wait();
    eprintln!(
        "kill -9 to room_gone on B: {:.1} s",
        gone_after.as_secs_f64()
    );
    b[0].stop().await;
}

/// How many of round `key`'s events the history holds.
async fn events_of(pool: &sqlx::PgPool, key: &str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE round_key = $1")
        .bind(key)
        .fetch_one(pool)
        .await
        .expect("count events")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_janitors_at_the_same_instant_abort_a_lost_round_once() {
    if !postgres::available() {
        return;
    }
    use undercooked::cluster::{Addresses, Cluster, Janitor};
    // Given a node whose lease lapsed with a round open in its room,
    let url = postgres::database();
    undercooked::store::Store::open(&url)
        .await
        .expect("open (and migrate) the database");
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    sqlx::query(
        "INSERT INTO nodes (id, epoch, public_ws, internal_http, lease_until, build)
         VALUES ('lost', 1, 'ws://127.0.0.1:9', 'http://127.0.0.1:9', now() - interval '1 minute', 'test')",
    )
    .execute(&pool)
    .await
    .expect("a lapsed node");
    sqlx::query("INSERT INTO rooms_live (code, node_id, epoch, state) VALUES ('LOST', 'lost', 1, 'playing')")
        .execute(&pool)
        .await
        .expect("its room");
    sqlx::query(
        "INSERT INTO rounds (round_key, room_code, round_no, level_id, seed, replay_path, started_at, target, tick_hz)
         VALUES ('LOST-1-100', 'LOST', 1, '01_quick_soup', '7', 'LOST-1-100.ucr', 100, 30, 20)",
    )
    .execute(&pool)
    .await
    .expect("its open round");
    // and two live nodes, each with a pool of its own, whose janitors have each seen the
    // lapsed node once already,
    let dir = folder("janitors");
    let secret = undercooked::cluster::secret::SecretFile::open(&dir.join("node.secret"))
        .expect("a node secret");
    let mut janitors = Vec::new();
    for name in ["one", "two"] {
        let at = Addresses {
            node_id: name.to_string(),
            public_ws: format!("ws://{name}"),
            internal_http: format!("http://{name}"),
        };
        let own = sqlx::PgPool::connect(&url).await.expect("connect");
        let node = Cluster::join(&own, at, secret.clone(), 4)
            .await
            .expect("join the cluster");
        let node = std::sync::Arc::new(node);
        let mut janitor = Janitor::default();
        let first = node.sweep(&mut janitor).await.expect("a first look");
        assert_eq!(
            first.rounds_aborted, 0,
            "a node seen lapsed once is not acted on"
        );
        janitors.push((node, janitor));
    }
    // when both look again at the same instant (a lapse is confirmed by a look at least
    // 2 s after the first),
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let gate = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    let runs: Vec<_> = janitors
        .into_iter()
        .map(|(node, mut janitor)| {
            let gate = gate.clone();
            tokio::spawn(async move {
                gate.wait().await;
                node.sweep(&mut janitor).await
            })
        })
        .collect();
    let mut aborted = 0;
    for run in runs {
        let n = run
            .await
            .expect("the janitor's task ends")
            .expect("neither janitor fails");
        aborted += n.rounds_aborted;
    }
    // then the round is aborted once between them, and the room marked lost.
    assert_eq!(aborted, 1, "rounds aborted by the two janitors together");
    let (result, ended): (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT result, ended_at FROM rounds WHERE round_key = 'LOST-1-100'")
            .fetch_one(&pool)
            .await
            .expect("the round");
    assert_eq!(result.as_deref(), Some("aborted"));
    assert!(ended.is_some(), "an aborted round has its end time");
    let state: String = sqlx::query_scalar("SELECT state FROM rooms_live WHERE code = 'LOST'")
        .fetch_one(&pool)
        .await
        .expect("the room's row");
    assert_eq!(state, "lost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn quick_play_with_no_open_seat_opens_on_the_least_loaded_node() {
    if !postgres::available() {
        return;
    }
    // Given three nodes whose rooms seat one player, so a room with its host is full:
    // A holding two rooms, B none and C one,
    let url = postgres::database();
    let dir = folder("least");
    let key = dir.join("session.key").display().to_string();
    let mut n = Vec::new();
    for _ in 0..3 {
        let env = [
            ("UNDERCOOKED_DB", url.as_str()),
            ("UNDERCOOKED_SESSION_KEY_FILE", key.as_str()),
            ("UNDERCOOKED_MAX_PLAYERS", "1"),
        ];
        n.push(server::start(&env).await);
    }
    for (node, name) in [(0, "A1"), (0, "A2"), (2, "C1")] {
        let (status, v) = post(&n[node], "/api/rooms", json!({"name": name}), None).await;
        assert_eq!(status, 201, "{v}");
    }
    // when a player asks A for quick play,
    let (status, v) = post(&n[0], "/api/rooms/quick", json!({"name": "Quinn"}), None).await;
    // then a new room opens on B, the least loaded, with the player seated there: the
    // answer names B's socket,
    assert_eq!(status, 201, "{v}");
    let code = v["room_code"].as_str().expect("a code").to_string();
    assert_eq!(v["you"]["seat"], 0, "{v}");
    assert_eq!(v["ws_url"], format!("ws://{}/ws/{code}", n[1].addr), "{v}");
    assert!(n[1].shared.rooms.get(&code).is_some(), "the room is B's");
    assert!(n[0].shared.rooms.get(&code).is_none(), "A opened none");
    let token = v["you"]["token"].as_str().expect("a token");
    let _quinn = Client::hello(n[1].addr, &code, token).await;
    // and when the least-loaded node does not answer (a live lease, nothing listening),
    // it is skipped and the room opens on the least loaded of the others, so the player
    // still gets a seat.
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let closed = server::free_addr();
    sqlx::query(
        "INSERT INTO nodes (id, epoch, public_ws, internal_http, lease_until, build)
         VALUES ('unreachable', 1, $1, $2, now() + interval '1 minute', 'test')",
    )
    .bind(format!("ws://{closed}"))
    .bind(format!("http://{closed}"))
    .execute(&pool)
    .await
    .expect("a node that does not answer");
    let (status, v) = post(&n[2], "/api/rooms/quick", json!({"name": "Rae"}), None).await;
    assert_eq!(status, 201, "{v}");
    let code = v["room_code"].as_str().expect("a code").to_string();
    let at = n
        .iter()
        .find(|node| node.shared.rooms.get(&code).is_some())
        .expect("the room opened on a node that answers");
    assert_eq!(v["ws_url"], format!("ws://{}/ws/{code}", at.addr), "{v}");
    assert!(!std::ptr::eq(at, &n[0]), "not on A, the most loaded: {v}");
    for node in &mut n {
        node.stop().await;
    }
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
    // when twelve players (each from an address of their own) ask for quick play at once,
    // four through each node,
    let asks: Vec<_> = (0..12)
        .map(|i| {
            let addr = addrs[i % 3];
            tokio::spawn(async move {
                let body = json!({"name": format!("P{i}")}).to_string();
                let from = format!("127.0.3.{}", i + 1);
                server::http_from(&from, addr, "POST", "/api/rooms/quick", Some(&body)).await
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_drains_a_node_its_round_finishes_and_no_new_room_lands_there() {
    if !postgres::available() {
        return;
    }
    // Given node A as a process, with a round of two cooks playing on it, and node B,
    let url = postgres::database();
    let dir = folder("drain");
    let key = dir.join("session.key");
    let port = server::free_addr().port();
    let a = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut child = node_process(port, &dir.join("a"), &url, &key).await;
    let mut b = nodes(&url, &key, 1).await;
    let (code, _, _, ann, bob) = server::two_player_round_at(a, "01_quick_soup").await;
    let level = b[0].level("01_quick_soup");
    let seats = [
        tokio::spawn(server::play(ann, 0, level.clone())),
        tokio::spawn(server::play(bob, 1, level)),
    ];
    // when A gets SIGTERM mid-round,
    tokio::time::sleep(Duration::from_millis(500)).await;
    let term = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(term.success());
    // then the directory says it is draining, and quick play through B opens a room on B,
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (draining,): (bool,) = sqlx::query_as("SELECT draining FROM nodes WHERE id = $1")
            .bind(a.to_string())
            .fetch_one(&pool)
            .await
            .expect("A's row");
        if draining {
            break;
        }
        assert!(Instant::now() < deadline, "A never said it was draining");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, quick) = server::http(b[0].addr, "POST", "/api/rooms/quick", Some("{}"), &[]).await;
    assert_eq!(
        quick["ws_url"],
        format!(
            "ws://{}/ws/{}",
            b[0].addr,
            quick["room_code"].as_str().unwrap_or("")
        ),
        "{quick}"
    );
    // the round plays to its end (won, not aborted), and then A stops by itself.
    for s in seats {
        s.await.expect("a seat plays to the end");
    }
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("join")
        .expect("wait");
    assert!(status.success(), "{status}");
    let (result,): (Option<String>,) =
        sqlx::query_as("SELECT result FROM rounds WHERE room_code = $1")
            .bind(&code)
            .fetch_one(&pool)
            .await
            .expect("the round");
    assert_eq!(result.as_deref(), Some("won"));
    b[0].stop().await;
}

/// The p50 and p95 of `v`, in milliseconds.
fn p50_p95(v: &mut [Duration]) -> (f64, f64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
    (at(0.5), at(0.95))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "a measurement for docs/PERFORMANCE.md: cargo test --test cluster measure_ -- --ignored --nocapture"]
async fn measure_a_join_through_another_node_against_a_local_one() {
    if !postgres::available() {
        return;
    }
    let url = postgres::database();
    let dir = folder("measure-join");
    let mut n = nodes(&url, &dir.join("session.key"), 2).await;
    let (mut local, mut forwarded) = (Vec::new(), Vec::new());
    for i in 0..300 {
        // Known tokens: a new session per call would meet the new-sessions quota.
        let (status, made) =
            post(&n[0], "/api/rooms", json!({"token": "measure-host"}), None).await;
        assert_eq!(status, 201, "{made}");
        let code = made["room_code"].as_str().expect("a code").to_string();
        let path = format!("/api/rooms/{code}/join");
        // Alternating which goes first, so neither always meets a warmer room.
        for through_b in [i % 2 == 0, i % 2 == 1] {
            let node = if through_b { n[1].addr } else { n[0].addr };
            let started = Instant::now();
            let body = json!({"token": format!("measure-guest-{through_b}")}).to_string();
            let (status, v) = server::http(node, "POST", &path, Some(&body), &[]).await;
            let took = started.elapsed();
            assert_eq!(status, 200, "{v}");
            if through_b {
                forwarded.push(took);
            } else {
                local.push(took);
            }
        }
    }
    let (l50, l95) = p50_p95(&mut local);
    let (f50, f95) = p50_p95(&mut forwarded);
    eprintln!(
        "join, 300 each: on the owner p50 {l50:.2} ms p95 {l95:.2} ms; through another node p50 {f50:.2} ms p95 {f95:.2} ms; p95 added {:.2} ms",
        f95 - l95
    );
    for node in &mut n {
        node.stop().await;
    }
}

/// Whether `token`'s level list on `node` shows level `id` unlocked.
async fn unlocked(node: &TestServer, token: &str, id: &str) -> bool {
    let (_, v) = server::get_as(node.addr, "/api/levels", token).await;
    v["levels"]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["id"] == id))
        .is_some_and(|x| x["unlocked"] == true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_level_won_on_node_a_is_playable_on_node_b() {
    if !postgres::available() {
        return;
    }
    // Given Ann and Bob, each with a session first seen on node B (level 1 only),
    let url = postgres::database();
    let dir = folder("unlock");
    let mut n = nodes(&url, &dir.join("session.key"), 2).await;
    let (_, ann) = server::create_room(n[1].addr, "Ann").await;
    let (_, bob) = server::create_room(n[1].addr, "Bob").await;
    for t in [&ann, &bob] {
        assert!(!unlocked(&n[1], t, "02_slow_soup").await);
    }
    // when they win level 1 together on node A,
    let (status, made) = post(
        &n[0],
        "/api/rooms",
        json!({"name": "Ann", "token": ann}),
        None,
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let code = made["room_code"].as_str().expect("a code").to_string();
    let (status, _) = post(
        &n[0],
        &format!("/api/rooms/{code}/join"),
        json!({"name": "Bob", "token": bob}),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let mut a = Client::hello(n[0].addr, &code, &ann).await;
    let mut b = Client::hello(n[0].addr, &code, &bob).await;
    server::start_round(&mut a, &mut [&mut b], "01_quick_soup").await;
    let level = n[0].level("01_quick_soup");
    let (ta, tb) = (
        tokio::spawn(server::play(a, 0, level.clone())),
        tokio::spawn(server::play(b, 1, level)),
    );
    ta.await.expect("Ann plays");
    tb.await.expect("Bob plays");
    // then whoever A credited with the win (a seat that did some work) has level 2 on B
    // too, and picks it there.
    let mut winner = None;
    for t in [&ann, &bob] {
        if unlocked(&n[0], t, "02_slow_soup").await {
            winner = Some(t.clone());
        }
    }
    let winner = winner.expect("A credited someone with the win");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !unlocked(&n[1], &winner, "02_slow_soup").await {
        assert!(Instant::now() < deadline, "B never saw the unlock");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, room) = post(&n[1], "/api/rooms", json!({"token": winner}), None).await;
    assert_eq!(status, 201, "{room}");
    let code = room["room_code"].as_str().expect("a code").to_string();
    let mut c = Client::hello(n[1].addr, &code, &winner).await;
    c.send(json!({"type": "set_level", "level": "02_slow_soup"}))
        .await;
    loop {
        let v = c.expect_any(&["lobby", "err"]).await;
        assert_eq!(v["type"], "lobby", "set_level on B was refused: {v}");
        if v["level"] == "02_slow_soup" {
            break;
        }
    }
    for node in &mut n {
        node.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "a measurement for docs/PERFORMANCE.md: cargo test --test cluster measure_ -- --ignored --nocapture"]
async fn measure_quick_play_through_three_nodes() {
    if !postgres::available() {
        return;
    }
    // Quick play is one call at a time cluster-wide (an advisory lock): how many a second
    // three nodes answer, twelve players asking at once, round the nodes, 240 in all.
    let url = postgres::database();
    let dir = folder("measure-quick");
    let key = dir.join("session.key").display().to_string();
    let mut n = Vec::new();
    for _ in 0..3 {
        n.push(
            server::start(&[
                ("UNDERCOOKED_DB", url.as_str()),
                ("UNDERCOOKED_SESSION_KEY_FILE", &key),
                ("UNDERCOOKED_NEW_SESSIONS_PER_MIN", "100000"),
            ])
            .await,
        );
    }
    let addrs: Vec<std::net::SocketAddr> = n.iter().map(|s| s.addr).collect();
    let started = Instant::now();
    let workers: Vec<_> = (0..12)
        .map(|w| {
            let addrs = addrs.clone();
            tokio::spawn(async move {
                let mut took = Vec::new();
                for i in 0..20 {
                    let body = json!({"name": "Q", "token": format!("measure-quick-{w}-{i}")});
                    let t = Instant::now();
                    let from = format!("127.0.4.{}", w + 1);
                    let (status, v) = server::http_from(
                        &from,
                        addrs[(w + i) % 3],
                        "POST",
                        "/api/rooms/quick",
                        Some(&body.to_string()),
                    )
                    .await;
                    took.push(t.elapsed());
                    assert!(status == 200 || status == 201, "{status} {v}");
                }
                took
            })
        })
        .collect();
    let mut took = Vec::new();
    for w in workers {
        took.extend(w.await.expect("a worker"));
    }
    let secs = started.elapsed().as_secs_f64();
    let (p50, p95) = p50_p95(&mut took);
    eprintln!(
        "quick play through three nodes, 12 at once: {} calls in {secs:.2} s = {:.0} a second; a call p50 {p50:.1} ms p95 {p95:.1} ms",
        took.len(),
        took.len() as f64 / secs
    );
    for node in &mut n {
        node.stop().await;
    }
}
