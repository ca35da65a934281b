//! A round being played: its start after the countdown, inputs and their discipline, the
//! tick, and the fan-out of each pass.
//!
//! The room appends what it accepted to the `Round` (the fold + the replay file), and the
//! inputs of its bot cooks (decided from the last pass's view, as a client sees it), and
//! calls its `close_tick` once per tick; every game rule lives in the sim. A pass's frame is
//! encoded once per audience and leaves as one shared buffer: the players' frame (and, for
//! a connection that must start over, a full frame of the same pass) every pass, the
//! spectators' own chain every second pass. A tick that panics is caught here and ends in
//! `verdict`'s crash path; the rest of the server goes on.

use super::phase::{Phase, Play};
use super::{Room, SendCounters};
use crate::log::{Accepted, Header, SeatEntry};
use crate::net::Frame;
use crate::round::Round;
use crate::shared::census::Census;
use crate::store::chain::Must;
use crate::store::replay_file::ReplayFile;
use crate::store::rows::{RoundMeta, event_rows};
use crate::wire::messages::{InputMsg, Refusal, ServerMsg, code, quantize_move};
use crate::wire::{PassEncoder, SnapFrame};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Inputs one seat may have waiting for a tick before its oldest is dropped.
const INPUTS_PER_SEAT_PER_TICK: usize = 4;

