//! The rounds a node was killed in, reindexed once at its start: the replay uploads (on
//! PostgreSQL) find the local files the database lacks or holds shorter, and a torn one's
//! round may have events the history never received, so each is reindexed through the code
//! `undercooked reindex` runs for one file. The re-run that judges each file runs on a
//! blocking thread, off the rooms and the async threads.

use crate::shared::Shared;
use std::sync::Weak;

/// Reindexes the torn rounds' files the replay uploads found at start, one at a time. The
/// writes are idempotent, so a file reindexed twice (a crash during this, or a hand-run
/// `reindex` meanwhile) changes nothing the second time. Each file's round is also stored
/// whole in `replay_files`, in the same transaction.
pub async fn reindex(shared: Weak<Shared>) {
    let (files, store) = {
        let Some(s) = shared.upgrade() else { return };
        let (Some(uploads), Some(store)) = (s.uploads(), s.store()) else {
            return;
        };
        (uploads.take_torn(), store.clone())
    };
    if files.is_empty() {
        return;
    }
    tracing::info!(
        files = files.len(),
        "reindexing the replays of rounds this node did not finish"
    );
    for path in files {
        let file = path.clone();
        let read = tokio::task::spawn_blocking(move || {
            crate::log::read_file(&file).map(|bytes| {
                let refusal = crate::verify::refusal(&bytes);
                (bytes, refusal)
            })
        })
        .await;
        let (bytes, refusal) = match read {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                tracing::warn!(path = %path.display(), error = %e, "a torn replay could not be read; not reindexed");
                continue;
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "a torn replay's re-run failed; not reindexed");
                continue;
            }
        };
        match crate::store::reindex::reindex_read(&store, &path, &bytes, refusal).await {
            Ok(report) if report.rounds == 1 => tracing::info!(
                path = %path.display(),
                events_new = report.events_new,
                ended = report.incomplete == 0,
                "a torn round's replay was reindexed"
            ),
            Ok(report) => {
                let why: Vec<&str> = report
                    .unreadable
                    .iter()
                    .chain(&report.diverged)
                    .chain(&report.clashes)
                    .map(|(_, why)| why.as_str())
                    .collect();
                tracing::warn!(path = %path.display(), why = ?why, "a torn round's replay was not reindexed");
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "a torn round's replay could not be reindexed (`undercooked reindex` does it)");
            }
        }
    }
}
