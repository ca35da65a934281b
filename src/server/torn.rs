//! The rounds a node was killed in, reindexed once at its start, alone or in a cluster: the
//! local replay files whose round the history has not finished (`store::unfinished` on a
//! node alone; on PostgreSQL the replay uploads, which also find the files the database
//! lacks or holds shorter). Such a round may have events, or its whole result, that the
//! history never received, so each is reindexed through the code `undercooked reindex` runs
//! for one file. The re-run that judges each file runs on a blocking thread, off the rooms
//! and the async threads.

use crate::shared::Shared;
use std::sync::Weak;

/// Reindexes the unfinished rounds' files the start found, one at a time. The
/// writes are idempotent, so a file reindexed twice (a crash during this, or a hand-run
/// `reindex` meanwhile) changes nothing the second time. Each file's round is also stored
/// whole in `replay_files`, in the same transaction.
pub async fn reindex(shared: Weak<Shared>, files: Vec<std::path::PathBuf>) {
    let store = {
        let Some(s) = shared.upgrade() else { return };
        let Some(store) = s.store() else {
            return;
        };
        store.clone()
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