impl Room {
    /// The header of the round about to start: the level's text, a fresh seed, the seats.
    fn round_header(&self, file_name: &str, text: &str, started_unix_s: u64) -> Header {
        let seats = self
            .seats
            .list
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let s = s.as_ref()?;
                let connected = s.present();
                Some(SeatEntry::new(
                    i as u8,
                    &s.name,
                    s.color,
                    &s.session_id,
                    connected,
                ))
            })
            .collect();
        let seed = crate::shared::random::u64();
        let config = &self.shared.config;
        Header {
            snapshot_hz: config.snapshot_hz,
            seats,
            room_code: self.code.clone(),
            round_no: self.round_no,
            started_unix_s,
            ..Header::new(file_name, text, seed, config.tick_hz)
        }
    }

    /// COUNTDOWN → PLAYING: the round's file opens, the history hears of it, and the first
    /// pass goes out. A level that is gone or a file that cannot be written sends the room
    /// back to the lobby with the reason.
    pub(super) fn start_round(&mut self) {
        let shared = self.shared.clone();
        let Some(source) = self.level.as_deref().and_then(|id| shared.levels.get(id)) else {
            self.phase = Phase::Lobby;
            let why = super::lobby::NotStartable::NoLevel.message();
            self.broadcast(&Frame::from(&super::err(code::WRONG_STATE, why)));
            return;
        };
        self.round_no += 1;
        let started_unix_s = crate::store::unix_now().max(0) as u64;
        let header = self.round_header(&source.file_name, &source.text, started_unix_s);
        let round_key = header.round_key();
        let dir = shared.config.data_dir.join("replays");
        let path = dir.join(format!("{round_key}.ucr"));
        let seated = header.seats.len();
        let meta = Arc::new(RoundMeta::of(
            &round_key,
            &header,
            &source.level,
            &path.display().to_string(),
        ));
        let streams = shared.log_stream().is_some();
        let started = std::fs::create_dir_all(&dir)
            .and_then(|_| ReplayFile::create(path.clone()))
            .map(|f| if streams { f.tap() } else { f })
            .map_err(|e| e.to_string())
            .and_then(|f| Round::start(header, f).map_err(|e| e.to_string()));
        let (round, first) = match started {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(room = %self.code, path = %path.display(), error = %e, "the round could not start");
                self.phase = Phase::Lobby;
                let why = "the round could not start (the server could not write its log)";
                self.broadcast(&Frame::from(&super::err(code::INTERNAL, why)));
                return;
            }
        };
        tracing::info!(room = %self.code, round = self.round_no, level = %source.level.id, path = %path.display(), "round started");
        Census::count(&shared.census.rounds_started);
        if let Some(chain) = shared.chain() {
            chain.must(Must::Begin(meta.clone()));
        }
        let bots = self.seats.team(&source.level, round.fold().header.tick_hz);
        let stream = streams.then(|| super::stream::Streaming::new(&round_key, &self.code));
        self.phase = Phase::Playing(Box::new(Play::new(round, path, bots, seated, meta, stream)));
        self.fan_out(first);
    }

    /// An `input` from a seated connection: the seq discipline, then the per-tick queue.
    /// The move is quantized for the log; the facing the client asked for is passed on
    /// as it is (the sim derives one from the move when there is none).
    pub(super) fn input(&mut self, conn: u64, seat: u8, input: InputMsg) {
        let census = &self.shared.census;
        let Some(c) = self.seats.conn_mut(conn) else {
            return;
        };
        if input.seq == c.last_seq {
            return; // an idempotent resend
        }
        if input.seq < c.last_seq {
            let last = c.last_seq;
            Census::count(&census.stale_seqs);
            let refusal = Refusal {
                code: code::BAD_FIELD,
                msg: format!("input.seq {} is behind {last}: resync", input.seq),
                seq: Some(input.seq),
            };
            self.send_to(conn, &ServerMsg::err(&refusal));
            self.record(Accepted::Resynced { seat, seq: last });
            return;
        }
        if input.seq - c.last_seq > 3 {
            Census::count(&census.input_gaps);
        }
        c.last_seq = input.seq;
        if input.clamped {
            Census::count(&census.clamped_moves);
        }
        let Phase::Playing(play) = &mut self.phase else {
            return;
        };
        if play.queue.len() >= INPUTS_PER_SEAT_PER_TICK * play.seated.max(1) {
            Census::count(&census.inputs_dropped);
            match play.queue.iter().position(|(s, _)| *s == seat) {
                Some(oldest) => {
                    play.queue.remove(oldest);
                }
                None => return, // one spammer cannot clear another player's tick
            }
        }
        let accepted = Accepted::Input {
            seat,
            seq: input.seq,
            mv: quantize_move(input.mv),
            act: input.act,
            face: input.face,
        };
        play.queue.push((seat, accepted));
        Census::count(&census.inputs_received);
    }

    /// One tick of a playing room: the queued inputs folded, the tick closed, its events
    /// to the history, the replay flushed once a second, the pass fanned out.
    pub(super) fn tick(&mut self) {
        let Phase::Playing(play) = &mut self.phase else {
            return;
        };
        let inject_panic = std::mem::take(&mut self.panic_next);
        let queue = std::mem::take(&mut play.queue);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if inject_panic {
                panic!("injected tick panic (test mode)");
            }
            for (_, accepted) in queue {
                play.round.append(accepted)?;
            }
            if let (Some(team), Some(view)) = (&mut play.bots, play.round.players().last_view()) {
                for i in team.decide(view) {
                    play.round.append(Accepted::from(i))?;
                }
                for (seat, id) in team.take_emotes() {
                    let id = id.to_string();
                    play.round.append(Accepted::Emoted { seat, id })?;
                }
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
        let shared = &self.shared;
        if !closed.events.is_empty() && shared.chain().is_some() {
            let rows = event_rows(&closed.events, closed.tick, &play.round.fold().ids);
            play.history.extend(rows);
        }
        count_work(&mut play.work, &closed.events);
        play.spectators.note(&closed.events);
        let dropped = play.round.players().events_dropped();
        shared
            .census
            .events_dropped
            .fetch_add(dropped - play.events_dropped_seen, Relaxed);
        play.events_dropped_seen = dropped;
        if play.last_flush.elapsed() >= Duration::from_secs(1) {
            play.last_flush = Instant::now();
            // The file first: the history never holds a tick its file lacks, so a round
            // resumed from the file re-sends every event the history may miss (idempotent).
            if let Err(e) = play.round.flush() {
                tracing::warn!(room = %self.code, error = %e, "flushing the replay failed");
            }
            if let Some(s) = &mut play.stream {
                s.hand_over(shared, play.round.out_mut());
            }
            play.hand_over_history(shared, closed.tick);
        }
        let decided = play.round.decided();
        if let Some(frame) = closed.frame {
            self.fan_out(frame);
        }
        if decided {
            self.end_round(false);
        }
    }

    /// One player pass: the shared frame to every seat (a full one to connections that need
    /// it), and every second pass the spectators' own chain.
    fn fan_out(&mut self, frame: SnapFrame) {
        let Phase::Playing(play) = &mut self.phase else {
            return;
        };
        let census = SendCounters::of(&self.shared, &self.info);
        play.passes += 1;
        let delta = Frame::from(frame.into_text());
        let ids = &play.round.fold().ids;
        let players = play.round.players();
        let mut full: Option<Option<Frame>> = None;
        for seat in self.seats.list.iter_mut().flatten() {
            let Some(conn) = seat.conn.as_mut() else {
                continue;
            };
            if conn.needs_full {
                conn.needs_full = false;
                if let Some(f) = full.get_or_insert_with(|| whole(players, ids)) {
                    Room::push(census, conn, f, true);
                }
            } else {
                Room::push(census, conn, &delta, true);
            }
        }
        let spectators = &mut self.seats.spectators;
        if spectators.is_empty() {
            play.spectators.forget_unsent();
            return;
        }
        if play.passes % 2 == 0 {
            return;
        }
        let Some(view) = players.last_view() else {
            return;
        };
        let chain = Frame::from(play.spectators.pass(view.clone(), ids).into_text());
        let mut spect_full: Option<Option<Frame>> = None;
        for s in spectators.iter_mut() {
            if s.conn.needs_full {
                s.conn.needs_full = false;
                if let Some(f) = spect_full.get_or_insert_with(|| whole(&play.spectators, ids)) {
                    Room::push(census, &mut s.conn, f, true);
                }
            } else {
                Room::push(census, &mut s.conn, &chain, true);
            }
        }
    }
}

/// A full frame of an audience's last pass, as shared bytes.
fn whole(audience: &PassEncoder, ids: &[String]) -> Option<Frame> {
    audience.full(ids).map(|f| Frame::from(f.into_text()))
}

/// Adds each seat's pieces of work among `events` (`store::quests::is_work`) to `work`: a
/// round's unlock goes to the seats with `WORK_TO_COUNT` of them, as the history credits it.
pub(super) fn count_work(work: &mut [u32; crate::sim::SEATS], events: &[crate::sim::Event]) {
    for e in events {
        if crate::store::quests::is_work(e.kind.name())
            && let Some(n) = e.payload.i.and_then(|i| work.get_mut(i as usize))
        {
            *n += 1;
        }
    }
}
