//! The SQL that writes the history: a round's start, its event batches, its end.
//!
//! Every write is idempotent (unique keys, `ON CONFLICT DO NOTHING`, upserts), so writing the same
//! batch or result twice changes nothing and nothing is ever counted or rewarded twice. The
//! live write chain and `reindex` call the same functions.

use super::credit::Credit;
use super::db::{Arg, Db, args};
use super::quests::{self, Completion, QuestDef};
use super::rows::{EventRow, RoundMeta, RoundOutcome};
use std::sync::OnceLock;

pub async fn begin_round(conn: &mut impl Db, meta: &RoundMeta) -> sqlx::Result<()> {
    let seed = meta.seed.to_string();
    conn.execute(
        "INSERT INTO rounds (round_key, room_code, round_no, level_id, seed, replay_path, started_at, target, tick_hz, identity)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT(round_key) DO UPDATE SET identity = excluded.identity WHERE rounds.identity IS NULL",
        &args![
            &meta.round_key,
            &meta.room_code,
            meta.round_no as i64,
            &meta.level_id,
            &seed,
            &meta.replay_path,
            meta.started_at,
            meta.target as i64,
            meta.tick_hz as i64,
            &meta.identity,
        ],
    )
    .await?;
    for s in &meta.seats {
        conn.execute(
            "INSERT INTO round_players (round_key, seat, session_id, name, color) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT DO NOTHING",
            &args![&meta.round_key, s.seat as i64, &s.session_id, &s.name, &s.color],
        )
        .await?;
    }
    Ok(())
}

/// Writes one tick's events; quest progress is folded from the rows that were new. Returns
/// how many rows were new, and the quests they completed.
pub async fn write_events(
    conn: &mut impl Db,
    meta: &RoundMeta,
    rows: &[EventRow],
    defs: &[QuestDef],
) -> sqlx::Result<(u64, Vec<Completion>)> {
    write_events_credited(conn, meta, rows, defs, &mut Credit::default()).await
}

/// `write_events`, keeping the round's contributions in `credit` from one call to the
/// next (`reindex` writes a file tick by tick in one transaction: one read of its work
/// rows, not one per serve).
pub async fn write_events_credited(
    conn: &mut impl Db,
    meta: &RoundMeta,
    rows: &[EventRow],
    defs: &[QuestDef],
    credit: &mut Credit,
) -> sqlx::Result<(u64, Vec<Completion>)> {
    let rows: Vec<(&RoundMeta, &EventRow)> = rows.iter().map(|r| (meta, r)).collect();
    let fresh = insert_events(conn, &rows).await?;
    let refs: Vec<(&RoundMeta, &EventRow)> = rows
        .iter()
        .zip(&fresh)
        .filter_map(|(row, new)| new.then_some(*row))
        .collect();
    let completions = quests::fold_events(conn, &refs, defs, credit)
        .await?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    // Kept at once: the caller's transaction holds it, and a failure drops the caller's
    // `credit` with the transaction.
    credit.commit();
    Ok((refs.len() as u64, completions))
}

/// Inserts event rows of any number of rounds and says, row by row, which were new (a batch
/// written twice has none; a row given twice is new only the first time).
pub async fn insert_events(
    conn: &mut impl Db,
    rows: &[(&RoundMeta, &EventRow)],
) -> sqlx::Result<Vec<bool>> {
    if let Some(pg) = conn.postgres() {
        let mut fresh = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(UNNEST_ROWS) {
            let inserted = insert_unnest(pg, chunk).await?;
            fresh.extend(which_were_new(chunk, inserted));
        }
        return Ok(fresh);
    }
    // Multi-row statements, whatever round each row is of (the write chain hands over a
    // group's batches from many rooms at once), in chunks of 64 rows and then of the powers
    // of two below: seven statement texts in all, each prepared once and kept in the
    // connection's statement cache, where a text per row count filled the cache with
    // statements prepared for one use.
    let mut fresh = Vec::with_capacity(rows.len());
    let mut rest = rows;
    while !rest.is_empty() {
        let power = rest.len().min(64).ilog2();
        let (chunk, after) = rest.split_at(1 << power);
        rest = after;
        let mut values: Vec<Arg> = Vec::with_capacity(chunk.len() * EVENT_COLUMNS);
        for (meta, r) in chunk {
            values.extend(args![
                &meta.round_key,
                r.tick as i64,
                r.n as i64,
                r.kind,
                r.seat.map(|s| s as i64),
                r.x,
                r.y,
                &r.payload,
                r.recipe,
            ]);
        }
        let inserted: Vec<(String, i64, i64)> = conn.fetch_all(insert_text(power), &values).await?;
        fresh.extend(which_were_new(chunk, inserted));
    }
    Ok(fresh)
}

