//! Quests: definitions are rows of `quests` (seeded by a migration); progress is folded here,
//! per session, from events as they are written and from round results.
//!
//! | kind | progress |
//! |---|---|
//! | `serve_recipe` | +1 for the serving cook's session per served dish of `param` |
//! | `extinguish` / `wash` | +1 for the cook's session per fire put out / plate washed |
//! | `streak` | every seated session: the highest streak reached in a round |
//! | `clean_run` | every seated session: +1 per serve, back to 0 on a miss |
//! | `win_stars` | 1 when the session wins a round with at least `param` stars |
//! | `campaign` | the number of different levels the session has won |
//! | `teammates` | the number of different sessions it has shared a round with (not bots) |
//!
//! Only seats that *contributed* share in the team's credit (`streak`, `clean_run`,
//! `win_stars`, `campaign`, `teammates`, and the round's unlock in `history`): a seat
//! contributed once it has `WORK_TO_COUNT` rows of `WORK_KINDS` in the round (pieces of
//! work finished: a board chopped, a dish served, a plate washed, a fire put out). A team
//! quest moves at a `served` row for the seats that have contributed up to that row; a
//! result quest and the unlock go to the seats that contributed in the whole round. The
//! rows are the history's own, so `reindex` credits exactly the same seats.
//!
//! Bot cooks' sessions are `bot-<seat>`: they are nobody's teammates (a room of bots is not
//! company), though their own progress is folded like anyone's.
//!
//! A completion is recorded once (`completed_at` is set only while it is null), and only
//! then reported, so nobody is rewarded twice.

use super::Store;
// What counts as work lives with the credit it decides (`credit`); named here too, where
// the rules of credit are told.
use super::credit::Credit;
pub use super::credit::{WORK_KINDS, WORK_TO_COUNT, is_work};
use super::db::{Db, Dialect, args};
use super::rows::{EventRow, RoundMeta, RoundOutcome};

/// The SQL test that seat `p.seat` of round `p.round_key` contributed (`p` a `round_players`
/// row in the enclosing query; parameter `$2` is `WORK_TO_COUNT`). SQL strings are
/// literals (sqlx refuses built ones): the test below keeps `WORK_KINDS` in them.
macro_rules! contributed_sql {
    () => {
        "(SELECT COUNT(*) FROM events e WHERE e.round_key = p.round_key AND e.seat = p.seat
          AND e.kind IN ('chopped', 'served', 'washed', 'extinguished')) >= $2"
    };
}

/// Seats with `WORK_TO_COUNT` pieces of work in a round up to (tick, n).
const CONTRIBUTORS_SQL: &str = "SELECT seat FROM events WHERE round_key = $1 AND seat IS NOT NULL
     AND kind IN ('chopped', 'served', 'washed', 'extinguished')
     AND (tick < $2 OR (tick = $2 AND n <= $3))
     GROUP BY seat HAVING COUNT(*) >= $4 ORDER BY seat";

const CAMPAIGN_SQL: &str = concat!(
    "SELECT COUNT(DISTINCT r.level_id) FROM rounds r JOIN round_players p ON p.round_key = r.round_key
     WHERE p.session_id = $1 AND r.result = 'won' AND ",
    contributed_sql!()
);

const TEAMMATES_SQL: &str = concat!(
    "SELECT COUNT(DISTINCT o.session_id) FROM round_players p JOIN round_players o
     ON o.round_key = p.round_key AND o.session_id <> p.session_id
     WHERE p.session_id = $1 AND o.session_id NOT LIKE 'bot-%' AND ",
    contributed_sql!()
);

