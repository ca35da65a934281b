//! The protocol's messages, codes and limits (docs/PROTOCOL.md is the same, in prose).
//!
//! Client messages are parsed strictly: duplicate keys, unknown fields, wrong types and
//! out-of-range values are refused with the error code the protocol names. Server messages
//! are plain structs serialized by serde, every one carrying `p`. The tables in
//! docs/PROTOCOL.md are checked against the constants here by `tests/protocol_doc.rs`.

use super::strict::{StrictError, parse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const PROTOCOL_VERSION: u32 = crate::PROTOCOL_VERSION;
pub const MIN_SUPPORTED_VERSION: u32 = 1;

/// `err.code` values.
pub mod code {
    pub const UNKNOWN_TYPE: &str = "unknown_type";
    pub const BAD_JSON: &str = "bad_json";
    pub const BAD_FIELD: &str = "bad_field";
    pub const TOO_BIG: &str = "too_big";
    pub const RATE_LIMITED: &str = "rate_limited";
    pub const NOT_SEATED: &str = "not_seated";
    pub const NOT_HOST: &str = "not_host";
    pub const LEVEL_LOCKED: &str = "level_locked";
    pub const WRONG_STATE: &str = "wrong_state";
    pub const ROOM_FULL: &str = "room_full";
    pub const ROOM_GONE: &str = "room_gone";
    pub const PROTOCOL_MISMATCH: &str = "protocol_mismatch";
    pub const EVICTED: &str = "evicted";
    pub const INTERNAL: &str = "internal";
    pub const NO_LEVEL: &str = "no_level";
    pub const NO_READY_PLAYERS: &str = "no_ready_players";

    /// Every `err.code` the server sends, in the order of the protocol's table.
    pub const ALL: [&str; 14] = [
        UNKNOWN_TYPE,
        BAD_JSON,
        BAD_FIELD,
        TOO_BIG,
        RATE_LIMITED,
        NOT_SEATED,
        NOT_HOST,
        LEVEL_LOCKED,
        WRONG_STATE,
        ROOM_FULL,
        ROOM_GONE,
        PROTOCOL_MISMATCH,
        EVICTED,
        INTERNAL,
    ];
}

/// WebSocket close codes.
pub mod close {
    pub const NORMAL: u16 = 1000;
    pub const GOING_AWAY: u16 = 1001;
    pub const PROTOCOL_MISMATCH: u16 = 4400;
    pub const ROOM_GONE: u16 = 4401;
    pub const ROOM_FULL: u16 = 4402;
    pub const EVICTED: u16 = 4403;
    pub const ABUSE: u16 = 4404;

    /// (code, name) in the order of the protocol's table.
    pub const ALL: [(u16, &str); 6] = [
        (NORMAL, "normal"),
        (PROTOCOL_MISMATCH, "protocol_mismatch"),
        (ROOM_GONE, "room_gone"),
        (ROOM_FULL, "room_full"),
        (EVICTED, "evicted"),
        (ABUSE, "abuse"),
    ];
}

/// Fixed limits (the configurable ones live in `server::config`).
pub mod limits {
    pub const NAME_MAX: usize = 16;
    pub const NAME_RAW_MAX: usize = 64;
    pub const TOKEN_MAX: usize = 128;
    pub const LEVEL_ID_MAX: usize = 64;
    pub const EMOTE_ID_MAX: usize = 32;
    pub const EMOTES_PER_S: u32 = 2;
    pub const HANDSHAKE_S: u64 = 5;
    pub const HEARTBEAT_DEAD_S: u64 = 12;
    pub const COUNTDOWN_S: u32 = 3;
    pub const SETTLE_S: u64 = 1;
    /// Consecutive oversize / rate-limited frames that close a socket with 4404.
    pub const STRIKES: u32 = 3;
}

/// The room states, as `welcome.state` / `lobby.state` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomState {
    Lobby,
    Countdown,
    Playing,
    RoundEnd,
    Closed,
}

impl RoomState {
    pub fn name(self) -> &'static str {
        match self {
            RoomState::Lobby => "lobby",
            RoomState::Countdown => "countdown",
            RoomState::Playing => "playing",
            RoomState::RoundEnd => "round_end",
            RoomState::Closed => "closed",
        }
    }
}

