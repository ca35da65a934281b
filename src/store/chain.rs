//! The ordered write chain: every room's tick events go to SQLite through one writer task.
//!
//! A room hands over a batch (one second of its events, and the rest before its round ends)
//! without ever waiting. With 20 of its batches still pending the next one is dropped, counted and logged: a database that fell
//! far behind is a lost cause rather than a queue worth growing, and the replay file still
//! has everything (`reindex` repairs). Batches are written in order, several rooms' in one
//! transaction, each idempotently. What must never be lost — a round's start and end, the
//! unlocks, sessions — is a `Must`: a round's end is first written to an outbox file, and
//! every `Must` is retried until the database takes it.

use super::Store;
use super::history;
use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta, RoundOutcome, SessionRow};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Batches one room may have waiting before the next is dropped.
pub const MAX_PENDING: usize = 20;
/// Jobs folded into one transaction at most.
const GROUP: usize = 512;

pub struct Batch {
    pub meta: Arc<RoundMeta>,
    pub tick: u32,
    pub rows: Vec<EventRow>,
    /// The room's count of its batches not yet written.
    pub pending: Arc<AtomicUsize>,
}

#[derive(Clone)]
pub enum Must {
    Begin(Arc<RoundMeta>),
    Finish {
        meta: Arc<RoundMeta>,
        outcome: RoundOutcome,
        outbox: Option<PathBuf>,
    },
    Session(SessionRow),
}

enum Job {
    Batch(Batch),
    Must(Must),
    Barrier(oneshot::Sender<()>),
}

#[derive(Default)]
pub struct ChainStats {
    pub batches_written: AtomicU64,
    pub batches_dropped: AtomicU64,
    pub events_written: AtomicU64,
    pub write_errors: AtomicU64,
    pub outbox_pending: AtomicU64,
}

/// The test seam: a slow or failing database, without touching file permissions.
#[derive(Default)]
pub struct Faults {
    pub slow_ms: AtomicU64,
    pub fail: AtomicBool,
}

/// Where a quest completion goes (the server routes it to that player alone).
pub type Notify = Arc<dyn Fn(&RoundMeta, Completion) + Send + Sync>;

#[derive(Clone)]
pub struct Chain {
    tx: mpsc::UnboundedSender<Job>,
    pub stats: Arc<ChainStats>,
    pub faults: Arc<Faults>,
    outbox_dir: PathBuf,
}

