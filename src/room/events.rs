//! `ev` frames outside the kitchen's own events: emotes and quest completions.
//!
//! An emote during a round is a record in the round log (it reaches everyone in the next
//! `snap`, and the replay has it); in the lobby it goes out at once as an `ev`. A quest
//! completion goes to the connection of the session that completed it, and to nobody else.

use super::phase::Phase;
use super::{Room, SendCounters};
use crate::log::{Accepted, player_id};
use crate::net::Frame;
use crate::sim::events::EMOTES;
use crate::sim::{Event, EventKind, Payload, SEATS};
use crate::store::quests::Completion;
use crate::wire::events::{event_wire, quest_event};
use crate::wire::messages::{code, ev_frame, limits};
use std::time::{Duration, Instant};

impl Room {
    /// An emote, at most `EMOTES_PER_S` a second per connection (more are refused
    /// `rate_limited`, not counted as strikes).
    pub(super) fn emote(&mut self, conn: u64, seat: u8, id: &str) {
        let now = Instant::now();
        let Some(c) = self.seats.conn_mut(conn) else {
            return;
        };
        if now.duration_since(c.emote_window.0) >= Duration::from_secs(1) {
            c.emote_window = (now, 0);
        }
        if c.emote_window.1 >= limits::EMOTES_PER_S {
            let why = "emotes are limited to 2 a second";
            self.send_to(conn, &super::err(code::RATE_LIMITED, why));
            return;
        }
        c.emote_window.1 += 1;
        let em = EMOTES
            .iter()
            .find(|e| **e == id)
            .copied()
            .unwrap_or(EMOTES[0]);
        if matches!(self.phase, Phase::Playing(_)) {
            self.record(Accepted::Emoted {
                seat,
                id: em.to_string(),
            });
            return;
        }
        let event = Event::hud(
            EventKind::Emote,
            Payload {
                i: Some(seat),
                em: Some(em),
                ..Default::default()
            },
        );
        let ids: Vec<String> = (0..SEATS as u8).map(player_id).collect();
        let mut one = String::new();
        event_wire(&mut one, &event, &ids);
        self.broadcast(&Frame::from(ev_frame(&[one])));
    }

    /// A quest completed by a seated session: an `ev` with a `quest` event to its
    /// connection alone.
    pub(super) fn quest_completed(&mut self, c: &Completion) {
        let conn = self
            .seats
            .taken()
            .find(|s| s.session_id == c.session_id)
            .and_then(|s| s.conn.as_ref())
            .map(|c| c.id());
        let Some(conn) = conn else { return };
        let frame = Frame::from(ev_frame(&[quest_event(&c.quest_id, c.progress, c.target)]));
        if let Some(c) = self.seats.conn_mut(conn) {
            Room::push(SendCounters::of(&self.shared, &self.info), c, &frame, false);
        }
    }
}
