//! Recorded rounds as the replay list shows them: newest first, a page at a time, each with
//! its level, result, stars, score and players; and one round's replay file by its key.

use super::Store;
use sqlx::Row;

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
    let rows = sqlx::query(
        "SELECT round_key, room_code, level_id, started_at, ended_at, result, score, target, stars, ticks, tick_hz
         FROM rounds ORDER BY started_at DESC, round_key DESC LIMIT ? OFFSET ?",
    )
    .bind(per as i64 + 1)
    .bind(page as i64 * per as i64)
    .fetch_all(&store.pool)
    .await?;
    let more = rows.len() > per as usize;
    let mut out = Vec::new();
    for r in rows.iter().take(per as usize) {
        let id: String = r.try_get("round_key")?;
        let players = sqlx::query(
            "SELECT seat, name, score FROM round_players WHERE round_key = ? ORDER BY seat",
        )
        .bind(&id)
        .fetch_all(&store.pool)
        .await?
        .iter()
        .map(|p| {
            Ok(PlayerListed {
                seat: p.try_get("seat")?,
                name: p.try_get("name")?,
                score: p.try_get("score")?,
            })
        })
        .collect::<sqlx::Result<Vec<_>>>()?;
        out.push(RoundListed {
            id,
            room_code: r.try_get("room_code")?,
            level_id: r.try_get("level_id")?,
            started_at: r.try_get("started_at")?,
            ended_at: r.try_get("ended_at")?,
            result: r.try_get("result")?,
            score: r.try_get("score")?,
            target: r.try_get("target")?,
            stars: r.try_get("stars")?,
            ticks: r.try_get("ticks")?,
            tick_hz: r.try_get("tick_hz")?,
            players,
        });
    }
    Ok((out, more))
}

/// Where a round's replay file was written, when the history knows the round.
pub async fn replay_path(store: &Store, round_key: &str) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT replay_path FROM rounds WHERE round_key = ?")
        .bind(round_key)
        .fetch_optional(&store.pool)
        .await
}
