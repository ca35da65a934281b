//! The round as the room plays it: countdown's end, the tick, inputs and their discipline,
//! encode-once fan-out, the verdict and the `round` frame.
//!
//! The room appends records to the `Round` (the fold + the replay file) and calls its
//! `close_tick` once per tick; every game rule lives in the sim. A tick that panics is caught
//! here: the round is logged as aborted, this room's players are told (`internal`), and the
//! rest of the server goes on.

use super::{Finished, Room};
use crate::log::{Header, Record, SeatEntry};
use crate::round::Round;
use crate::sim::Event;
use crate::sim::movement::facing_of;
use crate::store::chain::{Batch, Must};
use crate::store::history::{RoundMeta, RoundOutcome, event_rows};
use crate::wire::SnapEncoder;
use crate::wire::messages::{
    InputMsg, PROTOCOL_VERSION, PlayerScoreWire, Refusal, RoomState, ServerMsg, close, code,
    quantize_move, snap_frame,
};
use crate::wire::snapshot::encode_full;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// An accepted input waiting for its tick.
struct Queued {
    seat: u8,
    record: Record,
}

pub(crate) struct Play {
    pub round: Round<BufWriter<File>>,
    pub path: PathBuf,
    queue: Vec<Queued>,
    /// Events since the spectators' last pass.
    spect_events: Vec<Event>,
    spect: SnapEncoder,
    passes: u64,
    last_flush: Instant,
    seated: usize,
    events_dropped_seen: u64,
    /// The history's view of this round, and its count of batches not yet written.
    meta: Arc<RoundMeta>,
    pending: Arc<AtomicUsize>,
}

impl Play {
    /// Appends a seat record (connect, drop, abandon, emote, resync) for the current tick.
    pub(crate) fn append_seat(&mut self, mut record: Record) {
        if self.round.fold.state.verdict.is_some() {
            return;
        }
        let tick = self.round.fold.state.tick;
        match &mut record {
            Record::Connect { tick: t, .. }
            | Record::Disconnect { tick: t, .. }
            | Record::Abandon { tick: t, .. } => *t = tick,
            Record::Emote { tick: t, .. } | Record::Resync { tick: t, .. } => *t = tick,
            _ => {}
        }
        if let Err(e) = self.round.append(record) {
            tracing::warn!(path = %self.path.display(), error = %e, "a seat record was refused by the round log");
        }
    }
}

