//! Replays on shared storage, given / when / then: a round played on node A is uploaded to
//! PostgreSQL when it ends, and node B (another data folder, the same database) lists it and
//! serves its header, frames and file; `verify --db` and `reindex --from-db` read it from
//! the database; an upload that failed is done later, by the running node and by a restart.

use crate::postgres;
use crate::server::{self, TestServer};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A session key file both nodes share (a cluster's nodes must: issue 25).
fn key_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-replays-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder for the key");
    dir.join("session.key")
}

async fn node(url: &str, key: &Path) -> TestServer {
    let key = key.display().to_string();
    server::start(&[
        ("UNDERCOOKED_DB", url),
        ("UNDERCOOKED_SESSION_KEY_FILE", &key),
    ])
    .await
}

/// `GET path` as raw bytes (HTTP/1.0: the body runs to the close, never chunked).
async fn get_bytes(addr: SocketAddr, path: &str) -> (u16, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connect to the node");
    let req = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("send the request");
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.expect("read the answer");
    let end = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&out[..end]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status");
    (status, out[end + 4..].to_vec())
}

/// Polls `f` every 100 ms for up to `secs`; its last answer.
async fn until<T, F: std::future::Future<Output = Option<T>>>(
    secs: u64,
    mut f: impl FnMut() -> F,
) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A node's `/metrics` text.
async fn metrics_of(node: &TestServer) -> String {
    let (_, body) = get_bytes(node.addr, "/metrics").await;
    String::from_utf8_lossy(&body).into_owned()
}

async fn pool(url: &str) -> sqlx::PgPool {
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect to the test database: {e}"))
}

async fn stored_bytes(p: &sqlx::PgPool, key: &str) -> Option<Vec<u8>> {
    sqlx::query_scalar("SELECT bytes FROM replay_files WHERE round_key = $1")
        .bind(key)
        .fetch_optional(p)
        .await
        .expect("read replay_files")
}

