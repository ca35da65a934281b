//! Sessions in the database, by keyed token hash (the token itself is never stored): looked
//! up one at a time when a token is first seen, upserted through the write chain, rehashed
//! once from the plain SHA-256 of older builds, and expired when they never finished a round.

use super::Store;
use super::db::{Db, args};
use super::rows::SessionRow;

/// The session stored under `token_hash`, if any.
pub async fn find(store: &Store, token_hash: &str) -> sqlx::Result<Option<SessionRow>> {
    let row: Option<(String, String, String, i64)> = super::on_conn!(store, conn => conn.fetch_optional(
        "SELECT id, token_hash, name, unlocked FROM sessions WHERE token_hash = $1",
        &args![token_hash],
    ).await?);
    Ok(row.map(|(id, token_hash, name, unlocked)| SessionRow {
        id,
        token_hash,
        name,
        unlocked: unlocked as u32,
    }))
}

/// Writes a session (new, renamed, further unlocked, or just seen again); `unlocked`
/// never goes down. Three plain statements rather than one with two `ON CONFLICT`
/// clauses, which PostgreSQL does not take: a new row; else the row of this id; else
/// (another id holds the token's hash) that row is only marked seen.
pub async fn upsert(conn: &mut impl Db, s: &SessionRow) -> sqlx::Result<()> {
    let now = super::unix_now();
    let unlocked = s.unlocked as i64;
    let new = conn
        .execute(
            "INSERT INTO sessions (id, token_hash, name, unlocked, created_at, last_seen, hash_scheme)
             VALUES ($1, $2, $3, $4, $5, $5, 2) ON CONFLICT DO NOTHING",
            &args![&s.id, &s.token_hash, &s.name, unlocked, now],
        )
        .await?;
    if new > 0 {
        return Ok(());
    }
    let same_id = conn
        .execute(
            "UPDATE sessions SET name = $2, last_seen = $3,
               unlocked = CASE WHEN unlocked > $4 THEN unlocked ELSE $4 END
             WHERE id = $1",
            &args![&s.id, &s.name, now, unlocked],
        )
        .await?;
    if same_id == 0 {
        conn.execute(
            "UPDATE sessions SET last_seen = $2 WHERE token_hash = $1",
            &args![&s.token_hash, now],
        )
        .await?;
    }
    Ok(())
}

/// The session of a token seen for the first time, made in the database at once: `row` if
/// its insert is the first, else the session another node made for the same token first
/// (a node that later writes `row` through the chain only marks that one seen).
pub async fn claim(store: &Store, row: &SessionRow) -> sqlx::Result<SessionRow> {
    super::on_conn!(store, conn => upsert(&mut *conn, row).await?);
    Ok(find(store, &row.token_hash)
        .await?
        .unwrap_or_else(|| row.clone()))
}

/// Checks that the database's sessions were stored under this key (PostgreSQL, shared by
/// nodes, keeps its fingerprint: the first node to start stores it). A node with another key
/// would hash every returning token to nothing it finds, so it is refused with the reason.
/// SQLite keeps no fingerprint: its key lives beside it in the data dir.
pub async fn check_key(
    store: &Store,
    fingerprint: &str,
    key_file: &std::path::Path,
) -> Result<(), super::StoreError> {
    let super::Pool::Postgres(pool) = &store.pool else {
        return Ok(());
    };
    let mut conn = pool.acquire().await?;
    conn.execute(
        "INSERT INTO cluster_settings (name, value) VALUES ('session_key_fingerprint', $1) ON CONFLICT DO NOTHING",
        &args![fingerprint],
    )
    .await?;
    let (stored,): (String,) = conn
        .fetch_one(
            "SELECT value FROM cluster_settings WHERE name = 'session_key_fingerprint'",
            &[],
        )
        .await?;
    if stored != fingerprint {
        return Err(super::StoreError::Open {
            db: super::printable(&store.location),
            error: format!(
                "its sessions were stored under another session key (fingerprint {stored}; {} has {fingerprint}): give every node the same key file (UNDERCOOKED_SESSION_KEY_FILE)",
                key_file.display()
            ),
        });
    }
    Ok(())
}

/// Rehashes every row still holding a plain SHA-256 with `rehash` (the session key's, from
/// the SHA-256 hex to what is stored now), in one transaction: the rows rehashed. A row
/// `rehash` refuses (not a SHA-256) is left (and logged) rather than lost.
pub async fn rekey(store: &Store, rehash: impl Fn(&str) -> Option<String>) -> sqlx::Result<u64> {
    super::in_tx!(store, tx => rekey_in(tx, &rehash).await)
}

async fn rekey_in(tx: &mut impl Db, rehash: &impl Fn(&str) -> Option<String>) -> sqlx::Result<u64> {
    let old: Vec<(String, String)> = tx
        .fetch_all(
            "SELECT id, token_hash FROM sessions WHERE hash_scheme = 1",
            &[],
        )
        .await?;
    let mut done = 0;
    for (id, sha256) in old {
        let Some(keyed) = rehash(&sha256) else {
            tracing::warn!(session = %id, "a session's stored hash is not a SHA-256; left as it is");
            continue;
        };
        tx.execute(
            "UPDATE sessions SET token_hash = $1, hash_scheme = 2 WHERE id = $2",
            &args![&keyed, &id],
        )
        .await?;
        done += 1;
    }
    Ok(done)
}

/// Deletes the sessions last seen before `before` (unix seconds) that never finished a
/// round and hold no quest progress: the rows deleted. A session with a finished round
/// keeps its history and its unlocked levels for good.
pub async fn expire(store: &Store, before: i64) -> sqlx::Result<u64> {
    let done = super::on_conn!(store, conn => conn.execute(
        "DELETE FROM sessions WHERE last_seen < $1
           AND NOT EXISTS (SELECT 1 FROM round_players p JOIN rounds r ON r.round_key = p.round_key
                           WHERE p.session_id = sessions.id AND r.result IN ('won', 'lost'))
           AND NOT EXISTS (SELECT 1 FROM quest_progress q WHERE q.session_id = sessions.id)",
        &args![before],
    ).await?);
    Ok(done)
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
/// order. Plain SQL over `round_players` and `rounds`, as the `player_best` view, except
/// that a won round's stars count only where the session's seat contributed (the rule of
/// the unlock and the team quests, `quests::contributors`): the level picker's best stars
/// and the quests never disagree about a round the person only watched.
pub async fn bests(store: &Store, session_id: &str) -> sqlx::Result<Vec<LevelBest>> {
    let work = super::quests::WORK_TO_COUNT as i64;
    let rows: Vec<(String, Option<i64>, Option<i64>)> = super::on_conn!(store, conn => conn.fetch_all(
        "SELECT r.level_id,
                MAX(CASE WHEN r.result = 'won' AND
                    (SELECT COUNT(*) FROM events e WHERE e.round_key = rp.round_key
                      AND e.seat = rp.seat
                      AND e.kind IN ('chopped', 'served', 'washed', 'extinguished')) >= $2
                    THEN r.stars ELSE 0 END),
                MAX(r.score)
         FROM round_players rp JOIN rounds r ON r.round_key = rp.round_key
         WHERE rp.session_id = $1 AND r.result IS NOT NULL
         GROUP BY r.level_id ORDER BY r.level_id",
        &args![session_id, work],
    ).await?);
    Ok(rows
        .into_iter()
        .map(|(level_id, stars, score)| LevelBest {
            level_id,
            stars: stars.unwrap_or(0),
            score: score.unwrap_or(0),
        })
        .collect())
}
