//! The protocol's tables: error codes, close codes, fixed limits, room states, and which
//! client message is accepted in which state. docs/PROTOCOL.md holds the same tables in
//! prose; `tests/protocol_doc.rs` checks the two against each other.

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
    /// RFC 6455's "service restart": the server hands its rounds over and comes back (a
    /// handoff); the client asks the room's status and reconnects with its token.
    pub const SERVICE_RESTART: u16 = 1012;
    /// RFC 6455's "message too big": a frame past the transport's limit (not in the
    /// protocol's own table; the guard's `too_big` covers frames up to that limit).
    pub const MESSAGE_TOO_BIG: u16 = 1009;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RoomState {
    Lobby,
    Countdown,
    Playing,
    RoundEnd,
    Closed,
}

impl RoomState {
    pub const ALL: [RoomState; 5] = [
        RoomState::Lobby,
        RoomState::Countdown,
        RoomState::Playing,
        RoomState::RoundEnd,
        RoomState::Closed,
    ];

    /// The state as a small number (for an atomic), the inverse of `from_index`.
    pub fn index(self) -> u8 {
        self as u8
    }

    pub fn from_index(i: u8) -> Option<RoomState> {
        RoomState::ALL.get(i as usize).copied()
    }

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

#[cfg(test)]
mod tests {
    use super::RoomState;

    #[test]
    fn a_room_state_survives_its_number() {
        for s in RoomState::ALL {
            assert_eq!(RoomState::from_index(s.index()), Some(s));
        }
        assert_eq!(RoomState::from_index(5), None);
    }
}
