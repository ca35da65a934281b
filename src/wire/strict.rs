//! Strict JSON: parse a frame into a `serde_json::Value`, refusing duplicate keys.
//!
//! serde_json keeps the last of two equal keys without a word; a client and a server that
//! disagree on which one counts must fail loudly instead. This is a `Deserialize` for a value
//! that checks each object's keys as it reads them, so a duplicate anywhere in the frame is
//! refused with its name, before any message type is looked at.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let StrictValue(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Why a frame is not a JSON value we accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictError {
    /// Not JSON at all.
    NotJson(String),
    /// JSON, but with a duplicate key.
    DuplicateKey(String),
}

/// Parses one frame, refusing duplicate keys anywhere in it.
pub fn parse(text: &str) -> Result<Value, StrictError> {
    let mut de = serde_json::Deserializer::from_str(text);
    match StrictValue::deserialize(&mut de).and_then(|v| de.end().map(|_| v)) {
        Ok(StrictValue(v)) => Ok(v),
        Err(e) => {
            let msg = e.to_string();
            if msg.starts_with("duplicate key") {
                Err(StrictError::DuplicateKey(msg))
            } else {
                Err(StrictError::NotJson(msg))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert!(parse(r#"{"a":1,"b":{"c":1}}"#).is_ok());
        assert!(
            matches!(parse(r#"{"a":1,"a":2}"#), Err(StrictError::DuplicateKey(m)) if m.contains("`a`"))
        );
        assert!(matches!(
            parse(r#"{"m":{"x":1,"x":1}}"#),
            Err(StrictError::DuplicateKey(_))
        ));
        assert!(matches!(parse("{nope"), Err(StrictError::NotJson(_))));
        assert!(matches!(parse("{} {}"), Err(StrictError::NotJson(_))));
    }
}
