//! The `snap` body as the protocol's "The snap frame" section says: shape, deltas,
//! tombstones, the full cadence, the event cap, and nothing internal on the wire.

use crate::kitchen;

use kitchen::{GRID, Kitchen};
use serde_json::Value;
use undercooked::sim::{Event, EventKind, Payload};
use undercooked::wire::events::MAX_EVENTS_PER_FRAME;
use undercooked::wire::snapshot::FULL_SNAPSHOT_EVERY;
use undercooked::wire::{SnapEncoder, project};

fn ids() -> Vec<String> {
    (0..4).map(|i| format!("c{i}")).collect()
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).expect("a frame is JSON")
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn a_full_frame_has_exactly_the_protocol_keys() {
    let k = Kitchen::new(GRID, "\"tomato_soup\"", "", 2);
    let frame = json(
        SnapEncoder::new()
            .encode(project(&k.state, &k.rules), &[], &ids())
            .raw(),
    );
    assert_eq!(
        keys(&frame),
        ["t", "s", "tgt", "tl", "full", "p", "st", "o", "hz", "e"]
    );
    assert_eq!(frame["tl"], 150.0);
    let p = &frame["p"][0];
    assert_eq!(keys(p), ["i", "x", "y", "f", "h", "s", "pi"]);
    assert_eq!(
        (p["i"].as_str(), p["x"].as_f64(), p["y"].as_f64()),
        (Some("c0"), Some(1.5), Some(2.5))
    );
    let st = &frame["st"][0];
    assert_eq!(keys(st), ["k", "x", "y", "g", "q", "p", "s"]);
    assert_eq!(
        (st["k"].as_str(), st["g"].as_str()),
        (Some("spawn_shelf"), Some("tomato_raw"))
    );
}

#[test]
fn deltas_carry_only_changed_entities_whole_and_a_full_frame_comes_every_20() {
    let mut k = Kitchen::new(GRID, "\"tomato_soup\"", "", 2);
    let mut enc = SnapEncoder::new();
    let mut frames = vec![json(
        enc.encode(project(&k.state, &k.rules), &[], &ids()).raw(),
    )];
    for n in 0..45u32 {
        let walk = k.input(0, if n < 3 { (1000, 0) } else { (0, 0) }, false, None);
        k.tick_with(vec![walk], vec![]);
        frames.push(json(
            enc.encode(project(&k.state, &k.rules), &[], &ids()).raw(),
        ));
    }
    let fulls: Vec<usize> = frames
        .iter()
        .enumerate()
        .filter(|(_, f)| f["full"] == true)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        fulls,
        vec![
            0,
            FULL_SNAPSHOT_EVERY as usize,
            2 * FULL_SNAPSHOT_EVERY as usize
        ]
    );
    let first_delta = &frames[1];
    assert_eq!(keys(first_delta), ["t", "s", "tgt", "tl", "full", "d", "e"]);
    let moved = first_delta["d"]["p"].as_array().unwrap();
    assert_eq!(moved.len(), 1, "only the cook that moved");
    assert_eq!(
        keys(&moved[0]),
        ["i", "x", "y", "f", "h", "s", "pi"],
        "a whole entry"
    );
    // an idle kitchen: `d` is present and empty
    assert_eq!(frames[10]["d"], serde_json::json!({}));
}

#[test]
fn a_vanished_order_is_a_tombstone_with_its_identity_key() {
    let mut k = Kitchen::new(
        GRID,
        "\"tomato_soup\"",
        "[orders]\ndeadline_s = 2\nfirst_order_s = 0",
        2,
    );
    let mut enc = SnapEncoder::new();
    let mut saw_tombstone = false;
    enc.encode(project(&k.state, &k.rules), &[], &ids());
    for _ in 0..60 {
        k.idle(1);
        let f = json(enc.encode(project(&k.state, &k.rules), &[], &ids()).raw());
        if let Some(o) = f.get("d").and_then(|d| d.get("o")) {
            for e in o.as_array().unwrap() {
                if e.get("gone").is_some() {
                    assert_eq!(keys(e), ["id", "gone"]);
                    saw_tombstone = true;
                }
            }
        }
    }
    assert!(saw_tombstone);
}

