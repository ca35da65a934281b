//! Replay files kept in PostgreSQL, so that every node of a cluster lists and serves every
//! round, whichever node played it (the `replay_files` table, migration 0005; SQLite has no
//! such table: there the files in the data folder are the only copy).
//!
//! A round's file is uploaded when the round ends; while it plays, the node's local file is
//! its write-ahead log and the only copy. Uploads go through `Uploads`, a task of their own
//! off the rooms' ticks: a room hands over a finished file's path without waiting, a failed
//! upload is logged and tried again with a back-off, and at start every local replay file
//! the table does not hold yet is queued (a round that ended while the database was away,
//! or before a crash). The file on disk is never removed, so nothing is lost meanwhile.
//! The same start also notes the torn rounds (`Uploads::take_torn`): local files the table
//! lacks or holds shorter whose round the history has not finished (no row, no result, or
//! `aborted`, as a janitor records a killed node's round). Those are a crash's leftovers,
//! whose last events may never have reached the history; the node reindexes them
//! (`crate::shared::cluster_upkeep`; the reindex lives above the store).
//!
//! An upload is idempotent, keyed by the round key of the file's header (never its name): a
//! copy of the same round (same header identity) replaces the stored one only when it is
//! longer (a torn file uploaded at a start, completed later, is never the copy that stays);
//! a file under a key held by another round is refused and logged. Reads are bounded as
//! file reads are: a stored replay over `MAX_FILE_BYTES` is refused before its bytes are
//! fetched.

use super::{Pool, Store};
use crate::log::file::MAX_FILE_BYTES;
use crate::log::{Record, read_replay};
use sqlx::PgConnection;
use sqlx::postgres::PgPool;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The first wait before a failed upload is tried again; it doubles up to `RETRY_MAX`.
pub const RETRY_FIRST: Duration = Duration::from_secs(2);
pub const RETRY_MAX: Duration = Duration::from_secs(60);

/// What became of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Put {
    /// The bytes are now the stored copy (new, or longer than the one stored).
    Stored,
    /// The stored copy of this round is already as long or longer: nothing changed.
    Kept,
    /// Another round (another identity) holds the key: nothing changed.
    Clash(String),
}

/// Why a stored replay cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum GetError {
    #[error("the stored replay is {0} bytes; a replay file is at most 256 MiB")]
    TooBig(u64),
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
}

/// The PostgreSQL pool of a store, `None` on SQLite (which stores no replay files).
pub fn pg(store: &Store) -> Option<&PgPool> {
    match &store.pool {
        Pool::Postgres(p) => Some(p),
        Pool::Sqlite(_) => None,
    }
}

/// The round key and identity a replay's bytes name in their header, or why they name none.
pub fn header_of(bytes: &[u8]) -> Result<(String, String), String> {
    let read = read_replay(bytes).map_err(|e| e.to_string())?;
    match read.records.first() {
        Some(Record::Started(header)) => Ok((header.round_key(), header.identity())),
        _ => Err("the file ends before its header is complete".into()),
    }
}

/// Whether a replay's bytes end with the round's `Ended` record (the file is whole).
fn ends(bytes: &[u8]) -> bool {
    read_replay(bytes).is_ok_and(|r| matches!(r.records.last(), Some(Record::Ended { .. })))
}

/// Stores `bytes` as round `round_key`'s replay (see the module's rules).
pub async fn put(
    conn: &mut PgConnection,
    round_key: &str,
    identity: &str,
    bytes: &[u8],
) -> sqlx::Result<Put> {
    let changed = sqlx::query(
        "INSERT INTO replay_files (round_key, identity, size, bytes, uploaded_at)
         VALUES ($1, $2, $3, $4, EXTRACT(EPOCH FROM now())::BIGINT)
         ON CONFLICT (round_key) DO UPDATE
             SET size = EXCLUDED.size, bytes = EXCLUDED.bytes, uploaded_at = EXCLUDED.uploaded_at
             WHERE replay_files.identity = EXCLUDED.identity AND replay_files.size < EXCLUDED.size",
    )
    .bind(round_key)
    .bind(identity)
    .bind(bytes.len() as i64)
    .bind(bytes)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if changed > 0 {
        return Ok(Put::Stored);
    }
    let held: Option<String> =
        sqlx::query_scalar("SELECT identity FROM replay_files WHERE round_key = $1")
            .bind(round_key)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(match held {
        Some(other) if other != identity => Put::Clash(format!(
            "round {round_key} is stored as another round (identity {other}, this file's {identity}); not uploaded"
        )),
        _ => Put::Kept,
    })
}

