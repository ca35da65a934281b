//! Faults a cluster must ride out without lying: PostgreSQL stopped for 20 s three times
//! with nodes whose beats are staggered, a node paused (SIGSTOP) past its lease, and a node
//! drained (SIGTERM). After each, no live room reads `lost`, no live round is `aborted`,
//! and the directory says where every room is.

use super::fleet::{Node, Playing, Watch};
use crate::postgres;
use std::time::{Duration, Instant};

/// `/healthz` of the node at `addr`: (status, body).
async fn health(addr: std::net::SocketAddr) -> (u16, serde_json::Value) {
    let ask = crate::server::http(addr, "GET", "/healthz", None, &[]);
    tokio::time::timeout(Duration::from_secs(5), ask)
        .await
        .unwrap_or((0, serde_json::Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_stopped_three_times_loses_no_live_room_or_round() {
    if !postgres::available() {
        return;
    }
    // Given three nodes started 700 ms apart (so their beats are staggered) on a
    // PostgreSQL of the test's own, each with a round playing,
    let pg = postgres::Cluster::start_new();
    let url = pg.database();
    let dir = crate::nodes::folder("outages");
    let key = dir.join("session.key");
    let mut nodes = Vec::new();
    for n in ["a", "b", "c"] {
        nodes.push(Node::start(&dir, n, &url, &key, &[]).await);
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    let mut rounds = Vec::new();
    for n in &nodes {
        rounds.push(Playing::start("127.0.0.9", n.addr).await);
    }
    let watch = Watch::new(&url).await;
    for outage in 1..=3 {
        // when PostgreSQL stops for 20 s,
        pg.stop();
        tokio::time::sleep(Duration::from_secs(8)).await;
        // then meanwhile a node says its lease is failing, and a create is refused at once
        // as the storage's fault (not a timeout);
        let (status, body) = health(nodes[0].addr).await;
        assert_eq!(
            status, 503,
            "outage {outage}: /healthz while the lease fails: {body}"
        );
        assert!(
            body["lease"]["state"] == "renewal_failing" || body["lease"]["state"] == "lapsed",
            "{body}"
        );
        let t = Instant::now();
        let (status, body) =
            crate::server::http_from("127.0.0.7", nodes[1].addr, "POST", "/api/rooms", Some("{}"))
                .await;
        assert_eq!(
            status, 503,
            "outage {outage}: a create while PostgreSQL is down: {body}"
        );
        assert_eq!(body["code"], "storage_unavailable", "{body}");
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "answered in {:?}",
            t.elapsed()
        );
        tokio::time::sleep(Duration::from_secs(12)).await;
        pg.start();
        // and when it is back, within 20 s no janitor has taken a live node for a dead one.
        let back = Instant::now();
        while back.elapsed() < Duration::from_secs(20) {
            assert_eq!(
                watch.rooms_lost().await,
                0,
                "outage {outage}: a live room was marked lost"
            );
            assert_eq!(
                watch.rounds_aborted().await,
                0,
                "outage {outage}: a live round was aborted"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        for (i, n) in nodes.iter().enumerate() {
            let (status, body) = health(n.addr).await;
            assert_eq!(
                status, 200,
                "outage {outage}: node {i} healthy again: {body}"
            );
        }
        for r in &rounds {
            let row = watch.room(&r.code).await;
            assert!(
                matches!(&row, Some((_, state)) if state == "playing"),
                "outage {outage}: room {} reads {row:?}",
                r.code
            );
        }
    }
    for r in rounds {
        assert_eq!(r.end().await, None, "the rounds' sockets stayed open");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_paused_past_its_lease_finds_its_round_adopted_and_gives_it_up() {
    if !postgres::available() {
        return;
    }
    // Given three nodes, a round playing on A,
    let url = postgres::database();
    let dir = crate::nodes::folder("paused");
    let key = dir.join("session.key");
    let mut nodes = Vec::new();
    for n in ["a", "b", "c"] {
        nodes.push(Node::start(&dir, n, &url, &key, &[]).await);
    }
    let round = Playing::start("127.0.0.9", nodes[0].addr).await;
    let watch = Watch::new(&url).await;
    // past its countdown, its log streaming (a chunk a second),
    tokio::time::sleep(Duration::from_secs(6)).await;
    // when A is paused for 18 s (past its 10 s lease and the janitor's two looks),
    nodes[0].signal("STOP");
    tokio::time::sleep(Duration::from_secs(18)).await;
    // then the round was adopted by B or C meanwhile: the directory names it there, the
    // round still open,
    let row = watch.room(&round.code).await;
    assert!(
        matches!(&row, Some((node, state)) if (node == "b" || node == "c") && state == "playing"),
        "the directory says {row:?}"
    );
    nodes[0].signal("CONT");
    let woke = Instant::now();
    let code = round.code.clone();
    // and A, once awake, says loudly that its lease had lapsed and gives the room up: its
    // player's socket closes `4401` (the round is the adopter's to play on and to end),
    let closed = round.end_within(Duration::from_secs(5)).await;
    assert_eq!(closed, Some(4401), "A disowns the adopted room");
    assert!(woke.elapsed() < Duration::from_secs(5));
    let said = nodes[0].logged();
    assert!(
        said.contains("lease had lapsed") && said.contains("\"level\":\"ERROR\""),
        "A's log says nothing of its lapsed lease"
    );
    let open: Option<(Option<String>,)> =
        sqlx::query_as("SELECT result FROM rounds WHERE room_code = $1")
            .bind(&code)
            .fetch_optional(&watch.pool)
            .await
            .expect("rounds");
    assert_eq!(open, Some((None,)), "the round plays on, not aborted");
    let row_after = watch.room(&code).await;
    assert_eq!(row_after, row, "the adopter keeps the room");
    assert_eq!(watch.rooms_lost().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_drained_node_leaves_the_directory_and_no_room_is_marked_lost() {
    if !postgres::available() {
        return;
    }
    // Given two nodes, and on A a lobby and a round playing,
    let url = postgres::database();
    let dir = crate::nodes::folder("drained");
    let key = dir.join("session.key");
    let mut a = Node::start(&dir, "a", &url, &key, &[("UNDERCOOKED_DRAIN_GRACE_S", "2")]).await;
    let b = Node::start(&dir, "b", &url, &key, &[]).await;
    let round = Playing::start("127.0.0.9", a.addr).await;
    let (status, _) =
        crate::server::http_from("127.0.0.9", a.addr, "POST", "/api/rooms", Some("{}")).await;
    assert_eq!(status, 201);
    let watch = Watch::new(&url).await;
    // when A is sent SIGTERM and exits,
    a.signal("TERM");
    let exited = tokio::task::spawn_blocking(move || {
        let status = a.child.wait();
        (a, status)
    });
    let (_a, status) = tokio::time::timeout(Duration::from_secs(20), exited)
        .await
        .expect("A exits within its grace")
        .expect("the wait");
    assert!(status.expect("a status").success(), "A exits 0");
    let _ = round.end().await;
    // then A's rows are gone and its lease is over at once, and for longer than a lease
    // and two janitor beats nothing of A's is ever marked lost.
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rooms_live WHERE node_id = 'a'")
        .fetch_one(&watch.pool)
        .await
        .expect("rooms_live");
    assert_eq!(rows, 0, "A's rooms left the directory");
    let live: bool = sqlx::query_scalar("SELECT lease_until > now() FROM nodes WHERE id = 'a'")
        .fetch_one(&watch.pool)
        .await
        .expect("A's lease");
    assert!(!live, "A's lease ended at its exit");
    let until = Instant::now() + Duration::from_secs(22);
    while Instant::now() < until {
        assert_eq!(
            watch.rooms_lost().await,
            0,
            "a drained node's room was marked lost"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    drop(b);
}
