//! History you can see (docs/ROOMS.md, "History you can see"): the three `/api/history/…`
//! routes after live rounds, their refusals, and the `/history` page in Chromium.

use crate::browser;
use crate::server;

use browser::Browser;
use serde_json::Value;
use server::{TestServer, get_as, http, play, start_round, two_player_round};
use std::time::{Duration, Instant};

/// Two live rounds of the quick level in one room, Ann hosting and Bob beside her, both
/// played by bots over the socket: Ann's and Bob's tokens, once both rounds are in the
/// history.
async fn two_rounds(server: &TestServer) -> (String, String) {
    let (_, host, guest, mut a, mut b) = two_player_round(server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    for round in 0..2 {
        if round > 0 {
            // Back to the lobby from the results, then the same level again.
            a.send(serde_json::json!({"type": "to_lobby"})).await;
            start_round(&mut a, &mut [&mut b], "01_quick_soup").await;
        }
        let (ta, tb) = (
            tokio::spawn(play(a, 0, level.clone())),
            tokio::spawn(play(b, 1, level.clone())),
        );
        a = ta.await.unwrap();
        b = tb.await.unwrap();
    }
    // The results reach the database a moment after the round (the write chain).
    let start = Instant::now();
    loop {
        let (status, v) = get_as(server.addr, "/api/history/me", &host).await;
        if status == 200 && v["rounds"].as_array().is_some_and(|r| r.len() == 2) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{status} {v}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    (host, guest)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_routes_answer_your_rounds_and_each_levels_best_teams() {
    let mut server = server::start(server::ROOMY).await;
    let (ann, bob) = two_rounds(&server).await;

    // Your rounds: newest first, with the level, result, stars, the clock and what you served.
    let (_, mine) = get_as(server.addr, "/api/history/me", &ann).await;
    let rounds = mine["rounds"].as_array().unwrap();
    assert_eq!(
        (mine["page"].as_u64(), mine["more"].as_bool()),
        (Some(0), Some(false))
    );
    assert!(rounds[0]["started_at"].as_i64() >= rounds[1]["started_at"].as_i64());
    for r in rounds {
        assert_eq!(r["level_id"], "01_quick_soup");
        assert_eq!(r["level_name"], server.level("01_quick_soup").name.as_str());
        assert_eq!(r["seat"], 0);
        assert!(matches!(r["result"].as_str(), Some("won" | "lost")), "{r}");
        let left = r["time_left_s"].as_i64().unwrap();
        assert_eq!(
            left + r["time_used_s"].as_i64().unwrap(),
            40,
            "one clock: {r}"
        );
        let served: i64 = r["served"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["count"].as_i64().unwrap())
            .sum();
        assert_eq!(served, r["dishes"].as_i64().unwrap(), "{r}");
        assert!(!r.to_string().contains(&ann), "no token in an answer");
    }
    // Bob's rounds are his own seat's.
    let (_, his) = get_as(server.addr, "/api/history/me", &bob).await;
    assert!(
        his["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["seat"] == 1)
    );

    // The level's board: both rounds, ranked, each with its team.
    let (status, board) = http(
        server.addr,
        "GET",
        "/api/history/levels/01_quick_soup",
        None,
        &[],
    )
    .await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["by"], "score");
    let rows = board["rounds"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["rank"], 1);
    assert!(rows[0]["score"].as_i64() >= rows[1]["score"].as_i64());
    let team: Vec<&str> = rows[0]["team"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(team, ["Ann", "Bob"]);
    assert_eq!(rows[0]["team"][0]["bot"], false);
    // By time left: the won rounds only, the most time left first.
    let (_, quick) = http(
        server.addr,
        "GET",
        "/api/history/levels/01_quick_soup?by=time",
        None,
        &[],
    )
    .await;
    let quick = quick["rounds"].as_array().unwrap().clone();
    let won = rows.iter().filter(|r| r["result"] == "won").count();
    assert_eq!(quick.len(), won);
    for w in quick.windows(2) {
        assert!(w[0]["time_left_s"].as_i64() >= w[1]["time_left_s"].as_i64());
    }
    // Your scores on the level, oldest first, for the plot.
    let (_, plot) = get_as(server.addr, "/api/history/me/levels/01_quick_soup", &ann).await;
    assert_eq!(plot["target"], 30);
    let points = plot["rounds"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert!(points[0]["started_at"].as_i64() <= points[1]["started_at"].as_i64());

    // Refusals name what is wrong.
    let refused: [(&str, Option<&str>, u16, &str); 7] = [
        (
            "/api/history/levels/01_quick_soup?by=fast",
            None,
            400,
            "by must be score or time",
        ),
        (
            "/api/history/levels/01_quick_soup?page=-1",
            None,
            400,
            "page must be a whole number",
        ),
        (
            "/api/history/me?page=100",
            Some(ann.as_str()),
            400,
            "from 0 to 99",
        ),
        ("/api/history/levels/nope", None, 404, "no level \"nope\""),
        (
            "/api/history/me/levels/nope",
            Some(ann.as_str()),
            404,
            "no level \"nope\"",
        ),
        ("/api/history/me", None, 401, "Authorization: Bearer"),
        (
            "/api/history/me",
            Some("not-a-token-anyone-holds"),
            404,
            "no session",
        ),
    ];
    for (path, token, status, says) in refused {
        let (got, body) = match token {
            Some(t) => get_as(server.addr, path, t).await,
            None => http(server.addr, "GET", path, None, &[]).await,
        };
        assert_eq!(got, status, "{path}: {body}");
        assert!(
            body["msg"].as_str().is_some_and(|m| m.contains(says)),
            "{path}: {body}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_page_draws_the_leaderboard_your_rounds_and_a_plot() {
    if !browser::available() {
        return;
    }
    let axe_src = crate::e2e::axe_source();
    let mut server = server::start(server::ROOMY).await;
    let (ann, _) = two_rounds(&server).await;
    let b = Browser::open(&format!("http://{}", server.addr), 1280, 1300).await;
    b.goto("/").await;
    b.wait_screen("home", 10).await;
    // This browser holds Ann's session, as if she had played here.
    b.eval(&format!(
        "(localStorage.setItem('uc.token', {}), 1)",
        Value::from(ann.as_str())
    ))
    .await;
    b.click("History").await;
    b.wait_screen("history", 10).await;
    assert_eq!(
        b.eval("document.activeElement.tagName").await,
        "H1",
        "focus on the new screen's heading"
    );
    b.wait_until("document.querySelectorAll('#board-score tbody tr').length === 2 && document.querySelectorAll('#my-rounds tbody tr').length === 2 && document.querySelector('#trend svg')", 10)
        .await;
    assert_eq!(
        b.eval("document.getElementById('app').textContent.includes('null')")
            .await,
        false,
        "nothing says null"
    );
    let top = b.text("#board-score tbody tr").await;
    assert!(top.starts_with("1") && top.contains("Ann, Bob"), "{top}");
    let mine = b.text("#my-rounds tbody tr").await;
    assert!(
        mine.contains("Quick Soup") || mine.contains("01_quick_soup"),
        "{mine}"
    );
    assert!(mine.contains("won") || mine.contains("lost"), "{mine}");
    // The plot: one mark per round, and a sentence for a screen reader.
    assert_eq!(
        b.eval("document.querySelectorAll('#trend svg [data-score]').length")
            .await,
        2
    );
    let said = b
        .eval("document.querySelector('#trend svg').getAttribute('aria-label')")
        .await;
    assert!(
        said.as_str()
            .unwrap_or_default()
            .contains("over your last 2 rounds"),
        "{said}"
    );
    // Keyboard: Tab from the heading reaches the level picker and the Home button.
    let mut reached = Vec::new();
    for _ in 0..12 {
        b.hold_key('\u{E004}', 20).await;
        reached.push(
            b.eval("document.activeElement.id || document.activeElement.textContent")
                .await,
        );
    }
    assert!(reached.iter().any(|v| v == "history-level"), "{reached:?}");
    assert!(reached.iter().any(|v| v == "Home"), "{reached:?}");
    crate::e2e::assert_axe(&b, &axe_src, "history").await;
    let shot = b.screenshot("history").await;
    eprintln!("history page: {}", shot.display());
    let errors = b.page_errors().await;
    assert!(errors.is_empty(), "uncaught page errors: {errors:?}");
    b.close().await;
    server.stop().await;
}
