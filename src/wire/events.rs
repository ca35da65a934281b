//! Events onto frames: the compact `e[]` entry of a `snap` and the `EventWire` of an `ev`.
//!
//! Both shapes carry the same short keys, in one canonical order, taken from the sim's
//! `Payload` struct field by field: a key that is not a field there cannot reach the wire.

use super::json::{centi, int, key, string};
use super::snapshot::MAX_EVENTS_PER_FRAME;
use super::view::units_to_centi;
use crate::sim::{Event, Payload};

/// Writes the payload's keys (each preceded by a comma).
fn payload_keys(out: &mut String, p: &Payload, ids: &[String]) {
    if let Some(seat) = p.i {
        out.push(',');
        key(out, "i");
        string(out, ids.get(seat as usize).map_or("", |s| s.as_str()));
    }
    macro_rules! put {
        ($name:literal, $v:expr, str) => {
            if let Some(v) = $v {
                out.push(',');
                key(out, $name);
                string(out, v);
            }
        };
        ($name:literal, $v:expr, int) => {
            if let Some(v) = $v {
                out.push(',');
                key(out, $name);
                int(out, v as i64);
            }
        };
        ($name:literal, $v:expr, centi) => {
            if let Some(v) = $v {
                out.push(',');
                key(out, $name);
                centi(out, v as i64);
            }
        };
    }
    put!("it", p.it, str);
    put!("fm", p.fm, str);
    put!("oi", p.oi, int);
    put!("pts", p.pts, int);
    put!("sd", p.sd, int);
    put!("q", p.q.map(|q| super::view::quality_centi(q)), centi);
    put!("stk", p.stk, int);
    put!("r", p.r, str);
    put!("stn", p.stn, centi);
    put!("em", p.em, str);
    put!("seq", p.seq, int);
    put!("res", p.res, str);
    put!("sc", p.sc, int);
    put!("tgt", p.tgt, int);
    put!("stars", p.stars, int);
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

/// The payload alone as a JSON object of its short keys (what the history stores).
pub fn payload_object(out: &mut String, p: &Payload, ids: &[String]) {
    let start = out.len();
    payload_keys(out, p, ids);
    if out.len() > start {
        out.replace_range(start..start + 1, "{");
    } else {
        out.push('{');
    }
    out.push('}');
}
