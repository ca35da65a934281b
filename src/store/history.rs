//! The SQL that writes the history: a round's start, its event batches, its end, sessions.
//!
//! Every write is idempotent (unique keys, `INSERT OR IGNORE`, upserts), so writing the same
//! batch or result twice changes nothing and nothing is ever counted or rewarded twice. The
//! live write chain and `reindex` call the same functions.

use super::quests::{self, Completion, QuestDef};
use crate::sim::Event;
use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;

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

/// The rows of one tick's events (their wire payloads, with short keys).
pub fn event_rows(events: &[Event], tick: u32, ids: &[String]) -> Vec<EventRow> {
    events
        .iter()
        .enumerate()
        .map(|(n, e)| {
            let mut payload = String::new();
            crate::wire::events::payload_object(&mut payload, &e.payload, ids);
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
    /// After a win: the campaign order every seated session unlocks.
    pub unlock: Option<u32>,
}

impl RoundOutcome {
    /// The outcome of a folded round: its verdict's figures and each seat's.
    pub fn of(
        round_key: &str,
        rules: &crate::sim::Rules,
        state: &crate::sim::KitchenState,
        result: &str,
        ended_at: i64,
        unlock: Option<u32>,
    ) -> RoundOutcome {
        RoundOutcome {
            round_key: round_key.to_string(),
            level_id: rules.level.id.clone(),
            level_order: rules.level.order,
            ended_at,
            result: result.to_string(),
            score: state.score,
            stars: if result == "aborted" {
                0
            } else {
                state.verdict.map_or(0, |v| v.stars)
            },
            ticks: state.tick,
            served: state.counters.served,
            missed: state.counters.missed,
            wasted: state.counters.wasted,
            lost_items: state.counters.lost_items,
            longest_streak: state.longest_streak,
            players: state
                .cooks
                .iter()
                .map(|c| (c.seat, c.score, c.dishes_served, c.missed_contrib))
                .collect(),
            unlock,
        }
    }
}

pub async fn begin_round(conn: &mut SqliteConnection, meta: &RoundMeta) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO rounds (round_key, room_code, round_no, level_id, seed, replay_path, started_at, target, tick_hz)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(round_key) DO NOTHING",
    )
    .bind(&meta.round_key)
    .bind(&meta.room_code)
    .bind(meta.round_no as i64)
    .bind(&meta.level_id)
    .bind(meta.seed.to_string())
    .bind(&meta.replay_path)
    .bind(meta.started_at)
    .bind(meta.target as i64)
    .bind(meta.tick_hz as i64)
    .execute(&mut *conn)
    .await?;
    for s in &meta.seats {
        sqlx::query("INSERT INTO round_players (round_key, seat, session_id, name, color) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
            .bind(&meta.round_key)
            .bind(s.seat as i64)
            .bind(&s.session_id)
            .bind(&s.name)
            .bind(&s.color)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Writes one tick's events; quest progress is folded from the rows that were new. Returns
/// how many rows were new, and the quests they completed.
pub async fn write_events(
    conn: &mut SqliteConnection,
    meta: &RoundMeta,
    rows: &[EventRow],
    defs: &[QuestDef],
) -> sqlx::Result<(u64, Vec<Completion>)> {
    let fresh = insert_events(conn, meta, rows).await?;
    let refs: Vec<(&RoundMeta, &EventRow)> = fresh.iter().map(|r| (meta, r)).collect();
    let completions = quests::fold_events(conn, &refs, defs)
        .await?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    Ok((fresh.len() as u64, completions))
}

/// Inserts a tick's rows and returns the ones that were new (a batch written twice has none).
pub async fn insert_events(
    conn: &mut SqliteConnection,
    meta: &RoundMeta,
    rows: &[EventRow],
) -> sqlx::Result<Vec<EventRow>> {
    // One multi-row statement per chunk; RETURNING lists only the rows actually inserted
    // (an ignored duplicate returns nothing), which are the ones quests may count.
    let mut fresh: Vec<EventRow> = Vec::new();
    for chunk in rows.chunks(200) {
        let mut qb = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT OR IGNORE INTO events (round_key, tick, n, kind, seat, x, y, payload, recipe) ",
        );
        qb.push_values(chunk, |mut b, r| {
            b.push_bind(&meta.round_key)
                .push_bind(r.tick as i64)
                .push_bind(r.n as i64)
                .push_bind(r.kind)
                .push_bind(r.seat.map(|s| s as i64))
                .push_bind(r.x)
                .push_bind(r.y)
                .push_bind(&r.payload)
                .push_bind(r.recipe);
        });
        qb.push(" RETURNING tick, n");
        let inserted: Vec<(i64, i64)> = qb.build_query_as().fetch_all(&mut *conn).await?;
        let mut inserted: Vec<(u32, u32)> = inserted
            .into_iter()
            .map(|(t, n)| (t as u32, n as u32))
            .collect();
        inserted.sort_unstable();
        fresh.extend(
            chunk
                .iter()
                .filter(|r| inserted.binary_search(&(r.tick, r.n)).is_ok())
                .cloned(),
        );
    }
    Ok(fresh)
}

/// Writes a round's end: its result, each seat's figures, the unlocks and the quests that
/// come from results. All in the caller's transaction; idempotent.
pub async fn finish_round(
    conn: &mut SqliteConnection,
    meta: &RoundMeta,
    out: &RoundOutcome,
    defs: &[QuestDef],
) -> sqlx::Result<Vec<Completion>> {
    sqlx::query(
        "UPDATE rounds SET ended_at = ?, result = ?, score = ?, stars = ?, ticks = ?, served = ?, missed = ?, wasted = ?,
         lost_items = ?, longest_streak = ? WHERE round_key = ?",
    )
    .bind(out.ended_at)
    .bind(&out.result)
    .bind(out.score as i64)
    .bind(out.stars as i64)
    .bind(out.ticks as i64)
    .bind(out.served as i64)
    .bind(out.missed as i64)
    .bind(out.wasted as i64)
    .bind(out.lost_items as i64)
    .bind(out.longest_streak as i64)
    .bind(&out.round_key)
    .execute(&mut *conn)
    .await?;
    for (seat, score, dishes, missed) in &out.players {
        sqlx::query("UPDATE round_players SET score = ?, dishes_served = ?, missed = ? WHERE round_key = ? AND seat = ?")
            .bind(*score as i64)
            .bind(*dishes as i64)
            .bind(*missed as i64)
            .bind(&out.round_key)
            .bind(*seat as i64)
            .execute(&mut *conn)
            .await?;
    }
    if let Some(order) = out.unlock {
        for s in &meta.seats {
            sqlx::query("UPDATE sessions SET unlocked = MAX(unlocked, ?) WHERE id = ?")
                .bind(order as i64)
                .bind(&s.session_id)
                .execute(&mut *conn)
                .await?;
        }
    }
    quests::fold_result(conn, meta, out, defs).await
}

/// A session row (the token only as its hash).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub token_hash: String,
    pub name: String,
    pub unlocked: u32,
}

pub async fn upsert_session(conn: &mut SqliteConnection, s: &SessionRow) -> sqlx::Result<()> {
    let now = super::unix_now();
    sqlx::query(
        "INSERT INTO sessions (id, token_hash, name, unlocked, created_at, last_seen) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, unlocked = MAX(unlocked, excluded.unlocked), last_seen = excluded.last_seen",
    )
    .bind(&s.id)
    .bind(&s.token_hash)
    .bind(&s.name)
    .bind(s.unlocked as i64)
    .bind(now)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