/// Rows in one PostgreSQL insert: a group of the write chain is a few thousand.
const UNNEST_ROWS: usize = 4096;

/// PostgreSQL's insert: each column is bound as one array and `UNNEST` makes the rows, so a
/// statement costs nine parameters whatever its rows, where a multi-row `VALUES` binds,
/// sends and parses nine a row.
async fn insert_unnest(
    pg: &mut sqlx::PgConnection,
    chunk: &[(&RoundMeta, &EventRow)],
) -> sqlx::Result<Vec<(String, i64, i64)>> {
    let column = |f: &dyn Fn(&RoundMeta, &EventRow) -> i64| -> Vec<i64> {
        chunk.iter().map(|(m, r)| f(m, r)).collect()
    };
    let keys: Vec<&str> = chunk.iter().map(|(m, _)| m.round_key.as_str()).collect();
    let kinds: Vec<&str> = chunk.iter().map(|(_, r)| r.kind).collect();
    let seats: Vec<Option<i64>> = chunk.iter().map(|(_, r)| r.seat.map(i64::from)).collect();
    let xs: Vec<f64> = chunk.iter().map(|(_, r)| r.x).collect();
    let ys: Vec<f64> = chunk.iter().map(|(_, r)| r.y).collect();
    let payloads: Vec<&str> = chunk.iter().map(|(_, r)| r.payload.as_str()).collect();
    let recipes: Vec<Option<&str>> = chunk.iter().map(|(_, r)| r.recipe).collect();
    sqlx::query_as(
        "INSERT INTO events (round_key, tick, n, kind, seat, x, y, payload, recipe)
         SELECT * FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::text[], $5::int8[],
                              $6::float8[], $7::float8[], $8::text[], $9::text[])
         ON CONFLICT DO NOTHING RETURNING round_key, tick, n",
    )
    .bind(keys)
    .bind(column(&|_, r| i64::from(r.tick)))
    .bind(column(&|_, r| i64::from(r.n)))
    .bind(kinds)
    .bind(seats)
    .bind(xs)
    .bind(ys)
    .bind(payloads)
    .bind(recipes)
    .fetch_all(&mut *pg)
    .await
}

/// Which of `chunk`'s rows are among `inserted` (what `RETURNING` listed: only the rows
/// actually inserted, in no promised order; an ignored duplicate returns nothing). A row
/// given twice in the chunk is new only the first time.
fn which_were_new(
    chunk: &[(&RoundMeta, &EventRow)],
    mut inserted: Vec<(String, i64, i64)>,
) -> Vec<bool> {
    inserted.sort_unstable();
    let mut taken = vec![false; inserted.len()];
    chunk
        .iter()
        .map(|(meta, r)| {
            let key = (meta.round_key.as_str(), r.tick as i64, r.n as i64);
            match inserted.binary_search_by(|(k, t, n)| (k.as_str(), *t, *n).cmp(&key)) {
                Ok(i) if !taken[i] => {
                    taken[i] = true;
                    true
                }
                _ => false,
            }
        })
        .collect()
}

/// The columns of an event row, in the order `insert_events` binds them.
const EVENT_COLUMNS: usize = 9;

/// SQLite's insert of `1 << power` event rows (`power` ≤ 6), made once. Its placeholders are
/// anonymous `?`: sqlx looks up each `$N` by name, and SQLite finds a name by walking every
/// name of the statement, so 576 `$N` cost 576 walks of 576 (a third of the write chain's
/// time); a `?` has no name to walk. (PostgreSQL's insert is `insert_unnest`.)
fn insert_text(power: u32) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    let texts = TEXTS.get_or_init(|| {
        (0..=6)
            .map(|p| {
                let row = format!("({})", ["?"; EVENT_COLUMNS].join(", "));
                format!(
                    "INSERT INTO events (round_key, tick, n, kind, seat, x, y, payload, recipe) VALUES {}
                     ON CONFLICT DO NOTHING RETURNING round_key, tick, n",
                    vec![row; 1 << p].join(", ")
                )
            })
            .collect()
    });
    texts.get(power.min(6) as usize).map_or("", String::as_str)
}

