//! The SQL that writes the history: a round's start, its event batches, its end.
//!
//! Every write is idempotent (unique keys, `INSERT OR IGNORE`, upserts), so writing the same
//! batch or result twice changes nothing and nothing is ever counted or rewarded twice. The
//! live write chain and `reindex` call the same functions.

use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta, RoundOutcome};
use sqlx::SqliteConnection;

pub async fn begin_round(conn: &mut SqliteConnection, meta: &RoundMeta) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO rounds (round_key, room_code, round_no, level_id, seed, replay_path, started_at, target, tick_hz, identity)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(round_key) DO UPDATE SET identity = excluded.identity WHERE rounds.identity IS NULL",
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
    .bind(&meta.identity)
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
    let rows: Vec<(&RoundMeta, &EventRow)> = rows.iter().map(|r| (meta, r)).collect();
    let fresh = insert_events(conn, &rows).await?;
    let refs: Vec<(&RoundMeta, &EventRow)> = rows
        .iter()
        .zip(&fresh)
        .filter_map(|(row, new)| new.then_some(*row))
        .collect();
    let completions = quests::fold_events(conn, &refs, defs)
        .await?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    Ok((refs.len() as u64, completions))
}

/// Inserts event rows of any number of rounds and says, row by row, which were new (a batch
/// written twice has none; a row given twice is new only the first time).
pub async fn insert_events(
    conn: &mut SqliteConnection,
    rows: &[(&RoundMeta, &EventRow)],
) -> sqlx::Result<Vec<bool>> {
    // Multi-row statements, whatever round each row is of (the write chain hands over a
    // group's batches from many rooms at once), in chunks of 64 rows and then of the powers
    // of two below: seven statement texts in all, each prepared once and kept in the
    // connection's statement cache, where a text per row count filled the cache with
    // statements prepared for one use. RETURNING lists only the rows actually inserted, in
    // no promised order; an ignored duplicate returns nothing.
    let mut fresh = Vec::with_capacity(rows.len());
    let mut rest = rows;
    while !rest.is_empty() {
        let size = 1 << rest.len().min(64).ilog2();
        let (chunk, after) = rest.split_at(size);
        rest = after;
        let mut qb = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT OR IGNORE INTO events (round_key, tick, n, kind, seat, x, y, payload, recipe) ",
        );
        qb.push_values(chunk, |mut b, (meta, r)| {
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
        qb.push(" RETURNING round_key, tick, n");
        let mut inserted: Vec<(String, i64, i64)> =
            qb.build_query_as().fetch_all(&mut *conn).await?;
        inserted.sort_unstable();
        for (meta, r) in chunk {
            let key = (meta.round_key.as_str(), r.tick as i64, r.n as i64);
            let found = inserted.binary_search_by(|(k, t, n)| (k.as_str(), *t, *n).cmp(&key));
            // Taken out when found, so the same row given twice counts once.
            fresh.push(found.map(|i| inserted.remove(i)).is_ok());
        }
    }
    Ok(fresh)
}

/// Writes a round's end: its result, each seat's figures, the unlocks and the quests that
/// come from results (both only for the seats that contributed, `quests::contributors`). All in the caller's transaction; idempotent.
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
        let credited = quests::contributors(conn, &meta.round_key, None).await?;
        for s in meta.seats.iter().filter(|s| credited.contains(&s.seat)) {
            sqlx::query("UPDATE sessions SET unlocked = MAX(unlocked, ?) WHERE id = ?")
                .bind(order as i64)
                .bind(&s.session_id)
                .execute(&mut *conn)
                .await?;
        }
    }
    quests::fold_result(conn, meta, out, defs).await
}

/// The identity of the round already under `round_key`: `None` when there is no such
/// round, `Some(None)` when its row predates identities.
pub async fn identity_of(
    conn: &mut SqliteConnection,
    round_key: &str,
) -> sqlx::Result<Option<Option<String>>> {
    sqlx::query_scalar("SELECT identity FROM rounds WHERE round_key = ?")
        .bind(round_key)
        .fetch_optional(&mut *conn)
        .await
}

/// How far a round that never ended got (a cut file): its ticks and score, while it has
/// no result.
pub async fn record_progress(
    conn: &mut SqliteConnection,
    round_key: &str,
    ticks: u32,
    score: u32,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE rounds SET ticks = MAX(ticks, ?), score = ? WHERE round_key = ? AND result IS NULL",
    )
    .bind(ticks as i64)
    .bind(score as i64)
    .bind(round_key)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
