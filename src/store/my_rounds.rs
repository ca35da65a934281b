//! One session's own history: its finished rounds, newest first, each with the level, the
//! result, the stars, the team's score and the cook's own points and dishes (by recipe,
//! from the round's `served` rows that name its seat); and its scores on one level over
//! time, oldest first, for the client's plot.
//!
//! The session is named by its id (what `round_players` holds), never by its token: the
//! route finds the id from the caller's token first.

use super::Store;
use super::db::{Db, args};

/// One of a session's rounds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MyRound {
    pub round_key: String,
    pub level_id: String,
    pub started_at: i64,
    pub result: String,
    pub stars: i64,
    /// The team's score and the level's target.
    pub score: i64,
    pub target: i64,
    pub ticks: i64,
    pub tick_hz: i64,
    pub seat: i64,
    /// This cook's own points and dishes.
    pub points: i64,
    pub dishes: i64,
    /// What this cook served, by recipe (name order).
    pub served: Vec<Served>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Served {
    pub recipe: String,
    pub count: i64,
}

/// One point of a level's score over time.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScoreAt {
    pub started_at: i64,
    pub score: i64,
    pub points: i64,
    pub result: String,
    pub stars: i64,
}

type RoundLine = (
    String,
    String,
    i64,
    String,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
);

/// Page `page` (from 0) of `per` of the session's finished rounds, newest first, and
/// whether more follow.
pub async fn rounds_of(
    store: &Store,
    session_id: &str,
    page: u32,
    per: u32,
) -> sqlx::Result<(Vec<MyRound>, bool)> {
    super::on_conn!(store, conn => rounds_in(conn, session_id, page, per).await)
}

async fn rounds_in(
    conn: &mut impl Db,
    session_id: &str,
    page: u32,
    per: u32,
) -> sqlx::Result<(Vec<MyRound>, bool)> {
    let rows: Vec<RoundLine> = conn
        .fetch_all(
            "SELECT r.round_key, r.level_id, r.started_at, r.result, r.stars, r.score, r.target,
                    r.ticks, r.tick_hz, p.seat, p.score, p.dishes_served
             FROM round_players p JOIN rounds r ON r.round_key = p.round_key
             WHERE p.session_id = $1 AND r.result IS NOT NULL
             ORDER BY r.started_at DESC, r.round_key DESC
             LIMIT $2 OFFSET $3",
            &args![session_id, per as i64 + 1, page as i64 * per as i64],
        )
        .await?;
    let more = rows.len() > per as usize;
    let mut out = Vec::new();
    for row in rows.into_iter().take(per as usize) {
        let (round_key, level_id, started_at, result, stars, score, target, ticks, tick_hz) = (
            row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8,
        );
        let (seat, points, dishes) = (row.9, row.10, row.11);
        let served = served_by(conn, &round_key, seat).await?;
        out.push(MyRound {
            round_key,
            level_id,
            started_at,
            result,
            stars,
            score,
            target,
            ticks,
            tick_hz,
            seat,
            points,
            dishes,
            served,
        });
    }
    Ok((out, more))
}

/// The dishes seat `seat` served in a round, counted by recipe.
async fn served_by(conn: &mut impl Db, round_key: &str, seat: i64) -> sqlx::Result<Vec<Served>> {
    let rows: Vec<(Option<String>, i64)> = conn
        .fetch_all(
            "SELECT recipe, COUNT(*) FROM events
             WHERE round_key = $1 AND kind = 'served' AND seat = $2
             GROUP BY recipe ORDER BY recipe",
            &args![round_key, seat],
        )
        .await?;
    Ok(rows
        .into_iter()
        .map(|(recipe, count)| Served {
            // Rows written before recipes were kept have none.
            recipe: recipe.unwrap_or_else(|| "unknown".to_string()),
            count,
        })
        .collect())
}

/// The session's latest `last` finished rounds of `level_id`, oldest first.
pub async fn scores_on(
    store: &Store,
    session_id: &str,
    level_id: &str,
    last: u32,
) -> sqlx::Result<Vec<ScoreAt>> {
    let mut rows: Vec<(i64, i64, i64, String, i64)> = super::on_conn!(store, conn => conn
        .fetch_all(
            "SELECT r.started_at, r.score, p.score, r.result, r.stars
             FROM round_players p JOIN rounds r ON r.round_key = p.round_key
             WHERE p.session_id = $1 AND r.level_id = $2 AND r.result IS NOT NULL
             ORDER BY r.started_at DESC, r.round_key DESC
             LIMIT $3",
            &args![session_id, level_id, last as i64],
        )
        .await?);
    rows.reverse();
    Ok(rows
        .into_iter()
        .map(|(started_at, score, points, result, stars)| ScoreAt {
            started_at,
            score,
            points,
            result,
            stars,
        })
        .collect())
}
