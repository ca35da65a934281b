//! What clients send: strict parsing of a text frame into a message, and its validation.
//!
//! Duplicate keys, unknown fields, wrong types and out-of-range values are refused with
//! the error code the protocol names. The result separates what the socket answers itself
//! (`hello`, `ping`) from what goes to the room (`RoomMsg`), so a room is never handed a
//! message it has no business with.

use super::tables::{code, limits};
use crate::wire::strict::{StrictError, parse};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct HelloBody {
    p: i64,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct SetLevelBody {
    level: String,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Vec2Body {
    x: f64,
    y: f64,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct InputBody {
    seq: i64,
    #[serde(rename = "move")]
    mv: Vec2Body,
    act: bool,
    face: Option<String>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct EmoteBody {
    id: String,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct PingBody {
    t: i64,
}

/// A validated `input`: the move as the client sent it (magnitude ≤ 1, checked).
#[derive(Debug, Clone, PartialEq)]
pub struct InputMsg {
    pub seq: u64,
    pub mv: (f64, f64),
    pub act: bool,
    /// The facing the client asked for (0 up, 1 right, 2 down, 3 left), if any.
    pub face: Option<u8>,
    /// The move's magnitude was over 1 by float noise and was clamped.
    pub clamped: bool,
}

/// A client frame, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientMsg {
    Hello {
        p: i64,
        token: Option<String>,
        name: Option<String>,
    },
    Ping {
        t: u64,
    },
    /// Everything else: a message for the room.
    Room(RoomMsg),
}

/// The messages a room handles (after the socket's `hello`).
#[derive(Debug, Clone, PartialEq)]
pub enum RoomMsg {
    Ready,
    SetLevel { level: String },
    Start,
    Input(InputMsg),
    Emote { id: String },
    ToLobby,
    NextLevel,
}

impl ClientMsg {
    pub fn kind(&self) -> &'static str {
        match self {
            ClientMsg::Hello { .. } => "hello",
            ClientMsg::Ping { .. } => "ping",
            ClientMsg::Room(m) => m.kind(),
        }
    }
}

impl RoomMsg {
    pub fn kind(&self) -> &'static str {
        match self {
            RoomMsg::Ready => "ready",
            RoomMsg::SetLevel { .. } => "set_level",
            RoomMsg::Start => "start",
            RoomMsg::Input(_) => "input",
            RoomMsg::Emote { .. } => "emote",
            RoomMsg::ToLobby => "to_lobby",
            RoomMsg::NextLevel => "next_level",
        }
    }
}

/// A refused frame: the `err` code and a message for a human.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub msg: String,
    pub seq: Option<u64>,
}

impl Refusal {
    pub fn new(code: &'static str, msg: impl Into<String>) -> Refusal {
        Refusal {
            code,
            msg: msg.into(),
            seq: None,
        }
    }
}

fn body<T: for<'de> Deserialize<'de>>(kind: &str, v: Value) -> Result<T, Refusal> {
    serde_json::from_value(v).map_err(|e| Refusal::new(code::BAD_FIELD, format!("{kind}: {e}")))
}

fn length(kind: &str, field: &str, s: &str, min: usize, max: usize) -> Result<(), Refusal> {
    let n = s.chars().count();
    if n < min || n > max {
        return Err(Refusal::new(
            code::BAD_FIELD,
            format!("{kind}.{field} must be {min}-{max} characters, got {n}"),
        ));
    }
    Ok(())
}

/// The `face` names of an `input`, by facing index (0 up, 1 right, 2 down, 3 left).
pub const FACES: [&str; 4] = ["up", "right", "down", "left"];

/// An `input` message as a client writes it (what `parse_client` reads back): a cook's
/// choice for a tick, its move in thousandths per axis as the sim keeps it. The load tool,
/// the test clients and the benches all speak through this.
pub fn input_message(input: &crate::sim::CookInput) -> Value {
    serde_json::json!({
        "type": "input",
        "seq": input.seq,
        "move": {"x": input.mv.0 as f64 / 1000.0, "y": input.mv.1 as f64 / 1000.0},
        "act": input.act,
        "face": input.face.map(|f| FACES[f as usize % 4]),
    })
}

/// Tolerance for a move whose magnitude is over 1 only by float noise (then it is clamped).
const MAGNITUDE_SLACK: f64 = 1e-6;

/// An `input` frame read straight into its fields: the 20-a-second message, parsed
/// without building a JSON tree. serde's derive refuses duplicate and unknown fields as the
/// strict parser does, so what this accepts the general path accepts the same way; anything
/// it does not accept (another type, an escaped string, any error) goes the general way,
/// which gives the refusal its exact words.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InputFrame<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    seq: i64,
    #[serde(rename = "move")]
    mv: Vec2Body,
    act: bool,
    face: Option<String>,
}

