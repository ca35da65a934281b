//! What a player sees of the history: each level's leaderboard (the best teams by score and
//! by time left, read from the `leaderboard` view), a session's own rounds (with what its
//! cook served), and its scores on one level over time.
//!
//! Every function reads a page at a time and is written once against `Db`, so SQLite and
//! PostgreSQL answer the same rows (ties are broken by the round key, so the order is the
//! same on both engines). Nothing here runs on a room's tick: the HTTP routes call it, and
//! keep its answers a few seconds (`server::history_cache`).

use super::Store;
use super::db::{Db, args};

/// How a leaderboard is ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranking {
    /// Wins first, then the higher score, then the fewer ticks (the view's own order).
    Score,
    /// Won rounds only, the quickest first (the most time left), then the higher score.
    TimeLeft,
}

/// One round on a leaderboard: the team that played it and how it went.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TeamRound {
    pub round_key: String,
    pub started_at: i64,
    pub result: String,
    pub score: i64,
    pub stars: i64,
    pub ticks: i64,
    pub tick_hz: i64,
    pub team: Vec<TeamCook>,
}

/// A cook of a team, in seat order. Bots are named as they played (`bot: true`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TeamCook {
    pub name: String,
    pub bot: bool,
    pub score: i64,
}

type BoardLine = (String, i64, String, i64, i64, i64, i64);

/// Page `page` (from 0) of `per` finished rounds of `level_id`, ranked, and whether more
/// follow.
pub async fn leaderboard(
    store: &Store,
    level_id: &str,
    ranking: Ranking,
    page: u32,
    per: u32,
) -> sqlx::Result<(Vec<TeamRound>, bool)> {
    super::on_conn!(store, conn => leaderboard_in(conn, level_id, ranking, page, per).await)
}

async fn leaderboard_in(
    conn: &mut impl Db,
    level_id: &str,
    ranking: Ranking,
    page: u32,
    per: u32,
) -> sqlx::Result<(Vec<TeamRound>, bool)> {
    let (limit, offset) = (per as i64 + 1, page as i64 * per as i64);
    // The view has no tick rate; the time-left ranking joins its round for it, so rounds
    // played at different rates compare by seconds, not ticks.
    let rows: Vec<BoardLine> = match ranking {
        Ranking::Score => {
            conn.fetch_all(
                "SELECT l.round_key, l.started_at, l.result, l.score, l.stars, l.ticks, r.tick_hz
                 FROM leaderboard l JOIN rounds r ON r.round_key = l.round_key
                 WHERE l.level_id = $1 AND l.result <> 'aborted'
                 ORDER BY (l.result = 'won') DESC, l.score DESC, l.ticks ASC, l.round_key ASC
                 LIMIT $2 OFFSET $3",
                &args![level_id, limit, offset],
            )
            .await?
        }
        Ranking::TimeLeft => {
            conn.fetch_all(
                "SELECT l.round_key, l.started_at, l.result, l.score, l.stars, l.ticks, r.tick_hz
                 FROM leaderboard l JOIN rounds r ON r.round_key = l.round_key
                 WHERE l.level_id = $1 AND l.result = 'won'
                 ORDER BY (l.ticks * 1000) / r.tick_hz ASC, l.score DESC, l.round_key ASC
                 LIMIT $2 OFFSET $3",
                &args![level_id, limit, offset],
            )
            .await?
        }
    };
    let more = rows.len() > per as usize;
    let mut out = Vec::new();
    for (round_key, started_at, result, score, stars, ticks, tick_hz) in
        rows.into_iter().take(per as usize)
    {
        let team = team_of(conn, &round_key).await?;
        out.push(TeamRound {
            round_key,
            started_at,
            result,
            score,
            stars,
            ticks,
            tick_hz,
            team,
        });
    }
    Ok((out, more))
}

/// A round's cooks in seat order. A bot's session is `bot-<seat>` (`room::bots`).
async fn team_of(conn: &mut impl Db, round_key: &str) -> sqlx::Result<Vec<TeamCook>> {
    let rows: Vec<(String, String, i64)> = conn
        .fetch_all(
            "SELECT name, session_id, score FROM round_players WHERE round_key = $1 ORDER BY seat",
            &args![round_key],
        )
        .await?;
    Ok(rows
        .into_iter()
        .map(|(name, session, score)| TeamCook {
            name,
            bot: session.starts_with("bot-"),
            score,
        })
        .collect())
}

/// The whole-second clock of a finished round, by the results' one rule: the time left is
/// floored, the time used is the rest of the limit. A round that was not won has none left.
pub fn clock(limit_s: f64, ticks: i64, tick_hz: i64, won: bool) -> (i64, i64) {
    let limit = limit_s.max(0.0).floor() as i64;
    if !won || tick_hz <= 0 {
        return (0, limit);
    }
    // Thousandths, in integers, so 149.999 s used never reads as a whole second left.
    let used_ms = ticks.saturating_mul(1000) / tick_hz;
    let left = ((limit_s * 1000.0).round() as i64 - used_ms).max(0) / 1000;
    (left, limit - left)
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn the_time_left_is_floored_and_the_time_used_is_the_rest() {
        // 1:08.5 used of 2:30: 1:21.5 left reads 1:21, so 1:09 used.
        assert_eq!(clock(150.0, 1370, 20, true), (81, 69));
        assert_eq!(clock(150.0, 1370, 20, false), (0, 150));
        assert_eq!(clock(150.0, 3000, 20, true), (0, 150));
        assert_eq!(clock(60.0, 0, 20, true), (60, 0));
    }
}