/// The client → server message types: (type, model, fields besides `type`, accepted when).
pub const CLIENT_MESSAGES: [(&str, &str, &[&str], &[RoomState]); 9] = [
    (
        "hello",
        "HelloMsg",
        &["p", "token", "name"],
        &[
            RoomState::Lobby,
            RoomState::Countdown,
            RoomState::Playing,
            RoomState::RoundEnd,
            RoomState::Closed,
        ],
    ),
    ("ready", "ReadyMsg", &[], &[RoomState::Lobby]),
    ("set_level", "SetLevelMsg", &["level"], &[RoomState::Lobby]),
    ("start", "StartMsg", &[], &[RoomState::Lobby]),
    (
        "input",
        "InputMsg",
        &["seq", "move", "act", "face"],
        &[RoomState::Playing],
    ),
    (
        "emote",
        "EmoteMsg",
        &["id"],
        &[RoomState::Lobby, RoomState::Playing],
    ),
    ("to_lobby", "ToLobbyMsg", &[], &[RoomState::RoundEnd]),
    ("next_level", "NextLevelMsg", &[], &[RoomState::RoundEnd]),
    (
        "ping",
        "PingMsg",
        &["t"],
        &[
            RoomState::Lobby,
            RoomState::Countdown,
            RoomState::Playing,
            RoomState::RoundEnd,
            RoomState::Closed,
        ],
    ),
];

/// Whether a client message type is allowed in a room state.
pub fn allowed_in(kind: &str, state: RoomState) -> bool {
    CLIENT_MESSAGES
        .iter()
        .any(|(t, _, _, states)| *t == kind && states.contains(&state))
}

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
    pub face: Option<u8>,
    /// The move's magnitude was over 1 by float noise and was clamped.
    pub clamped: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ClientMsg {
    Hello {
        p: i64,
        token: Option<String>,
        name: Option<String>,
    },
    Ready,
    SetLevel {
        level: String,
    },
    Start,
    Input(InputMsg),
    Emote {
        id: String,
    },
    ToLobby,
    NextLevel,
    Ping {
        t: u64,
    },
}

