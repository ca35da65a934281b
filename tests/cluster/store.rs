//! The history on PostgreSQL, given / when / then: a live round lands in it whole, a
//! reindex writes the same rows as on SQLite, and two nodes folding one player's quests at
//! once lose no increment and report the completion once.

use crate::postgres;
use crate::server;
use std::sync::Arc;
use std::time::Duration;
use undercooked::store::rows::{EventRow, RoundMeta, SeatRow};
use undercooked::store::{Pool, Store, history, quests, reindex};

fn pg(store: &Store) -> sqlx::PgPool {
    match &store.pool {
        Pool::Postgres(p) => p.clone(),
        Pool::Sqlite(_) => panic!("a PostgreSQL store"),
    }
}

/// What a history holds that both engines must agree on: each round's figures, the seats,
/// the events per round and kind, and every quest's progress (the paths and dates aside).
type Rounds = Vec<(String, Option<String>, i64, i64, i64, i64, i64)>;
type Seats = Vec<(String, i64, String, i64, i64)>;
type Events = Vec<(String, String, i64)>;
type Progress = Vec<(String, String, i64, bool)>;

const ROUNDS: &str =
    "SELECT round_key, result, score, stars, ticks, served, missed FROM rounds ORDER BY round_key";
const SEATS: &str = "SELECT round_key, seat, session_id, score, dishes_served FROM round_players ORDER BY round_key, seat";
const EVENTS: &str = "SELECT round_key, kind, COUNT(*) FROM events GROUP BY round_key, kind ORDER BY round_key, kind";
const PROGRESS: &str = "SELECT session_id, quest_id, progress, completed_at IS NOT NULL FROM quest_progress ORDER BY session_id, quest_id";

async fn pg_contents(p: &sqlx::PgPool) -> (Rounds, Seats, Events, Progress) {
    (
        sqlx::query_as(ROUNDS).fetch_all(p).await.expect("rounds"),
        sqlx::query_as(SEATS).fetch_all(p).await.expect("seats"),
        sqlx::query_as(EVENTS).fetch_all(p).await.expect("events"),
        sqlx::query_as(PROGRESS)
            .fetch_all(p)
            .await
            .expect("progress"),
    )
}

