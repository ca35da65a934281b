//! The live logs of a cluster node's rounds, streamed to PostgreSQL while they play, so that
//! another node can adopt a round when this one dies (`round_logs`, docs/SCALING.md).
//!
//! A room hands over the bytes its replay file took since its last hand-over, once a second
//! at its flush, without ever waiting: the chunk goes to one writer task, which writes the
//! chunks of every room that are waiting in one statement (`UNNEST`), at most four times a
//! second, idempotently (a chunk
//! is keyed by its round and its offset in the file). A room with `MAX_PENDING` chunks not
//! yet written hands over nothing more and keeps its bytes, so the chunks in the database
//! always run from offset 0 without a gap: when PostgreSQL falls behind, the resume point of
//! an adoption is older (by as many seconds as the room kept back), and no tick waits for
//! it. A failed write is retried with a back-off, the chunks held in order, as the history's
//! writer does. `load` joins a round's chunks back into the file's prefix.

use sqlx::PgPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;
use tokio::sync::mpsc;

/// Chunks one room may have waiting before it keeps its bytes back.
pub const MAX_PENDING: usize = 20;
/// Chunks written in one statement at most.
const BATCH: usize = 256;
/// The least time between two statements: rooms hand their chunks over spread across each
/// second, so waiting this long gathers a quarter-second's rooms into one statement (a
/// statement for each chunk or two was 55 a second at 100 rooms).
const GATHER: Duration = Duration::from_millis(250);

/// One room-second (or more, after a hold-back) of a round's log.
pub struct Chunk {
    pub round_key: Arc<str>,
    /// The room it plays in: a chunk is written only while the directory names this node
    /// for that room (a node that comes back after its rounds were adopted writes none).
    pub room_code: Arc<str>,
    /// Where `bytes` start in the round's replay file.
    pub start: u64,
    pub bytes: Vec<u8>,
    /// The room's count of chunks not yet written (one less once this one is).
    pub pending: Arc<AtomicUsize>,
}

/// What the stream has written (for `/metrics` and the figures).
#[derive(Default)]
pub struct StreamStats {
    pub chunks: AtomicU64,
    pub bytes: AtomicU64,
    pub statements: AtomicU64,
    pub failures: AtomicU64,
}

#[derive(Clone)]
pub struct LogStream {
    tx: mpsc::UnboundedSender<Chunk>,
    pub stats: Arc<StreamStats>,
    /// This node's id and epoch in the directory, once it has joined.
    holder: Arc<std::sync::OnceLock<(String, i64)>>,
}

impl LogStream {
    /// Starts the writer on `pool`.
    pub fn start(pool: PgPool) -> LogStream {
        let (tx, rx) = mpsc::unbounded_channel();
        let stats = Arc::new(StreamStats::default());
        let holder = Arc::new(std::sync::OnceLock::new());
        tokio::spawn(write(pool, rx, stats.clone(), holder.clone()));
        LogStream { tx, stats, holder }
    }

    /// The node's place in the directory (its chunks are written in its name).
    pub fn joined(&self, node_id: &str, epoch: i64) {
        let _ = self.holder.set((node_id.to_string(), epoch));
    }

    /// Hands a chunk over without waiting; `false` (the chunk given back) while its room
    /// has `MAX_PENDING` chunks waiting.
    pub fn submit(&self, chunk: Chunk) -> Result<(), Chunk> {
        if chunk.pending.load(Relaxed) >= MAX_PENDING {
            return Err(chunk);
        }
        chunk.pending.fetch_add(1, Relaxed);
        self.tx.send(chunk).map_err(|e| {
            e.0.pending.fetch_sub(1, Relaxed);
            e.0
        })
    }
}

