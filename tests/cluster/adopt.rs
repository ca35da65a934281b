//! A round outlives its node: three nodes on one PostgreSQL, a round with two players and
//! two bots on node A, A killed (`kill -9`) in the middle of it. The janitor hands the round
//! to a live node, which re-folds it from the log A streamed to PostgreSQL and plays on;
//! both players find it through any node's room status (`ws_url`), come back to their
//! seats, and the round ends with its result: one row in the history, and the stored
//! replay — A's part and the adopter's, written by two processes — verifies whole.

use super::fleet::{Node, Watch};
use crate::postgres;
use crate::server::{self, Client, Stop, play_on};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const LEVEL: &str = "01_first_kitchen";

fn level(id: &str) -> undercooked::sim::Level {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    undercooked::levels::find(&dir, id).unwrap().level
}

/// Ann and Bob in a room on `addr` with two bots, the round started; (code, tokens, sockets).
async fn four_cooks(addr: SocketAddr) -> (String, Vec<String>, Vec<Client>) {
    let (code, host) = server::create_room(addr, "Ann").await;
    let (_, joined) = server::join_room(addr, &code, "Bob").await;
    let guest = joined["you"]["token"].as_str().unwrap().to_string();
    let auth = format!("Bearer {host}");
    for _ in 0..2 {
        let path = format!("/api/rooms/{code}/bots");
        let (status, v) =
            server::http(addr, "POST", &path, Some(""), &[("Authorization", &auth)]).await;
        assert_eq!(status, 201, "{v}");
    }
    let mut a = Client::hello(addr, &code, &host).await;
    let mut b = Client::hello(addr, &code, &guest).await;
    server::start_round(&mut a, &mut [&mut b], LEVEL).await;
    (code, vec![host, guest], vec![a, b])
}

/// Where room `code`'s socket is now, asked of the node at `ask` until it names a node
/// other than `dead` (a moving room answers `503 room_moving` meanwhile).
pub(super) async fn new_home(ask: SocketAddr, code: &str, dead: SocketAddr) -> (SocketAddr, Value) {
    let started = Instant::now();
    loop {
        let (status, v) = server::http(ask, "GET", &format!("/api/rooms/{code}"), None, &[]).await;
        if status == 200 {
            let url = v["ws_url"].as_str().unwrap_or_default();
            let host = url
                .trim_start_matches("ws://")
                .split('/')
                .next()
                .unwrap_or_default();
            if let Ok(addr) = host.parse::<SocketAddr>()
                && addr != dead
            {
                return (addr, v);
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "room {code} found no new home: {status} {v}"
        );
        // Meanwhile the room is never gone: its node does not answer (while its lease
        // runs), then it is moving; both say to ask again.
        assert!(
            status == 200
                || (status == 503
                    && (v["code"] == "room_moving" || v["code"] == "storage_unavailable")),
            "while its round moves, room {code} answers {status} {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_of_the_node_holding_a_round_moves_it_to_a_live_node() {
    if !postgres::available() {
        return;
    }
    let url = postgres::database();
    let dir = crate::nodes::folder("adopt");
    let key = dir.join("session.key");
    let mut nodes = Vec::new();
    for n in ["a", "b", "c"] {
        nodes.push(Node::start(&dir, n, &url, &key, &[]).await);
    }
    let (a, b) = (nodes[0].addr, nodes[1].addr);
    let (code, tokens, clients) = four_cooks(a).await;
    let level = level(LEVEL);
    let seats: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(seat, mut c)| {
            let level = level.clone();
            tokio::spawn(async move {
                match play_on(&mut c, seat as u8, &level).await {
                    Stop::Closed(code, tick) => (code, tick),
                    Stop::Round(_) => panic!("the round ended before the kill"),
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(20)).await;
    nodes[0].signal("KILL");
    let killed = Instant::now();
    let mut seen = 0;
    for s in seats {
        seen = seen.max(s.await.unwrap().1);
    }

    // Each player asks B where the room is and comes back there with its token.
    let backs: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(seat, token)| {
            let (level, token, code) = (level.clone(), token.clone(), code.clone());
            tokio::spawn(async move {
                let (home, status) = new_home(b, &code, a).await;
                assert_eq!(status["state"], "playing", "{status}");
                let mut c = Client::connect(home, &code).await;
                c.send(json!({"type": "hello", "p": 1, "token": token, "name": null}))
                    .await;
                let welcome = c.expect("welcome").await;
                assert_eq!(welcome["you"]["seat"], seat, "back in its own seat");
                // The notice and the kitchen's full `snap` leave the adopter together.
                let resumed = c.expect("resumed").await;
                let first_snap = killed.elapsed();
                match play_on(&mut c, seat as u8, &level).await {
                    Stop::Round(r) => (r, resumed, first_snap, home),
                    Stop::Closed(code, _) => panic!("seat {seat} closed ({code:?}) on the adopter"),
                }
            })
        })
        .collect();
    let mut ends = Vec::new();
    for t in backs {
        ends.push(t.await.unwrap());
    }
    let (round, resumed, first_snap, home) = &ends[0];
    assert!(
        round["result"] == "won" || round["result"] == "lost",
        "{round}"
    );
    let resumed_at = resumed["tick"].as_u64().unwrap() as u32;
    eprintln!(
        "kill -9 of A: the round went on at {home} from tick {resumed_at} (the players had seen {seen}: {} ticks lost); first snap on the adopter {} ms after the kill",
        seen.saturating_sub(resumed_at),
        first_snap.as_millis()
    );
    assert!(
        *first_snap < Duration::from_secs(15),
        "the round continues within the lease (10 s) plus 5 s: {first_snap:?}"
    );

    // One row, its real result; the stored replay verifies from its first record to its last.
    let watch = Watch::new(&url).await;
    let rows: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT round_key, result FROM rounds WHERE room_code = $1")
            .bind(&code)
            .fetch_all(&watch.pool)
            .await
            .unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].1.as_deref(), round["result"].as_str());
    let round_key = rows[0].0.clone();
    let mut stored = false;
    for _ in 0..100 {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM replay_files WHERE round_key = $1")
            .bind(&round_key)
            .fetch_one(&watch.pool)
            .await
            .unwrap();
        let logs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM round_logs WHERE round_key = $1")
            .bind(&round_key)
            .fetch_one(&watch.pool)
            .await
            .unwrap();
        if n == 1 && logs == 0 {
            stored = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        stored,
        "the whole replay is stored and its live log forgotten"
    );
    let (exit, out, err) = crate::replays::undercooked(&["verify", "--db", &url, &round_key], &dir);
    assert_eq!(exit, 0, "verify --db: {out} {err}");
    let (exit, out, _) = crate::replays::undercooked(
        &[
            "replay",
            "--json",
            &dir.join(format!(
                "{}/replays/{round_key}.ucr",
                node_name(&nodes, *home)
            ))
            .display()
            .to_string(),
        ],
        &dir,
    );
    assert_eq!(exit, 0, "{out}");
    let summary: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        summary["resumes"].as_array().map(Vec::len),
        Some(1),
        "{summary}"
    );
    assert_eq!(watch.rooms_lost().await, 0);
}

/// The name ("b" or "c") of the node at `addr`.
fn node_name(nodes: &[Node], addr: SocketAddr) -> &'static str {
    ["a", "b", "c"][nodes
        .iter()
        .position(|n| n.addr == addr)
        .expect("a node of the test")]
}