/// Runs the `undercooked` binary with `args` in `dir` (without `UNDERCOOKED_DB`): its exit
/// code, stdout and stderr.
pub(crate) fn undercooked(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .args(args)
        .current_dir(dir)
        .env_remove("UNDERCOOKED_DB")
        .output()
        .expect("run undercooked");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The round key of the only replay file a node wrote, and the file's bytes.
fn only_replay(node: &TestServer) -> (String, Vec<u8>) {
    let files = node.replays();
    assert_eq!(files.len(), 1, "one replay file on the node: {files:?}");
    let key = files[0]
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .to_string();
    (key, std::fs::read(&files[0]).expect("read the replay file"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_played_on_one_node_is_listed_and_served_by_another() {
    if !postgres::available() {
        return;
    }
    // Given two nodes, each with its own data folder, on one PostgreSQL database,
    let url = postgres::database();
    let key = key_file("served");
    let mut a = node(&url, &key).await;
    let mut b = node(&url, &key).await;
    // when two cooks play a round to its end on A,
    let code = server::played_round(&a).await;
    let uploads = a.shared.uploads().expect("uploads run on PostgreSQL");
    let uploaded = until(15, || async {
        (uploads.stats.uploaded.load(Relaxed) >= 1).then_some(())
    })
    .await;
    assert!(
        uploaded.is_some(),
        "A uploaded its finished round: {:?}",
        uploads.stats
    );
    let (bytes, micros) = (
        uploads.stats.bytes.load(Relaxed),
        uploads.stats.micros.load(Relaxed),
    );
    eprintln!(
        "upload of a replay of {bytes} bytes (read, header, INSERT): {:.1} ms",
        micros as f64 / 1000.0
    );
    a.stop().await;
    let (id, local) = only_replay(&a);
    assert!(id.starts_with(&code), "{id} is a round of room {code}");
    // and A's disk is gone (B could otherwise read A's file, both being on this machine),
    std::fs::remove_dir_all(&a.data).expect("remove A's data folder");

    // then B lists the round,
    let listed = until(15, || async {
        let (status, list) = server::http(b.addr, "GET", "/api/replays", None, &[]).await;
        assert_eq!(status, 200, "{list}");
        let rounds = list["replays"].as_array().cloned().unwrap_or_default();
        rounds
            .into_iter()
            .find(|r| r["id"] == id.as_str() && r["result"] == "won")
    })
    .await;
    let listed = listed.unwrap_or_else(|| panic!("B lists round {id} as won"));
    assert_eq!(listed["room_code"], code.as_str());
    // serves its file byte for byte as A wrote it,
    let (status, file) = get_bytes(b.addr, &format!("/api/replays/{id}/file")).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&file));
    assert!(
        file == local,
        "B's copy is A's file ({} vs {} bytes)",
        file.len(),
        local.len()
    );
    // its header and its frames.
    let (status, round) =
        server::http(b.addr, "GET", &format!("/api/replays/{id}"), None, &[]).await;
    assert_eq!(status, 200, "{round}");
    assert_eq!(round["id"], id.as_str());
    let (status, frames) = server::http(
        b.addr,
        "GET",
        &format!("/api/replays/{id}/frames"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200, "{frames}");
    let frames = frames["frames"].as_array().cloned().unwrap_or_default();
    assert!(
        frames.len() > 10,
        "B serves the round's frames: {}",
        frames.len()
    );
    // A round the database does not know is still not found.
    let (status, _) = server::http(b.addr, "GET", "/api/replays/NOPE-1-1/frames", None, &[]).await;
    assert_eq!(status, 404);
    b.stop().await;

    // And `verify --db` re-folds the stored copy: identical.
    let dir = b.data.clone();
    let (code_ok, out, err) = undercooked(&["verify", "--db", &url, &id], &dir);
    assert_eq!(
        (code_ok, out.trim()),
        (0, format!("{id}: ok").as_str()),
        "{err}"
    );
    let (code_missing, out, _) = undercooked(&["verify", "--db", &url, "NOPE-1-1"], &dir);
    assert_eq!(code_missing, 2, "{out}");
    assert!(
        out.contains("no replay is stored under this round key"),
        "{out}"
    );
    let sqlite = format!("sqlite://{}", dir.join("x.db").display());
    let (code_lite, _, err) = undercooked(&["verify", "--db", &sqlite, &id], &dir);
    assert_eq!(code_lite, 2);
    assert!(err.contains("is not one (postgres://"), "{err}");

    // And `reindex --from-db` builds a fresh database's history from the stored replays:
    // the round, won, with its replay stored there too.
    let fresh = postgres::database();
    let (code_re, out, err) = undercooked(&["reindex", "--db", &fresh, "--from-db", &url], &dir);
    assert_eq!(code_re, 0, "{out}{err}");
    assert!(out.contains("reindexed 1 of 1 files"), "{out}");
    let fresh_pool = pool(&fresh).await;
    let rounds: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT round_key, result FROM rounds")
            .fetch_all(&fresh_pool)
            .await
            .expect("read rounds");
    assert_eq!(rounds, vec![(id.clone(), Some("won".to_string()))]);
    assert!(stored_bytes(&fresh_pool, &id).await == Some(local.clone()));
    // A second run changes nothing; a SQLite source is refused, naming why.
    let (code_again, out, _) = undercooked(&["reindex", "--db", &fresh, "--from-db"], &dir);
    assert_eq!(code_again, 0, "{out}");
    assert!(out.contains("0 new events"), "{out}");
    let (code_lite, _, err) = undercooked(&["reindex", "--db", &fresh, "--from-db", &sqlite], &dir);
    assert_eq!(code_lite, 2);
    assert!(err.contains("reindex that folder"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_that_failed_is_done_later() {
    if !postgres::available() {
        return;
    }
    // Given a node on PostgreSQL whose replay table is out of reach when its round ends,
    let url = postgres::database();
    let key = key_file("later");
    let mut a = node(&url, &key).await;
    let db = pool(&url).await;
    sqlx::query("ALTER TABLE replay_files RENAME TO replay_files_away")
        .execute(&db)
        .await
        .expect("hide the table");
    server::played_round(&a).await;
    let uploads = a
        .shared
        .uploads()
        .expect("uploads run on PostgreSQL")
        .clone();
    let failed = until(15, || async {
        (uploads.stats.failures.load(Relaxed) >= 1).then_some(())
    })
    .await;
    assert!(failed.is_some(), "the upload failed: {:?}", uploads.stats);
    assert_eq!(uploads.pending(), 1, "and waits to be tried again");
    // (which an operator reads in /metrics)
    let metrics = metrics_of(&a).await;
    assert!(
        metrics.contains("\nundercooked_replay_uploads_pending 1\n")
            && !metrics.contains("\nundercooked_replay_upload_failures_total 0\n"),
        "{metrics}"
    );
    // when the table is back,
    sqlx::query("ALTER TABLE replay_files_away RENAME TO replay_files")
        .execute(&db)
        .await
        .expect("bring the table back");
    // then the running node uploads the file, as it is on its disk.
    let (id, local) = only_replay(&a);
    let stored = until(20, || stored_bytes(&db, &id)).await;
    assert!(stored == Some(local.clone()), "the retry stored A's file");
    assert_eq!(uploads.pending(), 0);
    let metrics = metrics_of(&a).await;
    assert!(
        metrics.contains("\nundercooked_replay_uploads_total 1\n")
            && metrics.contains("\nundercooked_replay_uploads_pending 0\n"),
        "{metrics}"
    );
    a.stop().await;

    // And a replay the database lost is uploaded again when the node next starts.
    sqlx::query("DELETE FROM replay_files")
        .execute(&db)
        .await
        .expect("delete the stored copy");
    let keyfile = key.display().to_string();
    let mut again = server::start_in(
        &a.data,
        &[
            ("UNDERCOOKED_DB", &url),
            ("UNDERCOOKED_SESSION_KEY_FILE", &keyfile),
        ],
    )
    .await;
    let stored = until(15, || stored_bytes(&db, &id)).await;
    assert!(stored == Some(local), "the restart uploaded the file again");
    // A restart with nothing missing uploads nothing.
    again.stop().await;
    let mut third = server::start_in(
        &a.data,
        &[
            ("UNDERCOOKED_DB", &url),
            ("UNDERCOOKED_SESSION_KEY_FILE", &keyfile),
        ],
    )
    .await;
    let uploads = third.shared.uploads().expect("uploads").clone();
    let settled = until(15, || async { (uploads.pending() == 0).then_some(()) }).await;
    assert!(settled.is_some());
    assert_eq!(
        uploads.stats.uploaded.load(Relaxed),
        0,
        "{:?}",
        uploads.stats
    );
    assert_eq!(uploads.stats.kept.load(Relaxed), 1, "{:?}", uploads.stats);
    third.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_uploads_every_local_replay_and_a_longer_copy_replaces_a_torn_one() {
    if !postgres::available() {
        return;
    }
    use undercooked::store::{Store, stored_replays};
    // Given the golden corpus as a node's replay folder, and one of its rounds already
    // stored torn (its first half, as a crash would have left it at an earlier start),
    let url = postgres::database();
    let store = Store::open(&url).await.expect("open the database");
    let db = stored_replays::pg(&store)
        .expect("a PostgreSQL store")
        .clone();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("replays");
    let files = undercooked::log::replay_files(&dir).expect("the golden corpus");
    assert_eq!(files.len(), 10);
    let first = std::fs::read(&files[0]).expect("a golden replay");
    let (torn_key, identity) = stored_replays::header_of(&first).expect("a header");
    let half = &first[..first.len() / 2];
    let mut conn = db.acquire().await.expect("a connection");
    let put = stored_replays::put(&mut conn, &torn_key, &identity, half).await;
    assert_eq!(
        put.expect("store the torn copy"),
        stored_replays::Put::Stored
    );
    drop(conn);
    // when the uploads start on that folder,
    let started = Instant::now();
    let uploads = stored_replays::Uploads::start(&store, &dir)
        .await
        .expect("uploads run on PostgreSQL");
    let done = until(30, || async { (uploads.pending() == 0).then_some(()) }).await;
    assert!(done.is_some(), "{:?}", uploads.stats);
    let (bytes, micros) = (
        uploads.stats.bytes.load(Relaxed),
        uploads.stats.micros.load(Relaxed),
    );
    eprintln!(
        "start-up upload of 10 replays, {bytes} bytes: {:.1} ms uploading ({:.1} ms until none was pending)",
        micros as f64 / 1000.0,
        started.elapsed().as_secs_f64() * 1000.0
    );
    // then every file is stored byte for byte, the torn copy replaced by the whole file,
    assert_eq!(
        uploads.stats.uploaded.load(Relaxed),
        10,
        "{:?}",
        uploads.stats
    );
    for file in &files {
        let local = std::fs::read(file).expect("a golden replay");
        let (key, _) = stored_replays::header_of(&local).expect("a header");
        assert!(
            stored_bytes(&db, &key).await == Some(local),
            "{} is stored whole",
            file.display()
        );
    }
    // and a second start stores nothing again.
    let again = stored_replays::Uploads::start(&store, &dir)
        .await
        .expect("uploads run on PostgreSQL");
    let done = until(30, || async { (again.pending() == 0).then_some(()) }).await;
    assert!(done.is_some(), "{:?}", again.stats);
    assert_eq!(again.stats.uploaded.load(Relaxed), 0, "{:?}", again.stats);
    assert_eq!(again.stats.kept.load(Relaxed), 10, "{:?}", again.stats);
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM replay_files")
        .fetch_one(&db)
        .await
        .expect("count replay_files");
    assert_eq!(count, 10);
}
