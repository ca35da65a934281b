//! The rounds a node's last run left unfinished: its local replay files whose round the
//! history holds no result for (no row, or a row still open). A `kill -9` between a round's
//! last record on disk and its result reaching the database leaves one such file, complete,
//! with its result nowhere else; a crash mid-round leaves a torn one. The node folds each
//! again at start (`server::torn`, the code `undercooked reindex` runs for one file), alone
//! or in a cluster, so a result written to a replay file is never dropped.
//!
//! On SQLite any result closes a round (a node alone records `aborted` only itself, with
//! the file complete). On PostgreSQL a cluster's janitor may have recorded `aborted` for a
//! round a killed node's file finished: there `aborted` counts as open
//! (`stored_replays::torn`, which also weighs the stored copies).

use super::{Pool, Store};
use std::collections::HashSet;
use std::path::PathBuf;

/// Keys asked about in one query (under SQLite's limit of bound parameters).
const CHUNK: usize = 500;

/// The files in `files` (named by their round key) whose round has no result in `store`.
pub async fn unfinished(store: &Store, files: Vec<PathBuf>) -> sqlx::Result<Vec<PathBuf>> {
    let keys: Vec<String> = files.iter().filter_map(|p| key(p)).collect();
    let mut closed: HashSet<String> = HashSet::new();
    for chunk in keys.chunks(CHUNK) {
        closed.extend(closed_among(store, chunk).await?);
    }
    Ok(files
        .into_iter()
        .filter(|p| key(p).is_some_and(|k| !closed.contains(&k)))
        .collect())
}

fn key(path: &std::path::Path) -> Option<String> {
    Some(path.file_stem()?.to_string_lossy().into_owned())
}

/// The keys of `keys` whose round has a result.
async fn closed_among(store: &Store, keys: &[String]) -> sqlx::Result<Vec<String>> {
    let head = "SELECT round_key FROM rounds WHERE result IS NOT NULL AND round_key IN (";
    match &store.pool {
        Pool::Sqlite(p) => {
            let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(head);
            let mut list = q.separated(", ");
            for k in keys {
                list.push_bind(k);
            }
            q.push(")");
            q.build_query_scalar().fetch_all(p).await
        }
        Pool::Postgres(p) => {
            let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(head);
            let mut list = q.separated(", ");
            for k in keys {
                list.push_bind(k);
            }
            q.push(")");
            q.build_query_scalar().fetch_all(p).await
        }
    }
}

/// Records `aborted` for an unfinished round whose file cannot be resumed or reindexed
/// (unreadable, or departing from its own re-run): it ended when its process died, and the
/// history says so instead of leaving it open. A round with a result keeps it.
pub async fn record_aborted(store: &Store, round_key: &str) -> Result<(), super::StoreError> {
    let verdict = super::history::Verdict {
        result: "aborted".into(),
        node_id: String::new(),
        epoch: 0,
        ended_at: super::unix_now(),
    };
    super::on_conn!(store, conn => super::history::record_verdict(conn, round_key, &verdict).await?);
    Ok(())
}

/// The round key a replay file is named by.
pub fn key_of(path: &std::path::Path) -> Option<String> {
    key(path)
}