/// Parses and validates one client text frame.
pub fn parse_client(text: &str) -> Result<ClientMsg, Refusal> {
    if let Ok(f) = serde_json::from_str::<InputFrame>(text)
        && f.kind == "input"
    {
        let seq_raw = u64::try_from(f.seq).ok();
        let b = InputBody {
            seq: f.seq,
            mv: f.mv,
            act: f.act,
            face: f.face,
        };
        return checked_input(b, seq_raw).map(|i| ClientMsg::Room(RoomMsg::Input(i)));
    }
    parse_general(text)
}

/// Any client frame, through the strict JSON tree.
fn parse_general(text: &str) -> Result<ClientMsg, Refusal> {
    let mut value = match parse(text) {
        Ok(v) => v,
        Err(StrictError::NotJson(e)) => {
            return Err(Refusal::new(code::BAD_JSON, format!("not JSON: {e}")));
        }
        Err(StrictError::DuplicateKey(e)) => return Err(Refusal::new(code::BAD_FIELD, e)),
    };
    let Some(obj) = value.as_object_mut() else {
        return Err(Refusal::new(
            code::BAD_FIELD,
            "a frame must be a JSON object",
        ));
    };
    let kind = match obj.remove("type") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(Refusal::new(code::BAD_FIELD, "`type` must be a string")),
        None => return Err(Refusal::new(code::BAD_FIELD, "a frame needs a `type`")),
    };
    let room = |m: Result<RoomMsg, Refusal>| m.map(ClientMsg::Room);
    match kind.as_str() {
        "hello" => hello(value),
        "ping" => {
            let b: PingBody = body("ping", value)?;
            let t = u64::try_from(b.t)
                .map_err(|_| Refusal::new(code::BAD_FIELD, "ping.t must be ≥ 0"))?;
            Ok(ClientMsg::Ping { t })
        }
        "ready" => room(body::<Empty>("ready", value).map(|_| RoomMsg::Ready)),
        "start" => room(body::<Empty>("start", value).map(|_| RoomMsg::Start)),
        "to_lobby" => room(body::<Empty>("to_lobby", value).map(|_| RoomMsg::ToLobby)),
        "next_level" => room(body::<Empty>("next_level", value).map(|_| RoomMsg::NextLevel)),
        "set_level" => {
            let b: SetLevelBody = body("set_level", value)?;
            length("set_level", "level", &b.level, 1, limits::LEVEL_ID_MAX)?;
            room(Ok(RoomMsg::SetLevel { level: b.level }))
        }
        "emote" => room(emote(value)),
        "input" => room(input(value).map(RoomMsg::Input)),
        other => Err(Refusal::new(
            code::UNKNOWN_TYPE,
            format!("unknown message type {other:?}"),
        )),
    }
}

fn hello(value: Value) -> Result<ClientMsg, Refusal> {
    let b: HelloBody = body("hello", value)?;
    if let Some(t) = &b.token {
        length("hello", "token", t, 1, limits::TOKEN_MAX)?;
    }
    if let Some(n) = &b.name {
        length("hello", "name", n, 0, limits::NAME_RAW_MAX)?;
        if !n.is_empty() && renders_blank(&sanitize_name(n)) {
            return Err(Refusal::new(
                code::BAD_FIELD,
                "hello.name shows nothing once invisible characters are taken out",
            ));
        }
    }
    Ok(ClientMsg::Hello {
        p: b.p,
        token: b.token,
        name: b.name,
    })
}

fn emote(value: Value) -> Result<RoomMsg, Refusal> {
    let b: EmoteBody = body("emote", value)?;
    length("emote", "id", &b.id, 1, limits::EMOTE_ID_MAX)?;
    if !crate::sim::events::EMOTES.contains(&b.id.as_str()) {
        return Err(Refusal::new(
            code::BAD_FIELD,
            format!(
                "unknown emote {:?}; the emotes are {}",
                b.id,
                crate::sim::events::EMOTES.join(", ")
            ),
        ));
    }
    Ok(RoomMsg::Emote { id: b.id })
}

/// An `input`: every refusal carries the frame's `seq` when it has one.
fn input(value: Value) -> Result<InputMsg, Refusal> {
    let seq_raw = value.get("seq").and_then(Value::as_u64);
    let b: InputBody = body("input", value).map_err(|mut r| {
        r.seq = seq_raw;
        r
    })?;
    checked_input(b, seq_raw)
}

