//! `reindex` knows a round by its header, not its file name: the same round under two names
//! is indexed once, another round under a taken key is refused, a diverged file is reported
//! and left out, and a cut file records how far its round got.

use crate::kitchen;

use undercooked::log::{Accepted, Record, ReplayWriter, read_replay};
use undercooked::store::Store;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-reindex-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("replays")).unwrap();
    dir
}

/// A round of two bots on the first level, played `ticks` ticks as live room `room` round 1
/// started at `start`, then finished (aborted when the verdict is not reached).
fn round(room: &str, start: u64, seed: u64, ticks: u32) -> Vec<u8> {
    played(room, start, seed, ticks, &[0, 1], |_| None)
}

/// A round of two seats on the first level as `round` plays it, with bots in `bots` and,
/// each tick `t`, whatever `other(t)` gives appended after them.
fn played(
    room: &str,
    start: u64,
    seed: u64,
    ticks: u32,
    bots: &[u8],
    other: impl Fn(u32) -> Option<Accepted>,
) -> Vec<u8> {
    let level = kitchen::campaign().into_iter().next().unwrap();
    let mut header = undercooked::simulate::bot_header(&level, seed, 2, 20);
    header.room_code = room.into();
    header.started_unix_s = start;
    let (mut round, _) = undercooked::round::Round::start(header, Vec::new()).unwrap();
    let mut team = undercooked::bots::BotTeam::new(&level.level, 20, bots);
    for t in 0..ticks {
        let view = undercooked::wire::project(&round.fold().state, &round.fold().rules);
        for i in team.decide(&view) {
            round.append(Accepted::from(i)).unwrap();
        }
        if let Some(a) = other(t) {
            round.append(a).unwrap();
        }
        round.close_tick().unwrap();
    }
    round.finish().unwrap().0
}

async fn store(dir: &std::path::Path) -> Store {
    Store::open(&format!("sqlite://{}", dir.join("h.db").display()))
        .await
        .unwrap()
}

async fn count(store: &Store, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap()
}

#[tokio::test]
async fn one_round_under_two_names_is_indexed_once() {
    let dir = scratch("twice");
    let bytes = round("ABCDE", 1_790_000_000, 1, 600);
    std::fs::write(dir.join("replays/ABCDE-1-1790000000.ucr"), &bytes).unwrap();
    std::fs::write(dir.join("replays/a-copy-with-another-name.ucr"), &bytes).unwrap();
    let store = store(&dir).await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(report.clashes, vec![], "{report:?}");
    assert_eq!(count(&store, "SELECT COUNT(*) FROM rounds").await, 1);
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM rounds WHERE round_key = 'ABCDE-1-1790000000'"
        )
        .await,
        1
    );
    let events = count(&store, "SELECT COUNT(*) FROM events").await;
    assert!(events > 0);
    assert_eq!(report.events_new as i64, events, "the copy added nothing");
}

#[tokio::test]
async fn another_round_under_a_taken_key_is_refused_and_changes_nothing() {
    let dir = scratch("clash");
    // Same room, round and start; another seed: another round.
    std::fs::write(
        dir.join("replays/1-first.ucr"),
        round("ABCDE", 1_790_000_000, 1, 400),
    )
    .unwrap();
    std::fs::write(
        dir.join("replays/2-impostor.ucr"),
        round("ABCDE", 1_790_000_000, 2, 400),
    )
    .unwrap();
    let store = store(&dir).await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(report.rounds, 1, "{report:?}");
    assert_eq!(report.clashes.len(), 1, "{report:?}");
    assert!(report.clashes[0].0.ends_with("2-impostor.ucr"));
    assert!(
        report.clashes[0]
            .1
            .contains("already in the history as another round")
    );
    let seed: String = sqlx::query_scalar("SELECT seed FROM rounds")
        .fetch_one(&store.sqlite().expect("a SQLite store"))
        .await
        .unwrap();
    assert_eq!(seed, "1", "the first round's row is untouched");
}

