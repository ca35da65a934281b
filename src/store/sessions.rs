//! Sessions in the database, by keyed token hash (the token itself is never stored): looked
//! up one at a time when a token is first seen, upserted through the write chain, rehashed
//! once from the plain SHA-256 of older builds, and expired when they never finished a round.

use super::Store;
use super::rows::SessionRow;
use sqlx::{Row, SqliteConnection};

/// The session stored under `token_hash`, if any.
pub async fn find(store: &Store, token_hash: &str) -> sqlx::Result<Option<SessionRow>> {
    let row =
        sqlx::query("SELECT id, token_hash, name, unlocked FROM sessions WHERE token_hash = ?")
            .bind(token_hash)
            .fetch_optional(&store.pool)
            .await?;
    Ok(row.map(|r| SessionRow {
        id: r.get("id"),
        token_hash: r.get("token_hash"),
        name: r.get("name"),
        unlocked: r.get::<i64, _>("unlocked") as u32,
    }))
}

/// Writes a session (new, renamed, further unlocked, or just seen again); `unlocked`
/// never goes down.
pub async fn upsert(conn: &mut SqliteConnection, s: &SessionRow) -> sqlx::Result<()> {
    let now = super::unix_now();
    sqlx::query(
        "INSERT INTO sessions (id, token_hash, name, unlocked, created_at, last_seen, hash_scheme) VALUES (?, ?, ?, ?, ?, ?, 2)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, unlocked = MAX(unlocked, excluded.unlocked), last_seen = excluded.last_seen
         ON CONFLICT(token_hash) DO UPDATE SET last_seen = excluded.last_seen",
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

/// Rehashes every row still holding a plain SHA-256 with `rehash` (the session key's, from
/// the SHA-256 hex to what is stored now), in one transaction: the rows rehashed. A row
/// `rehash` refuses (not a SHA-256) is left (and logged) rather than lost.
pub async fn rekey(store: &Store, rehash: impl Fn(&str) -> Option<String>) -> sqlx::Result<u64> {
    let mut tx = store.pool.begin().await?;
    let old: Vec<(String, String)> =
        sqlx::query_as("SELECT id, token_hash FROM sessions WHERE hash_scheme = 1")
            .fetch_all(&mut *tx)
            .await?;
    let mut done = 0;
    for (id, sha256) in old {
        let Some(keyed) = rehash(&sha256) else {
            tracing::warn!(session = %id, "a session's stored hash is not a SHA-256; left as it is");
            continue;
        };
        sqlx::query("UPDATE sessions SET token_hash = ?, hash_scheme = 2 WHERE id = ?")
            .bind(keyed)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        done += 1;
    }
    tx.commit().await?;
    Ok(done)
}

/// Deletes the sessions last seen before `before` (unix seconds) that never finished a
/// round and hold no quest progress: the rows deleted. A session with a finished round
/// keeps its history and its unlocked levels for good.
pub async fn expire(store: &Store, before: i64) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "DELETE FROM sessions WHERE last_seen < ?
           AND NOT EXISTS (SELECT 1 FROM round_players p JOIN rounds r ON r.round_key = p.round_key
                           WHERE p.session_id = sessions.id AND r.result IN ('won', 'lost'))
           AND NOT EXISTS (SELECT 1 FROM quest_progress q WHERE q.session_id = sessions.id)",
    )
    .bind(before)
    .execute(&store.pool)
    .await?;
    Ok(done.rows_affected())
}

/// A session's best on one level: the most stars of its won rounds (0 when it never won
/// there) and its best score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelBest {
    pub level_id: String,
    pub stars: i64,
    pub score: i64,
}

/// The session's best per level it finished a round on (`GET /api/session`), in level
/// order. Plain SQL over `round_players` and `rounds`, as the `player_best` view.
pub async fn bests(store: &Store, session_id: &str) -> sqlx::Result<Vec<LevelBest>> {
    let rows = sqlx::query(
        "SELECT r.level_id AS level_id,
                MAX(CASE WHEN r.result = 'won' THEN r.stars ELSE 0 END) AS stars,
                MAX(r.score) AS score
         FROM round_players rp JOIN rounds r ON r.round_key = rp.round_key
         WHERE rp.session_id = ? AND r.result IS NOT NULL
         GROUP BY r.level_id ORDER BY r.level_id",
    )
    .bind(session_id)
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(LevelBest {
                level_id: r.try_get("level_id")?,
                stars: r.try_get::<Option<i64>, _>("stars")?.unwrap_or(0),
                score: r.try_get::<Option<i64>, _>("score")?.unwrap_or(0),
            })
        })
        .collect()
}