/// The seats of round `round_key` that contributed, counting its rows up to and with
/// (`tick`, `n`) (`None`: the whole round), in seat order.
pub async fn contributors(
    conn: &mut impl Db,
    round_key: &str,
    upto: Option<(u32, u32)>,
) -> sqlx::Result<Vec<u8>> {
    let (tick, n) = upto.map_or((i64::MAX, i64::MAX), |(t, n)| (t as i64, n as i64));
    let seats: Vec<(i64,)> = conn
        .fetch_all(
            CONTRIBUTORS_SQL,
            &args![round_key, tick, n, WORK_TO_COUNT as i64],
        )
        .await?;
    Ok(seats.into_iter().map(|(s,)| s as u8).collect())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestDef {
    pub id: String,
    pub kind: String,
    pub param: Option<String>,
    pub target: i64,
}

/// A quest a session just completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub session_id: String,
    pub quest_id: String,
    pub progress: i64,
    pub target: i64,
}

/// A session's standing on one quest (`GET /api/session`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub id: String,
    pub title: String,
    /// The quest's kind and parameter (what counts towards it; see the table above).
    pub kind: String,
    pub param: Option<String>,
    pub target: i64,
    pub progress: i64,
    pub completed: bool,
}

/// Every quest with this session's progress on it, in quest order.
pub async fn standings(store: &Store, session_id: &str) -> sqlx::Result<Vec<Standing>> {
    type Line = (
        String,
        String,
        String,
        Option<String>,
        i64,
        i64,
        Option<i64>,
    );
    let rows: Vec<Line> = super::on_conn!(store, conn => conn.fetch_all(
        "SELECT q.id, q.title, q.kind, q.param, q.target, COALESCE(p.progress, 0), p.completed_at
         FROM quests q LEFT JOIN quest_progress p ON p.quest_id = q.id AND p.session_id = $1 ORDER BY q.id",
        &args![session_id],
    ).await?);
    Ok(rows
        .into_iter()
        .map(
            |(id, title, kind, param, target, progress, completed_at)| Standing {
                id,
                title,
                kind,
                param,
                target,
                progress,
                completed: completed_at.is_some(),
            },
        )
        .collect())
}

/// The `campaign` quest asks for every campaign level the server holds: its target follows
/// the levels folder (set when the server starts, before any progress is folded).
pub async fn set_campaign_size(store: &Store, levels: usize) -> sqlx::Result<()> {
    let target = levels.max(1) as i64;
    super::on_conn!(store, conn => conn.execute(
        "UPDATE quests SET target = $1 WHERE kind = 'campaign'",
        &args![target],
    ).await?);
    Ok(())
}

pub async fn load(conn: &mut impl Db) -> sqlx::Result<Vec<QuestDef>> {
    let rows: Vec<(String, String, Option<String>, i64)> = conn
        .fetch_all(
            "SELECT id, kind, param, target FROM quests ORDER BY id",
            &[],
        )
        .await?;
    Ok(rows
        .into_iter()
        .map(|(id, kind, param, target)| QuestDef {
            id,
            kind,
            param,
            target,
        })
        .collect())
}

enum Change {
    Add(i64),
    Max(i64),
    Reset,
}

async fn apply(
    conn: &mut impl Db,
    session: &str,
    q: &QuestDef,
    change: Change,
) -> sqlx::Result<Option<Completion>> {
    // Each change is one statement that reads and writes the row at once, so two nodes
    // moving one quest together both count (PostgreSQL locks the row for the upsert).
    match change {
        Change::Add(n) => {
            conn.execute(
                "INSERT INTO quest_progress (session_id, quest_id, progress) VALUES ($1, $2, $3)
                 ON CONFLICT (session_id, quest_id) DO UPDATE SET progress = quest_progress.progress + excluded.progress
                 WHERE quest_progress.completed_at IS NULL",
                &args![session, &q.id, n],
            )
            .await?;
        }
        Change::Max(n) => {
            conn.execute(
                "INSERT INTO quest_progress (session_id, quest_id, progress) VALUES ($1, $2, $3)
                 ON CONFLICT (session_id, quest_id) DO UPDATE SET progress = CASE
                   WHEN quest_progress.progress > excluded.progress THEN quest_progress.progress
                   ELSE excluded.progress END
                 WHERE quest_progress.completed_at IS NULL",
                &args![session, &q.id, n],
            )
            .await?;
        }
        Change::Reset => {
            conn.execute(
                "UPDATE quest_progress SET progress = 0 WHERE session_id = $1 AND quest_id = $2 AND completed_at IS NULL",
                &args![session, &q.id],
            )
            .await?;
            return Ok(None);
        }
    }
    let now = super::unix_now();
    let done = conn
        .execute(
            "UPDATE quest_progress SET completed_at = $1
             WHERE session_id = $2 AND quest_id = $3 AND completed_at IS NULL AND progress >= $4",
            &args![now, session, &q.id, q.target],
        )
        .await?;
    if done == 0 {
        return Ok(None);
    }
    let (progress,): (i64,) = conn
        .fetch_one(
            "SELECT progress FROM quest_progress WHERE session_id = $1 AND quest_id = $2",
            &args![session, &q.id],
        )
        .await?;
    Ok(Some(Completion {
        session_id: session.to_string(),
        quest_id: q.id.clone(),
        progress,
        target: q.target,
    }))
}