#[tokio::test]
async fn a_diverged_file_is_reported_and_not_indexed() {
    let dir = scratch("diverged");
    let bytes = round("ABCDE", 1_790_000_000, 3, 300);
    let mut records = read_replay(&bytes).unwrap().records;
    let at = records
        .iter()
        .position(|r| matches!(r, Record::InputAccepted { tick, .. } if *tick > 40))
        .unwrap();
    if let Record::InputAccepted { mv, .. } = &mut records[at] {
        *mv = if *mv == (1000, 0) {
            (-1000, 0)
        } else {
            (1000, 0)
        };
    }
    let mut w = ReplayWriter::new(Vec::new()).unwrap();
    for r in &records {
        w.append(r).unwrap();
    }
    std::fs::write(dir.join("replays/tampered.ucr"), w.into_inner()).unwrap();
    let store = store(&dir).await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(report.rounds, 0, "{report:?}");
    assert_eq!(report.diverged.len(), 1, "{report:?}");
    assert!(report.diverged[0].1.contains("diverged at tick"));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM rounds").await, 0);
}

#[tokio::test]
async fn a_cut_file_records_the_ticks_and_score_it_reached() {
    let dir = scratch("cut");
    // 780 ticks: two bots win level 1 (a target of 130) on this seed at tick 818.
    let whole = round("ABCDE", 1_790_000_000, 4, 780);
    // Cut well before its end (the tail torn mid-record).
    let cut = &whole[..whole.len() * 3 / 4];
    std::fs::write(dir.join("replays/cut.ucr"), cut).unwrap();
    let rerun = undercooked::verify::replay_bytes(cut);
    let fold = rerun.fold.unwrap();
    let reached = undercooked::sim::RoundSummary::of(&fold.state, &fold.rules);
    assert!(reached.score > 0, "the bots scored before the cut");
    let store = store(&dir).await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(report.incomplete, 1, "{report:?}");
    let (result, ticks, score): (Option<String>, i64, i64) =
        sqlx::query_as("SELECT result, ticks, score FROM rounds")
            .fetch_one(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    assert_eq!(result, None);
    assert_eq!(ticks as u32, reached.ticks);
    assert_eq!(score as u32, reached.score);
}

#[tokio::test]
async fn a_denied_press_stays_in_the_replay_but_is_not_a_history_row() {
    // Given a round where one bot plays and seat 1 stands at its spawn pressing every
    // half second, most presses doing nothing.
    let dir = scratch("denied");
    let bytes = played("DENYD", 1_790_000_000, 5, 600, &[0], |t| {
        Some(Accepted::Input {
            seat: 1,
            seq: t as u64 + 1,
            mv: (0, 0),
            act: t % 10 == 0,
            face: None,
        })
    });
    std::fs::write(dir.join("replays/DENYD-1-1790000000.ucr"), &bytes).unwrap();
    // Every event of the replay, by (tick, place in the tick).
    let records = read_replay(&bytes).unwrap().records;
    let Record::Started(h) = &records[0] else {
        panic!()
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let (mut all, mut events) = (Vec::new(), Vec::new());
    for r in &records[1..] {
        let tick = fold.state.tick;
        if let Ok(undercooked::log::Applied::Stepped { .. }) = fold.apply(r, &mut events) {
            for (n, e) in events.drain(..).enumerate() {
                all.push((tick as i64, n as i64, e.kind.name().to_string()));
            }
        }
    }
    let denied = all.iter().filter(|e| e.2 == "denied").count();
    assert!(
        denied > 20,
        "the presses were denied in the replay: {denied}"
    );
    // When the history is built from it,
    let store = store(&dir).await;
    let report = kitchen::reindex(&store, &dir.join("replays")).await;
    assert_eq!(report.rounds, 1, "{report:?}");
    // then every other event is a row, at its place among all the tick's events, and no
    // denied press is.
    let rows: Vec<(i64, i64, String)> =
        sqlx::query_as("SELECT tick, n, kind FROM events ORDER BY tick, n")
            .fetch_all(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    let kept: Vec<_> = all.into_iter().filter(|e| e.2 != "denied").collect();
    assert!(!kept.is_empty());
    assert_eq!(rows, kept);
}
