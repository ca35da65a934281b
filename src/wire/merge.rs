//! The client's side of the delta stream: merge a `snap` delta onto the last full frame.
//!
//! Upsert each entry of `d.<kind>` by its identity key (`p` by `i`, `st` by `k`+`x`+`y`,
//! `o` by `id`, `hz` by `t`+`x`+`y`), drop the tombstones, copy the scalars. Tests use it
//! to check decode equivalence; `verify` and socket bots use it to read a stream back.

use serde_json::{Map, Value};

/// The identity keys of each entity kind.
pub fn identity_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "p" => &["i"],
        "st" => &["k", "x", "y"],
        "o" => &["id"],
        "hz" => &["t", "x", "y"],
        _ => &[],
    }
}

/// One field of a small object, found by a scan rather than a hash: an entity has a handful
/// of fields, and hashing each key (SipHash) made this lookup most of a load client's CPU.
fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_object()?
        .iter()
        .find_map(|(k, v)| (k == key).then_some(v))
}

/// The entry's identity values, looked up once per entry rather than once per comparison.
fn identity<'a>(entry: &'a Value, keys: &[&str]) -> Option<Vec<&'a Value>> {
    keys.iter().map(|k| field(entry, k)).collect()
}

fn has_identity(e: &Value, keys: &[&str], id: &[&Value]) -> bool {
    // The last key first: a position, where the first (a kind) is shared by many.
    keys.iter()
        .zip(id)
        .rev()
        .all(|(k, v)| field(e, k) == Some(*v))
}

/// Applies a frame to the merged view: a full frame replaces it, a delta patches it.
/// Returns an error naming what is malformed instead of panicking.
pub fn apply_frame(merged: &mut Option<Value>, frame: &Value) -> Result<(), String> {
    let obj = frame.as_object().ok_or("a frame is not an object")?;
    let full = obj
        .get("full")
        .and_then(Value::as_bool)
        .ok_or("a frame has no boolean `full`")?;
    if full {
        *merged = Some(frame.clone());
        return Ok(());
    }
    let base = merged
        .as_mut()
        .ok_or("a delta arrived before any full frame")?;
    let base = base
        .as_object_mut()
        .ok_or("the merged view is not an object")?;
    for k in ["t", "s", "tgt", "tl", "e"] {
        if let Some(v) = obj.get(k) {
            base.insert(k.to_string(), v.clone());
        }
    }
    let d = obj
        .get("d")
        .and_then(Value::as_object)
        .ok_or("a delta frame has no `d` object")?;
    for (kind, entries) in d {
        let keys = identity_keys(kind);
        if keys.is_empty() {
            return Err(format!("delta kind `{kind}` is unknown"));
        }
        let entries = entries
            .as_array()
            .ok_or_else(|| format!("d.{kind} is not an array"))?;
        let list = base
            .entry(kind.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("{kind} is not an array"))?;
        for entry in entries {
            let gone = entry.get("gone").and_then(Value::as_bool).unwrap_or(false);
            let pos = match identity(entry, keys) {
                Some(id) => list.iter().position(|e| has_identity(e, keys, &id)),
                None => None,
            };
            match (gone, pos) {
                (true, Some(i)) => {
                    list.remove(i);
                }
                (true, None) => {}
                (false, Some(i)) => list[i] = entry.clone(),
                (false, None) => list.push(entry.clone()),
            }
        }
    }
    Ok(())
}

/// A frame's entities keyed by identity, for order-insensitive comparison of two views.
pub fn keyed(frame: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for k in ["t", "s", "tgt", "tl"] {
        if let Some(v) = frame.get(k) {
            out.insert(k.to_string(), v.clone());
        }
    }
    for kind in ["p", "st", "o", "hz"] {
        let keys = identity_keys(kind);
        let mut m = Map::new();
        for e in frame
            .get(kind)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id: Vec<String> = keys
                .iter()
                .map(|k| e.get(*k).map_or(String::new(), |v| v.to_string()))
                .collect();
            m.insert(id.join("|"), e.clone());
        }
        out.insert(kind.to_string(), Value::Object(m));
    }
    out
}
