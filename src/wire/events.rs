//! Events onto frames: the compact `e[]` entry of a `snap` and the `EventWire` of an `ev`.
//!
//! Both shapes carry the same short keys, in one canonical order, taken from the sim's
//! `Payload` struct field by field: a key that is not a field there cannot reach the wire.

use super::json::{centi, int, key, string};
use super::view::units_to_centi;
use crate::sim::events::Field;
use crate::sim::{Event, Payload};

/// Events beyond this many in one frame are counted in `events_dropped`, not sent.
pub const MAX_EVENTS_PER_FRAME: usize = 24;

/// Writes the payload's keys (each preceded by a comma), in the sim's canonical order.
fn payload_keys(out: &mut String, p: &Payload, ids: &[String]) {
    p.each(|name, value| {
        out.push(',');
        key(out, name);
        match value {
            Field::Cook(seat) => string(out, ids.get(seat as usize).map_or("", |s| s.as_str())),
            Field::Name(s) => string(out, s),
            Field::Int(n) => int(out, n),
            Field::Hundredths(n) => centi(out, n),
        }
    });
}

/// `"e":[{"k":…,"x":…,"y":…,<payload>}…]`, capped at `MAX_EVENTS_PER_FRAME`.
pub fn frame_events(out: &mut String, events: &[Event], ids: &[String]) {
    key(out, "e");
    out.push('[');
    for (n, e) in events.iter().take(MAX_EVENTS_PER_FRAME).enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push('{');
        key(out, "k");
        string(out, e.kind.name());
        out.push(',');
        key(out, "x");
        centi(out, units_to_centi(e.x) as i64);
        out.push(',');
        key(out, "y");
        centi(out, units_to_centi(e.y) as i64);
        payload_keys(out, &e.payload, ids);
        out.push('}');
    }
    out.push(']');
}

/// One event in the `EventWire` shape of an `ev` batch: `{"kind","x","y","payload":{…}}`.
pub fn event_wire(out: &mut String, e: &Event, ids: &[String]) {
    out.push('{');
    key(out, "kind");
    string(out, e.kind.name());
    out.push(',');
    key(out, "x");
    centi(out, units_to_centi(e.x) as i64);
    out.push(',');
    key(out, "y");
    centi(out, units_to_centi(e.y) as i64);
    out.push(',');
    key(out, "payload");
    payload_object(out, &e.payload, ids);
    out.push('}');
}

/// The payload alone as a JSON object of its short keys.
fn payload_object(out: &mut String, p: &Payload, ids: &[String]) {
    let start = out.len();
    payload_keys(out, p, ids);
    if out.len() > start {
        out.replace_range(start..start + 1, "{");
    } else {
        out.push('{');
    }
    out.push('}');
}

/// A completed quest in the `EventWire` shape of an `ev` batch: `kind` `quest` at 0, 0,
/// with the quest's id, progress and target (sent to the player who completed it alone).
pub fn quest_event(quest: &str, progress: i64, target: i64) -> String {
    let mut out = String::with_capacity(96);
    out.push_str("{\"kind\":\"quest\",\"x\":0.0,\"y\":0.0,\"payload\":{");
    key(&mut out, "quest");
    string(&mut out, quest);
    out.push(',');
    key(&mut out, "progress");
    int(&mut out, progress);
    out.push(',');
    key(&mut out, "target");
    int(&mut out, target);
    out.push_str("}}");
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