async fn sqlite_contents(p: &sqlx::SqlitePool) -> (Rounds, Seats, Events, Progress) {
    (
        sqlx::query_as(ROUNDS).fetch_all(p).await.expect("rounds"),
        sqlx::query_as(SEATS).fetch_all(p).await.expect("seats"),
        sqlx::query_as(EVENTS).fetch_all(p).await.expect("events"),
        sqlx::query_as(PROGRESS)
            .fetch_all(p)
            .await
            .expect("progress"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_played_on_postgres_is_in_its_history_and_reindexes_as_on_sqlite() {
    if !postgres::available() {
        return;
    }
    // Given a server whose history is a PostgreSQL database,
    let url = postgres::database();
    let mut server = server::start(&[("UNDERCOOKED_DB", &url)]).await;
    let live = pg(server.shared.store().expect("the history is attached"));
    // when two cooks play a round to its end,
    let code = server::played_round(&server).await;
    // then the round, its seats, its events and its result are in PostgreSQL.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let contents = loop {
        let c = pg_contents(&live).await;
        if c.0.iter().any(|r| r.1.is_some()) || std::time::Instant::now() > deadline {
            break c;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (rounds, seats, events, _) = &contents;
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert!(rounds[0].0.starts_with(&code), "{rounds:?}");
    assert_eq!(rounds[0].1.as_deref(), Some("won"), "{rounds:?}");
    assert_eq!(seats.len(), 2, "{seats:?}");
    assert!(
        events.iter().any(|(_, kind, n)| kind == "served" && *n > 0),
        "{events:?}"
    );
    let sessions: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE hash_scheme = 2")
        .fetch_one(&live)
        .await
        .expect("sessions");
    assert_eq!(sessions, 2, "both players' sessions, under the keyed hash");
    server.stop().await;

    // When its replay is reindexed into a fresh PostgreSQL database and a fresh SQLite one,
    let replays = server.data.join("replays");
    let fresh = Store::open(&postgres::database()).await.expect("open pg");
    let on_pg = reindex::reindex(&fresh, &replays, undercooked::verify::refusal, |_, _| {})
        .await
        .expect("reindex into PostgreSQL");
    let lite_dir = server.data.join("lite");
    std::fs::create_dir_all(&lite_dir).expect("a folder");
    let lite = Store::open(&format!("sqlite://{}", lite_dir.join("h.db").display()))
        .await
        .expect("open sqlite");
    let on_lite = reindex::reindex(&lite, &replays, undercooked::verify::refusal, |_, _| {})
        .await
        .expect("reindex into SQLite");
    // then both write the same rows, and the same as the live round wrote.
    assert_eq!((on_pg.rounds, on_pg.events_new), (1, on_lite.events_new));
    let (pg_rows, lite_rows) = (
        pg_contents(&pg(&fresh)).await,
        sqlite_contents(&lite.sqlite().expect("SQLite")).await,
    );
    assert_eq!(pg_rows, lite_rows, "PostgreSQL and SQLite agree");
    assert_eq!(
        (&pg_rows.0, &pg_rows.1, &pg_rows.2),
        (&contents.0, &contents.1, &contents.2),
        "the reindex agrees with what the live round wrote"
    );
    // And a second reindex changes nothing.
    let again = reindex::reindex(&fresh, &replays, undercooked::verify::refusal, |_, _| {})
        .await
        .expect("reindex again");
    assert_eq!(again.events_new, 0);
    assert_eq!(pg_contents(&pg(&fresh)).await, pg_rows);
}

fn round(room: &str, session: &str) -> Arc<RoundMeta> {
    Arc::new(RoundMeta {
        round_key: format!("{room}-1-0"),
        room_code: room.into(),
        round_no: 1,
        level_id: "01_first_kitchen".into(),
        seed: 1,
        replay_path: String::new(),
        started_at: 0,
        target: 150,
        tick_hz: 20,
        identity: None,
        seats: vec![SeatRow {
            seat: 0,
            session_id: session.into(),
            name: "Ann".into(),
            color: "#e4572e".into(),
        }],
    })
}

fn event(tick: u32, kind: &'static str) -> EventRow {
    EventRow {
        tick,
        n: 0,
        kind,
        seat: Some(0),
        x: 1.0,
        y: 1.0,
        payload: "{}".into(),
        recipe: (kind == "served").then_some("tomato_soup"),
        stk: (kind == "served").then_some(tick),
    }
}

/// One node's round for `session`: five plates washed, in one transaction (as the write
/// chain writes a group); how many `dish_duty` completions it reported.
async fn five_washes(store: &Store, meta: &RoundMeta, barrier: &tokio::sync::Barrier) -> usize {
    let p = pg(store);
    let mut tx = p.begin().await.expect("begin");
    let defs = quests::load(&mut *tx).await.expect("quests");
    history::begin_round(&mut *tx, meta).await.expect("round");
    let rows: Vec<EventRow> = (1..6).map(|t| event(t, "washed")).collect();
    barrier.wait().await;
    let (_, done) = history::write_events(&mut *tx, meta, &rows, &defs)
        .await
        .expect("events");
    // Held open a moment, as a busy group is: the other node's fold runs meanwhile.
    tokio::time::sleep(Duration::from_millis(50)).await;
    tx.commit().await.expect("commit");
    done.iter().filter(|c| c.quest_id == "dish_duty").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_nodes_finishing_rounds_for_one_player_at_once_lose_no_increment() {
    if !postgres::available() {
        return;
    }
    // Given two nodes (two stores, two pools) on one database,
    let url = postgres::database();
    let a = Store::open(&url).await.expect("node A");
    let b = Store::open(&url).await.expect("node B");
    for i in 0..12 {
        // when each writes a round of five washed plates for the same player at once,
        let session = format!("s-racer-{i}");
        let (ra, rb) = (
            round(&format!("A{i}"), &session),
            round(&format!("B{i}"), &session),
        );
        // (a returning player, half the time: rows already there, which a node must lock
        // before it reads them; a new one's rows are made by the first node)
        if i % 2 == 0 {
            sqlx::query(
                "INSERT INTO quest_progress (session_id, quest_id, progress) VALUES ($1, 'dish_duty', 0)",
            )
            .bind(&session)
            .execute(&pg(&a))
            .await
            .expect("a returning player's rows");
        }
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        let (x, y) = {
            let (a, b, b1, b2) = (a.clone(), b.clone(), barrier.clone(), barrier.clone());
            let ta = tokio::spawn(async move { five_washes(&a, &ra, &b1).await });
            let tb = tokio::spawn(async move { five_washes(&b, &rb, &b2).await });
            (ta.await.expect("A"), tb.await.expect("B"))
        };
        // then the progress is the sum (`dish_duty` wants ten plates) and its completion
        // is reported once, by one of them.
        let (progress, done): (i64, bool) = sqlx::query_as(
            "SELECT progress, completed_at IS NOT NULL FROM quest_progress WHERE session_id = $1 AND quest_id = 'dish_duty'",
        )
        .bind(&session)
        .fetch_one(&pg(&a))
        .await
        .expect("progress");
        assert_eq!((progress, done), (10, true), "round {i}");
        assert_eq!(x + y, 1, "round {i}: completion reported once ({x} + {y})");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgresql_stopped_mid_round_the_round_plays_on_and_the_history_catches_up() {
    if !postgres::available() {
        return;
    }
    // Given a node on a PostgreSQL of its own (this test stops it),
    let pg_server = postgres::Cluster::start_new();
    let url = pg_server.database();
    let mut server = server::start(&[("UNDERCOOKED_DB", &url)]).await;
    let (code, _, _, a, b) = server::two_player_round(&server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let seats = [
        tokio::spawn(server::play(a, 0, level.clone())),
        tokio::spawn(server::play(b, 1, level)),
    ];
    // when PostgreSQL stops while the round plays,
    tokio::time::sleep(Duration::from_millis(300)).await;
    pg_server.stop();
    // then the round plays to its end all the same, and /healthz says the storage is degraded;
    for s in seats {
        s.await.expect("a seat plays to the end");
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
        if health["storage"] == "degraded" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never degraded: {health}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // when it comes back, the history catches up: the round is there with its result,
    pg_server.start();
    let live = pg(server.shared.store().expect("the history"));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let result = loop {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT result FROM rounds WHERE room_code = $1")
                .bind(&code)
                .fetch_optional(&live)
                .await
                .unwrap_or(None);
        if let Some((Some(result),)) = row {
            break result;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the round never reached the history"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(result, "won");
    let events: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE round_key LIKE $1 || '-%'")
            .bind(&code)
            .fetch_one(&live)
            .await
            .expect("events");
    assert!(events > 0, "the round's events too");
    // /healthz is ok again, and the node's lease is live again (its rooms are listed).
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (_, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
        let live_lease: Option<(i64,)> =
            sqlx::query_as("SELECT 1::BIGINT FROM nodes WHERE lease_until > now()")
                .fetch_optional(&live)
                .await
                .unwrap_or(None);
        if health["storage"] == "ok" && live_lease.is_some() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not ok again: {health}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_bulk_insert_says_which_rows_were_new_as_sqlite_does() {
    if !postgres::available() {
        return;
    }
    // Given two rounds on PostgreSQL (whose insert binds arrays, unlike SQLite's),
    let store = Store::open(&postgres::database())
        .await
        .expect("a PostgreSQL store");
    let mut conn = pg(&store).acquire().await.expect("a connection");
    let (a, b) = (round("BULKA", "s-a"), round("BULKB", "s-b"));
    history::begin_round(&mut *conn, &a).await.expect("round a");
    history::begin_round(&mut *conn, &b).await.expect("round b");
    // when one insert carries rows of both and a row twice, then each is new once;
    let (a1, a2, b1) = (
        event(10, "served"),
        event(11, "missed"),
        event(10, "chopped"),
    );
    let rows = [(&*a, &a1), (&*a, &a2), (&*b, &b1), (&*a, &a1)];
    let fresh = history::insert_events(&mut *conn, &rows)
        .await
        .expect("insert");
    assert_eq!(fresh, [true, true, true, false]);
    let again = history::insert_events(&mut *conn, &rows[..3])
        .await
        .expect("insert again");
    assert_eq!(again, [false, false, false]);
    // and a run longer than one statement (5,000 rows) then with one more: only it is new.
    let many: Vec<EventRow> = (100..5100).map(|t| event(t, "missed")).collect();
    let mut rows: Vec<(&RoundMeta, &EventRow)> = many.iter().map(|r| (&*b, r)).collect();
    let fresh = history::insert_events(&mut *conn, &rows)
        .await
        .expect("insert many");
    assert!(fresh.iter().all(|new| *new));
    let one_more = event(5100, "missed");
    rows.push((&*b, &one_more));
    let fresh = history::insert_events(&mut *conn, &rows)
        .await
        .expect("insert one more");
    assert_eq!(fresh.iter().filter(|new| **new).count(), 1);
    assert_eq!(fresh.last(), Some(&true));
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM events")
        .fetch_one(&mut *conn)
        .await
        .expect("count");
    assert_eq!(count, 3 + 5001);
    // The NULLs survive the arrays: a row without a cook or a recipe keeps them NULL.
    let (nulls,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM events WHERE kind = 'missed' AND recipe IS NULL AND seat = 0",
    )
    .fetch_one(&mut *conn)
    .await
    .expect("nulls");
    assert_eq!(nulls, 5002);
}
