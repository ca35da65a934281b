//! `reindex`: rebuild the history from replay files.
//!
//! Each replay is folded again; its round, seats, every tick's events, its result and the
//! quest progress they imply are written with the same idempotent SQL the live chain uses.
//! That repairs what dropped batches or an outage left out, builds a database from replay
//! files alone, and changes nothing when run twice. Seats are attributed to sessions by the
//! non-secret session ids in the replay headers.

use super::Store;
use super::history;
use super::quests;
use super::rows::{RoundMeta, RoundOutcome, event_rows};
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
}

/// Indexes every replay in `dir`; `progress(done, total)` is called after each file.
pub async fn reindex(
    store: &Store,
    dir: &Path,
    mut progress: impl FnMut(usize, usize),
) -> Result<Report, super::StoreError> {
    let files = replay_files(dir).map_err(|e| super::StoreError::Open {
        db: dir.display().to_string(),
        error: e.to_string(),
    })?;
    let defs = {
        let mut conn = store.pool.acquire().await?;
        quests::load(&mut conn).await?
    };
    let mut report = Report {
        files: files.len(),
        ..Report::default()
    };
    for (i, path) in files.iter().enumerate() {
        match index_file(store, path, &defs).await {
            Ok(Some((events, ended))) => {
                report.rounds += 1;
                report.events_new += events;
                if !ended {
                    report.incomplete += 1;
                }
            }
            Ok(None) => {}
            Err(why) => report.unreadable.push((path.clone(), why)),
        }
        progress(i + 1, files.len());
    }
    Ok(report)
}

/// One file: (new event rows, whether it ended). `Err` names why it could not be read.
async fn index_file(
    store: &Store,
    path: &Path,
    defs: &[quests::QuestDef],
) -> Result<Option<(u64, bool)>, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let read = read_replay(&bytes).map_err(|e| e.to_string())?;
    let Some(Record::Started(header)) = read.records.first() else {
        return Err("the file ends before its header is complete".into());
    };
    let mut fold = RoundFold::new(header.clone()).map_err(|e| e.to_string())?;
    let round_key = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().to_string());
    let meta = RoundMeta::of(
        &round_key,
        header,
        &fold.rules.level,
        &path.display().to_string(),
    );
    let mut tx = store.pool.begin().await.map_err(|e| e.to_string())?;
    history::begin_round(&mut tx, &meta)
        .await
        .map_err(|e| e.to_string())?;
    let mut new_events = 0u64;
    let mut ended = false;
    let mut events = Vec::new();
    for record in &read.records[1..] {
        let tick = fold.state.tick;
        match fold.apply(record, &mut events) {
            Ok(Applied::Stepped { .. }) => {
                let rows = event_rows(&events, tick, &fold.ids);
                events.clear();
                if !rows.is_empty() {
                    let (new, _) = history::write_events(&mut tx, &meta, &rows, defs)
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
                    header.started_unix_s as i64 + (summary.ticks / header.tick_hz.max(1)) as i64,
                    (summary.won() && order > 0).then_some(order + 1),
                );
                history::finish_round(&mut tx, &meta, &outcome, defs)
                    .await
                    .map_err(|e| e.to_string())?;
                break;
            }
            Ok(Applied::Queued) => {}
            Err(e) => return Err(format!("record does not fold: {e}")),
        }
    }
    tx.commit().await.map_err(|e| e.to_string())?;
    Ok(Some((new_events, ended)))
}
