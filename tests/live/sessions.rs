//! Sessions with a lifetime: looked up when a token comes back (not all loaded at start),
//! stored under the server's key (older rows rehashed), expired when they never finished a
//! round, and started at most `UNDERCOOKED_NEW_SESSIONS_PER_MIN` times a minute per address.

use crate::server;

use serde_json::json;
use server::{Client, create_room, http_from, played_round, session_of, start, start_in};
use sha2::{Digest, Sha256};

fn sha256_hex(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_looked_up_when_its_token_returns_and_is_stored_under_the_servers_key() {
    // Given a player who started a session, and a server restarted since,
    let mut s = start(&[]).await;
    let (_, token) = create_room(s.addr, "Ann").await;
    s.shared.chain().unwrap().flushed().await;
    s.stop().await;
    let data = s.data.clone();
    let s = start_in(&data, &[]).await;

    // then nothing was loaded at start,
    assert_eq!(s.shared.sessions.cached(), 0);
    // the returning token is found on demand, with its name,
    let (status, me) = session_of(s.addr, &token).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["name"], "Ann");
    assert_eq!(s.shared.sessions.cached(), 1);

    // and the database holds neither the token nor its plain SHA-256, only a keyed hash
    // under a key kept owner-only in the data dir.
    let store = s.shared.store().unwrap();
    let (hash, scheme): (String, i64) =
        sqlx::query_as("SELECT token_hash, hash_scheme FROM sessions WHERE name = 'Ann'")
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!((hash.len(), scheme), (64, 2));
    assert_ne!(hash, sha256_hex(&token));
    assert!(!hash.contains(&token));
    use std::os::unix::fs::PermissionsExt;
    let key = std::fs::metadata(data.join("session.key")).unwrap();
    assert_eq!(key.permissions().mode() & 0o777, 0o600);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_from_before_the_key_are_rehashed_and_their_players_keep_their_progress() {
    // Given a database with a session an older build stored under its plain SHA-256,
    let mut s = start(&[]).await;
    let store = s.shared.store().unwrap().clone();
    sqlx::query(
        "INSERT INTO sessions (id, token_hash, name, unlocked, created_at, last_seen) VALUES ('old1', ?, 'Olga', 3, 0, strftime('%s','now'))",
    )
    .bind(sha256_hex("olgas-token"))
    .execute(&store.sqlite().expect("a SQLite store"))
    .await
    .unwrap();
    s.stop().await;
    drop(store);

    // when the server starts on it,
    let s = start_in(&s.data, &[]).await;

    // then the row is rehashed under the key, and its player is who they were.
    let store = s.shared.store().unwrap();
    let (hash, scheme): (String, i64) =
        sqlx::query_as("SELECT token_hash, hash_scheme FROM sessions WHERE id = 'old1'")
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(scheme, 2);
    assert_ne!(hash, sha256_hex("olgas-token"));
    let (status, me) = session_of(s.addr, "olgas-token").await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        (me["name"].as_str(), me["unlocked"].as_u64()),
        (Some("Olga"), Some(3))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_that_never_finished_a_round_expire_and_those_that_did_stay() {
    // Given two players who finished a round, one who only opened a room, and a spectator,
    let mut s = start(&[]).await;
    let code = played_round(&s).await;
    let (_, idle) = create_room(s.addr, "Idle").await;
    let mut watcher = Client::connect(s.addr, &code).await;
    watcher
        .send(json!({"type": "hello", "p": 1, "token": "watcher-token", "name": "Wat"}))
        .await;
    watcher.expect("welcome").await;
    drop(watcher);
    s.shared.chain().unwrap().flushed().await;
    let store = s.shared.store().unwrap().clone();
    let count = |store: undercooked::store::Store| async move {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM sessions")
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap()
    };
    assert_eq!(count(store.clone()).await, 4);
    s.stop().await;
    // all last seen two days ago (past the one-day TTL),
    sqlx::query("UPDATE sessions SET last_seen = strftime('%s','now') - 2 * 86400")
        .execute(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    drop(store);

    // when the server starts again,
    let s = start_in(&s.data, &[]).await;

    // then only the two who finished a round are left,
    let store = s.shared.store().unwrap().clone();
    assert_eq!(count(store).await, 2);
    let (status, _) = session_of(s.addr, &idle).await;
    assert_eq!(status, 404, "the idle session is gone");
    let (status, _) = session_of(s.addr, "watcher-token").await;
    assert_eq!(status, 404, "the spectator's session is gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_starts_at_most_its_new_sessions_a_minute_and_returning_players_are_not_counted()
 {
    // Given a server that lets an address start 3 sessions a minute,
    let s = start(&[("UNDERCOOKED_NEW_SESSIONS_PER_MIN", "3")]).await;
    let new_room = |from: &'static str| {
        let body = json!({"name": "Ann"}).to_string();
        async move { http_from(from, s.addr, "POST", "/api/rooms", Some(&body)).await }
    };
    // when one address starts 3,
    let mut tokens = Vec::new();
    for _ in 0..3 {
        let (status, v) = new_room("127.0.0.5").await;
        assert_eq!(status, 201, "{v}");
        tokens.push(v["you"]["token"].as_str().unwrap().to_string());
    }

    // then its fourth is refused, saying why,
    let (status, v) = new_room("127.0.0.5").await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["code"], "rate_limited");
    // and so is a socket's hello with a token never seen,
    let code = {
        let (_, v) = new_room("127.0.0.6").await;
        v["room_code"].as_str().unwrap().to_string()
    };
    let mut fresh = Client::connect_from("127.0.0.5", s.addr, &code)
        .await
        .unwrap();
    fresh
        .send(json!({"type": "hello", "p": 1, "token": "never-seen", "name": "Cy"}))
        .await;
    assert_eq!(fresh.expect("err").await["code"], "rate_limited");
    // while a returning token from the same address gets in,
    let body = json!({"token": tokens[0]}).to_string();
    let path = format!("/api/rooms/{code}/join");
    let (status, v) = http_from("127.0.0.5", s.addr, "POST", &path, Some(&body)).await;
    assert_eq!(status, 200, "{v}");
    // and another address starts its own.
    assert_eq!(new_room("127.0.0.7").await.0, 201);
}