/// The stored size of a round's replay, when the database holds one.
pub async fn size_of(pool: &PgPool, round_key: &str) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT size FROM replay_files WHERE round_key = $1")
        .bind(round_key)
        .fetch_optional(pool)
        .await
}

/// The janitor's verdict on round `round_key`, when it recorded one (`round_verdicts`).
pub async fn verdict(
    pool: &PgPool,
    round_key: &str,
) -> sqlx::Result<Option<super::history::Verdict>> {
    let row: Option<(String, String, i64, i64)> = sqlx::query_as(
        "SELECT v.result, v.node_id, v.epoch, COALESCE(r.ended_at, EXTRACT(EPOCH FROM v.at)::BIGINT)
         FROM round_verdicts v JOIN rounds r ON r.round_key = v.round_key
         WHERE v.round_key = $1",
    )
    .bind(round_key)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(
        |(result, node_id, epoch, ended_at)| super::history::Verdict {
            result,
            node_id,
            epoch,
            ended_at,
        },
    ))
}

/// Whether `store` keeps finished rounds' replays itself (PostgreSQL).
pub fn stores_replays(store: &Store) -> bool {
    pg(store).is_some()
}

/// A round's stored replay bytes from `store`, as `get` (none on SQLite, which keeps no
/// replays in the database).
pub async fn fetch(store: &Store, round_key: &str) -> Result<Option<(Vec<u8>, i64)>, GetError> {
    match pg(store) {
        Some(pool) => get(pool, round_key).await,
        None => Ok(None),
    }
}

/// A round's stored replay bytes and when they were uploaded (Unix seconds); `None` when
/// none is stored. One over `MAX_FILE_BYTES` is refused before its bytes are fetched.
pub async fn get(pool: &PgPool, round_key: &str) -> Result<Option<(Vec<u8>, i64)>, GetError> {
    let row: Option<(i64, i64, Option<Vec<u8>>)> = sqlx::query_as(
        "SELECT size, uploaded_at, CASE WHEN size <= $2 THEN bytes END
         FROM replay_files WHERE round_key = $1",
    )
    .bind(round_key)
    .bind(MAX_FILE_BYTES as i64)
    .fetch_optional(pool)
    .await?;
    match row {
        None => Ok(None),
        Some((_, at, Some(bytes))) => Ok(Some((bytes, at))),
        Some((size, _, None)) => Err(GetError::TooBig(size.max(0) as u64)),
    }
}

/// Every stored round key and its size.
async fn sizes(pool: &PgPool) -> sqlx::Result<HashMap<String, i64>> {
    let rows: Vec<(String, i64)> = sqlx::query_as("SELECT round_key, size FROM replay_files")
        .fetch_all(pool)
        .await?;
    Ok(rows.into_iter().collect())
}

/// Every stored round key, in order.
pub async fn keys(pool: &PgPool) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("SELECT round_key FROM replay_files ORDER BY round_key")
        .fetch_all(pool)
        .await
}

/// Counters of the uploads, for the log and the tests.
#[derive(Default, Debug)]
pub struct UploadStats {
    /// Files whose bytes are now the stored copy.
    pub uploaded: AtomicU64,
    /// Files the database already held as long (or that clash): nothing to do.
    pub kept: AtomicU64,
    /// Failed attempts (each is tried again).
    pub failures: AtomicU64,
    /// Files queued or waiting for a retry.
    pub pending: AtomicU64,
    /// Bytes uploaded, and the time the uploads took in all (microseconds).
    pub bytes: AtomicU64,
    pub micros: AtomicU64,
}