/// An `input`'s fields, checked; `seq_raw` is the frame's `seq`, for the refusal.
fn checked_input(b: InputBody, seq_raw: Option<u64>) -> Result<InputMsg, Refusal> {
    let bad = |msg: String| Refusal {
        code: code::BAD_FIELD,
        msg,
        seq: seq_raw,
    };
    let seq = u64::try_from(b.seq).map_err(|_| bad("input.seq must be ≥ 0".into()))?;
    let (x, y) = (b.mv.x, b.mv.y);
    if !x.is_finite() || !y.is_finite() {
        return Err(bad("input.move must be finite".into()));
    }
    // Well inside the unit circle the squares decide both checks with room to spare (and
    // cost a tenth of `hypot`); near the rim `hypot`'s exact rounding decides them.
    let magnitude = match x * x + y * y {
        sq if sq < 0.98 => sq.sqrt(),
        _ => x.hypot(y),
    };
    if magnitude > 1.0 + MAGNITUDE_SLACK {
        return Err(bad(format!(
            "input.move magnitude {magnitude:.3} is over 1"
        )));
    }
    let face = match b.face.as_deref() {
        None => None,
        Some(name) if FACES.contains(&name) => {
            FACES.iter().position(|f| *f == name).map(|i| i as u8)
        }
        Some(other) => {
            return Err(bad(format!(
                "input.face {other:?} is not up/right/down/left"
            )));
        }
    };
    Ok(InputMsg {
        seq,
        mv: (x, y),
        act: b.act,
        face,
        clamped: magnitude > 1.0,
    })
}

/// An accepted move, clamped to magnitude ≤ 1 and quantized to thousandths (half away from
/// zero), ready for the round log.
pub fn quantize_move(mv: (f64, f64)) -> (i16, i16) {
    let q = |v: f64| (v.clamp(-1.0, 1.0) * 1000.0).round() as i32;
    crate::sim::movement::clamp_intent(q(mv.0), q(mv.1))
}

/// Sanitizes a display name: control and format characters out, whitespace collapsed and
/// trimmed, at most 16 characters.
pub fn sanitize_name(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .filter(|c| !is_hidden(*c))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    cleaned
        .chars()
        .take(limits::NAME_MAX)
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// Whether a name shows nothing once sanitized: empty, or only characters that render as
/// blank space (a Hangul filler, a blank Braille pattern, …) or draw only on another
/// character: combining marks (Mn, Me), variation selectors among them. Such a name is
/// refused; a name with a visible character keeps its marks (`Zoe\u{308}`).
pub fn renders_blank(sanitized: &str) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    sanitized.chars().all(|c| {
        c.is_whitespace()
            || BLANK.contains(&c)
            || matches!(
                c.general_category(),
                GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
            )
    })
}

/// Letters and symbols that are not whitespace yet draw nothing.
const BLANK: [char; 9] = [
    '\u{17B4}', // Khmer vowel inherent AQ (no glyph; Mn today, listed should that change)
    '\u{17B5}', // Khmer vowel inherent AA
    '\u{115F}', // Hangul choseong filler
    '\u{1160}', // Hangul jungseong filler
    '\u{3164}', // Hangul filler
    '\u{FFA0}', // halfwidth Hangul filler
    '\u{2800}', // Braille pattern blank
    '\u{2028}', // line separator
    '\u{2029}', // paragraph separator
];