impl Chain {
    /// Starts the writer; round ends left in the outbox by an earlier run are queued first.
    pub async fn start(
        store: Store,
        outbox_dir: PathBuf,
        notify: Notify,
    ) -> Result<Chain, super::StoreError> {
        let _ = std::fs::create_dir_all(&outbox_dir);
        let defs = {
            let mut conn = store.pool.acquire().await?;
            quests::load(&mut conn).await?
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let chain = Chain {
            tx,
            stats: Arc::new(ChainStats::default()),
            faults: Arc::new(Faults::default()),
            outbox_dir,
        };
        for (meta, outcome, path) in read_outbox(&chain.outbox_dir) {
            chain.stats.outbox_pending.fetch_add(1, Relaxed);
            let _ = chain.tx.send(Job::Must(Must::Begin(meta.clone())));
            let _ = chain.tx.send(Job::Must(Must::Finish {
                meta,
                outcome,
                outbox: Some(path),
            }));
        }
        tokio::spawn(writer(
            store,
            defs,
            rx,
            chain.stats.clone(),
            chain.faults.clone(),
            notify,
        ));
        Ok(chain)
    }

    /// Hands over one tick's events without waiting; false when the room has 20 batches
    /// pending and this one was dropped.
    pub fn submit(&self, batch: Batch) -> bool {
        if batch.pending.load(Relaxed) >= MAX_PENDING {
            self.stats.batches_dropped.fetch_add(1, Relaxed);
            tracing::warn!(room = %batch.meta.room_code, round = %batch.meta.round_key, tick = batch.tick, "history batch dropped: 20 batches already pending");
            return false;
        }
        batch.pending.fetch_add(1, Relaxed);
        if self.tx.send(Job::Batch(batch)).is_err() {
            self.stats.batches_dropped.fetch_add(1, Relaxed);
            return false;
        }
        true
    }

    /// Queues something that must be written. A round's end goes to the outbox file first.
    pub fn must(&self, mut job: Must) {
        if let Must::Finish {
            meta,
            outcome,
            outbox,
        } = &mut job
        {
            let path = self.outbox_dir.join(format!("{}.json", meta.round_key));
            match serde_json::to_vec(&(meta.as_ref(), &*outcome)).map(|b| std::fs::write(&path, b))
            {
                Ok(Ok(())) => *outbox = Some(path),
                _ => {
                    tracing::error!(round = %meta.round_key, "the round's result could not be written to the outbox; it stays in memory")
                }
            }
            self.stats.outbox_pending.fetch_add(1, Relaxed);
        }
        let _ = self.tx.send(Job::Must(job));
    }

    /// Resolves once everything queued before it was written (or dropped).
    pub async fn flushed(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Job::Barrier(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

fn read_outbox(dir: &PathBuf) -> Vec<(Arc<RoundMeta>, RoundOutcome, PathBuf)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            match serde_json::from_slice::<(RoundMeta, RoundOutcome)>(&bytes) {
                Ok((m, o)) => Some((Arc::new(m), o, p)),
                Err(e) => {
                    tracing::error!(file = %p.display(), error = %e, "an outbox file does not parse; left in place");
                    None
                }
            }
        })
        .collect()
}

/// Writes one thing that must not be lost, in the caller's transaction.
async fn apply(
    conn: &mut sqlx::SqliteConnection,
    must: &Must,
    defs: &[QuestDef],
    done: &mut Vec<(Arc<RoundMeta>, Completion)>,
) -> sqlx::Result<()> {
    match must {
        Must::Begin(meta) => history::begin_round(conn, meta).await,
        Must::Finish { meta, outcome, .. } => {
            let c = history::finish_round(conn, meta, outcome, defs).await?;
            done.extend(c.into_iter().map(|c| (meta.clone(), c)));
            Ok(())
        }
        Must::Session(s) => super::sessions::upsert(conn, s).await,
    }
}

/// What one job wrote: new event rows, and the quests they completed.
type JobDone = (u64, Vec<(Arc<RoundMeta>, Completion)>);

/// Writes a group in one transaction; on failure the caller falls back job by job.
async fn write_group(
    store: &Store,
    jobs: &[Job],
    defs: &[QuestDef],
    faults: &Faults,
) -> Result<Vec<JobDone>, String> {
    // The slow-database seam: wait while `slow_ms` says so (re-read, so clearing it ends
    // the wait).
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(faults.slow_ms.load(Relaxed)) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    if faults.fail.load(Relaxed) {
        return Err("injected database failure (test mode)".into());
    }
    let mut tx = store.pool.begin().await.map_err(|e| e.to_string())?;
    let mut out: Vec<JobDone> = Vec::with_capacity(jobs.len());
    // Batches insert their rows as they come; quest progress is folded once for the whole
    // group, in order, so a session's quest is read and written once per transaction.
    let mut fresh: Vec<(Arc<RoundMeta>, Vec<EventRow>)> = Vec::new();
    let mut first_batch = None;
    for (i, job) in jobs.iter().enumerate() {
        let mut done = Vec::new();
        let events = match job {
            Job::Batch(b) => {
                let rows = history::insert_events(&mut tx, &b.meta, &b.rows)
                    .await
                    .map_err(|e| e.to_string())?;
                first_batch.get_or_insert(i);
                let n = rows.len() as u64;
                fresh.push((b.meta.clone(), rows));
                n
            }
            Job::Must(must) => {
                apply(&mut tx, must, defs, &mut done)
                    .await
                    .map_err(|e| e.to_string())?;
                0
            }
            Job::Barrier(_) => 0,
        };
        out.push((events, done));
    }
    if let Some(i) = first_batch {
        let refs: Vec<(&RoundMeta, &EventRow)> = fresh
            .iter()
            .flat_map(|(m, rows)| rows.iter().map(move |r| (m.as_ref(), r)))
            .collect();
        let completions = quests::fold_events(&mut tx, &refs, defs)
            .await
            .map_err(|e| e.to_string())?;
        for (meta, c) in completions {
            if let Some((arc, _)) = fresh.iter().find(|(a, _)| a.round_key == meta.round_key) {
                out[i].1.push((arc.clone(), c));
            }
        }
    }
    tx.commit().await.map_err(|e| e.to_string())?;
    Ok(out)
}

async fn writer(
    store: Store,
    defs: Vec<QuestDef>,
    mut rx: mpsc::UnboundedReceiver<Job>,
    stats: Arc<ChainStats>,
    faults: Arc<Faults>,
    notify: Notify,
) {
    let mut retry: VecDeque<Must> = VecDeque::new();
    let mut last_error_log: Option<Instant> = None;
    loop {
        let first = if retry.is_empty() {
            match rx.recv().await {
                Some(j) => Some(j),
                None => return,
            }
        } else {
            match tokio::time::timeout(Duration::from_secs(1), rx.recv()).await {
                Ok(Some(j)) => Some(j),
                Ok(None) => return,
                Err(_) => None,
            }
        };
        let mut jobs: Vec<Job> = retry.drain(..).map(Job::Must).collect();
        jobs.extend(first);
        while jobs.len() < GROUP {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let outcome = match write_group(&store, &jobs, &defs, &faults).await {
            Ok(r) => Ok(r),
            Err(e) if jobs.len() > 1 && !faults.fail.load(Relaxed) => {
                // One bad job must not sink the others: write them one by one.
                tracing::debug!(error = %e, "a group failed; writing its jobs one by one");
                Err(e)
            }
            Err(e) => Err(e),
        };
        let results: Vec<Result<JobDone, String>> = match outcome {
            Ok(per_job) => per_job.into_iter().map(Ok).collect(),
            Err(_) if !faults.fail.load(Relaxed) => {
                let mut v = Vec::new();
                for job in &jobs {
                    v.push(
                        write_group(&store, std::slice::from_ref(job), &defs, &faults)
                            .await
                            .map(|mut r| r.remove(0)),
                    );
                }
                v
            }
            Err(e) => jobs.iter().map(|_| Err(e.clone())).collect(),
        };
        for (job, result) in jobs.into_iter().zip(results) {
            match (job, result) {
                (Job::Barrier(done), _) => {
                    let _ = done.send(());
                }
                (Job::Batch(b), Ok((events, completions))) => {
                    b.pending.fetch_sub(1, Relaxed);
                    stats.batches_written.fetch_add(1, Relaxed);
                    stats.events_written.fetch_add(events, Relaxed);
                    for (meta, c) in completions {
                        notify(&meta, c);
                    }
                }
                (Job::Batch(b), Err(e)) => {
                    b.pending.fetch_sub(1, Relaxed);
                    stats.batches_dropped.fetch_add(1, Relaxed);
                    stats.write_errors.fetch_add(1, Relaxed);
                    log_once_a_second(&mut last_error_log, &e, &b.meta.round_key, b.tick);
                }
                (Job::Must(m), Ok((_, completions))) => {
                    if let Must::Finish { outbox, .. } = &m {
                        stats.outbox_pending.fetch_sub(1, Relaxed);
                        if let Some(p) = outbox {
                            let _ = std::fs::remove_file(p);
                        }
                    }
                    for (meta, c) in completions {
                        notify(&meta, c);
                    }
                }
                (Job::Must(m), Err(e)) => {
                    stats.write_errors.fetch_add(1, Relaxed);
                    log_once_a_second(&mut last_error_log, &e, "(a result or session)", 0);
                    retry.push_back(m);
                }
            }
        }
    }
}

fn log_once_a_second(last: &mut Option<Instant>, error: &str, round: &str, tick: u32) {
    if last.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
        *last = Some(Instant::now());
        tracing::error!(
            error,
            round,
            tick,
            "history write failed (the replay file keeps everything; reindex repairs)"
        );
    }
}
