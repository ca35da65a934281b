//! Quest progress as given / when / then: batches written twice count once, a completion
//! reached before a miss still counts, and a completion is reported once.

use std::sync::Arc;
use undercooked::store::Store;
use undercooked::store::history;
use undercooked::store::quests;
use undercooked::store::rows::{EventRow, RoundMeta, RoundOutcome, SeatRow, SessionRow};

async fn store(name: &str) -> Store {
    let dir =
        std::env::temp_dir().join(format!("undercooked-quests-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Store::open(&format!("sqlite://{}", dir.join("q.db").display()))
        .await
        .unwrap()
}

fn meta() -> Arc<RoundMeta> {
    Arc::new(RoundMeta {
        round_key: "ROOM1-1-0".into(),
        room_code: "ROOM1".into(),
        round_no: 1,
        level_id: "01_first_kitchen".into(),
        seed: 1,
        replay_path: String::new(),
        started_at: 0,
        target: 150,
        tick_hz: 20,
        identity: None,
        seats: vec![
            SeatRow {
                seat: 0,
                session_id: "s-ann".into(),
                name: "Ann".into(),
                color: "#e4572e".into(),
            },
            SeatRow {
                seat: 1,
                session_id: "s-bob".into(),
                name: "Bob".into(),
                color: "#29a5e3".into(),
            },
        ],
    })
}

fn served(tick: u32, seat: u8, stk: u32) -> EventRow {
    EventRow {
        tick,
        n: 0,
        kind: "served",
        seat: Some(seat),
        x: 9.0,
        y: 1.0,
        payload: "{}".into(),
        recipe: Some("tomato_soup"),
        stk: Some(stk),
    }
}

fn chopped(tick: u32, seat: u8) -> EventRow {
    EventRow {
        tick,
        n: 0,
        kind: "chopped",
        seat: Some(seat),
        x: 2.0,
        y: 1.0,
        payload: "{}".into(),
        recipe: None,
        stk: None,
    }
}

fn missed(tick: u32) -> EventRow {
    EventRow {
        tick,
        n: 0,
        kind: "missed",
        seat: None,
        x: 0.0,
        y: 0.0,
        payload: "{}".into(),
        recipe: None,
        stk: None,
    }
}

async fn progress(store: &Store, session: &str, quest: &str) -> (i64, bool) {
    let row: Option<(i64, Option<i64>)> = sqlx::query_as(
        "SELECT progress, completed_at FROM quest_progress WHERE session_id = ? AND quest_id = ?",
    )
    .bind(session)
    .bind(quest)
    .fetch_optional(&store.sqlite().expect("a SQLite store"))
    .await
    .unwrap();
    row.map_or((0, false), |(p, c)| (p, c.is_some()))
}

#[tokio::test]
async fn the_same_batch_written_twice_counts_once() {
    let store = store("twice").await;
    let meta = meta();
    let mut conn = store
        .sqlite()
        .expect("a SQLite store")
        .acquire()
        .await
        .unwrap();
    let defs = quests::load(&mut *conn).await.unwrap();
    history::begin_round(&mut *conn, &meta).await.unwrap();
    // Ann has chopped twice before the serve (her third piece of work); Bob has not moved.
    history::write_events(&mut *conn, &meta, &[chopped(2, 0), chopped(4, 0)], &defs)
        .await
        .unwrap();
    let batch = vec![served(10, 0, 1)];
    let (new, _) = history::write_events(&mut *conn, &meta, &batch, &defs)
        .await
        .unwrap();
    assert_eq!(new, 1);
    let (again, completions) = history::write_events(&mut *conn, &meta, &batch, &defs)
        .await
        .unwrap();
    assert_eq!((again, completions.len()), (0, 0));
    assert_eq!(progress(&store, "s-ann", "soup_chef").await, (1, false));
    assert_eq!(
        progress(&store, "s-bob", "soup_chef").await,
        (0, false),
        "the serving cook's session only"
    );
    assert_eq!(
        progress(&store, "s-ann", "clean_run").await,
        (1, false),
        "team quests move for a seat that contributed"
    );
    assert_eq!(
        progress(&store, "s-bob", "clean_run").await,
        (0, false),
        "and not for one that did nothing"
    );
}

#[tokio::test]
async fn a_group_of_two_rounds_with_a_batch_given_twice_inserts_each_row_once() {
    // Given two rounds under way, when one insert carries a batch of each and the first
    // batch again (as a group of the write chain does after a retry), then each row is new
    // once, the repeat is not, and every row is in the table once.
    let store = store("group").await;
    let a = meta();
    let mut b = (*meta()).clone();
    b.round_key = "ROOM2-1-0".into();
    let mut conn = store
        .sqlite()
        .expect("a SQLite store")
        .acquire()
        .await
        .unwrap();
    history::begin_round(&mut *conn, &a).await.unwrap();
    history::begin_round(&mut *conn, &b).await.unwrap();
    let (a1, a2, b1) = (served(10, 0, 1), missed(11), served(10, 1, 1));
    let rows = [(&*a, &a1), (&*a, &a2), (&b, &b1), (&*a, &a1)];
    let fresh = history::insert_events(&mut *conn, &rows).await.unwrap();
    assert_eq!(fresh, [true, true, true, false]);
    let again = history::insert_events(&mut *conn, &rows[..3])
        .await
        .unwrap();
    assert_eq!(again, [false, false, false]);
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM events")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!(count, 3);
    // A run longer than one statement's chunk: 103 rows, then the same with one more.
    let many: Vec<EventRow> = (100..203).map(missed).collect();
    let rows: Vec<(&RoundMeta, &EventRow)> = many.iter().map(|r| (&b, r)).collect();
    let fresh = history::insert_events(&mut *conn, &rows).await.unwrap();
    assert!(fresh.iter().all(|new| *new), "{fresh:?}");
    let one_more = missed(203);
    let mut rows = rows;
    rows.push((&b, &one_more));
    let fresh = history::insert_events(&mut *conn, &rows).await.unwrap();
    assert_eq!(fresh.iter().filter(|new| **new).count(), 1);
    assert_eq!(fresh.last(), Some(&true));
}

#[tokio::test]
async fn a_clean_run_completed_before_a_miss_still_counts_and_is_reported_once() {
    let store = store("clean").await;
    let meta = meta();
    let mut conn = store
        .sqlite()
        .expect("a SQLite store")
        .acquire()
        .await
        .unwrap();
    let defs = quests::load(&mut *conn).await.unwrap();
    history::begin_round(&mut *conn, &meta).await.unwrap();
    // given both cooks at work (three boards chopped each) and four serves, when a fifth
    // and then a miss arrive in one batch
    for t in 0..3 {
        let work = [
            chopped(t, 0),
            EventRow {
                n: 1,
                ..chopped(t, 1)
            },
        ];
        history::write_events(&mut *conn, &meta, &work, &defs)
            .await
            .unwrap();
    }
    for t in 0..4 {
        history::write_events(&mut *conn, &meta, &[served(50 + t, 0, t + 1)], &defs)
            .await
            .unwrap();
    }
    let (_, done) = history::write_events(
        &mut *conn,
        &meta,
        &[served(60, 1, 5), EventRow { n: 1, ..missed(60) }],
        &defs,
    )
    .await
    .unwrap();
    // then both sessions completed `clean_run` (and `on_a_roll`, a streak of 5), once
    let mut ids: Vec<(String, String)> = done
        .iter()
        .map(|c| (c.session_id.clone(), c.quest_id.clone()))
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            ("s-ann".into(), "clean_run".into()),
            ("s-ann".into(), "on_a_roll".into()),
            ("s-bob".into(), "clean_run".into()),
            ("s-bob".into(), "on_a_roll".into())
        ]
    );
    assert_eq!(progress(&store, "s-ann", "clean_run").await, (5, true));
    let (_, more) = history::write_events(&mut *conn, &meta, &[served(70, 0, 6)], &defs)
        .await
        .unwrap();
    assert!(
        more.iter().all(|c| c.quest_id != "clean_run"),
        "a completion is recorded once"
    );
    assert_eq!(
        progress(&store, "s-ann", "clean_run").await,
        (5, true),
        "a completed quest no longer moves"
    );
}