/// Characters a name never keeps: every "other" character of Unicode — controls (Cc),
/// format characters (Cf: zero-width, direction overrides, tag characters), private use
/// (Co), surrogates (Cs) and unassigned code points (Cn).
fn is_hidden(c: char) -> bool {
    use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
    c.general_category_group() == GeneralCategoryGroup::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_fast_path_answers_every_frame_as_the_general_path_does() {
        let frames = [
            r#"{"type":"input","seq":7,"move":{"x":0.6,"y":-0.8},"act":true,"face":"left"}"#,
            r#"{"seq":7,"type":"input","move":{"x":0,"y":1},"act":false}"#,
            r#"{"type":"input","seq":7,"move":{"x":0,"y":0},"act":false,"face":null}"#,
            r#"{"type":"input","seq":-1,"move":{"x":0,"y":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0.9,"y":0.9},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":false,"face":"north"}"#,
            r#"{"type":"input","seq":3,"seq":4,"move":{"x":0,"y":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"x":1,"y":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":false,"extra":1}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0,"z":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":0}"#,
            r#"{"type":"input","seq":3.5,"move":{"x":0,"y":0},"act":false}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0}}"#,
            r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":false} x"#,
            r#"{"type":"input","type":"ping","seq":3,"move":{"x":0,"y":0},"act":false}"#,
            r#"{"type":"ping","t":5}"#,
            r#"{"type":"ready"}"#,
            r#"[1,2]"#,
        ];
        for f in frames {
            assert_eq!(parse_client(f), parse_general(f), "{f}");
        }
        assert!(matches!(
            parse_client(frames[0]),
            Ok(ClientMsg::Room(RoomMsg::Input(InputMsg {
                seq: 7,
                act: true,
                face: Some(3),
                ..
            })))
        ));
    }

    #[test]
    fn strict_parsing_names_the_code() {
        assert_eq!(parse_client("nope").unwrap_err().code, code::BAD_JSON);
        assert_eq!(
            parse_client(r#"{"type":"dance"}"#).unwrap_err().code,
            code::UNKNOWN_TYPE
        );
        assert_eq!(
            parse_client(r#"{"type":"ready","x":1}"#).unwrap_err().code,
            code::BAD_FIELD
        );
        assert_eq!(
            parse_client(r#"{"type":"ready","type":"ready"}"#)
                .unwrap_err()
                .code,
            code::BAD_FIELD
        );
        let pos = r#"{"type":"input","seq":3,"move":{"x":0,"y":0},"act":false,"face":null,"pos":{"x":1,"y":1}}"#;
        let r = parse_client(pos).unwrap_err();
        assert_eq!((r.code, r.seq), (code::BAD_FIELD, Some(3)));
        let big = r#"{"type":"input","seq":1,"move":{"x":1,"y":1},"act":false,"face":null}"#;
        assert_eq!(parse_client(big).unwrap_err().code, code::BAD_FIELD);
        let ok = r#"{"type":"input","seq":1,"move":{"x":0.6,"y":-0.8},"act":true,"face":"left"}"#;
        assert!(matches!(
            parse_client(ok),
            Ok(ClientMsg::Room(RoomMsg::Input(InputMsg {
                seq: 1,
                act: true,
                face: Some(3),
                ..
            })))
        ));
        assert_eq!(
            parse_client(r#"{"type":"emote","id":"dab"}"#)
                .unwrap_err()
                .code,
            code::BAD_FIELD
        );
        assert_eq!(
            parse_client(r#"{"type":"hello","p":1,"token":""}"#)
                .unwrap_err()
                .code,
            code::BAD_FIELD
        );
    }

    #[test]
    fn names_lose_every_invisible_character_and_blank_ones_are_told_apart() {
        // Tag characters (Cf), private use (Co), unassigned (Cn) go; letters stay.
        assert_eq!(sanitize_name("Bob\u{E0041}\u{E0042}"), "Bob");
        assert_eq!(sanitize_name("A\u{E000}B"), "AB");
        assert_eq!(sanitize_name("A\u{0378}B"), "AB");
        assert_eq!(sanitize_name("Zoë 🍅"), "Zoë 🍅");
        for blank in [
            "\u{3164}",
            "\u{2800}\u{2800}",
            "\u{115F} \u{FFA0}",
            "\u{200B}",
        ] {
            assert!(renders_blank(&sanitize_name(blank)), "{blank:?}");
        }
        assert!(!renders_blank(&sanitize_name("\u{3164}x")));
        // Marks that draw only on another character, alone: combining marks, variation
        // selectors (text and emoji, and the supplement), the Khmer inherent vowels, an
        // enclosing circle; with a letter they stay.
        for blank in [
            "\u{0301}\u{0308}",
            "\u{FE0F}\u{FE0E}",
            "\u{E0100}",
            "\u{17B4}\u{17B5}",
            "\u{20DD}",
            " \u{034F} \u{200D}",
        ] {
            assert!(renders_blank(&sanitize_name(blank)), "{blank:?}");
        }
        assert_eq!(sanitize_name("Zoe\u{0308}"), "Zoe\u{0308}");
        assert!(!renders_blank("Zoe\u{0308}"));
        let refused =
            parse_client("{\"type\":\"hello\",\"p\":1,\"name\":\"\u{0301}\u{FE0F}\u{17B4}\"}")
                .unwrap_err();
        assert_eq!(refused.code, code::BAD_FIELD);
        let refused =
            parse_client("{\"type\":\"hello\",\"p\":1,\"name\":\"\u{3164}\"}").unwrap_err();
        assert_eq!(refused.code, code::BAD_FIELD);
    }

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize_name("  Chef\u{200B}  \t Bob\u{0007} "), "Chef Bob");
        assert_eq!(
            sanitize_name("abcdefghijklmnopqrstuvwxyz"),
            "abcdefghijklmnop"
        );
    }

    #[test]
    fn moves_quantize_to_thousandths() {
        assert_eq!(quantize_move((0.12345, -0.9)), (123, -900));
        assert_eq!(quantize_move((1.0000001, 0.0)), (1000, 0));
    }
}
