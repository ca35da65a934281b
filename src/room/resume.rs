//! A round picked up again from its log: the room reopened under the round's code, its
//! seats kept for the sessions the log names, and play held until its people are back.
//!
//! The log knows each seat's non-secret session id, never a token: a resumed seat waits
//! with no token until a `hello` (or an HTTP join) whose token belongs to that session
//! claims it, after which it is an ordinary seat again. Bots take their seats back at once.
//! While the room waits it does not tick, so the round's clock stands still; it goes on
//! when every person who was connected at the cut is back, or after
//! `UNDERCOOKED_RESUME_WAIT_S`, with the missing seats disconnected (the sim's rules for a
//! disconnect hold, and the seat grace gives them up later as for any dropped seat).

use super::phase::{Phase, Play, Waiting};
use super::seats::{Seat, Seats};
use super::{Room, SendCounters};
use crate::log::{Accepted, PALETTE};
use crate::net::Frame;
use crate::resume::{Plan, Refused};
use crate::shared::Shared;
use crate::shared::registry::Opener;
use crate::sim::Event;
use crate::store::chain::Must;
use crate::store::replay_file::ReplayFile;
use crate::store::rows::event_rows;
use crate::store::rows::{EventRow, RoundMeta};
use crate::wire::messages::{PROTOCOL_VERSION, ServerMsg};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the re-run of a file gave the room besides the round: its history's rows and each
/// seat's pieces of work so far.
pub struct Rebuilt {
    pub history: Vec<EventRow>,
    pub work: [u32; crate::sim::SEATS],
}

/// Why a planned resume did not open a room.
#[derive(Debug, thiserror::Error)]
pub enum NotReopened {
    #[error("room {0} is already open here, or the server is at max_rooms")]
    NoRoom(String),
    #[error("the replay file could not be reopened: {0}")]
    File(std::io::Error),
    #[error("the round could not go on: {0}")]
    Round(#[from] crate::round::RoundError),
}

/// Reopens the round of `plan` (its file at `path`, last written at `stopped_unix_s`)
/// in a room under its own code. Returns the code.
pub fn reopen(
    shared: &Arc<Shared>,
    path: PathBuf,
    plan: Plan,
    rebuilt: Rebuilt,
    stopped_unix_s: u64,
) -> Result<String, NotReopened> {
    let header = plan.header.clone();
    let code = header.room_code.clone();
    let now_s = crate::store::unix_now().max(0) as u64;
    let streams = shared.log_stream().is_some();
    let file = ReplayFile::reopen(path.clone(), plan.cut_at).map_err(NotReopened::File)?;
    let file = if streams { file.tap() } else { file };
    let round = crate::resume::go_on(plan.rerun, file, (stopped_unix_s, now_s))?;
    let fold = round.fold();
    let level = fold.rules.level.clone();
    let mut seats = Seats::new(shared.config.max_players as usize);
    let mut waiting_for = Vec::new();
    for s in &header.seats {
        let Some(cook) = fold.state.cook(s.seat).filter(|c| !c.abandoned) else {
            continue;
        };
        let Some(place) = seats.list.get_mut(s.seat as usize) else {
            continue;
        };
        let bot = s.session_id.starts_with("bot-");
        if !bot && cook.connected {
            waiting_for.push(s.seat);
        }
        *place = Some(Seat {
            token: String::new(),
            session_id: s.session_id.clone(),
            name: s.name.clone(),
            color: PALETTE[s.seat as usize % PALETTE.len()],
            ready: true,
            conn: None,
            disconnected_at: (!bot).then(Instant::now),
            ever_connected: true,
            bot,
        });
    }
    let placement = shared.threads.pick();
    let opened = shared.rooms.open(
        shared.config.max_rooms,
        placement.thread,
        Some(code.clone()),
        Opener::default(),
    );
    let Some((code, handle, rx)) = opened else {
        shared.threads.leave(placement);
        return Err(NotReopened::NoRoom(code));
    };
    let round_key = header.round_key();
    let meta = Arc::new(RoundMeta::of(
        &round_key,
        &header,
        &level,
        &path.display().to_string(),
    ));
    let bots = seats.team(&level, header.tick_hz);
    let tick = round.fold().state.tick;
    let wait = Duration::from_secs(shared.config.resume_wait_s);
    let stream = streams.then(|| super::stream::Streaming::new(&round_key, &code));
    let mut play = Play::new(round, path, bots, header.seats.len(), meta.clone(), stream);
    play.history = rebuilt.history;
    play.work = rebuilt.work;
    play.waiting = Some(Waiting {
        until: Instant::now() + wait,
        seats: waiting_for.clone(),
        tick,
        away_s: now_s.saturating_sub(stopped_unix_s),
    });
    // Nobody is connected now: the people who were say so in the log, as a drop would.
    for &seat in &waiting_for {
        play.record(Accepted::Disconnected(seat));
    }
    if let Some(chain) = shared.chain() {
        // Both idempotent: a start the database never took, the events up to the cut
        // (those it has are kept once).
        chain.must(Must::Begin(meta));
        play.hand_over_history(shared, tick);
    }
    let mut room = Room::new(shared, &code, &handle, placement);
    room.seats = seats;
    room.seats.pass_crown();
    room.level = Some(level.id.clone());
    room.info.publish_level(room.level.as_deref());
    room.round_no = header.round_no;
    room.empty_since = None;
    // People played here: quick play may seat strangers in its lobby after this round.
    room.info.welcome();
    let decided = play.round.decided();
    room.phase = Phase::Playing(Box::new(play));
    if decided {
        // The verdict fell before the cut and only the end was lost: it is written now.
        room.end_round(false);
    }
    tracing::info!(room = %code, round = header.round_no, tick, waiting_for = ?waiting_for, "round resumed from its log");
    shared.threads.spawn(placement.thread, room.run(rx));
    Ok(code)
}

impl Room {
    /// A resumed round's wait: over when its people are back or its time is up. Returns
    /// whether the round may tick.
    pub(super) fn resume_wait_over(&mut self, now: Instant) -> bool {
        let Phase::Playing(play) = &mut self.phase else {
            return true;
        };
        let Some(w) = &play.waiting else {
            return true;
        };
        let missing = w.seats.iter().any(|&s| {
            self.seats
                .get(s)
                .is_some_and(|seat| !seat.bot && seat.conn.is_none())
        });
        if missing && now < w.until {
            return false;
        }
        tracing::info!(room = %self.code, tick = w.tick, everyone_back = !missing, "resumed round ticks on");
        play.waiting = None;
        true
    }

