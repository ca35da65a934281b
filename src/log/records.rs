//! The round log's records: a header, then what happened, tick by tick.
//!
//! Records are facts in the past tense of the round (an input was accepted, a seat
//! disconnected, a tick closed). Everything that changes what players are sent is a record,
//! so a replay can rebuild every frame. Player ids are opaque (`c0`..`c3`) and each seat
//! carries a non-secret session id; no token is ever written here.

use crate::sim::RoundResult;
use serde::{Deserialize, Serialize};

/// The replay format this build writes (the file's preamble and every header carry it).
/// Version 2 compresses the recorded frames with zstd; version 1 (deflate) is still read.
/// Every other record is the same in both.
pub const FORMAT_VERSION: u16 = 2;

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

impl SeatEntry {
    /// Seat `seat` as a round starts: its player id is `player_id(seat)`.
    pub fn new(seat: u8, name: &str, color: &str, session_id: &str, connected: bool) -> SeatEntry {
        SeatEntry {
            seat,
            player_id: player_id(seat),
            name: name.to_string(),
            color: color.to_string(),
            session_id: session_id.to_string(),
            connected,
        }
    }
}

impl Header {
    /// A round of the level file `level_file` (its whole text in `level_toml`) under this
    /// build's versions, ticking at `tick_hz` with a snapshot every tick, no seats yet, played
    /// as round 1 of `LOCAL` at time 0. Callers fill in what differs.
    pub fn new(level_file: &str, level_toml: &str, seed: u64, tick_hz: u32) -> Header {
        Header {
            format_version: FORMAT_VERSION,
            sim_version: crate::sim::SIM_VERSION,
            protocol_version: crate::PROTOCOL_VERSION,
            level_file: level_file.to_string(),
            level_toml: level_toml.to_string(),
            seed,
            tick_hz,
            snapshot_hz: tick_hz,
            seats: Vec::new(),
            room_code: "LOCAL".to_string(),
            round_no: 1,
            started_unix_s: 0,
        }
    }

    /// What the round is, whatever its file is called: XXH3-64 of the header's bincode
    /// bytes (level text, seed, seats, room, round, start), as 16 hex digits.
    pub fn identity(&self) -> String {
        let bytes =
            bincode::serde::encode_to_vec(self, bincode::config::standard()).unwrap_or_default();
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))
    }

    /// The round's key in the history: `<room>-<round_no>-<start unix s>`, as the live room
    /// names it; a headless round (started at 0, so its room, round and start say nothing)
    /// adds the first 12 digits of its `identity`.
    pub fn round_key(&self) -> String {
        let key = format!(
            "{}-{}-{}",
            self.room_code, self.round_no, self.started_unix_s
        );
        match self.started_unix_s {
            0 => format!("{key}-{}", &self.identity()[..12]),
            _ => key,
        }
    }
}

/// A fact of the round, in the order it happened. Bincode stores a variant's index, not
/// its name: new variants go at the end, and these may never be reordered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Record {
    /// The round started with this header (always the first record).
    Started(Header),
    /// An `input` was accepted, quantized, stamped with the server tick it arrived in.
    InputAccepted {
        tick: u32,
        seat: u8,
        seq: u64,
        mv: (i16, i16),
        act: bool,
        face: Option<u8>,
    },
    Connected {
        tick: u32,
        seat: u8,
    },
    Disconnected {
        tick: u32,
        seat: u8,
    },
    Abandoned {
        tick: u32,
        seat: u8,
    },
    Emoted {
        tick: u32,
        seat: u8,
        id: String,
    },
    /// A stale `seq` was refused; the seat was told where the server's counter stands.
    Resynced {
        tick: u32,
        seat: u8,
        seq: u64,
    },
    /// Tick `tick` closed: its records were folded and the state hashed to `state_hash`.
    TickClosed {
        tick: u32,
        #[serde(with = "fixed_u64")]
        state_hash: u64,
    },
    /// The next block of the round's compressed frame stream was sent: the player
    /// audience's `snap` frames of passes `first_pass..` (see `frames`; the codec is the
    /// header's format version's).
    FramesSent {
        first_pass: u32,
        compressed: Vec<u8>,
    },
    /// The round ended `won`, `lost` or `aborted` (stored as that word).
    Ended {
        tick: u32,
        #[serde(with = "result_word")]
        result: RoundResult,
    },
    /// The round was picked up again from this file at tick `tick` after the process that
    /// played it stopped (a restart, a handoff, a crash): what the file held past its last
    /// closed tick was cut off, the kitchen was re-folded, and play went on. The frame
    /// stream starts over after it (a fresh compressor: the old one's window died with its
    /// process). The two times are wall-clock seconds (the file's last write, the resume)
    /// for people reading the gap; the fold ignores them.
    Resumed {
        tick: u32,
        stopped_unix_s: u64,
        resumed_unix_s: u64,
    },
}

