//! The history page's reads (`store::boards`, `store::my_rounds`) on PostgreSQL answer what
//! they answer on SQLite: the same bot-played rounds reindexed into both, every page of a
//! leaderboard (both rankings), of a cook's rounds, its scores on a level and its best
//! stars per level, compared whole (their order included: ties are broken by the round key
//! on both engines).

use crate::history_queries::bot_replays;
use crate::postgres;
use undercooked::store::boards::{Ranking, leaderboard};
use undercooked::store::my_rounds::{rounds_of, scores_on};
use undercooked::store::{Store, reindex};

/// Every answer the history page can get from `store`, as JSON, page by page.
async fn answers(store: &Store, levels: &[String]) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for level in levels {
        for ranking in [Ranking::Score, Ranking::TimeLeft] {
            for page in 0..3 {
                let (rows, more) = leaderboard(store, level, ranking, page, 1).await.unwrap();
                out.push(serde_json::json!({"board": rows, "more": more}));
            }
        }
        let points = scores_on(store, "bot-0", level, 50).await.unwrap();
        out.push(serde_json::json!({"scores": points}));
    }
    for page in 0..4 {
        let (rows, more) = rounds_of(store, "bot-1", page, 3).await.unwrap();
        out.push(serde_json::json!({"mine": rows, "more": more}));
    }
    // The picker's best stars, which count only rounds the seat contributed to.
    for seat in 0..4 {
        let bests = undercooked::store::sessions::bests(store, &format!("bot-{seat}"))
            .await
            .unwrap();
        let bests: Vec<_> = bests
            .iter()
            .map(|b| (b.level_id.clone(), b.stars, b.score))
            .collect();
        out.push(serde_json::json!({ "bests": bests }));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_pages_answer_on_postgresql_as_on_sqlite() {
    if !postgres::available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uc-cluster-{}-pages", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let replays = dir.join("replays");
    bot_replays(&replays);
    let levels: Vec<String> = undercooked::levels::load_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels"),
    )
    .unwrap()
    .into_iter()
    .take(4)
    .map(|l| l.level.id)
    .collect();
    let mut got = Vec::new();
    for url in [
        postgres::database(),
        format!("sqlite://{}", dir.join("history.db").display()),
    ] {
        let store = Store::open(&url).await.expect("open the history");
        reindex::reindex(&store, &replays, undercooked::verify::refusal, |_, _| {})
            .await
            .expect("reindex the bot rounds");
        got.push(answers(&store, &levels).await);
        store.close().await;
    }
    // The rounds are there (two per level, eight for each bot seat) and both engines agree.
    let sqlite = &got[1];
    assert!(
        sqlite
            .iter()
            .any(|a| a["board"].as_array().is_some_and(|r| !r.is_empty()))
    );
    assert_eq!(
        sqlite
            .iter()
            .filter_map(|a| a["mine"].as_array())
            .map(Vec::len)
            .sum::<usize>(),
        8
    );
    assert_eq!(got[0], got[1], "PostgreSQL and SQLite answer differently");
    let _ = std::fs::remove_dir_all(&dir);
}
