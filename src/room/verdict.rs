//! The end of a round: its `Ended` written, the history told, unlocks given, and the
//! `round` frame (after a one-second settle, each viewer with its own `unlocked`). Also
//! the crash path: a tick that failed ends the round as aborted and closes the room.
//!
//! The figures come from one `RoundSummary`, the same one the history's row and
//! `undercooked replay` print from.

use super::Room;
use super::phase::{Phase, RoundOver};
use crate::shared::Shared;
use crate::shared::census::Census;
use crate::sim::{RoundResult, RoundSummary};
use crate::store::chain::Must;
use crate::store::quests::WORK_TO_COUNT;
use crate::store::rows::{RoundMeta, RoundOutcome};
use crate::store::unix_now;
use crate::wire::messages::{Refusal, ServerMsg, close, code, limits};
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Room {
    /// Writes the round's end and moves to ROUND_END (the `round` frame follows the
    /// settle, or at once on a shutdown).
    pub(super) fn end_round(&mut self, shutdown: bool) {
        let Phase::Playing(mut play) = std::mem::replace(&mut self.phase, Phase::Lobby) else {
            return;
        };
        let shared = self.shared.clone();
        // The last second's events go before the round's end (the chain keeps the order).
        let last_tick = play.round.fold().state.tick;
        play.hand_over_history(&shared, last_tick);
        let seed = play.round.fold().header.seed;
        let ids = play.round.fold().ids.clone();
        let mut summary = play.round.summary();
        match play.round.finish() {
            Ok((file, result)) => {
                summary = summary.ended_as(result);
                // A file whose end the disk has not taken yet is uploaded at the next start.
                if shared.rescue.close(file) {
                    shared.replay_finished(&play.path);
                }
            }
            Err(e) => {
                tracing::error!(room = %self.code, path = %play.path.display(), error = %e, "the round's end could not be written");
            }
        }
        if summary.decided() {
            Census::count(&shared.census.rounds_completed);
        } else {
            Census::count(&shared.census.rounds_aborted);
        }
        tracing::info!(room = %self.code, round = self.round_no, result = ?summary.result.map(|r| r.name()), score = summary.score, shutdown, "round ended");
        let order = summary.level_order;
        let won = summary.won();
        let unlock = won.then(|| shared.levels.after(order).map_or(order, |l| l.level.order));
        if let Some(next) = unlock {
            // Only the seats that contributed (as the history credits them, from the same
            // events: `store::quests::contributors`).
            let contributed =
                |seat: usize| play.work.get(seat).copied().unwrap_or(0) >= WORK_TO_COUNT;
            let credited = self
                .seats
                .list
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.as_ref().filter(|s| !s.bot && contributed(i)));
            for seat in credited {
                shared.sessions.unlock(&seat.token, next);
            }
        }
        to_history(&shared, play.meta, &summary, unlock);
        let name_of = |seat: u8| {
            self.seats
                .get(seat)
                .map_or_else(|| format!("Cook {}", seat + 1), |s| s.name.clone())
        };
        let frame = ServerMsg::round(&summary, seed, &ids, name_of, None);
        self.phase = Phase::RoundEnd {
            over: RoundOver {
                frame,
                level_order: order,
                won,
            },
            announce_at: Some(Instant::now() + Duration::from_secs(limits::SETTLE_S)),
        };
        if shutdown {
            self.send_round_frames();
        }
    }

    /// The `round` frame to every connection, each with its own `unlocked`: the next level
    /// when the round was won and the viewer has it, else the level played.
    pub(super) fn send_round_frames(&mut self) {
        let Phase::RoundEnd { over, announce_at } = &mut self.phase else {
            return;
        };
        *announce_at = None;
        let (order, won) = (over.level_order, over.won);
        let base = over.frame.clone();
        let shared = self.shared.clone();
        for (conn, token) in self.seats.viewers() {
            let unlocked = shared.sessions.get(&token).map_or(1, |s| s.unlocked);
            let next = if won && unlocked > order {
                shared.levels.after(order)
            } else {
                shared.levels.with_order(order)
            };
            let mut msg = base.clone();
            if let ServerMsg::Round { unlocked, .. } = &mut msg {
                *unlocked = next.map(|l| l.level.id.clone());
            }
            self.send_to(conn, &msg);
        }
    }

    /// A tick that failed: the round is logged as aborted (in its file and the history),
    /// the players are told (`internal`, close 4401), the room closes. The rest of the
    /// server is untouched.
    pub(super) fn crash(&mut self, why: &str) {
        let shared = self.shared.clone();
        if let Phase::Playing(mut play) = std::mem::replace(&mut self.phase, Phase::Closed) {
            let last_tick = play.round.fold().state.tick;
            play.hand_over_history(&shared, last_tick);
            // The history gets the round as aborted too (its result is never dropped).
            let summary = play.round.summary().ended_as(RoundResult::Aborted);
            to_history(&shared, play.meta.clone(), &summary, None);
            let path = play.path.clone();
            let finished = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                play.round
                    .finish()
                    .map(|(file, _)| shared.rescue.close(file))
            }));
            if matches!(finished, Ok(Ok(true))) {
                shared.replay_finished(&path);
            }
            if !matches!(finished, Ok(Ok(_))) {
                tracing::error!(room = %self.code, path = %path.display(), "the aborted round's end could not be written");
            }
        }
        Census::count(&shared.census.rounds_aborted);
        let refusal = Refusal::new(code::INTERNAL, format!("{why}; this room is closed"));
        for conn in self.seats.conns_mut() {
            shared.census.refuse(&conn.link, &refusal, close::ROOM_GONE);
        }
        self.seats.list.iter_mut().for_each(|s| *s = None);
        self.seats.spectators.clear();
    }
}

/// A round's end to the history, as a `Must` (through the outbox: never dropped).
fn to_history(shared: &Shared, meta: Arc<RoundMeta>, summary: &RoundSummary, unlock: Option<u32>) {
    if let Some(chain) = shared.chain() {
        let outcome = RoundOutcome::of(&meta.round_key, summary, unix_now(), unlock);
        chain.must(Must::Finish {
            meta,
            outcome,
            outbox: None,
        });
    }
}