#[test]
fn events_are_capped_at_24_per_frame_and_the_overflow_is_counted() {
    let k = Kitchen::new(GRID, "\"tomato_soup\"", "", 2);
    let events: Vec<Event> = (0..30)
        .map(|_| Event::hud(EventKind::RushStart, Payload::default()))
        .collect();
    let mut enc = SnapEncoder::new();
    let f = json(
        enc.encode(project(&k.state, &k.rules), &events, &ids())
            .raw(),
    );
    assert_eq!(f["e"].as_array().unwrap().len(), MAX_EVENTS_PER_FRAME);
    assert_eq!(enc.events_dropped, 6);
}

#[test]
fn event_payloads_use_the_short_keys_and_nothing_internal_leaves() {
    let payload = Payload {
        i: Some(1),
        oi: Some(17),
        pts: Some(30),
        sd: Some(40),
        q: Some(1000),
        stk: Some(2),
        ..Payload::default()
    };
    let event = Event {
        kind: EventKind::Served,
        x: 7000,
        y: 1000,
        payload,
    };
    let k = Kitchen::new(GRID, "\"tomato_soup\"", "", 2);
    let f = json(
        SnapEncoder::new()
            .encode(
                project(&k.state, &k.rules),
                std::slice::from_ref(&event),
                &ids(),
            )
            .raw(),
    );
    assert_eq!(
        f["e"][0],
        serde_json::json!({"k": "served", "x": 7.0, "y": 1.0, "i": "c1", "oi": 17, "pts": 30, "sd": 40, "q": 1.0, "stk": 2})
    );
    let mut wire = String::new();
    undercooked::wire::events::event_wire(&mut wire, &event, &ids());
    assert_eq!(
        json(&wire),
        serde_json::json!({"kind": "served", "x": 7.0, "y": 1.0, "payload": {"i": "c1", "oi": 17, "pts": 30, "sd": 40, "q": 1.0, "stk": 2}})
    );
}

/// Every key any frame of a whole bot round carries, recursively: only the protocol's.
#[test]
fn no_frame_of_a_whole_round_carries_a_key_outside_the_protocol() {
    let allowed = [
        "t", "s", "tgt", "tl", "full", "p", "st", "o", "hz", "e", "d", "gone", "i", "x", "y", "f",
        "h", "pi", "k", "g", "q", "id", "r", "l", "pts", "it", "fm", "oi", "sd", "stk", "stn",
        "em", "seq", "res", "sc", "stars",
    ];
    fn walk(v: &Value, allowed: &[&str]) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    assert!(allowed.contains(&k.as_str()), "unexpected key {k:?}");
                    walk(v, allowed);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, allowed)),
            Value::String(s) => assert!(!s.contains("bot-"), "a session id leaked: {s}"),
            _ => {}
        }
    }
    for level in kitchen::campaign() {
        let bytes = undercooked::simulate::simulate(&level, 3, 4, 20)
            .unwrap()
            .bytes;
        for (_, frame) in undercooked::verify::replay_bytes(&bytes).frames {
            walk(&json(frame.raw()), &allowed);
        }
    }
}

#[test]
fn every_frame_of_every_golden_round_merges_and_decodes_as_a_client_would() {
    // A client (or a bot over a socket) merges each frame and reads the result; every name a
    // frame can carry (station kinds such as `bin`, items, states) must decode.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("replays");
    for path in undercooked::log::replay_files(&dir).unwrap() {
        let rerun = undercooked::verify::replay_bytes(&std::fs::read(&path).unwrap());
        let mut merged = None;
        for (_, frame) in &rerun.frames {
            undercooked::wire::merge::apply_frame(&mut merged, &json(frame.raw())).unwrap();
            if let Err(e) = undercooked::wire::view::FrameView::from_json(merged.as_ref().unwrap())
            {
                panic!("{}: a merged frame does not decode: {e}", path.display());
            }
        }
    }
}
