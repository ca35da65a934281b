//! The history's rows as Rust values: a round's start (`RoundMeta`), its events, its end
//! (`RoundOutcome`), a session. The store renders them from the log and the sim (never
//! from frames); `history` writes them and `quests` folds them.

use crate::sim::events::{EventKind, Field};
use crate::sim::{Event, Payload, RoundSummary};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SeatRow {
    pub seat: u8,
    pub session_id: String,
    pub name: String,
    pub color: String,
}

/// What the database needs to know of a round when it starts.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RoundMeta {
    pub round_key: String,
    pub room_code: String,
    pub round_no: u32,
    pub level_id: String,
    pub seed: u64,
    pub replay_path: String,
    pub started_at: i64,
    pub target: u32,
    pub tick_hz: u32,
    pub seats: Vec<SeatRow>,
    /// The header's `identity`: two files with the same key are the same round only if
    /// this matches (absent in outbox files written before it existed).
    #[serde(default)]
    pub identity: Option<String>,
}

impl RoundMeta {
    /// The history's view of a round from its log header (and the level it plays).
    pub fn of(
        round_key: &str,
        header: &crate::log::Header,
        level: &crate::sim::Level,
        replay_path: &str,
    ) -> RoundMeta {
        RoundMeta {
            round_key: round_key.to_string(),
            room_code: header.room_code.clone(),
            round_no: header.round_no,
            level_id: level.id.clone(),
            seed: header.seed,
            replay_path: replay_path.to_string(),
            started_at: header.started_unix_s as i64,
            target: level.target_score,
            tick_hz: header.tick_hz,
            identity: Some(header.identity()),
            seats: header
                .seats
                .iter()
                .map(|s| SeatRow {
                    seat: s.seat,
                    session_id: s.session_id.clone(),
                    name: s.name.clone(),
                    color: s.color.clone(),
                })
                .collect(),
        }
    }

    pub fn session_of(&self, seat: u8) -> Option<&str> {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.session_id.as_str())
    }
}

/// One event as a row.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub tick: u32,
    pub n: u32,
    pub kind: &'static str,
    pub seat: Option<u8>,
    pub x: f64,
    pub y: f64,
    pub payload: String,
    pub recipe: Option<&'static str>,
    pub stk: Option<u32>,
}

/// The rows of one tick's events, each payload a JSON object of the protocol's short keys
/// (the cook named by its player id, hundredths as decimals), as frames carry them. A
/// `denied` press is not a row (see `in_history`); the rows that are keep their places
/// among all the tick's events as `n`, so a row still names its event in the replay.
pub fn event_rows(events: &[Event], tick: u32, ids: &[String]) -> Vec<EventRow> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| in_history(e.kind))
        .map(|(n, e)| {
            let payload = payload_json(&e.payload, ids);
            EventRow {
                tick,
                n: n as u32,
                kind: e.kind.name(),
                seat: e.payload.i,
                x: e.x as f64 / 1000.0,
                y: e.y as f64 / 1000.0,
                payload,
                recipe: e.payload.recipe,
                stk: e.payload.stk,
            }
        })
        .collect()
}

/// Whether an event of this kind is a history row. Every kind is, but a `denied` press: it
/// changed nothing in the kitchen or the score (the rules make a press that cannot do
/// anything a `denied` event, for the player's feedback), and at a press every half second
/// per cook it was nine rows in ten and the largest share of the server's history writing.
/// The replay keeps every one: the frames it recorded carry them in their `e` lists
/// (`undercooked replay FILE --frames`), and the re-run makes them again.
pub fn in_history(kind: EventKind) -> bool {
    kind != EventKind::Denied
}

fn payload_json(p: &Payload, ids: &[String]) -> String {
    let mut object = serde_json::Map::new();
    p.each(|key, value| {
        let v = match value {
            Field::Cook(seat) => Value::from(ids.get(seat as usize).map_or("", |s| s.as_str())),
            Field::Name(s) => Value::from(s),
            Field::Int(n) => Value::from(n),
            Field::Hundredths(n) => Value::from(n as f64 / 100.0),
        };
        object.insert(key.to_string(), v);
    });
    Value::Object(object).to_string()
}

/// The end of a round, as the room (or `reindex`) saw it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RoundOutcome {
    pub round_key: String,
    pub level_id: String,
    pub level_order: u32,
    pub ended_at: i64,
    pub result: String,
    pub score: u32,
    pub stars: u8,
    pub ticks: u32,
    pub served: u32,
    pub missed: u32,
    pub wasted: u32,
    pub lost_items: u32,
    pub longest_streak: u32,
    /// (seat, score, dishes served, missed contribution).
    pub players: Vec<(u8, u32, u32, u32)>,
    /// After a win: the campaign order the seats that contributed unlock
    /// (`quests::contributors`).
    pub unlock: Option<u32>,
}

impl RoundOutcome {
    /// The history's row of a round's end, from its summary.
    pub fn of(
        round_key: &str,
        summary: &RoundSummary,
        ended_at: i64,
        unlock: Option<u32>,
    ) -> RoundOutcome {
        let c = &summary.counters;
        RoundOutcome {
            round_key: round_key.to_string(),
            level_id: summary.level_id.clone(),
            level_order: summary.level_order,
            ended_at,
            result: summary.result.map_or("aborted", |r| r.name()).to_string(),
            score: summary.score,
            stars: summary.stars,
            ticks: summary.ticks,
            served: c.served,
            missed: c.missed,
            wasted: c.wasted,
            lost_items: c.lost_items,
            longest_streak: summary.longest_streak,
            players: summary
                .cooks
                .iter()
                .map(|c| (c.seat, c.score, c.dishes_served, c.missed_contrib))
                .collect(),
            unlock,
        }
    }
}

/// A session row (the token only as its hash).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub token_hash: String,
    pub name: String,
    pub unlocked: u32,
}