impl ClientMsg {
    pub fn kind(&self) -> &'static str {
        match self {
            ClientMsg::Hello { .. } => "hello",
            ClientMsg::Ready => "ready",
            ClientMsg::SetLevel { .. } => "set_level",
            ClientMsg::Start => "start",
            ClientMsg::Input(_) => "input",
            ClientMsg::Emote { .. } => "emote",
            ClientMsg::ToLobby => "to_lobby",
            ClientMsg::NextLevel => "next_level",
            ClientMsg::Ping { .. } => "ping",
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

/// Tolerance for a move whose magnitude is over 1 only by float noise (then it is clamped).
const MAGNITUDE_SLACK: f64 = 1e-6;

/// Parses and validates one client text frame.
pub fn parse_client(text: &str) -> Result<ClientMsg, Refusal> {
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
    Ok(match kind.as_str() {
        "hello" => {
            let b: HelloBody = body("hello", value)?;
            if let Some(t) = &b.token {
                length("hello", "token", t, 1, limits::TOKEN_MAX)?;
            }
            if let Some(n) = &b.name {
                length("hello", "name", n, 0, limits::NAME_RAW_MAX)?;
            }
            ClientMsg::Hello {
                p: b.p,
                token: b.token,
                name: b.name,
            }
        }
        "ready" => body::<Empty>("ready", value).map(|_| ClientMsg::Ready)?,
        "start" => body::<Empty>("start", value).map(|_| ClientMsg::Start)?,
        "to_lobby" => body::<Empty>("to_lobby", value).map(|_| ClientMsg::ToLobby)?,
        "next_level" => body::<Empty>("next_level", value).map(|_| ClientMsg::NextLevel)?,
        "set_level" => {
            let b: SetLevelBody = body("set_level", value)?;
            length("set_level", "level", &b.level, 1, limits::LEVEL_ID_MAX)?;
            ClientMsg::SetLevel { level: b.level }
        }
        "emote" => {
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
            ClientMsg::Emote { id: b.id }
        }
        "ping" => {
            let b: PingBody = body("ping", value)?;
            let t = u64::try_from(b.t)
                .map_err(|_| Refusal::new(code::BAD_FIELD, "ping.t must be ≥ 0"))?;
            ClientMsg::Ping { t }
        }
        "input" => {
            let seq_raw = value.get("seq").and_then(Value::as_u64);
            let b: InputBody = body("input", value).map_err(|mut r| {
                r.seq = seq_raw;
                r
            })?;
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
            let magnitude = x.hypot(y);
            if magnitude > 1.0 + MAGNITUDE_SLACK {
                return Err(bad(format!(
                    "input.move magnitude {magnitude:.3} is over 1"
                )));
            }
            let face = match b.face.as_deref() {
                None => None,
                Some("up") => Some(0),
                Some("right") => Some(1),
                Some("down") => Some(2),
                Some("left") => Some(3),
                Some(other) => {
                    return Err(bad(format!(
                        "input.face {other:?} is not up/right/down/left"
                    )));
                }
            };
            ClientMsg::Input(InputMsg {
                seq,
                mv: (x, y),
                act: b.act,
                face,
                clamped: magnitude > 1.0,
            })
        }
        other => {
            return Err(Refusal::new(
                code::UNKNOWN_TYPE,
                format!("unknown message type {other:?}"),
            ));
        }
    })
}

/// An accepted move, clamped to magnitude ≤ 1 and quantized to thousandths (half away from
/// zero), ready for the round log.
pub fn quantize_move(mv: (f64, f64)) -> (i16, i16) {
    let q = |v: f64| (v.clamp(-1.0, 1.0) * 1000.0).round() as i32;
    crate::sim::movement::clamp_intent(q(mv.0), q(mv.1))
}

// ---- server → client -------------------------------------------------------------------

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct YouWire {
    pub token: String,
    pub seat: Option<u8>,
    pub host: bool,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SeatWire {
    pub index: u8,
    pub name: String,
    pub color: String,
    pub ready: bool,
    pub host: bool,
    pub connected: bool,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SpectatorWire {
    pub name: String,
    pub color: String,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PlayerScoreWire {
    pub id: String,
    pub name: String,
    pub score: u32,
    pub dishes_served: u32,
    pub missed_contrib: u32,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    Welcome {
        p: u32,
        you: YouWire,
        room: String,
        state: &'static str,
        level: Option<String>,
        seats: Vec<SeatWire>,
        rejoined: bool,
    },
    Lobby {
        p: u32,
        code: String,
        state: &'static str,
        level: Option<String>,
        host_seat: Option<u8>,
        can_start: bool,
        seats: Vec<SeatWire>,
        spectators: Vec<SpectatorWire>,
        unlocked: Option<u32>,
        round_no: u32,
    },
    Countdown {
        p: u32,
        n: u32,
    },
    Round {
        p: u32,
        result: Option<&'static str>,
        score: u32,
        target: u32,
        stars: u8,
        time_left: f64,
        counters: Value,
        longest_streak: u32,
        players: Vec<PlayerScoreWire>,
        level_id: String,
        seed: u64,
        ticks: u32,
        unlocked: Option<String>,
    },
    Err {
        p: u32,
        code: &'static str,
        msg: String,
        seq: Option<u64>,
    },
    Pong {
        p: u32,
        t: u64,
        now: f64,
    },
}

impl ServerMsg {
    pub fn err(r: &Refusal) -> ServerMsg {
        ServerMsg::Err {
            p: PROTOCOL_VERSION,
            code: r.code,
            msg: r.msg.clone(),
            seq: r.seq,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                "{{\"type\":\"err\",\"p\":1,\"code\":\"internal\",\"msg\":{:?},\"seq\":null}}",
                e.to_string()
            )
        })
    }
}

/// `{"type":"snap","p":1,"raw":<body>}` around an already-encoded body.
pub fn snap_frame(raw: &str) -> String {
    let mut s = String::with_capacity(raw.len() + 32);
    s.push_str("{\"type\":\"snap\",\"p\":");
    s.push_str(&PROTOCOL_VERSION.to_string());
    s.push_str(",\"raw\":");
    s.push_str(raw);
    s.push('}');
    s
}

/// `{"type":"ev","p":1,"events":[…]}` from events already in the `EventWire` shape.
pub fn ev_frame(events: &[String]) -> String {
    format!(
        "{{\"type\":\"ev\",\"p\":{PROTOCOL_VERSION},\"events\":[{}]}}",
        events.join(",")
    )
}

/// Sanitizes a display name: control and format characters out, whitespace collapsed and
/// trimmed, at most 16 characters.
pub fn sanitize_name(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .filter(|c| !c.is_control() && !is_format_char(*c))
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

/// Unicode format characters (category Cf) that matter for names: zero-width and
/// direction controls.
fn is_format_char(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Ok(ClientMsg::Input(InputMsg {
                seq: 1,
                act: true,
                face: Some(3),
                ..
            }))
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
