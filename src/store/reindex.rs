//! `reindex`: rebuild the history from replay files.
//!
//! Each replay is folded again; its round, seats, every tick's events, its result and the
//! quest progress they imply are written with the same idempotent SQL the live chain uses.
//! That repairs what dropped batches or an outage left out, builds a database from replay
//! files alone, and changes nothing when run twice. Seats are attributed to sessions by the
//! non-secret session ids in the replay headers.
//!
//! A round is known by its header, never its file name: its key is the header's
//! `round_key` and its `identity` the hash of the header. The same round under two names is
//! indexed once; a file whose key is already taken by a round of another identity is refused
//! (a clash, reported); a file that diverges from its re-run is reported and not indexed (its
//! figures are not the round's), and so is one the re-run calls unreadable; a cut file is indexed up to where it ends, with the ticks and
//! score it reached.
//!
//! The replays come from a folder of files (`reindex`) or from the copies a PostgreSQL
//! database stores (`reindex_stored`, `stored_replays`). Into a PostgreSQL database, every
//! round indexed also has its replay stored there (under the same rules as an upload, in the
//! round's transaction), so that every node of the cluster can serve it.

use super::db::Db;
use super::history;
use super::quests;
use super::rows::{RoundMeta, RoundOutcome, event_rows};
use super::stored_replays;
use super::{Pool, Store};
use crate::log::{Applied, Record, RoundFold, read_replay, replay_files};
use crate::sim::{RoundResult, RoundSummary};
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub files: usize,
    pub rounds: usize,
    pub events_new: u64,
    /// Files that could not be read at all, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Files without an `End` (their prefix was indexed, their result left open).
    pub incomplete: usize,
    /// Files whose re-run diverged (not indexed), with where.
    pub diverged: Vec<(PathBuf, String)>,
    /// Files whose round key belongs to another round (not indexed), with which.
    pub clashes: Vec<(PathBuf, String)>,
}

/// Why the re-run refuses a file, as the caller judges it (`verify::refusal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `verify` calls it unreadable (exit 2): not indexed, listed as unreadable.
    Unreadable(String),
    /// Its re-run departs from its recorded frames: not indexed, listed as diverged.
    Diverged(String),
}

/// What became of one file.
enum Indexed {
    Round { events: u64, ended: bool },
    Diverged(String),
    Clash(String),
}

