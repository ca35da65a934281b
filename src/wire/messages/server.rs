//! What the server sends besides `snap`: the message structs serde writes (every one
//! carrying `p`), the `round` frame built from a round's summary, and the `ev` batch.

use super::PROTOCOL_VERSION;
use super::client::Refusal;
use crate::sim::RoundSummary;
use serde::Serialize;

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
    /// A bot cook the server plays (an addition to v1: older clients ignore it).
    pub bot: bool,
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

/// A round's counters as the `round` frame carries them.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountersWire {
    pub served: u32,
    pub missed: u32,
    pub wasted: u32,
    pub lost_items: u32,
}

/// A room as `GET /api/rooms/{code}` shows it (no tokens).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RoomStatus {
    pub code: String,
    pub state: &'static str,
    pub level: Option<String>,
    pub round_no: u32,
    pub seats: Vec<SeatWire>,
    pub spectators: usize,
    pub max_players: usize,
    pub open_seats: usize,
    pub age_s: u64,
    /// The round was picked up again after its server stopped and waits for its people
    /// (an addition to v1).
    pub resuming: bool,
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
        /// Why a `start` now would be refused (`no_level`, `no_ready_players`, or
        /// `wrong_state` outside the lobby); null when it would be accepted. Added within v1.
        start_refusal: Option<&'static str>,
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
        counters: CountersWire,
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
    /// The round went on from its log after its server stopped (an addition to v1): it
    /// resumed at `tick` (a client that had seen a later tick lost those), after `away_s`
    /// seconds; it waits up to `wait_ms` more for the seats in `waiting_for` to come back.
    Resumed {
        p: u32,
        tick: u32,
        away_s: u64,
        waiting_for: Vec<u8>,
        wait_ms: u64,
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

    /// The `round` frame of a round's summary. `ids` are the seats' player ids, `name_of`
    /// names a seat's cook; `unlocked` is the viewer's own next level.
    pub fn round(
        summary: &RoundSummary,
        seed: u64,
        ids: &[String],
        name_of: impl Fn(u8) -> String,
        unlocked: Option<String>,
    ) -> ServerMsg {
        let c = &summary.counters;
        ServerMsg::Round {
            p: PROTOCOL_VERSION,
            result: summary.result.map(|r| r.name()),
            score: summary.score,
            target: summary.target,
            stars: summary.stars,
            time_left: summary.time_left_centis as f64 / 100.0,
            counters: CountersWire {
                served: c.served,
                missed: c.missed,
                wasted: c.wasted,
                lost_items: c.lost_items,
            },
            longest_streak: summary.longest_streak,
            players: summary
                .cooks
                .iter()
                .map(|c| PlayerScoreWire {
                    id: ids.get(c.seat as usize).cloned().unwrap_or_default(),
                    name: name_of(c.seat),
                    score: c.score,
                    dishes_served: c.dishes_served,
                    missed_contrib: c.missed_contrib,
                })
                .collect(),
            level_id: summary.level_id.clone(),
            seed,
            ticks: summary.ticks,
            unlocked,
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

/// `{"type":"ev","p":1,"events":[…]}` from events already in the `EventWire` shape.
pub fn ev_frame(events: &[String]) -> String {
    format!(
        "{{\"type\":\"ev\",\"p\":{PROTOCOL_VERSION},\"events\":[{}]}}",
        events.join(",")
    )
}
