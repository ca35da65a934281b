//! Sessions in the database: every session the server knows, by token hash (the token
//! itself is never stored), loaded at start and upserted through the write chain.

use super::Store;
use super::rows::SessionRow;
use sqlx::{Row, SqliteConnection};

/// Every stored session (the server keeps them in memory, by token hash).
pub async fn load_all(store: &Store) -> sqlx::Result<Vec<SessionRow>> {
    let rows = sqlx::query("SELECT id, token_hash, name, unlocked FROM sessions")
        .fetch_all(&store.pool)
        .await?;
    Ok(rows
        .iter()
        .map(|r| SessionRow {
            id: r.get("id"),
            token_hash: r.get("token_hash"),
            name: r.get("name"),
            unlocked: r.get::<i64, _>("unlocked") as u32,
        })
        .collect())
}

/// Writes a session (new, renamed, or further unlocked); `unlocked` never goes down.
pub async fn upsert(conn: &mut SqliteConnection, s: &SessionRow) -> sqlx::Result<()> {
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
