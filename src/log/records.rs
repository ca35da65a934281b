//! The round log's records: a header, then what happened, tick by tick.
//!
//! Records are facts in the past tense of the round (an input was accepted, a seat
//! disconnected, a tick closed). Everything that changes what players are sent is a record,
//! so a replay can rebuild every frame. Player ids are opaque (`c0`..`c3`) and each seat
//! carries a non-secret session id; no token is ever written here.

use serde::{Deserialize, Serialize};

/// One seat as the round started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatEntry {
    pub seat: u8,
    /// The opaque, non-secret player id frames carry (`c0`..`c3`).
    pub player_id: String,
    pub name: String,
    pub color: String,
    /// A non-secret id of the player's session (never the token itself).
    pub session_id: String,
    pub connected: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format_version: u16,
    pub sim_version: u32,
    pub protocol_version: u32,
    /// The level file's name and its whole text: a replay needs no `levels/` folder.
    pub level_file: String,
    pub level_toml: String,
    pub seed: u64,
    pub tick_hz: u32,
    pub snapshot_hz: u32,
    pub seats: Vec<SeatEntry>,
    /// Where the round was played (`simulate` for headless rounds) and which round it was.
    pub room_code: String,
    pub round_no: u32,
    pub started_unix_s: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Record {
    Header(Header),
    /// An accepted `input`, quantized, stamped with the server tick it arrived in.
    Input {
        tick: u32,
        seat: u8,
        seq: u64,
        mv: (i16, i16),
        act: bool,
        face: Option<u8>,
    },
    Connect {
        tick: u32,
        seat: u8,
    },
    Disconnect {
        tick: u32,
        seat: u8,
    },
    Abandon {
        tick: u32,
        seat: u8,
    },
    Emote {
        tick: u32,
        seat: u8,
        id: String,
    },
    Resync {
        tick: u32,
        seat: u8,
        seq: u64,
    },
    /// Tick `tick` closed: its records were folded and the state hashed to `state_hash`.
    Tick {
        tick: u32,
        #[serde(with = "fixed_u64")]
        state_hash: u64,
    },
    /// The next block of the round's deflated frame stream: the player audience's `snap`
    /// frames of passes `first_pass..` (see `frames`).
    Frames {
        first_pass: u32,
        deflated: Vec<u8>,
    },
    /// The round is over: `result` is `won`, `lost` or `aborted`.
    End {
        tick: u32,
        result: String,
    },
}

impl Record {
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Record::Header(_) => "Header",
            Record::Input { .. } => "Input",
            Record::Connect { .. } => "Connect",
            Record::Disconnect { .. } => "Disconnect",
            Record::Abandon { .. } => "Abandon",
            Record::Emote { .. } => "Emote",
            Record::Resync { .. } => "Resync",
            Record::Tick { .. } => "Tick",
            Record::Frames { .. } => "Frames",
            Record::End { .. } => "End",
        }
    }
}

/// A hash is random bits: bincode's varint would spend 9 bytes on it, fixed width spends 8.
mod fixed_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&v.to_le_bytes(), s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        <[u8; 8]>::deserialize(d).map(u64::from_le_bytes)
    }
}
