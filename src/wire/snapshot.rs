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
use super::json::{centi, int, key, string};
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

fn head(out: &mut String, v: &FrameView, full: bool) {
    out.push('{');
    key(out, "t");
    int(out, v.t as i64);
    out.push(',');
    key(out, "s");
    int(out, v.s as i64);
    out.push(',');
    key(out, "tgt");
    int(out, v.tgt as i64);
    out.push(',');
    key(out, "tl");
    centi(out, v.tl);
    out.push(',');
    key(out, "full");
    out.push_str(if full { "true" } else { "false" });
}

/// A whole frame of `view`.
pub fn encode_full(v: &FrameView, events: &[Event], ids: &[String]) -> SnapFrame {
    let mut frame = SnapFrame::begin(1024);
    let out = &mut frame.text;
    head(out, v, true);
    out.push(',');
    list(out, "p", &v.p, |o, p| player(o, p, ids));
    out.push(',');
    list(out, "st", &v.st, station);
    out.push(',');
    list(out, "o", &v.o, order);
    out.push(',');
    list(out, "hz", &v.hz, hazard);
    out.push(',');
    frame_events(out, events, ids);
    out.push('}');
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
    let out = &mut frame.text;
    head(out, cur, false);
    out.push(',');
    key(out, "d");
    out.push('{');
    let mut first = true;
    diff(
        out,
        &mut first,
        "p",
        &prev.p,
        &cur.p,
        |a, b| a.seat == b.seat,
        |o, p| player(o, p, ids),
        |o, p| {
            key(o, "i");
            string(o, ids.get(p.seat as usize).map_or("", |s| s.as_str()));
        },
    );
    diff(
        out,
        &mut first,
        "st",
        &prev.st,
        &cur.st,
        |a, b| (a.k, a.x, a.y) == (b.k, b.x, b.y),
        station,
        |o, s| {
            station_identity(o, s);
        },
    );
    diff(
        out,
        &mut first,
        "o",
        &prev.o,
        &cur.o,
        |a, b| a.id == b.id,
        order,
        |o, x| {
            key(o, "id");
            int(o, x.id as i64);
        },
    );
    diff(
        out,
        &mut first,
        "hz",
        &prev.hz,
        &cur.hz,
        |a, b| (a.t, a.x, a.y) == (b.t, b.x, b.y),
        hazard,
        hazard_identity,
    );
    out.push_str("},");
    frame_events(out, events, ids);
    out.push('}');
    frame.end()
}

fn list<T>(out: &mut String, name: &str, items: &[T], write: impl Fn(&mut String, &T)) {
    key(out, name);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// Writes `name: [...]` into `d` when anything of that kind changed: each changed or new
/// entry whole, then a tombstone for each entry that is gone.
#[allow(clippy::too_many_arguments)]
fn diff<T: PartialEq>(
    out: &mut String,
    first: &mut bool,
    name: &str,
    prev: &[T],
    cur: &[T],
    same_identity: impl Fn(&T, &T) -> bool,
    write: impl Fn(&mut String, &T),
    identity: impl Fn(&mut String, &T),
) {
    // Written in place, and taken back when nothing of this kind changed: no buffer of
    // its own per kind and frame.
    let mark = out.len();
    if !*first {
        out.push(',');
    }
    key(out, name);
    out.push('[');
    let body = out.len();
    let next = |out: &mut String| {
        if out.len() > body {
            out.push(',');
        }
    };
    for (i, c) in cur.iter().enumerate() {
        // Entities mostly keep their index; look there first.
        let old = match prev.get(i) {
            Some(p) if same_identity(p, c) => Some(p),
            _ => prev.iter().find(|p| same_identity(p, c)),
        };
        if old != Some(c) {
            next(out);
            write(out, c);
        }
    }
    for (i, p) in prev.iter().enumerate() {
        let still = match cur.get(i) {
            Some(c) if same_identity(p, c) => true,
            _ => cur.iter().any(|c| same_identity(p, c)),
        };
        if !still {
            next(out);
            out.push('{');
            identity(out, p);
            out.push_str(",\"gone\":true}");
        }
    }
    if out.len() == body {
        out.truncate(mark);
    } else {
        out.push(']');
        *first = false;
    }
}

fn player(out: &mut String, p: &PlayerView, ids: &[String]) {
    out.push('{');
    key(out, "i");
    string(out, ids.get(p.seat as usize).map_or("", |s| s.as_str()));
    out.push(',');
    key(out, "x");
    centi(out, p.x as i64);
    out.push(',');
    key(out, "y");
    centi(out, p.y as i64);
    out.push(',');
    key(out, "f");
    int(out, p.f as i64);
    out.push(',');
    key(out, "h");
    match p.h {
        Some(h) => string(out, h),
        None => out.push_str("null"),
    }
    out.push(',');
    key(out, "s");
    string(out, p.s);
    out.push(',');
    key(out, "pi");
    int(out, p.seat as i64);
    out.push('}');
}

fn station_identity(out: &mut String, s: &StationView) {
    key(out, "k");
    string(out, s.k);
    out.push(',');
    key(out, "x");
    centi(out, s.x as i64 * 100);
    out.push(',');
    key(out, "y");
    centi(out, s.y as i64 * 100);
}

fn station(out: &mut String, s: &StationView) {
    out.push('{');
    station_identity(out, s);
    out.push(',');
    key(out, "g");
    match s.g {
        Some(g) => string(out, g),
        None => out.push_str("null"),
    }
    out.push(',');
    key(out, "q");
    centi(out, s.q as i64);
    out.push(',');
    key(out, "p");
    centi(out, s.p as i64);
    out.push(',');
    key(out, "s");
    string(out, s.s);
    out.push('}');
}

fn order(out: &mut String, o: &OrderView) {
    out.push('{');
    key(out, "id");
    int(out, o.id as i64);
    out.push(',');
    key(out, "r");
    string(out, o.r);
    out.push(',');
    key(out, "l");
    centi(out, o.l as i64);
    out.push(',');
    key(out, "pts");
    int(out, o.pts as i64);
    out.push('}');
}

fn hazard_identity(out: &mut String, h: &HazardView) {
    key(out, "t");
    string(out, h.t);
    out.push(',');
    key(out, "x");
    centi(out, h.x as i64);
    out.push(',');
    key(out, "y");
    centi(out, h.y as i64);
}

fn hazard(out: &mut String, h: &HazardView) {
    out.push('{');
    hazard_identity(out, h);
    out.push(',');
    key(out, "l");
    centi(out, h.l);
    out.push('}');
}
