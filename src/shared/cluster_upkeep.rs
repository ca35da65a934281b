//! A node's upkeep in its cluster (`crate::cluster`), which needs the rooms and the census
//! and so lives here, above it: its lease renewed every `RENEW_EVERY_S`, with its room
//! and socket counts, and its rooms published to the directory once a second — only the
//! rows that changed, so a room is written at most once a second, outside the history's
//! write chain. Every `JANITOR_EVERY_S` it closes the rounds of nodes that were lost
//! (`Cluster::janitor`). A database that cannot be reached is retried at the next beat; rounds play
//! on meanwhile (nothing here is on a room's path).
//!
//! Once, at start, it reindexes the torn rounds the replay uploads found (a round this node
//! was killed in: its file holds events the history may never have received), through the
//! code `undercooked reindex` runs for one file; the re-run that judges each file runs on a
//! blocking thread, off the rooms and the async threads.

use super::Shared;
use crate::cluster::{Cluster, LEASE_S, RENEW_EVERY_S};
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often a node looks for lost nodes' rounds (one janitor at a time runs).
const JANITOR_EVERY_S: u64 = 5;

/// What the directory shows of a room.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    state: &'static str,
    level: Option<String>,
    seated: i64,
    spectators: i64,
    open_seats: i64,
}

/// Runs until the server is gone: renews the lease and keeps the directory.
pub async fn keep(shared: Weak<Shared>, cluster: Arc<Cluster>) {
    tokio::spawn(reindex_torn(shared.clone()));
    let mut published: BTreeMap<String, Row> = BTreeMap::new();
    let mut beat: u64 = 0;
    let mut lapsed = false;
    loop {
        let Some(s) = shared.upgrade() else { return };
        if beat.is_multiple_of(RENEW_EVERY_S) {
            match renew(&s, &cluster).await {
                Err(e) => {
                    tracing::warn!(error = %e, "the node's lease could not be renewed");
                    lapsed = true;
                }
                // Back after an outage: the directory may have been told this node was
                // lost meanwhile, so every room is published again.
                Ok(()) if lapsed => {
                    lapsed = false;
                    published.clear();
                }
                Ok(()) => {}
            }
        }
        if let Err(e) = publish(&s, &cluster, &mut published).await {
            tracing::warn!(error = %e, "the room directory could not be written");
        }
        if beat.is_multiple_of(JANITOR_EVERY_S)
            && let Err(e) = cluster.janitor().await
        {
            tracing::warn!(error = %e, "the janitor could not close a lost node's rounds");
        }
        drop(s);
        beat += 1;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn renew(shared: &Shared, cluster: &Cluster) -> sqlx::Result<()> {
    let sockets = shared.census.sockets() as i64;
    let done = sqlx::query(
        "UPDATE nodes SET lease_until = now() + make_interval(secs => $3), rooms = $4, sockets = $5, draining = $6
         WHERE id = $1 AND epoch = $2",
    )
    .bind(&cluster.node_id)
    .bind(cluster.epoch)
    .bind(LEASE_S as f64)
    .bind(shared.rooms.len() as i64)
    .bind(sockets)
    .bind(cluster.draining())
    .execute(&cluster.pool)
    .await?;
    if done.rows_affected() == 0 {
        tracing::error!(node = %cluster.node_id, epoch = cluster.epoch, "another start of this node id took its registration: this node's rooms are no longer in the directory");
    }
    Ok(())
}

/// Writes the rooms whose row changed since the last beat, and deletes the rows of rooms
/// that closed.
async fn publish(
    shared: &Shared,
    cluster: &Cluster,
    published: &mut BTreeMap<String, Row>,
) -> sqlx::Result<()> {
    let max = shared.config.max_players as i64;
    let now: BTreeMap<String, Row> = shared
        .rooms
        .by_code()
        .into_iter()
        .map(|(code, h)| {
            let state = h.info.state();
            let seated = h.info.seated() as i64;
            let lobby = state == crate::wire::messages::RoomState::Lobby;
            let row = Row {
                state: state.name(),
                level: h.info.level(),
                seated,
                spectators: h.info.spectators() as i64,
                open_seats: if lobby && !cluster.draining() {
                    (max - seated).max(0)
                } else {
                    0
                },
            };
            (code, row)
        })
        .collect();
    for (code, row) in &now {
        if published.get(code) == Some(row) {
            continue;
        }
        sqlx::query(
            "INSERT INTO rooms_live (code, node_id, epoch, state, level_id, seated, spectators, open_seats, updated)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
             ON CONFLICT (code) DO UPDATE SET state = excluded.state, level_id = excluded.level_id,
               seated = excluded.seated, spectators = excluded.spectators, open_seats = excluded.open_seats, updated = now()
             WHERE rooms_live.node_id = excluded.node_id AND rooms_live.epoch = excluded.epoch",
        )
        .bind(code)
        .bind(&cluster.node_id)
        .bind(cluster.epoch)
        .bind(row.state)
        .bind(&row.level)
        .bind(row.seated)
        .bind(row.spectators)
        .bind(row.open_seats)
        .execute(&cluster.pool)
        .await?;
        published.insert(code.clone(), row.clone());
    }
    let closed: Vec<String> = published
        .keys()
        .filter(|c| !now.contains_key(*c))
        .cloned()
        .collect();
    if !closed.is_empty() {
        sqlx::query("DELETE FROM rooms_live WHERE node_id = $1 AND epoch = $2 AND code = ANY($3)")
            .bind(&cluster.node_id)
            .bind(cluster.epoch)
            .bind(&closed)
            .execute(&cluster.pool)
            .await?;
        for c in closed {
            published.remove(&c);
        }
    }
    Ok(())
}

/// Reindexes the torn rounds' files the replay uploads found at start, one at a time. The
/// writes are idempotent, so a file reindexed twice (a crash during this, or a hand-run
/// `reindex` meanwhile) changes nothing the second time. Each file's round is also stored
/// whole in `replay_files`, in the same transaction.
async fn reindex_torn(shared: Weak<Shared>) {
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
