//! `loadtest` against several nodes at once, given / when / then: the rooms are spread over
//! the nodes round-robin, each node hosts and plays its share (counted by the node itself,
//! not only by the load generator), and the report gives each node's figures beside the
//! totals.

use crate::postgres;
use crate::server::{self, TestServer};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Every load client is 127.0.0.1: the per-address caps are lifted, as scripts/capacity.sh
/// does.
/// (The shares of `server::ROOMY` every fleet node has already.)
const LIFTED: [(&str, &str); 3] = [
    ("UNDERCOOKED_MAX_CONNECTIONS_PER_IP", "1000000"),
    ("UNDERCOOKED_MAX_PENDING_SOCKETS", "1000000"),
    ("UNDERCOOKED_NEW_SESSIONS_PER_MIN", "100000"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_loadtest_over_three_nodes_spreads_the_rooms_and_plays_on_each() {
    if !postgres::available() {
        return;
    }
    // Given three nodes on one database with one key,
    let url = postgres::database();
    let dir = std::env::temp_dir().join(format!("uc-cluster-{}-load", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let key = dir.join("session.key").display().to_string();
    let mut env: Vec<(&str, &str)> = vec![
        ("UNDERCOOKED_DB", &url),
        ("UNDERCOOKED_SESSION_KEY_FILE", &key),
    ];
    env.extend(LIFTED);
    let mut nodes: Vec<TestServer> = Vec::new();
    for _ in 0..3 {
        nodes.push(server::start(&env).await);
    }
    let started = |n: &TestServer| n.shared.census.rounds_started.load(Ordering::Relaxed);
    let before: Vec<u64> = nodes.iter().map(started).collect();

    // when a loadtest of six rooms runs against all three,
    let config = undercooked::loadtest::Config {
        nodes: nodes.iter().map(|n| n.addr).collect(),
        rooms: 6,
        duration: Duration::from_secs(2),
        level: "01_quick_soup".into(),
        level_source: nodes[0].level("01_quick_soup"),
        ramp: 20.0,
        planners: 1,
    };
    let report = undercooked::loadtest::run(config, |_, _| {})
        .await
        .expect("the loadtest runs");

    // then every room opened, two on each node, in the order the nodes were given;
    assert_eq!((report.rooms, report.rooms_opened), (6, 6), "{report:?}");
    let per_node: Vec<(String, usize, usize)> = report
        .nodes
        .iter()
        .map(|n| (n.node.clone(), n.rooms, n.figures.clients))
        .collect();
    let expected: Vec<(String, usize, usize)> =
        nodes.iter().map(|n| (n.addr.to_string(), 2, 8)).collect();
    assert_eq!(per_node, expected, "rooms and sockets per node");
    // each node started the rounds of its own rooms (its guests joined through the next
    // node, so each join was forwarded, and each socket followed `ws_url` to the owner);
    let after: Vec<u64> = nodes.iter().map(started).collect();
    let played: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(played, [2, 2, 2], "rounds started per node");
    // and every node's seats were welcomed and played, with nothing refused.
    for n in &report.nodes {
        let f = &n.figures;
        assert_eq!(f.handshake_ms.samples, 8, "{}: {f:?}", n.node);
        assert!(f.snaps_per_client_s > 0.0, "{}: no snaps: {f:?}", n.node);
        assert!(f.echo_ms.samples > 0, "{}: no inputs echoed: {f:?}", n.node);
        assert!(f.errors.is_empty(), "{}: {:?}", n.node, f.errors);
        assert!(f.closes.is_empty(), "{}: {:?}", n.node, f.closes);
    }
    // The totals are the nodes' sums.
    assert_eq!(report.total.clients, 24);
    assert_eq!(
        report.total.handshake_ms.samples,
        report
            .nodes
            .iter()
            .map(|n| n.figures.handshake_ms.samples)
            .sum::<usize>()
    );
    for node in &mut nodes {
        node.stop().await;
    }
}