/// Folds newly written events, in order, into every quest they move. Changes are gathered
/// per (session, quest) first, then each pair is read once, replayed in memory (so a
/// completion reached before a later reset still counts) and written once.
pub async fn fold_events<'a>(
    conn: &mut impl Db,
    events: &[(&'a RoundMeta, &EventRow)],
    defs: &[QuestDef],
    credit: &mut Credit,
) -> sqlx::Result<Vec<(&'a RoundMeta, Completion)>> {
    // Keyed by the session ids of the rounds' own seats (borrowed: no string per change).
    let mut changes: std::collections::BTreeMap<(&'a str, usize), (Vec<Change>, &'a RoundMeta)> =
        std::collections::BTreeMap::new();
    credit.update(conn, events).await?;
    for (meta, e) in events {
        let meta: &'a RoundMeta = meta;
        // A miss resets every seat's clean run; a serve moves the team quests of the seats
        // that have contributed so far. Other events need neither list.
        let everyone: Vec<&'a str> = if e.kind == "missed" {
            meta.seats.iter().map(|s| s.session_id.as_str()).collect()
        } else {
            Vec::new()
        };
        let credited: Vec<&'a str> = if e.kind == "served" {
            let seats = credit.contributed(&meta.round_key, (e.tick, e.n));
            meta.seats
                .iter()
                .filter(|s| seats.contains(&s.seat))
                .map(|s| s.session_id.as_str())
                .collect()
        } else {
            Vec::new()
        };
        let cook = e.seat.and_then(|s| meta.session_of(s));
        for (qi, q) in defs.iter().enumerate() {
            let mut push = |session: &'a str, c: Change| {
                let entry = changes
                    .entry((session, qi))
                    .or_insert_with(|| (Vec::new(), meta));
                entry.0.push(c);
                entry.1 = meta;
            };
            match (q.kind.as_str(), e.kind) {
                ("serve_recipe", "served")
                    if e.recipe.is_some() && e.recipe == q.param.as_deref() =>
                {
                    cook.into_iter().for_each(|c| push(c, Change::Add(1)))
                }
                ("extinguish", "extinguished") | ("wash", "washed") => {
                    cook.into_iter().for_each(|c| push(c, Change::Add(1)))
                }
                ("streak", "served") => credited
                    .iter()
                    .for_each(|s| push(s, Change::Max(e.stk.unwrap_or(0) as i64))),
                ("clean_run", "served") => credited.iter().for_each(|s| push(s, Change::Add(1))),
                ("clean_run", "missed") => everyone.iter().for_each(|s| push(s, Change::Reset)),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for ((session, qi), (list, meta)) in changes {
        if let Some(c) = settle(conn, session, &defs[qi], &list).await? {
            out.push((meta, c));
        }
    }
    Ok(out)
}

/// Applies a sequence of changes to one session's progress on one quest. The row is made
/// first and then read locked (`FOR UPDATE` on PostgreSQL; SQLite has one writer), so a
/// node folding the same session's quest at the same moment waits for this one and then
/// reads its progress: no increment is lost. The write chain folds pairs in (session,
/// quest) order, the same order on every node, so two groups never wait on each other
/// in a circle.
async fn settle(
    conn: &mut impl Db,
    session: &str,
    q: &QuestDef,
    list: &[Change],
) -> sqlx::Result<Option<Completion>> {
    conn.execute(
        "INSERT INTO quest_progress (session_id, quest_id, progress) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING",
        &args![session, &q.id],
    )
    .await?;
    let read = match conn.dialect() {
        Dialect::Sqlite => {
            "SELECT progress, completed_at FROM quest_progress WHERE session_id = $1 AND quest_id = $2"
        }
        Dialect::Postgres => {
            "SELECT progress, completed_at FROM quest_progress WHERE session_id = $1 AND quest_id = $2 FOR UPDATE"
        }
    };
    let current: Option<(i64, Option<i64>)> =
        conn.fetch_optional(read, &args![session, &q.id]).await?;
    if current.is_some_and(|(_, done)| done.is_some()) {
        return Ok(None);
    }
    let mut p = current.map_or(0, |c| c.0);
    let mut reached = None;
    for c in list {
        p = match c {
            Change::Add(n) => p + n,
            Change::Max(n) => p.max(*n),
            Change::Reset => 0,
        };
        if p >= q.target {
            reached = Some(p);
            break;
        }
    }
    let progress = reached.unwrap_or(p);
    let completed_at = reached.map(|_| super::unix_now());
    conn.execute(
        "UPDATE quest_progress SET progress = $1, completed_at = $2 WHERE session_id = $3 AND quest_id = $4",
        &args![progress, completed_at, session, &q.id],
    )
    .await?;
    Ok(reached.map(|p| Completion {
        session_id: session.to_string(),
        quest_id: q.id.clone(),
        progress: p,
        target: q.target,
    }))
}

/// Folds a round's result into the result quests of its sessions that contributed.
pub async fn fold_result(
    conn: &mut impl Db,
    meta: &RoundMeta,
    out: &RoundOutcome,
    defs: &[QuestDef],
) -> sqlx::Result<Vec<Completion>> {
    let mut done = Vec::new();
    let won = out.result == "won";
    let credited = contributors(conn, &meta.round_key, None).await?;
    for seat in meta.seats.iter().filter(|s| credited.contains(&s.seat)) {
        let session = seat.session_id.as_str();
        for q in defs {
            let change = match q.kind.as_str() {
                "win_stars" => {
                    let need: u8 = q.param.as_deref().and_then(|p| p.parse().ok()).unwrap_or(3);
                    (won && out.stars >= need).then_some(Change::Max(1))
                }
                "campaign" => {
                    let (levels,): (i64,) = conn
                        .fetch_one(CAMPAIGN_SQL, &args![session, WORK_TO_COUNT as i64])
                        .await?;
                    Some(Change::Max(levels))
                }
                "teammates" => {
                    let (mates,): (i64,) = conn
                        .fetch_one(TEAMMATES_SQL, &args![session, WORK_TO_COUNT as i64])
                        .await?;
                    Some(Change::Max(mates))
                }
                _ => None,
            };
            if let Some(change) = change {
                done.extend(apply(conn, session, q, change).await?);
            }
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_of_contribution_counts_exactly_the_kinds_of_work() {
        let list: Vec<String> = WORK_KINDS.iter().map(|k| format!("'{k}'")).collect();
        let list = format!("IN ({})", list.join(", "));
        for sql in [
            CONTRIBUTORS_SQL,
            CAMPAIGN_SQL,
            TEAMMATES_SQL,
            super::super::credit::WORK_ROWS_SQL,
        ] {
            assert!(sql.contains(&list), "{sql}");
        }
    }
}