    /// A seat kept for a session by a resume, claimed by a token of that session.
    pub(super) fn claim_resumed_seat(&mut self, token: &str) {
        if !self.seats.taken().any(|s| !s.bot && s.token.is_empty()) {
            return;
        }
        let Some(session) = self.shared.sessions.get(token) else {
            return;
        };
        if self.seats.of_token(token).is_some() {
            return;
        }
        if let Some(seat) = self
            .seats
            .list
            .iter_mut()
            .flatten()
            .find(|s| !s.bot && s.token.is_empty() && s.session_id == session.id)
        {
            seat.token = token.to_string();
        }
    }

    /// A connection that arrives while a resumed round waits: the `resumed` notice and the
    /// kitchen as it stands (no pass goes out until the round ticks again).
    pub(super) fn greet_while_resuming(&mut self, conn: u64) {
        let Phase::Playing(play) = &self.phase else {
            return;
        };
        let Some(w) = &play.waiting else {
            return;
        };
        let now = Instant::now();
        let waiting_for: Vec<u8> = w
            .seats
            .iter()
            .copied()
            .filter(|&s| self.seats.get(s).is_some_and(|seat| seat.conn.is_none()))
            .collect();
        let msg = ServerMsg::Resumed {
            p: PROTOCOL_VERSION,
            tick: w.tick,
            away_s: w.away_s,
            waiting_for,
            wait_ms: w.until.saturating_duration_since(now).as_millis() as u64,
        };
        let full = play
            .round
            .players()
            .full(&play.round.fold().ids)
            .map(|f| Frame::from(f.into_text()));
        self.send_to(conn, &msg);
        let counters = SendCounters::of(&self.shared, &self.info);
        if let (Some(full), Some(c)) = (full, self.seats.conn_mut(conn)) {
            c.needs_full = false;
            Room::push(counters, c, &full, true);
        }
    }
}

/// Reads and plans the file at `path` (`crate::resume::plan`), with the history's rows and
/// each seat's pieces of work in its prefix.
pub fn plan_file(path: &std::path::Path) -> Result<(Plan, Rebuilt), Refused> {
    let bytes = crate::log::read_file(path).map_err(|e| Refused::Unreadable(e.to_string()))?;
    let mut ticks: Vec<(u32, Vec<Event>)> = Vec::new();
    let plan = crate::resume::plan(&bytes, &mut |tick, events| {
        if !events.is_empty() {
            ticks.push((tick, events.to_vec()));
        }
    })?;
    let ids = plan
        .rerun
        .fold
        .as_ref()
        .map(|f| f.ids.clone())
        .unwrap_or_default();
    let mut rebuilt = Rebuilt {
        history: Vec::new(),
        work: [0; crate::sim::SEATS],
    };
    for (tick, events) in &ticks {
        rebuilt.history.extend(event_rows(events, *tick, &ids));
        super::play::count_work(&mut rebuilt.work, events);
    }
    Ok((plan, rebuilt))
}
