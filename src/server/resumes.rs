//! At start, the rounds the last run left playing go on: each local replay file whose
//! round has no result (`store::unfinished`) is planned (`crate::resume`: cut back to its
//! last closed tick and re-run, every frame compared) and reopened as a room under its own
//! code (`room::reopen`). What cannot go on is left to `torn`, which records it as before:
//! a file whose round already ended (its result gets written), one that is unreadable or
//! departs from its re-run (named in the log with why, then `aborted`), and one last
//! written longer ago than `UNDERCOOKED_RESUME_WITHIN_S` (nobody is waiting for it).

use crate::resume::Refused;
use crate::room::{plan_file, reopen};
use crate::shared::Shared;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Resumes what it can of `files`; returns the rest, for `torn`.
pub async fn resume_all(shared: &Arc<Shared>, files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut rest = Vec::new();
    let within = Duration::from_secs(shared.config.resume_within_s);
    let started = std::time::Instant::now();
    let mut resumed = 0;
    for path in files {
        let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let age = written.and_then(|w| SystemTime::now().duration_since(w).ok());
        if age.is_none_or(|a| a > within) {
            rest.push(path);
            continue;
        }
        let stopped_unix_s = written
            .and_then(|w| w.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        let file = path.clone();
        let planned = tokio::task::spawn_blocking(move || plan_file(&file)).await;
        let (plan, rebuilt) = match planned {
            Ok(Ok(p)) => p,
            Ok(Err(Refused::Ended)) => {
                rest.push(path);
                continue;
            }
            Ok(Err(why)) => {
                tracing::warn!(path = %path.display(), why = %why, "a round left playing is not resumed; it is recorded aborted");
                record_aborted(shared, &path).await;
                continue;
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "a round's resume failed; it is recorded aborted");
                rest.push(path);
                continue;
            }
        };
        match reopen(shared, path.clone(), plan, rebuilt, stopped_unix_s) {
            Ok(_) => resumed += 1,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "a round left playing could not be reopened; it is recorded aborted");
                rest.push(path);
            }
        }
    }
    if resumed > 0 {
        tracing::info!(
            rounds = resumed,
            ms = started.elapsed().as_millis() as u64,
            "rounds left playing resumed from their logs"
        );
    }
    rest
}

/// The history records a round that cannot go on as `aborted` (its file is kept as it is).
async fn record_aborted(shared: &Shared, path: &std::path::Path) {
    let (Some(store), Some(key)) = (shared.store(), crate::store::unfinished::key_of(path)) else {
        return;
    };
    if let Err(e) = crate::store::unfinished::record_aborted(store, &key).await {
        tracing::warn!(path = %path.display(), error = %e, "the round could not be recorded aborted");
    }
}
