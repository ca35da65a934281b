//! The history page's reads on SQLite (`store::boards`, `store::my_rounds`): pages that add
//! up to every round once, in the leaderboard's order, and a cook's own rounds with what it
//! served. tests/cluster/history_pages.rs asks PostgreSQL the same and compares.

use std::path::Path;
use undercooked::store::boards::{Ranking, leaderboard};
use undercooked::store::my_rounds::{rounds_of, scores_on};
use undercooked::store::{Store, reindex};

/// Bot-played rounds of the first two campaign levels, three seeds each, reindexed.
async fn history(dir: &Path) -> (Store, Vec<String>) {
    let _ = std::fs::remove_dir_all(dir);
    let replays = dir.join("replays");
    std::fs::create_dir_all(&replays).unwrap();
    let levels =
        undercooked::levels::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("levels"))
            .expect("the shipped levels load");
    let mut ids = Vec::new();
    for (i, level) in levels.into_iter().take(2).enumerate() {
        ids.push(level.level.id.clone());
        for seed in [1, 2, 3] {
            let sim = undercooked::simulate::simulate(&level, seed, 2, 20).expect("a bot round");
            std::fs::write(
                replays.join(format!("LOCAL-{i}{seed}-{seed}.ucr")),
                sim.bytes,
            )
            .unwrap();
        }
    }
    let store = Store::open(&format!("sqlite://{}", dir.join("h.db").display()))
        .await
        .unwrap();
    reindex::reindex(&store, &replays, undercooked::verify::refusal, |_, _| {})
        .await
        .expect("reindex");
    (store, ids)
}

#[tokio::test]
async fn pages_of_a_leaderboard_and_of_your_rounds_add_up_to_every_round_once() {
    let dir = std::env::temp_dir().join(format!("uc-history-pages-{}", std::process::id()));
    let (store, levels) = history(&dir).await;
    // Given three finished rounds of the first level, pages of two hold them all, best first.
    let (first, more) = leaderboard(&store, &levels[0], Ranking::Score, 0, 2)
        .await
        .unwrap();
    let (second, more2) = leaderboard(&store, &levels[0], Ranking::Score, 1, 2)
        .await
        .unwrap();
    assert_eq!(
        (first.len(), more, second.len(), more2),
        (2, true, 1, false)
    );
    let all: Vec<_> = first.iter().chain(&second).collect();
    for w in all.windows(2) {
        let key = |r: &undercooked::store::boards::TeamRound| (r.result == "won", r.score);
        assert!(
            key(w[0]) >= key(w[1]),
            "ranked by wins, then score: {all:#?}"
        );
    }
    assert_eq!(all[0].team.len(), 2);
    assert!(all[0].team.iter().all(|c| c.bot), "bot seats are marked");
    // By time left only wins count, quickest first.
    let (quick, _) = leaderboard(&store, &levels[0], Ranking::TimeLeft, 0, 10)
        .await
        .unwrap();
    assert!(quick.iter().all(|r| r.result == "won"));
    for w in quick.windows(2) {
        assert!(w[0].ticks <= w[1].ticks, "quickest first: {quick:#?}");
    }
    // A level nobody played has an empty board.
    let (none, more) = leaderboard(&store, "no_such_level", Ranking::Score, 0, 10)
        .await
        .unwrap();
    assert!(none.is_empty() && !more);

    // Seat 0's cook (`bot-0`) played all six rounds: pages of four, newest first.
    let (mine, more) = rounds_of(&store, "bot-0", 0, 4).await.unwrap();
    let (rest, more2) = rounds_of(&store, "bot-0", 1, 4).await.unwrap();
    assert_eq!((mine.len(), more, rest.len(), more2), (4, true, 2, false));
    let mut keys: Vec<_> = mine
        .iter()
        .chain(&rest)
        .map(|r| r.round_key.clone())
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 6, "every round once");
    for r in mine.iter().chain(&rest) {
        let served: i64 = r.served.iter().map(|s| s.count).sum();
        assert_eq!(
            served, r.dishes,
            "what it served adds up to its dishes: {r:#?}"
        );
        assert_eq!(r.seat, 0);
    }
    assert!(
        mine.iter().any(|r| !r.served.is_empty()),
        "bots serve something"
    );
    let (nobody, _) = rounds_of(&store, "no-such-session", 0, 4).await.unwrap();
    assert!(nobody.is_empty());

    // Its scores on the first level: three, oldest first, the latest limited.
    let points = scores_on(&store, "bot-0", &levels[0], 50).await.unwrap();
    assert_eq!(points.len(), 3);
    let last_two = scores_on(&store, "bot-0", &levels[0], 2).await.unwrap();
    assert_eq!(last_two, points[1..].to_vec());
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