impl Room {
    pub(crate) fn start_round(&mut self) {
        let shared = self.shared.clone();
        let Some(source) = self
            .level
            .as_deref()
            .and_then(|id| shared.level(id))
            .cloned()
        else {
            self.state = RoomState::Lobby;
            self.broadcast(&ServerMsg::err(&Refusal::new(
                code::WRONG_STATE,
                "no_level: pick a level first",
            )));
            return;
        };
        self.round_no += 1;
        let seed = u64::from_str_radix(&crate::sessions::random_hex(8), 16).unwrap_or(0);
        let started_unix_s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let seats: Vec<SeatEntry> = self
            .seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.as_ref().map(|s| SeatEntry {
                    seat: i as u8,
                    player_id: format!("c{i}"),
                    name: s.name.clone(),
                    color: s.color.to_string(),
                    session_id: s.session_id.clone(),
                    connected: s.conn.is_some(),
                })
            })
            .collect();
        let header = Header {
            format_version: crate::log::file::FORMAT_VERSION,
            sim_version: crate::sim::SIM_VERSION,
            protocol_version: PROTOCOL_VERSION,
            level_file: source.file_name.clone(),
            level_toml: source.text.clone(),
            seed,
            tick_hz: shared.config.tick_hz,
            snapshot_hz: shared.config.snapshot_hz,
            seats,
            room_code: self.code.clone(),
            round_no: self.round_no,
            started_unix_s,
        };
        let dir = shared.config.data_dir.join("replays");
        let path = dir.join(format!(
            "{}-{}-{}.ucr",
            self.code, self.round_no, started_unix_s
        ));
        let seated = header.seats.len();
        let round_key = format!("{}-{}-{}", self.code, self.round_no, started_unix_s);
        let meta = Arc::new(RoundMeta::of(
            &round_key,
            &header,
            &source.level,
            &path.display().to_string(),
        ));
        let opened = std::fs::create_dir_all(&dir).and_then(|_| File::create(&path));
        let started = opened
            .map_err(|e| e.to_string())
            .and_then(|f| Round::start(header, BufWriter::new(f)).map_err(|e| e.to_string()));
        let (round, first) = match started {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(room = %self.code, path = %path.display(), error = %e, "the round could not start");
                self.state = RoomState::Lobby;
                self.broadcast(&ServerMsg::err(&Refusal::new(
                    code::INTERNAL,
                    "the round could not start (the server could not write its log)",
                )));
                return;
            }
        };
        tracing::info!(room = %self.code, round = self.round_no, level = %source.level.id, path = %path.display(), "round started");
        shared.stats.rounds_started.fetch_add(1, Relaxed);
        self.play = Some(Play {
            round,
            path,
            queue: Vec::new(),
            spect_events: Vec::new(),
            spect: SnapEncoder::new(),
            passes: 0,
            last_flush: Instant::now(),
            seated,
            events_dropped_seen: 0,
            meta: meta.clone(),
            pending: Arc::new(AtomicUsize::new(0)),
        });
        if let Some(chain) = shared.chain() {
            chain.must(Must::Begin(meta));
        }
        self.state = RoomState::Playing;
        self.fan_out(&first);
    }

    /// An `input` from a seated connection: the seq discipline, the clamp, the per-tick queue.
    pub(crate) fn input(&mut self, conn: u64, seat: u8, input: InputMsg) {
        let shared = self.shared.clone();
        let stats = &shared.stats;
        let Some(c) = self.conn_mut(conn) else { return };
        if input.seq == c.last_seq {
            return; // an idempotent resend
        }
        if input.seq < c.last_seq {
            let last = c.last_seq;
            stats.stale_seqs.fetch_add(1, Relaxed);
            let refusal = Refusal {
                code: code::BAD_FIELD,
                msg: format!("input.seq {} is behind {last}: resync", input.seq),
                seq: Some(input.seq),
            };
            self.send_to(conn, &ServerMsg::err(&refusal));
            if let Some(play) = self.play.as_mut() {
                play.append_seat(Record::Resync {
                    tick: 0,
                    seat,
                    seq: last,
                });
            }
            return;
        }
        if input.seq - c.last_seq > 3 {
            stats.input_gaps.fetch_add(1, Relaxed);
        }
        c.last_seq = input.seq;
        if input.clamped {
            stats.clamped_moves.fetch_add(1, Relaxed);
        }
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let mv = quantize_move(input.mv);
        let face = input.face.or_else(|| facing_of(mv));
        let tick = play.round.fold.state.tick;
        let record = Record::Input {
            tick,
            seat,
            seq: input.seq,
            mv,
            act: input.act,
            face,
        };
        let capacity = 4 * play.seated.max(1);
        if play.queue.len() >= capacity {
            stats.inputs_dropped.fetch_add(1, Relaxed);
            match play.queue.iter().position(|q| q.seat == seat) {
                Some(oldest) => {
                    play.queue.remove(oldest);
                }
                None => return, // one spammer cannot clear another player's tick
            }
        }
        play.queue.push(Queued { seat, record });
        stats.inputs_received.fetch_add(1, Relaxed);
    }

    /// One tick of a playing room.
    pub(crate) fn tick(&mut self) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let inject_panic = std::mem::take(&mut self.panic_next);
        let queue = std::mem::take(&mut play.queue);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if inject_panic {
                panic!("injected tick panic (test mode)");
            }
            for q in queue {
                play.round.append(q.record)?;
            }
            play.round.close_tick()
        }));
        let closed = match outcome {
            Ok(Ok(closed)) => closed,
            Ok(Err(e)) => {
                tracing::error!(room = %self.code, error = %e, "the round log failed; the round is aborted");
                self.crash("the round log failed");
                return;
            }
            Err(_) => {
                tracing::error!(room = %self.code, "a tick panicked; the room is aborted");
                self.crash("the simulation failed");
                return;
            }
        };
        if !closed.events.is_empty()
            && let Some(chain) = self.shared.chain()
        {
            let tick = play.round.fold.state.tick - 1;
            let rows = event_rows(&closed.events, tick, &play.round.fold.ids);
            chain.submit(Batch {
                meta: play.meta.clone(),
                tick,
                rows,
                pending: play.pending.clone(),
            });
        }
        play.spect_events.extend(closed.events);
        let dropped = play.round.events_dropped();
        self.shared
            .stats
            .events_dropped
            .fetch_add(dropped - play.events_dropped_seen, Relaxed);
        play.events_dropped_seen = dropped;
        if play.last_flush.elapsed() >= Duration::from_secs(1) {
            play.last_flush = Instant::now();
            if let Err(e) = play.round.flush() {
                tracing::warn!(room = %self.code, error = %e, "flushing the replay failed");
            }
        }
        if let Some(raw) = closed.frame {
            self.fan_out(&raw);
        }
        if self
            .play
            .as_ref()
            .is_some_and(|p| p.round.fold.state.verdict.is_some())
        {
            self.end_round(false);
        }
    }

    /// One player pass: the shared frame to every seat (a full one to connections that need
    /// it), and every second pass the spectators' own chain.
    fn fan_out(&mut self, raw: &str) {
        let shared = self.shared.clone();
        let Some(play) = self.play.as_mut() else {
            return;
        };
        play.passes += 1;
        let text: Arc<str> = Arc::from(snap_frame(raw));
        let mut full: Option<Arc<str>> = None;
        let ids = &play.round.fold.ids;
        // The pass's own view and events, as the round encoded them: full frames and the
        // spectators' chain reuse them instead of projecting the state again.
        let (view, pass_events) = play.round.last_pass();
        let Some(view) = view else { return };
        let mut full_frame = || {
            full.get_or_insert_with(|| Arc::from(snap_frame(&encode_full(view, pass_events, ids))))
                .clone()
        };
        for seat in self.seats.iter_mut().flatten() {
            if let Some(conn) = seat.conn.as_mut() {
                if conn.needs_full {
                    conn.needs_full = false;
                    Room::push(&shared, conn, &full_frame(), true);
                } else {
                    Room::push(&shared, conn, &text, true);
                }
            }
        }
        if play.passes % 2 == 1 && !self.spectators.is_empty() {
            let events = std::mem::take(&mut play.spect_events);
            let spect_text: Arc<str> =
                Arc::from(snap_frame(&play.spect.encode(view.clone(), &events, ids)));
            let mut spect_full: Option<Arc<str>> = None;
            for s in self.spectators.iter_mut() {
                if s.conn.needs_full {
                    s.conn.needs_full = false;
                    let f = spect_full
                        .get_or_insert_with(|| {
                            Arc::from(snap_frame(&encode_full(view, &events, ids)))
                        })
                        .clone();
                    Room::push(&shared, &mut s.conn, &f, true);
                } else {
                    Room::push(&shared, &mut s.conn, &spect_text, true);
                }
            }
        } else if self.spectators.is_empty() {
            play.spect_events.clear();
        }
    }

    /// Writes the round's end and moves to ROUND_END (the `round` frame follows the settle).
    pub(crate) fn end_round(&mut self, shutdown: bool) {
        let Some(play) = self.play.take() else { return };
        let shared = self.shared.clone();
        let state = play.round.fold.state.clone();
        let rules = play.round.fold.rules.clone();
        let ids = play.round.fold.ids.clone();
        let path = play.path.clone();
        let seed = play.round.fold.header.seed;
        let play_meta = play.meta.clone();
        let result = match play.round.finish() {
            Ok((_, result)) => Some(result),
            Err(e) => {
                tracing::error!(room = %self.code, path = %path.display(), error = %e, "the round's end could not be written");
                None
            }
        };
        let result = result.or(state.verdict.map(|v| v.result));
        let won = result == Some(crate::sim::RoundResult::Won);
        let aborted = result != Some(crate::sim::RoundResult::Won)
            && result != Some(crate::sim::RoundResult::Lost);
        if aborted {
            shared.stats.rounds_aborted.fetch_add(1, Relaxed);
        } else {
            shared.stats.rounds_completed.fetch_add(1, Relaxed);
        }
        tracing::info!(room = %self.code, round = self.round_no, result = ?result.map(|r| r.name()), score = state.score, shutdown, "round ended");
        let order = rules.level.order;
        if won {
            let next = shared.level_after(order).map_or(order, |l| l.level.order);
            for seat in self.seats.iter().flatten() {
                shared.sessions.unlock(&seat.token, next);
            }
        }
        let players = state
            .cooks
            .iter()
            .map(|c| PlayerScoreWire {
                id: ids.get(c.seat as usize).cloned().unwrap_or_default(),
                name: self
                    .seats
                    .get(c.seat as usize)
                    .and_then(|s| s.as_ref())
                    .map_or_else(|| format!("Cook {}", c.seat + 1), |s| s.name.clone()),
                score: c.score,
                dishes_served: c.dishes_served,
                missed_contrib: c.missed_contrib,
            })
            .collect();
        let ticks_left = state.ticks_left(&rules);
        let msg = ServerMsg::Round {
            p: PROTOCOL_VERSION,
            result: result.map(|r| r.name()),
            score: state.score,
            target: rules.level.target_score,
            stars: state.verdict.map_or(0, |v| v.stars),
            time_left: (ticks_left as f64 / rules.tick_hz as f64 * 100.0).round() / 100.0,
            counters: serde_json::json!({
                "served": state.counters.served, "missed": state.counters.missed,
                "wasted": state.counters.wasted, "lost_items": state.counters.lost_items,
            }),
            longest_streak: state.longest_streak,
            players,
            level_id: rules.level.id.clone(),
            seed,
            ticks: state.tick,
            unlocked: None,
        };
        if let Some(chain) = shared.chain() {
            let unlock = won.then(|| shared.level_after(order).map_or(order, |l| l.level.order));
            chain.must(Must::Finish {
                meta: play_meta.clone(),
                outcome: RoundOutcome::of(
                    &play_meta.round_key,
                    &rules,
                    &state,
                    result.map_or("aborted", |r| r.name()),
                    crate::store::unix_now(),
                    unlock,
                ),
                outbox: None,
            });
        }
        self.finished = Some(Finished {
            msg,
            level_order: order,
            won,
        });
        self.state = RoomState::RoundEnd;
        self.phase_at =
            Instant::now() + Duration::from_secs(crate::wire::messages::limits::SETTLE_S);
        self.round_frame_sent = false;
        if shutdown {
            self.send_round_frames();
        }
    }

    /// The `round` frame to every connection, each with its own `unlocked`.
    pub(crate) fn send_round_frames(&mut self) {
        self.round_frame_sent = true;
        let Some(finished) = self.finished.as_ref() else {
            return;
        };
        let ServerMsg::Round { .. } = &finished.msg else {
            return;
        };
        let order = finished.level_order;
        let won = finished.won;
        let base = finished.msg.clone();
        for (conn, token) in self.viewers() {
            let unlocked = self.shared.sessions.get(&token).map_or(1, |s| s.unlocked);
            let next = if won && unlocked > order {
                self.shared.level_after(order)
            } else {
                self.shared.level_with_order(order)
            };
            let mut msg = base.clone();
            if let ServerMsg::Round { unlocked, .. } = &mut msg {
                *unlocked = next.map(|l| l.level.id.clone());
            }
            self.send_to(conn, &msg);
        }
    }

    /// A tick that failed: the round is logged as aborted, the players are told, the room
    /// closes. The rest of the server is untouched.
    fn crash(&mut self, why: &str) {
        if let Some(play) = self.play.take() {
            let path = play.path.clone();
            // The history gets the round as aborted too (its result is never dropped).
            if let Some(chain) = self.shared.chain() {
                chain.must(Must::Finish {
                    meta: play.meta.clone(),
                    outcome: RoundOutcome::of(
                        &play.meta.round_key,
                        &play.round.fold.rules,
                        &play.round.fold.state,
                        "aborted",
                        crate::store::unix_now(),
                        None,
                    ),
                    outbox: None,
                });
            }
            let finished = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                play.round.finish().map(|_| ())
            }));
            if !matches!(finished, Ok(Ok(()))) {
                tracing::error!(room = %self.code, path = %path.display(), "the aborted round's end could not be written");
            }
        }
        self.shared.stats.rounds_aborted.fetch_add(1, Relaxed);
        let shared = self.shared.clone();
        let msg = ServerMsg::err(&Refusal::new(
            code::INTERNAL,
            format!("{why}; this room is closed"),
        ));
        for conn in self.conns_mut() {
            Room::refuse(&shared, &conn.tx, &msg, close::ROOM_GONE);
        }
        for seat in self.seats.iter_mut() {
            *seat = None;
        }
        self.spectators.clear();
        self.state = RoomState::Closed;
    }
}