/// Indexes every replay in `dir`; `progress(done, total)` is called after each file.
/// `refuses(bytes)` says why a file's re-run refuses it (the caller brings
/// `verify::refusal`, which lives above the store), `None` when it does not: what `verify`
/// calls unreadable or diverged is never indexed.
pub async fn reindex(
    store: &Store,
    dir: &Path,
    refuses: impl Fn(&[u8]) -> Option<Refusal>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Report, super::StoreError> {
    let files = replay_files(dir).map_err(|e| super::StoreError::Open {
        db: dir.display().to_string(),
        error: e.to_string(),
    })?;
    let defs = super::on_conn!(store, conn => quests::load(conn).await?);
    let mut report = Report {
        files: files.len(),
        ..Report::default()
    };
    for (i, path) in files.iter().enumerate() {
        let indexed = index_file(store, path, &defs, &refuses).await;
        tally(&mut report, path.clone(), indexed);
        progress(i + 1, files.len());
    }
    Ok(report)
}

/// Indexes one replay file whose bytes are read already, as `reindex` indexes each file of
/// a folder; `refusal` is what the re-run says of those bytes (`verify::refusal`, run by the
/// caller where it may take its time, off the async threads). A node reindexes its torn
/// rounds at start this way.
pub async fn reindex_read(
    store: &Store,
    path: &Path,
    bytes: &[u8],
    refusal: Option<Refusal>,
) -> Result<Report, super::StoreError> {
    let defs = super::on_conn!(store, conn => quests::load(conn).await?);
    let mut report = Report {
        files: 1,
        ..Report::default()
    };
    let place = path.display().to_string();
    let refuses = |_: &[u8]| refusal.clone();
    let indexed = index_bytes(store, bytes, &place, written_at(path), &defs, &refuses).await;
    tally(&mut report, path.to_path_buf(), indexed);
    Ok(report)
}

/// Indexes every replay stored in `source` (a PostgreSQL database; see `stored_replays`)
/// into `store` (which may be the same database), as `reindex` does a folder's files. Each
/// replay is named by its round key in the report; `progress(done, total)` is called after
/// each one.
pub async fn reindex_stored(
    store: &Store,
    source: &Store,
    refuses: impl Fn(&[u8]) -> Option<Refusal>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Report, super::StoreError> {
    let Some(pool) = stored_replays::pg(source) else {
        return Err(super::StoreError::Open {
            db: super::printable(&source.location),
            error: "replays are stored in the database only on PostgreSQL; on SQLite they are the files in the data folder (reindex that folder)".into(),
        });
    };
    let keys = stored_replays::keys(pool).await?;
    let defs = super::on_conn!(store, conn => quests::load(conn).await?);
    let mut report = Report {
        files: keys.len(),
        ..Report::default()
    };
    for (i, key) in keys.iter().enumerate() {
        let name = PathBuf::from(key);
        let indexed = match stored_replays::get(pool, key).await {
            Ok(Some((bytes, uploaded_at))) => {
                let place = format!("{STORED_PREFIX}{key}");
                let indexed =
                    index_bytes(store, &bytes, &place, Some(uploaded_at), &defs, &refuses).await;
                // A cut file says nothing of how its round ended; the janitor's verdict, kept
                // beside the replays, does.
                if let Ok(Indexed::Round { ended: false, .. }) = indexed
                    && let Some(verdict) = stored_replays::verdict(pool, key).await?
                {
                    super::on_conn!(store, conn => history::record_verdict(conn, key, &verdict).await?);
                }
                indexed
            }
            Ok(None) => Err("no longer stored in the database".to_string()),
            Err(stored_replays::GetError::Sql(e)) => return Err(e.into()),
            Err(e) => Err(e.to_string()),
        };
        tally(&mut report, name, indexed);
        progress(i + 1, keys.len());
    }
    Ok(report)
}

/// The `replay_path` of a round indexed from a stored replay (it has no file): this
/// prefix, then its round key.
pub const STORED_PREFIX: &str = "replay_files:";

/// Counts what became of one replay in the report.
fn tally(report: &mut Report, name: PathBuf, indexed: Result<Indexed, String>) {
    match indexed {
        Ok(Indexed::Round { events, ended }) => {
            report.rounds += 1;
            report.events_new += events;
            if !ended {
                report.incomplete += 1;
            }
        }
        Ok(Indexed::Diverged(why)) => report.diverged.push((name, why)),
        Ok(Indexed::Clash(why)) => report.clashes.push((name, why)),
        Err(why) => report.unreadable.push((name, why)),
    }
}

/// One file: (new event rows, whether it ended). `Err` names why it could not be read.
async fn index_file(
    store: &Store,
    path: &Path,
    defs: &[quests::QuestDef],
    refuses: &impl Fn(&[u8]) -> Option<Refusal>,
) -> Result<Indexed, String> {
    let bytes = crate::log::read_file(path).map_err(|e| e.to_string())?;
    let place = path.display().to_string();
    index_bytes(store, &bytes, &place, written_at(path), defs, refuses).await
}

/// One replay's bytes, recorded as found at `place`; a headless round (started at 0) is
/// dated `written_at`, when its replay was last written.
async fn index_bytes(
    store: &Store,
    bytes: &[u8],
    place: &str,
    written_at: Option<i64>,
    defs: &[quests::QuestDef],
    refuses: &impl Fn(&[u8]) -> Option<Refusal>,
) -> Result<Indexed, String> {
    match refuses(bytes) {
        Some(Refusal::Diverged(why)) => return Ok(Indexed::Diverged(why)),
        Some(Refusal::Unreadable(why)) => return Err(why),
        None => {}
    }
    let read = read_replay(bytes).map_err(|e| e.to_string())?;
    let Some(Record::Started(header)) = read.records.first() else {
        return Err("the file ends before its header is complete".into());
    };
    let fold = RoundFold::new(header.clone()).map_err(|e| e.to_string())?;
    let round_key = header.round_key();
    let mut meta = RoundMeta::of(&round_key, header, &fold.rules.level, place);
    // A headless round (`simulate`, the sweeps) starts at 0 in its header, so that the same
    // seed writes the same bytes; dated by that it would read 1 January 1970. It is dated by
    // when its file was last written instead (its key, from the header, is unchanged).
    if header.started_unix_s == 0 {
        meta.started_at = written_at.unwrap_or(0);
    }
    let identity = meta.identity.clone().unwrap_or_default();
    match &store.pool {
        Pool::Sqlite(p) => {
            let mut tx = p.begin().await.map_err(|e| e.to_string())?;
            let written = index_rows(&mut *tx, &read, fold, &meta, &identity, defs).await;
            if let Ok(Indexed::Round { .. }) = written {
                tx.commit().await.map_err(|e| e.to_string())?;
            }
            written
        }
        Pool::Postgres(p) => {
            let mut tx = p.begin().await.map_err(|e| e.to_string())?;
            let written = index_rows(&mut *tx, &read, fold, &meta, &identity, defs).await;
            if let Ok(Indexed::Round { .. }) = written {
                let put = stored_replays::put(&mut tx, &round_key, &identity, bytes).await;
                if let stored_replays::Put::Clash(why) = put.map_err(|e| e.to_string())? {
                    return Ok(Indexed::Clash(why));
                }
                tx.commit().await.map_err(|e| e.to_string())?;
            }
            written
        }
    }
}

/// Writes one read file's round on `tx` (inside the caller's transaction, committed only
/// when a round was written).
async fn index_rows(
    tx: &mut impl Db,
    read: &crate::log::file::ReplayRead,
    mut fold: RoundFold,
    meta: &RoundMeta,
    identity: &str,
    defs: &[quests::QuestDef],
) -> Result<Indexed, String> {
    let header = &fold.header.clone();
    let round_key = meta.round_key.clone();
    if let Some(Some(other)) = history::identity_of(tx, &round_key)
        .await
        .map_err(|e| e.to_string())?
        && other != identity
    {
        return Ok(Indexed::Clash(format!(
            "round {round_key} is already in the history as another round (identity {other}, this file's {identity}); not indexed"
        )));
    }
    history::begin_round(tx, meta)
        .await
        .map_err(|e| e.to_string())?;
    let mut new_events = 0u64;
    let mut credit = super::credit::Credit::default();
    let mut ended = false;
    let mut events = Vec::new();
    for record in &read.records[1..] {
        let tick = fold.state.tick;
        match fold.apply(record, &mut events) {
            Ok(Applied::Stepped { .. }) => {
                let rows = event_rows(&events, tick, &fold.ids);
                events.clear();
                if !rows.is_empty() {
                    let (new, _) =
                        history::write_events_credited(tx, meta, &rows, defs, &mut credit)
                            .await
                            .map_err(|e| e.to_string())?;
                    new_events += new;
                }
            }
            Ok(Applied::Ended { .. }) => {
                ended = true;
                let summary = RoundSummary::of(&fold.state, &fold.rules)
                    .ended_as(fold.ended().unwrap_or(RoundResult::Aborted));
                let order = summary.level_order;
                let outcome = RoundOutcome::of(
                    &round_key,
                    &summary,
                    meta.started_at + (summary.ticks / header.tick_hz.max(1)) as i64,
                    (summary.won() && order > 0).then_some(order + 1),
                );
                history::finish_round(tx, meta, &outcome, defs)
                    .await
                    .map_err(|e| e.to_string())?;
                break;
            }
            Ok(Applied::Queued) => {}
            Err(e) => return Err(format!("record does not fold: {e}")),
        }
    }
    if !ended {
        let summary = RoundSummary::of(&fold.state, &fold.rules);
        history::record_progress(tx, &round_key, summary.ticks, summary.score)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(Indexed::Round {
        events: new_events,
        ended,
    })
}

/// When a file was last written, in Unix seconds (`None` where the file system cannot say).
fn written_at(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    i64::try_from(secs).ok()
}
