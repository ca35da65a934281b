//! The `snap` encoder: full and delta frames, written straight to JSON text.
//!
//! One `SnapEncoder` serves one audience (the players, or the spectators): it remembers the
//! view it last encoded, so each pass writes either a full frame or a delta holding only the
//! entities that changed (whole entries) plus `{"gone": true}` tombstones with identity keys.
//! Every 20th encoded frame is full. Numbers are written from integers (hundredths), so the
//! same view is the same bytes on every machine, with no float formatting involved.
//!
//! A frame is written once, whole, as the message that goes out (`SnapFrame`): the body
//! the replay records and `verify` compares is a slice of those same bytes.

use super::events::{MAX_EVENTS_PER_FRAME, frame_events};
use super::json::{Object, int};
use super::view::{FrameView, HazardView, OrderView, PlayerView, StationView};
use crate::sim::Event;

/// A full frame every this many encoded frames (passes 1, 21, 41, … of an audience).
pub const FULL_SNAPSHOT_EVERY: u64 = 20;

/// One `snap` message, `{"type":"snap","p":1,"raw":<body>}`, encoded once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapFrame {
    text: String,
    body_start: usize,
}

impl SnapFrame {
    /// A frame under construction: the message's head written, the body to follow.
    fn begin(capacity: usize) -> SnapFrame {
        let mut text = String::with_capacity(capacity + 32);
        text.push_str("{\"type\":\"snap\",\"p\":");
        int(&mut text, crate::PROTOCOL_VERSION as i64);
        text.push_str(",\"raw\":");
        SnapFrame {
            body_start: text.len(),
            text,
        }
    }

    fn end(mut self) -> SnapFrame {
        self.text.push('}');
        self
    }

    /// The `snap` body (`raw`): what the replay records.
    pub fn raw(&self) -> &str {
        &self.text[self.body_start..self.text.len() - 1]
    }

    /// The whole message, as it goes out.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }
}

#[derive(Default)]
pub struct SnapEncoder {
    prev: Option<FrameView>,
    passes: u64,
    pub events_dropped: u64,
}

impl SnapEncoder {
    pub fn new() -> SnapEncoder {
        SnapEncoder::default()
    }

    /// The view the last frame encoded (the base of the next delta).
    pub fn last_view(&self) -> Option<&FrameView> {
        self.prev.as_ref()
    }

    /// Encodes the next frame of this audience's chain (full on the cadence, else a delta
    /// against the previous frame) and remembers `view` as the new base.
    pub fn encode(&mut self, view: FrameView, events: &[Event], ids: &[String]) -> SnapFrame {
        let full = self.passes.is_multiple_of(FULL_SNAPSHOT_EVERY) || self.prev.is_none();
        self.passes += 1;
        self.events_dropped += events.len().saturating_sub(MAX_EVENTS_PER_FRAME) as u64;
        let out = match (&self.prev, full) {
            (Some(prev), false) => encode_delta(prev, &view, events, ids),
            _ => encode_full(&view, events, ids),
        };
        self.prev = Some(view);
        out
    }
}

/// A whole frame of `view`.
pub fn encode_full(v: &FrameView, events: &[Event], ids: &[String]) -> SnapFrame {
    let mut frame = SnapFrame::begin(1024);
    Object::write(&mut frame.text, |o| {
        head(o, v, true);
        list(o, "p", &v.p, ids);
        list(o, "st", &v.st, ids);
        list(o, "o", &v.o, ids);
        list(o, "hz", &v.hz, ids);
        o.array("e", |e| frame_events(e, events, ids));
    });
    frame.end()
}

/// A delta of `cur` against `prev`: changed entries and tombstones under `d`.
pub fn encode_delta(
    prev: &FrameView,
    cur: &FrameView,
    events: &[Event],
    ids: &[String],
) -> SnapFrame {
    let mut frame = SnapFrame::begin(256);
    Object::write(&mut frame.text, |o| {
        head(o, cur, false);
        o.object("d", |d| {
            diff(d, "p", &prev.p, &cur.p, ids);
            diff(d, "st", &prev.st, &cur.st, ids);
            diff(d, "o", &prev.o, &cur.o, ids);
            diff(d, "hz", &prev.hz, &cur.hz, ids);
        });
        o.array("e", |e| frame_events(e, events, ids));
    });
    frame.end()
}

/// What every frame begins with: the tick, score, target, time left, full or delta.
fn head(o: &mut Object, v: &FrameView, full: bool) {
    o.int("t", v.t as i64)
        .int("s", v.s as i64)
        .int("tgt", v.tgt as i64)
        .centi("tl", v.tl)
        .bool("full", full);
}

