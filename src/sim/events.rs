//! Events the fold produces: what happened this tick, where, with a short-keyed payload.
//!
//! Events are not state: they are the fold's output for one tick (FX for clients, rows for
//! the history). The payload is a fixed struct whose fields are exactly the protocol's short
//! keys, written in one canonical order, so no internal field can leak onto the wire.

/// The kinds of event the rules of docs/GAME.md raise (each kind's keys: `Payload::each`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Chopped,
    Cooked,
    Burnt,
    Served,
    Missed,
    Denied,
    Washed,
    Extinguished,
    Slipped,
    Bumped,
    Dropped,
    GhostOn,
    GhostOff,
    GhostPark,
    Wasted,
    RushStart,
    RushEnd,
    Emote,
    Resync,
    RoundEnd,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Chopped => "chopped",
            EventKind::Cooked => "cooked",
            EventKind::Burnt => "burnt",
            EventKind::Served => "served",
            EventKind::Missed => "missed",
            EventKind::Denied => "denied",
            EventKind::Washed => "washed",
            EventKind::Extinguished => "extinguished",
            EventKind::Slipped => "slipped",
            EventKind::Bumped => "bumped",
            EventKind::Dropped => "dropped",
            EventKind::GhostOn => "ghost_on",
            EventKind::GhostOff => "ghost_off",
            EventKind::GhostPark => "ghost_park",
            EventKind::Wasted => "wasted",
            EventKind::RushStart => "rush_start",
            EventKind::RushEnd => "rush_end",
            EventKind::Emote => "emote",
            EventKind::Resync => "resync",
            EventKind::RoundEnd => "round_end",
        }
    }
}

/// The short-keyed payload. Field names are the wire keys; `None` fields are not written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payload {
    /// The cook, by seat (the encoder writes the seat's opaque player id).
    pub i: Option<u8>,
    pub it: Option<&'static str>,
    pub fm: Option<&'static str>,
    pub oi: Option<u32>,
    pub pts: Option<u32>,
    pub sd: Option<i64>,
    /// Quality in thousandths (written with 2 decimals).
    pub q: Option<u16>,
    pub stk: Option<u32>,
    pub r: Option<&'static str>,
    /// Stun in hundredths of a second (written with 2 decimals).
    pub stn: Option<i64>,
    pub em: Option<&'static str>,
    pub seq: Option<u64>,
    pub res: Option<&'static str>,
    pub sc: Option<u32>,
    pub tgt: Option<u32>,
    pub stars: Option<u8>,
    /// History only, never on the wire: the recipe of a `served` order (quests count it).
    pub recipe: Option<&'static str>,
}

/// A payload value, as a frame or a history row writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A cook, by seat (written as the seat's opaque player id).
    Cook(u8),
    Name(&'static str),
    Int(i64),
    /// A number in hundredths (written with 2 decimals at most).
    Hundredths(i64),
}

impl Payload {
    /// Every key that is set, in the one canonical order, with its value (`recipe` is not
    /// a wire key and is left out).
    pub fn each(&self, mut f: impl FnMut(&'static str, Field)) {
        let name = |v: Option<&'static str>| v.map(Field::Name);
        let int = |v: Option<i64>| v.map(Field::Int);
        let fields = [
            ("i", self.i.map(Field::Cook)),
            ("it", name(self.it)),
            ("fm", name(self.fm)),
            ("oi", int(self.oi.map(i64::from))),
            ("pts", int(self.pts.map(i64::from))),
            ("sd", int(self.sd)),
            (
                "q",
                self.q
                    .map(|q| Field::Hundredths(super::items::quality_centi(q) as i64)),
            ),
            ("stk", int(self.stk.map(i64::from))),
            ("r", name(self.r)),
            ("stn", self.stn.map(Field::Hundredths)),
            ("em", name(self.em)),
            ("seq", int(self.seq.map(|s| s as i64))),
            ("res", name(self.res)),
            ("sc", int(self.sc.map(i64::from))),
            ("tgt", int(self.tgt.map(i64::from))),
            ("stars", int(self.stars.map(i64::from))),
        ];
        for (key, value) in fields {
            if let Some(v) = value {
                f(key, v);
            }
        }
    }
}

/// One event: kind, position in units (1000 per tile; 0, 0 for HUD events), payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    pub x: i32,
    pub y: i32,
    pub payload: Payload,
}

impl Event {
    pub fn hud(kind: EventKind, payload: Payload) -> Event {
        Event {
            kind,
            x: 0,
            y: 0,
            payload,
        }
    }

    /// An event on a tile (a station's or a hazard's), at the tile's integer coordinates.
    pub fn at_tile(kind: EventKind, x: u16, y: u16, payload: Payload) -> Event {
        Event {
            kind,
            x: x as i32 * super::rules::UNIT,
            y: y as i32 * super::rules::UNIT,
            payload,
        }
    }
}

/// Reasons a press is `denied`.
pub mod reason {
    pub const NO_STATION: &str = "no_station";
    pub const HANDS_FULL: &str = "hands_full";
    pub const WRONG_ITEM: &str = "wrong_item";
    pub const NO_ORDER: &str = "no_order";
    pub const BLOCKED: &str = "blocked";
    pub const BUSY: &str = "busy";
    pub const STUNNED: &str = "stunned";
}

/// The emotes of the protocol's whitelist. `let_me_through` is what a bot says when a
/// person stands in its only way (docs/GAME.md); a person may send it too.
pub const EMOTES: [&str; 7] = [
    "wave",
    "cheer",
    "thumbs_up",
    "thumbs_down",
    "angry",
    "star",
    "let_me_through",
];
