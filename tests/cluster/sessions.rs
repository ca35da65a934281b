//! Sessions across nodes, given / when / then: a new player's first calls reaching two
//! nodes at once leave one session, so a rename made on either is the one every node shows.

use crate::nodes::{folder, nodes, post};
use crate::postgres;
use crate::server;
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_player_seen_by_two_nodes_at_once_has_one_session() {
    if !postgres::available() {
        return;
    }
    // Given three nodes and a token none has seen,
    let url = postgres::database();
    let dir = folder("one-session");
    let n = nodes(&url, &dir.join("session.key"), 3).await;
    let token = "a-brand-new-players-token-0001";
    // when the player's first two calls reach A and then B before A's write chain stored
    // the session (it lingers 100 ms), and the player then renames on B,
    let (a, _) = post(
        &n[0],
        "/api/rooms",
        json!({"name": "Ann", "token": token}),
        None,
    )
    .await;
    let (b, _) = post(
        &n[1],
        "/api/rooms",
        json!({"name": "Ann", "token": token}),
        None,
    )
    .await;
    assert_eq!((a, b), (201, 201));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (renamed, _) = post(
        &n[1],
        "/api/rooms",
        json!({"name": "Zed", "token": token}),
        None,
    )
    .await;
    assert_eq!(renamed, 201);
    // then node C, which reads the session from the database (once: it keeps it), knows the
    // player as Zed: A and B named one session, so B's rename reached the row every node
    // reads. (C asks once B's chain has written, well past its 100 ms linger.)
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        server::session_of(n[2].addr, token).await.1["name"],
        "Zed",
        "node C shows the name B was given"
    );
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let (sessions,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions")
        .fetch_one(&pool)
        .await
        .expect("count sessions");
    assert_eq!(sessions, 1);
}
