//! Events onto frames: the compact `e[]` entry of a `snap` and the `EventWire` of an `ev`.
//!
//! Both shapes carry the same short keys, in one canonical order, taken from the sim's
//! `Payload` struct field by field: a key that is not a field there cannot reach the wire.

use super::json::{Array, Object};
use super::view::units_to_centi;
use crate::sim::events::Field;
use crate::sim::{Event, Payload};

/// Events beyond this many in one frame are counted in `events_dropped`, not sent.
pub const MAX_EVENTS_PER_FRAME: usize = 24;

/// The payload's keys, in the sim's canonical order.
fn payload_fields(o: &mut Object, p: &Payload, ids: &[String]) {
    p.each(|name, value| {
        match value {
            Field::Cook(seat) => o.string(name, ids.get(seat as usize).map_or("", |s| s.as_str())),
            Field::Name(s) => o.string(name, s),
            Field::Int(n) => o.int(name, n),
            Field::Hundredths(n) => o.centi(name, n),
        };
    });
}

/// The entries of `e[]`, `{"k":…,"x":…,"y":…,<payload>}` each, capped at
/// `MAX_EVENTS_PER_FRAME`.
pub fn frame_events(e: &mut Array, events: &[Event], ids: &[String]) {
    for ev in events.iter().take(MAX_EVENTS_PER_FRAME) {
        e.object(|o| {
            o.string("k", ev.kind.name())
                .centi("x", units_to_centi(ev.x) as i64)
                .centi("y", units_to_centi(ev.y) as i64);
            payload_fields(o, &ev.payload, ids);
        });
    }
}

/// One event in the `EventWire` shape of an `ev` batch: `{"kind","x","y","payload":{…}}`.
pub fn event_wire(out: &mut String, e: &Event, ids: &[String]) {
    Object::write(out, |o| {
        o.string("kind", e.kind.name())
            .centi("x", units_to_centi(e.x) as i64)
            .centi("y", units_to_centi(e.y) as i64)
            .object("payload", |p| payload_fields(p, &e.payload, ids));
    });
}

/// A completed quest in the `EventWire` shape of an `ev` batch: `kind` `quest` at 0, 0,
/// with the quest's id, progress and target (sent to the player who completed it alone).
pub fn quest_event(quest: &str, progress: i64, target: i64) -> String {
    let mut out = String::with_capacity(96);
    Object::write(&mut out, |o| {
        o.string("kind", "quest")
            .centi("x", 0)
            .centi("y", 0)
            .object("payload", |p| {
                p.string("quest", quest)
                    .int("progress", progress)
                    .int("target", target);
            });
    });
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quest_event_has_the_event_wire_shape() {
        let v: serde_json::Value =
            serde_json::from_str(&super::quest_event("wash_10", 10, 10)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "quest", "x": 0.0, "y": 0.0,
                "payload": {"quest": "wash_10", "progress": 10, "target": 10}})
        );
    }
}