/// `name: [...]`, every entry whole.
fn list<T: Entity>(o: &mut Object, name: &str, items: &[T], ids: &[String]) {
    o.array(name, |a| {
        for item in items {
            a.item(|out| item.whole(out, ids));
        }
    });
}

/// Writes `name: [...]` into `d` when anything of that kind changed: each changed or new
/// entry whole, then a tombstone for each entry that is gone.
fn diff<T: Entity>(d: &mut Object, name: &str, prev: &[T], cur: &[T], ids: &[String]) {
    d.array_if_any(name, |a| {
        for (i, c) in cur.iter().enumerate() {
            // Entities mostly keep their index; look there first.
            let old = match prev.get(i) {
                Some(p) if p.same_entity(c) => Some(p),
                _ => prev.iter().find(|p| p.same_entity(c)),
            };
            if old != Some(c) {
                a.item(|out| c.whole(out, ids));
            }
        }
        for (i, p) in prev.iter().enumerate() {
            let still = match cur.get(i) {
                Some(c) if p.same_entity(c) => true,
                _ => cur.iter().any(|c| p.same_entity(c)),
            };
            if !still {
                a.item(|out| p.tombstone(out, ids));
            }
        }
    });
}

/// One kind of entity a frame lists (cooks, stations, orders, hazards): the keys that
/// identify it, the rest of its fields, and when two entries are one entity.
///
/// `identity` and `rest` are inlined into `whole` and `tombstone`, which each write an
/// object of their own: there the object's fields are a straight line of code, as the
/// hand-written writers were.
trait Entity: PartialEq {
    /// The identity keys: the entry's first fields, and all that its tombstone carries.
    fn identity(&self, o: &mut Object, ids: &[String]);
    /// The fields after the identity.
    fn rest(&self, o: &mut Object);
    /// Whether `other` is this entity, changed or not.
    fn same_entity(&self, other: &Self) -> bool;

    /// The whole entry.
    fn whole(&self, out: &mut String, ids: &[String]) {
        Object::write(out, |o| {
            self.identity(o, ids);
            self.rest(o);
        });
    }

    /// The entry gone: its identity, and `"gone":true`.
    fn tombstone(&self, out: &mut String, ids: &[String]) {
        Object::write(out, |o| {
            self.identity(o, ids);
            o.bool("gone", true);
        });
    }
}

impl Entity for PlayerView {
    #[inline(always)]
    fn identity(&self, o: &mut Object, ids: &[String]) {
        o.string("i", ids.get(self.seat as usize).map_or("", |s| s.as_str()));
    }

    #[inline(always)]
    fn rest(&self, o: &mut Object) {
        o.centi("x", self.x as i64)
            .centi("y", self.y as i64)
            .int("f", self.f as i64)
            .opt_string("h", self.h)
            .string("s", self.s)
            .int("pi", self.seat as i64);
    }

    fn same_entity(&self, other: &Self) -> bool {
        self.seat == other.seat
    }
}

impl Entity for StationView {
    #[inline(always)]
    fn identity(&self, o: &mut Object, _: &[String]) {
        // A station stands on a tile: its position is whole tiles.
        o.string("k", self.k)
            .centi("x", self.x as i64 * 100)
            .centi("y", self.y as i64 * 100);
    }

    #[inline(always)]
    fn rest(&self, o: &mut Object) {
        o.opt_string("g", self.g)
            .centi("q", self.q as i64)
            .centi("p", self.p as i64)
            .string("s", self.s);
    }

    fn same_entity(&self, other: &Self) -> bool {
        (self.k, self.x, self.y) == (other.k, other.x, other.y)
    }
}

impl Entity for OrderView {
    #[inline(always)]
    fn identity(&self, o: &mut Object, _: &[String]) {
        o.int("id", self.id as i64);
    }

    #[inline(always)]
    fn rest(&self, o: &mut Object) {
        o.string("r", self.r)
            .centi("l", self.l as i64)
            .int("pts", self.pts as i64);
    }

    fn same_entity(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Entity for HazardView {
    #[inline(always)]
    fn identity(&self, o: &mut Object, _: &[String]) {
        o.string("t", self.t)
            .centi("x", self.x as i64)
            .centi("y", self.y as i64);
    }

    #[inline(always)]
    fn rest(&self, o: &mut Object) {
        o.centi("l", self.l);
    }

    fn same_entity(&self, other: &Self) -> bool {
        (self.t, self.x, self.y) == (other.t, other.x, other.y)
    }
}