#[tokio::test]
async fn a_miss_resets_a_clean_run_in_progress() {
    let store = store("reset").await;
    let meta = meta();
    let mut conn = store
        .sqlite()
        .expect("a SQLite store")
        .acquire()
        .await
        .unwrap();
    let defs = quests::load(&mut *conn).await.unwrap();
    history::begin_round(&mut *conn, &meta).await.unwrap();
    let work: Vec<EventRow> = (0..3).map(|n| EventRow { n, ..chopped(0, 0) }).collect();
    history::write_events(&mut *conn, &meta, &work, &defs)
        .await
        .unwrap();
    history::write_events(
        &mut *conn,
        &meta,
        &[
            served(1, 0, 1),
            EventRow {
                n: 1,
                ..served(1, 0, 2)
            },
        ],
        &defs,
    )
    .await
    .unwrap();
    assert_eq!(progress(&store, "s-ann", "clean_run").await, (2, false));
    history::write_events(&mut *conn, &meta, &[missed(2)], &defs)
        .await
        .unwrap();
    assert_eq!(progress(&store, "s-ann", "clean_run").await, (0, false));
}

/// A won round of level 1 with seat 0 a person's and seats 1–3 bots': the bots chop and
/// serve five dishes in a row; the person did `work` pieces of work first.
async fn won_round_beside_three_bots(name: &str, work: u32) -> Store {
    let store = store(name).await;
    let mut meta = (*meta()).clone();
    meta.seats.truncate(1);
    for seat in 1..4u8 {
        meta.seats.push(SeatRow {
            seat,
            session_id: format!("bot-{seat}"),
            name: format!("Bot {seat}"),
            color: "#888888".into(),
        });
    }
    let mut conn = store
        .sqlite()
        .expect("a SQLite store")
        .acquire()
        .await
        .unwrap();
    undercooked::store::sessions::upsert(
        &mut *conn,
        &SessionRow {
            id: "s-ann".into(),
            token_hash: "h-ann".into(),
            name: "Ann".into(),
            unlocked: 1,
        },
    )
    .await
    .unwrap();
    let defs = quests::load(&mut *conn).await.unwrap();
    history::begin_round(&mut *conn, &meta).await.unwrap();
    let mut rows: Vec<EventRow> = (0..work).map(|n| EventRow { n, ..chopped(1, 0) }).collect();
    for seat in 1..4u8 {
        rows.extend((0..3).map(|n| EventRow {
            n: 10 * seat as u32 + n,
            ..chopped(2, seat)
        }));
    }
    history::write_events(&mut *conn, &meta, &rows, &defs)
        .await
        .unwrap();
    for k in 0..5u32 {
        let serve = served(100 + 10 * k, 1 + (k % 3) as u8, k + 1);
        history::write_events(&mut *conn, &meta, &[serve], &defs)
            .await
            .unwrap();
    }
    let outcome = RoundOutcome {
        round_key: meta.round_key.clone(),
        level_id: meta.level_id.clone(),
        level_order: 1,
        ended_at: 1,
        result: "won".into(),
        score: 160,
        stars: 3,
        ticks: 1200,
        served: 5,
        missed: 0,
        wasted: 0,
        lost_items: 0,
        longest_streak: 5,
        players: vec![(0, 0, 0, 0), (1, 40, 2, 0), (2, 40, 2, 0), (3, 20, 1, 0)],
        unlock: Some(2),
    };
    history::finish_round(&mut *conn, &meta, &outcome, &defs)
        .await
        .unwrap();
    drop(conn);
    store
}