/// The writer: every chunk waiting, in one statement; retried until written.
async fn write(
    pool: PgPool,
    mut rx: mpsc::UnboundedReceiver<Chunk>,
    stats: Arc<StreamStats>,
    holder: Arc<std::sync::OnceLock<(String, i64)>>,
) {
    let mut batch = Vec::new();
    let mut last = tokio::time::Instant::now();
    while let Some(first) = rx.recv().await {
        tokio::time::sleep_until(last + GATHER).await;
        // A node has no room before it joined; a chunk now waits for its name.
        let holder = loop {
            match holder.get() {
                Some(h) => break h.clone(),
                None => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        batch.push(first);
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(c) => batch.push(c),
                Err(_) => break,
            }
        }
        let mut wait = Duration::from_millis(100);
        loop {
            match insert(&pool, &batch, &holder).await {
                Ok(()) => break,
                Err(e) => {
                    stats.failures.fetch_add(1, Relaxed);
                    tracing::warn!(error = %e, chunks = batch.len(), "the rounds' live logs could not be written; retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
            }
        }
        last = tokio::time::Instant::now();
        stats.statements.fetch_add(1, Relaxed);
        for c in batch.drain(..) {
            stats.chunks.fetch_add(1, Relaxed);
            stats.bytes.fetch_add(c.bytes.len() as u64, Relaxed);
            c.pending.fetch_sub(1, Relaxed);
        }
    }
}

async fn insert(pool: &PgPool, batch: &[Chunk], holder: &(String, i64)) -> sqlx::Result<()> {
    let keys: Vec<&str> = batch.iter().map(|c| &*c.round_key).collect();
    let rooms: Vec<&str> = batch.iter().map(|c| &*c.room_code).collect();
    let starts: Vec<i64> = batch.iter().map(|c| c.start as i64).collect();
    let bytes: Vec<&[u8]> = batch.iter().map(|c| c.bytes.as_slice()).collect();
    sqlx::query(
        "INSERT INTO round_logs (round_key, start, bytes)
         SELECT c.key, c.start, c.bytes
         FROM UNNEST($1::text[], $2::text[], $3::int8[], $4::bytea[]) AS c(key, room, start, bytes)
         JOIN rooms_live r ON r.code = c.room AND r.node_id = $5 AND r.epoch = $6
         ON CONFLICT DO NOTHING",
    )
    .bind(keys)
    .bind(rooms)
    .bind(starts)
    .bind(bytes)
    .bind(&holder.0)
    .bind(holder.1)
    .execute(pool)
    .await?;
    Ok(())
}

/// Cuts a round's stored log back to its first `at` bytes, where an adopter's file goes
/// on (a chunk across the cut is shortened, the ones past it deleted).
pub async fn cut(on: &mut sqlx::PgConnection, round_key: &str, at: u64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM round_logs WHERE round_key = $1 AND start >= $2")
        .bind(round_key)
        .bind(at as i64)
        .execute(&mut *on)
        .await?;
    sqlx::query(
        "UPDATE round_logs SET bytes = substring(bytes FROM 1 FOR ($2 - start)::int)
         WHERE round_key = $1 AND start < $2 AND start + length(bytes) > $2",
    )
    .bind(round_key)
    .bind(at as i64)
    .execute(&mut *on)
    .await?;
    Ok(())
}

/// The prefix of a round's file its stored chunks hold (from offset 0 to the first gap),
/// with when the last of them was written.
pub async fn load(pool: &PgPool, round_key: &str) -> sqlx::Result<(Vec<u8>, i64)> {
    let rows: Vec<(i64, Vec<u8>, i64)> = sqlx::query_as(
        "SELECT start, bytes, EXTRACT(EPOCH FROM at)::BIGINT FROM round_logs
         WHERE round_key = $1 ORDER BY start",
    )
    .bind(round_key)
    .fetch_all(pool)
    .await?;
    let mut file = Vec::new();
    let mut at = 0;
    for (start, bytes, written) in rows {
        if start as usize != file.len() {
            break;
        }
        file.extend_from_slice(&bytes);
        at = written;
    }
    Ok((file, at))
}

/// Forgets the chunks of rounds whose whole file is stored.
pub async fn forget<'e>(on: impl sqlx::PgExecutor<'e>, round_key: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM round_logs WHERE round_key = $1")
        .bind(round_key)
        .execute(on)
        .await?;
    Ok(())
}
