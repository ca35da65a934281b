//! Recorded rounds as the replay list shows them: newest first, a page at a time, each with
//! its level, result, stars, score and players; and where one round's replay is, by its key.

use super::db::{Db, args};
use super::{Pool, Store};

/// One round in the replay list.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RoundListed {
    /// The round key (from the replay's header; a live round's file is named by it).
    pub id: String,
    pub room_code: String,
    pub level_id: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub result: Option<String>,
    pub score: i64,
    pub target: i64,
    pub stars: i64,
    pub ticks: i64,
    pub tick_hz: i64,
    pub players: Vec<PlayerListed>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlayerListed {
    pub seat: i64,
    pub name: String,
    pub score: i64,
}

/// Page `page` (from 0) of `per` rounds, newest first, and whether more follow.
pub async fn list(store: &Store, page: u32, per: u32) -> sqlx::Result<(Vec<RoundListed>, bool)> {
    super::on_conn!(store, conn => list_in(conn, page, per).await)
}

type Line = (
    String,
    String,
    String,
    i64,
    Option<i64>,
    Option<String>,
    i64,
    i64,
    i64,
    i64,
    i64,
);

async fn list_in(
    conn: &mut impl Db,
    page: u32,
    per: u32,
) -> sqlx::Result<(Vec<RoundListed>, bool)> {
    let rows: Vec<Line> = conn
        .fetch_all(
            "SELECT round_key, room_code, level_id, started_at, ended_at, result, score, target, stars, ticks, tick_hz
             FROM rounds ORDER BY started_at DESC, round_key DESC LIMIT $1 OFFSET $2",
            &args![per as i64 + 1, page as i64 * per as i64],
        )
        .await?;
    let more = rows.len() > per as usize;
    let mut out = Vec::new();
    for r in rows.into_iter().take(per as usize) {
        let (
            id,
            room_code,
            level_id,
            started_at,
            ended_at,
            result,
            score,
            target,
            stars,
            ticks,
            tick_hz,
        ) = r;
        let players: Vec<(i64, String, i64)> = conn
            .fetch_all(
                "SELECT seat, name, score FROM round_players WHERE round_key = $1 ORDER BY seat",
                &args![&id],
            )
            .await?;
        out.push(RoundListed {
            id,
            room_code,
            level_id,
            started_at,
            ended_at,
            result,
            score,
            target,
            stars,
            ticks,
            tick_hz,
            players: players
                .into_iter()
                .map(|(seat, name, score)| PlayerListed { seat, name, score })
                .collect(),
        });
    }
    Ok((out, more))
}

/// Where a round's replay file was written, when the history knows the round.
pub async fn replay_path(store: &Store, round_key: &str) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = super::on_conn!(store, conn => conn.fetch_optional(
        "SELECT replay_path FROM rounds WHERE round_key = $1",
        &args![round_key],
    ).await?);
    Ok(row.map(|(path,)| path))
}

/// Where a round's replay is, when the history knows the round: the path its file was
/// written at (on the disk of the node that played it) and, on PostgreSQL, the size of the
/// copy stored in the database (`stored_replays`), if one is.
pub async fn replay_place(
    store: &Store,
    round_key: &str,
) -> sqlx::Result<Option<(String, Option<i64>)>> {
    match store.pool {
        Pool::Sqlite(_) => Ok(replay_path(store, round_key).await?.map(|p| (p, None))),
        Pool::Postgres(_) => super::on_conn!(store, conn => conn.fetch_optional(
            "SELECT r.replay_path, f.size FROM rounds r
             LEFT JOIN replay_files f ON f.round_key = r.round_key
             WHERE r.round_key = $1",
            &args![round_key],
        ).await),
    }
}