impl Record {
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Record::Started(_) => "Started",
            Record::InputAccepted { .. } => "InputAccepted",
            Record::Connected { .. } => "Connected",
            Record::Disconnected { .. } => "Disconnected",
            Record::Abandoned { .. } => "Abandoned",
            Record::Emoted { .. } => "Emoted",
            Record::Resynced { .. } => "Resynced",
            Record::TickClosed { .. } => "TickClosed",
            Record::FramesSent { .. } => "FramesSent",
            Record::Ended { .. } => "Ended",
            Record::Resumed { .. } => "Resumed",
        }
    }
}

/// What a seat did, as the room (or a bot team) accepted it for the current tick. `Round`
/// stamps it with that tick, so nobody builds a record with a tick of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accepted {
    Input {
        seat: u8,
        seq: u64,
        mv: (i16, i16),
        act: bool,
        face: Option<u8>,
    },
    Connected(u8),
    Disconnected(u8),
    Abandoned(u8),
    Emoted {
        seat: u8,
        id: String,
    },
    Resynced {
        seat: u8,
        seq: u64,
    },
}

impl Accepted {
    /// The record of this at `tick`.
    pub fn at(self, tick: u32) -> Record {
        match self {
            Accepted::Input {
                seat,
                seq,
                mv,
                act,
                face,
            } => Record::InputAccepted {
                tick,
                seat,
                seq,
                mv,
                act,
                face,
            },
            Accepted::Connected(seat) => Record::Connected { tick, seat },
            Accepted::Disconnected(seat) => Record::Disconnected { tick, seat },
            Accepted::Abandoned(seat) => Record::Abandoned { tick, seat },
            Accepted::Emoted { seat, id } => Record::Emoted { tick, seat, id },
            Accepted::Resynced { seat, seq } => Record::Resynced { tick, seat, seq },
        }
    }
}

impl From<crate::sim::CookInput> for Accepted {
    /// A bot's input, accepted as it is.
    fn from(i: crate::sim::CookInput) -> Accepted {
        Accepted::Input {
            seat: i.seat,
            seq: i.seq,
            mv: i.mv,
            act: i.act,
            face: i.face,
        }
    }
}

/// The opaque player id frames carry for a seat (`c0`..`c3`).
pub fn player_id(seat: u8) -> String {
    format!("c{seat}")
}

/// The seat colours, by seat (spectators take them in join order): the Okabe–Ito orange,
/// sky blue, bluish green and reddish purple, told apart with every common colour-vision
/// deficiency. The wire's `color` carries them and the web client draws them; it keeps no
/// copy (`web/test/seats.test.mjs`).
pub const PALETTE: [&str; crate::sim::SEATS] = ["#e69f00", "#56b4e9", "#009e73", "#cc79a7"];

/// A round's result is written as its word (`won`), as it always was, so files written
/// before the type existed read the same.
mod result_word {
    use crate::sim::RoundResult;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(r: &RoundResult, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(r.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RoundResult, D::Error> {
        let word = String::deserialize(d)?;
        RoundResult::parse(&word).ok_or_else(|| {
            serde::de::Error::custom(format!("result {word:?} is not won/lost/aborted"))
        })
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
