//! A node's upkeep, on the upkeep pool and off every room's path: once a second it
//! publishes its rooms to the directory (only the rows that changed, so a room is written
//! at most once a second, outside the history's write chain); every `RENEW_EVERY_S` it
//! renews its lease with its room and socket counts — at once, whatever the beat, when its
//! own clock says the lease may have run out (a pause) — and acts on what the renewal
//! found; every `janitor::EVERY_S` it looks for lost nodes; and it reads the node secret
//! file again when it changed. A database that cannot be reached is retried at the next
//! beat; rounds play on meanwhile. It ends when the server is gone or the node has left.

use super::directory::{Row, Taken};
use super::janitor::Janitor;
use super::lease::{RENEW_EVERY_S, Renewed};
use super::node::Cluster;
use crate::shared::Shared;
use crate::shared::registry::RoomCmd;
use crate::wire::messages::RoomState;
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// Runs until the server is gone or the node has left the cluster.
pub async fn keep(shared: Weak<Shared>, cluster: Arc<Cluster>) {
    let mut published: BTreeMap<String, Row> = BTreeMap::new();
    let mut janitor = Janitor::default();
    let mut beat: u64 = 0;
    loop {
        let Some(s) = shared.upgrade() else { return };
        if cluster.left() {
            return;
        }
        cluster.secret.reload();
        let now = rows(&s, &cluster);
        let due = cluster.lease.since_renewed() >= Duration::from_secs(RENEW_EVERY_S);
        if due || beat.is_multiple_of(RENEW_EVERY_S) {
            let sockets = s.census.sockets() as i64;
            let rooms: Vec<(String, Row)> =
                now.iter().map(|(c, r)| (c.clone(), r.clone())).collect();
            match cluster.renew(&rooms, sockets).await {
                Ok(Renewed::Lapsed(Taken { kept, lost, .. })) => {
                    // The directory holds what the taking back wrote: publish from there.
                    published = now
                        .iter()
                        .filter(|(c, _)| kept.contains(c))
                        .map(|(c, r)| (c.clone(), r.clone()))
                        .collect();
                    disown(&s, &lost).await;
                }
                Ok(Renewed::Replaced) => {
                    let all: Vec<String> = now.keys().cloned().collect();
                    disown(&s, &all).await;
                }
                Ok(Renewed::Live) => {}
                Err(e) => tracing::warn!(error = %e, "the node's lease could not be renewed"),
            }
        }
        match cluster.publish(&now, &mut published).await {
            Ok(()) => {}
            Err(e) => {
                cluster.lease.trouble(Some(e.to_string()));
                tracing::warn!(error = %e, "the room directory could not be written");
            }
        }
        // A lapse seen once is looked at again every beat, to confirm it sooner.
        if beat.is_multiple_of(super::janitor::EVERY_S) || janitor.watching() {
            match cluster.sweep(&mut janitor).await {
                Ok(swept) => {
                    for orphan in swept.orphans {
                        let cluster = cluster.clone();
                        tokio::spawn(async move { cluster.hand_over(&orphan).await });
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the janitor could not close a lost node's rounds")
                }
            }
        }
        drop(s);
        beat += 1;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// This node's rooms as the directory shows them.
fn rows(shared: &Shared, cluster: &Cluster) -> BTreeMap<String, Row> {
    let max = shared.config.max_players as i64;
    let grace = std::time::Duration::from_secs(shared.config.unclaimed_seat_s);
    shared
        .rooms
        .by_code()
        .into_iter()
        .map(|(code, h)| {
            let state = h.info.state();
            let seated = h.info.seated() as i64;
            let row = Row {
                state: state.name(),
                level: h.info.level(),
                seated,
                spectators: h.info.spectators() as i64,
                // Quick play on any node seats strangers only where a person has come.
                open_seats: if state == RoomState::Lobby
                    && !cluster.draining()
                    && h.info.welcomes_strangers(grace)
                {
                    (max - seated).max(0)
                } else {
                    0
                },
            };
            (code, row)
        })
        .collect()
}

/// Closes the rooms another node holds now (`4401 room_gone` to their sockets), without a
/// result: the round is no longer this node's to end.
async fn disown(shared: &Shared, codes: &[String]) {
    for code in codes {
        if let Some(room) = shared.rooms.get(code) {
            let (reply, rx) = tokio::sync::oneshot::channel();
            if room.tx.send(RoomCmd::Disown { reply }).await.is_ok() {
                let _ = rx.await;
            }
            tracing::warn!(room = %code, "room given up: another node holds it now");
        }
    }
}