/// The upload task's handle: rooms hand it finished files.
#[derive(Clone)]
pub struct Uploads {
    tx: mpsc::UnboundedSender<PathBuf>,
    pub stats: Arc<UploadStats>,
    torn: Arc<std::sync::Mutex<Vec<PathBuf>>>,
}

impl Uploads {
    /// Starts the upload task on a PostgreSQL store (`None` on SQLite). Every replay file in
    /// `dir` now is queued first (those the table holds as long are skipped there): the list
    /// is taken before this returns, so before any round of this run starts a file.
    pub async fn start(store: &Store, dir: &Path) -> Option<Uploads> {
        let pool = pg(store)?.clone();
        let (tx, rx) = mpsc::unbounded_channel();
        let stats = Arc::new(UploadStats::default());
        let found = crate::log::replay_files(dir).unwrap_or_default();
        // What is stored already, read once: a start with thousands of local files uploaded
        // earlier reads none of them again. Unknown (the database away) means every file is
        // read and offered; the insert's rule keeps that idempotent.
        let stored = match sizes(&pool).await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "the stored replays could not be listed: every local replay is offered again, and no torn round is reindexed at this start");
                HashMap::new()
            }
        };
        // Read before any upload of this start, which would make a torn file look stored.
        let torn = match torn(&pool, &found, &stored).await {
            Ok(torn) => torn,
            Err(e) => {
                tracing::warn!(error = %e, "the history could not be asked which local replays are torn: none is reindexed at this start (`undercooked reindex` does it)");
                Vec::new()
            }
        };
        let uploads = Uploads {
            tx,
            stats,
            torn: Arc::new(std::sync::Mutex::new(torn)),
        };
        for path in found {
            uploads.finished(path);
        }
        tokio::spawn(run(pool, rx, uploads.stats.clone(), stored));
        Some(uploads)
    }

    /// The torn rounds' files this start found (see the module's notes), handed over once:
    /// a second call returns none.
    pub fn take_torn(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *crate::lock::lock(&self.torn))
    }

    /// A round's file is complete: upload it (never waits).
    pub fn finished(&self, path: PathBuf) {
        self.stats.pending.fetch_add(1, Relaxed);
        if self.tx.send(path).is_err() {
            self.stats.pending.fetch_sub(1, Relaxed);
        }
    }

    /// Files not uploaded yet (queued, or waiting to be tried again).
    pub fn pending(&self) -> u64 {
        self.stats.pending.load(Relaxed)
    }
}

/// A file waiting to be tried again.
struct Retry {
    path: PathBuf,
    at: Instant,
    wait: Duration,
}

/// The local files (by their name's round key) that the table lacks or holds shorter,
/// and whose round the history has not finished: no row, no result, or `aborted`.
async fn torn(
    pool: &PgPool,
    found: &[PathBuf],
    stored: &HashMap<String, i64>,
) -> sqlx::Result<Vec<PathBuf>> {
    let unstored: Vec<(String, &PathBuf)> = found
        .iter()
        .filter_map(|path| {
            let key = path.file_stem()?.to_string_lossy().into_owned();
            let len = std::fs::metadata(path).ok()?.len() as i64;
            stored
                .get(&key)
                .is_none_or(|size| *size < len)
                .then_some((key, path))
        })
        .collect();
    if unstored.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<&str> = unstored.iter().map(|(k, _)| k.as_str()).collect();
    let finished: Vec<String> = sqlx::query_scalar(
        "SELECT round_key FROM rounds
         WHERE round_key = ANY($1) AND result IS NOT NULL AND result <> 'aborted'",
    )
    .bind(&keys)
    .fetch_all(pool)
    .await?;
    Ok(unstored
        .into_iter()
        .filter(|(key, _)| !finished.contains(key))
        .map(|(_, path)| path.clone())
        .collect())
}