/// Writes a round's end: its result, each seat's figures, the unlocks and the quests that
/// come from results (both only for the seats that contributed, `quests::contributors`). All in the caller's transaction; idempotent.
pub async fn finish_round(
    conn: &mut impl Db,
    meta: &RoundMeta,
    out: &RoundOutcome,
    defs: &[QuestDef],
) -> sqlx::Result<Vec<Completion>> {
    conn.execute(
        "UPDATE rounds SET ended_at = $1, result = $2, score = $3, stars = $4, ticks = $5, served = $6, missed = $7,
         wasted = $8, lost_items = $9, longest_streak = $10 WHERE round_key = $11",
        &args![
            out.ended_at,
            &out.result,
            out.score as i64,
            out.stars as i64,
            out.ticks as i64,
            out.served as i64,
            out.missed as i64,
            out.wasted as i64,
            out.lost_items as i64,
            out.longest_streak as i64,
            &out.round_key,
        ],
    )
    .await?;
    for (seat, score, dishes, missed) in &out.players {
        conn.execute(
            "UPDATE round_players SET score = $1, dishes_served = $2, missed = $3 WHERE round_key = $4 AND seat = $5",
            &args![
                *score as i64,
                *dishes as i64,
                *missed as i64,
                &out.round_key,
                *seat as i64
            ],
        )
        .await?;
    }
    if let Some(order) = out.unlock {
        let credited = quests::contributors(conn, &meta.round_key, None).await?;
        for s in meta.seats.iter().filter(|s| credited.contains(&s.seat)) {
            // The larger of the two, written so both engines read it (SQLite's scalar MAX
            // is PostgreSQL's GREATEST).
            conn.execute(
                "UPDATE sessions SET unlocked = CASE WHEN unlocked > $1 THEN unlocked ELSE $1 END WHERE id = $2",
                &args![order as i64, &s.session_id],
            )
            .await?;
        }
    }
    quests::fold_result(conn, meta, out, defs).await
}

/// The identity of the round already under `round_key`: `None` when there is no such
/// round, `Some(None)` when its row predates identities.
pub async fn identity_of(
    conn: &mut impl Db,
    round_key: &str,
) -> sqlx::Result<Option<Option<String>>> {
    let row: Option<(Option<String>,)> = conn
        .fetch_optional(
            "SELECT identity FROM rounds WHERE round_key = $1",
            &args![round_key],
        )
        .await?;
    Ok(row.map(|(identity,)| identity))
}

/// The janitor's verdict on a round whose node was lost: its result (`aborted`), the node
/// and epoch whose lease lapsed, and when it was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub result: String,
    pub node_id: String,
    pub epoch: i64,
    pub ended_at: i64,
}

/// Records the janitor's verdict on a round that has no result (a rebuild from a database's
/// stored replays: the cut file cannot say how the round ended). On PostgreSQL the verdict
/// row is kept too, as the janitor keeps it.
pub async fn record_verdict(conn: &mut impl Db, round_key: &str, v: &Verdict) -> sqlx::Result<()> {
    let set = conn
        .execute(
            "UPDATE rounds SET result = $1, ended_at = $2 WHERE round_key = $3 AND result IS NULL",
            &args![v.result.as_str(), v.ended_at, round_key],
        )
        .await?;
    if set == 1 && conn.dialect() == super::db::Dialect::Postgres {
        conn.execute(
            "INSERT INTO round_verdicts (round_key, result, node_id, epoch) VALUES ($1, $2, $3, $4)
             ON CONFLICT (round_key) DO NOTHING",
            &args![round_key, v.result.as_str(), v.node_id.as_str(), v.epoch],
        )
        .await?;
    }
    Ok(())
}

/// How far a round that never ended got (a cut file): its ticks and score, while it has
/// no result or only the janitor's `aborted` (a cut file's round can have no other: one
/// that ended has its end in the file).
pub async fn record_progress(
    conn: &mut impl Db,
    round_key: &str,
    ticks: u32,
    score: u32,
) -> sqlx::Result<()> {
    conn.execute(
        "UPDATE rounds SET ticks = CASE WHEN ticks > $1 THEN ticks ELSE $1 END, score = $2
         WHERE round_key = $3 AND (result IS NULL OR result = 'aborted')",
        &args![ticks as i64, score as i64, round_key],
    )
    .await?;
    Ok(())
}