async fn unlocked(store: &Store, session: &str) -> i64 {
    sqlx::query_scalar("SELECT unlocked FROM sessions WHERE id = ?")
        .bind(session)
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_person_who_idles_beside_three_bots_gets_no_credit_for_their_win() {
    // Given a person who never moved while three bots won level 1 with a streak of 5
    let store = won_round_beside_three_bots("idle", 0).await;
    // Then the person unlocks nothing and moves no team quest
    assert_eq!(unlocked(&store, "s-ann").await, 1, "no unlock");
    for quest in ["clean_run", "on_a_roll", "three_stars", "campaign_hero"] {
        assert_eq!(
            progress(&store, "s-ann", quest).await,
            (0, false),
            "{quest}"
        );
    }
    // and records no best stars on the level (the picker agrees with the quests)
    let best = undercooked::store::sessions::bests(&store, "s-ann")
        .await
        .unwrap();
    assert_eq!((best[0].stars, best[0].score), (0, 160), "{best:?}");
    // While the bots that did the work are credited
    assert_eq!(progress(&store, "bot-1", "clean_run").await, (5, true));
    let best = undercooked::store::sessions::bests(&store, "bot-1")
        .await
        .unwrap();
    assert_eq!(best[0].stars, 3);
    assert_eq!(progress(&store, "bot-1", "three_stars").await, (1, true));
}

#[tokio::test]
async fn a_person_who_works_beside_three_bots_shares_their_win() {
    // Given a person who chopped three boards before the bots' five serves
    let store = won_round_beside_three_bots("playing", 3).await;
    // Then the person unlocks level 2 and completes the streak quests with the team
    assert_eq!(unlocked(&store, "s-ann").await, 2);
    assert_eq!(progress(&store, "s-ann", "clean_run").await, (5, true));
    assert_eq!(progress(&store, "s-ann", "on_a_roll").await, (5, true));
    assert_eq!(progress(&store, "s-ann", "three_stars").await, (1, true));
    assert_eq!(progress(&store, "s-ann", "campaign_hero").await, (1, false));
    // and records the round's stars as her best on the level
    let best = undercooked::store::sessions::bests(&store, "s-ann")
        .await
        .unwrap();
    assert_eq!(best[0].stars, 3, "{best:?}");
}

#[tokio::test]
async fn a_cook_who_starts_work_after_the_first_serve_is_credited_from_then_on() {
    // Given a round written through the write chain, each tick in a group of its own (as a
    // quiet kitchen is): Ann chops and serves, then Bob chops, then Ann serves again. When
    // the chain folds the quests, then Ann's clean run counts both serves and Bob's the one
    // after his chop: the chain's kept credit takes work that arrives after the round was
    // first read, as a read of the history would.
    use undercooked::store::chain::{Batch, Chain, Must};
    let store = store("credit").await;
    let dir = std::env::temp_dir().join(format!(
        "undercooked-quests-{}-credit-outbox",
        std::process::id()
    ));
    let chain = Chain::start(store.clone(), dir, Arc::new(|_, _| {}))
        .await
        .unwrap();
    let m = meta();
    chain.must(Must::Begin(m.clone()));
    let pending = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for (tick, rows) in [
        (1, vec![chopped(1, 0)]),
        (2, vec![served(2, 0, 1)]),
        (3, vec![chopped(3, 1)]),
        (4, vec![served(4, 0, 2)]),
    ] {
        chain.submit(Batch {
            meta: m.clone(),
            tick,
            rows,
            pending: pending.clone(),
        });
        chain.flushed().await;
    }
    assert_eq!(progress(&store, "s-ann", "clean_run").await, (2, false));
    assert_eq!(progress(&store, "s-bob", "clean_run").await, (1, false));
}