/// Uploads what comes in, one file at a time, and tries failed ones again with a back-off.
/// `stored`: every stored round key and its size, as the start read them.
async fn run(
    pool: PgPool,
    mut rx: mpsc::UnboundedReceiver<PathBuf>,
    stats: Arc<UploadStats>,
    mut stored: HashMap<String, i64>,
) {
    let mut retries: Vec<Retry> = Vec::new();
    loop {
        // A retry that is due goes first, so a busy queue never starves the retries.
        let now = Instant::now();
        let (path, wait) = if let Some(i) = retries.iter().position(|r| r.at <= now) {
            let r = retries.swap_remove(i);
            (r.path, Some(r.wait))
        } else {
            let next_retry = retries.iter().map(|r| r.at).min();
            let incoming = match next_retry {
                Some(at) => tokio::time::timeout_at(at.into(), rx.recv()).await.ok(),
                None => Some(rx.recv().await),
            };
            match incoming {
                Some(Some(path)) => (path, None),
                Some(None) => return,
                None => continue,
            }
        };
        match upload(&pool, &path, &mut stored, &stats).await {
            Ok(()) => {
                stats.pending.fetch_sub(1, Relaxed);
                if wait.is_some() {
                    tracing::info!(path = %path.display(), "a replay file that failed to upload earlier is now in the database");
                }
            }
            Err(Failed::Never(why)) => {
                stats.pending.fetch_sub(1, Relaxed);
                tracing::warn!(path = %path.display(), why = %why, "a replay file was not uploaded to the database; it stays on this node's disk");
            }
            Err(Failed::Later(why)) => {
                stats.failures.fetch_add(1, Relaxed);
                let wait = wait.map_or(RETRY_FIRST, |w| (w * 2).min(RETRY_MAX));
                tracing::warn!(path = %path.display(), error = %why, retry_in_s = wait.as_secs(), "a replay file could not be uploaded to the database; it stays on disk and is tried again");
                retries.push(Retry {
                    path,
                    at: Instant::now() + wait,
                    wait,
                });
            }
        }
    }
}

enum Failed {
    /// Not worth another try (the file cannot be read, or its key is another round's).
    Never(String),
    /// The database did not take it (tried again).
    Later(String),
}

async fn upload(
    pool: &PgPool,
    path: &Path,
    stored: &mut HashMap<String, i64>,
    stats: &UploadStats,
) -> Result<(), Failed> {
    // A file named by a round key stored at start, and no longer than the stored copy, is
    // skipped unread (a live round writes `<key>.ucr`; a round's end brings a new key).
    let name_key = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let len = std::fs::metadata(path).map_or(i64::MAX, |m| m.len() as i64);
    if let Some(key) = name_key.filter(|k| stored.get(k).is_some_and(|size| len <= *size)) {
        stored.remove(&key);
        tracing::debug!(round = %key, "replay already in the database");
        stats.kept.fetch_add(1, Relaxed);
        return Ok(());
    }
    let started = Instant::now();
    let file = path.to_path_buf();
    let bytes = tokio::task::spawn_blocking(move || crate::log::read_file(&file))
        .await
        .map_err(|e| Failed::Later(e.to_string()))?
        .map_err(|e| Failed::Never(e.to_string()))?;
    let (key, identity) = header_of(&bytes).map_err(Failed::Never)?;
    let mut conn = pool
        .acquire()
        .await
        .map_err(|e| Failed::Later(e.to_string()))?;
    let put = put(&mut conn, &key, &identity, &bytes).await;
    // A whole round is stored: its live log (kept for an adoption) is of no more use.
    if matches!(put, Ok(Put::Stored | Put::Kept)) && ends(&bytes) {
        let _ = super::log_stream::forget(&mut *conn, &key).await;
    }
    match put {
        Ok(Put::Stored) => {
            stats.uploaded.fetch_add(1, Relaxed);
            stats.bytes.fetch_add(bytes.len() as u64, Relaxed);
            let micros = started.elapsed().as_micros() as u64;
            stats.micros.fetch_add(micros, Relaxed);
            tracing::debug!(round = %key, bytes = bytes.len(), micros, "replay uploaded");
            Ok(())
        }
        Ok(Put::Kept) => {
            stats.kept.fetch_add(1, Relaxed);
            Ok(())
        }
        Ok(Put::Clash(why)) => {
            stats.kept.fetch_add(1, Relaxed);
            Err(Failed::Never(why))
        }
        Err(e) => Err(Failed::Later(e.to_string())),
    }
}
