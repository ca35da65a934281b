//! A levels folder with a broken file: the server serves the good levels and names the
//! broken one (in `/api/levels`), instead of refusing them all.

use crate::server;

#[tokio::test]
async fn a_broken_level_file_is_named_and_the_good_levels_are_served() {
    // Given a folder with the two test levels and a file that is not a level
    let dir = std::env::temp_dir().join(format!("undercooked-served-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/levels");
    for f in ["01_quick_soup.toml", "02_slow_soup.toml"] {
        std::fs::copy(fixtures.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("03_typo.toml"),
        "id = \"03_typo\"\norder = 3\nname = \"Typo\"\ntarget_score = 10\nrecipes = [\"tomato_soop\"]\ngrid = \"\"\"\n###\n#Z#\n###\n\"\"\"\n",
    )
    .unwrap();
    // When the server starts on it
    let s = server::start_levels(&dir, &[]).await;
    let (status, v) = server::http(s.addr, "GET", "/api/levels", None, &[]).await;
    // Then the good levels are offered and the broken file is named with its reasons
    assert_eq!(status, 200);
    let ids: Vec<&str> = v["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["01_quick_soup", "02_slow_soup"]);
    // (levels nobody measured alone say nothing of needing a team)
    assert_eq!(v["levels"][0]["needs_team"], serde_json::Value::Null);
    assert_eq!(v["levels"][0]["alone"], serde_json::Value::Null);
    assert_eq!(v["broken"][0]["file"], "03_typo.toml");
    let errors: Vec<&str> = v["broken"][0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("03_typo.toml:5:") && e.contains("tomato_soop")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("03_typo.toml:8:") && e.contains("'Z'")),
        "{errors:?}"
    );
    assert!(
        !errors.iter().any(|e| e.contains(&*dir.to_string_lossy())),
        "no server path in the public API: {errors:?}"
    );
}

#[tokio::test]
async fn the_level_list_gives_weights_hazards_and_star_times() {
    // Given the shipped campaign
    let s = server::start_campaign(&[]).await;
    // When the level list is asked for
    let (status, v) = server::http(s.addr, "GET", "/api/levels", None, &[]).await;
    assert_eq!(status, 200);
    for served in v["levels"].as_array().unwrap() {
        let id = served["id"].as_str().unwrap();
        let level = s.level(id);
        // Then each recipe's weight is how often it stands in the level's list
        let weights: Vec<(String, usize)> = served["recipe_weights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w["id"].as_str().unwrap().to_string(),
                    w["weight"].as_u64().unwrap() as usize,
                )
            })
            .collect();
        assert_eq!(
            weights.iter().map(|w| w.1).sum::<usize>(),
            level.recipes.len(),
            "{id}: {weights:?}"
        );
        for (rid, n) in &weights {
            let count = level
                .recipes
                .iter()
                .filter(|r| r.id() == rid.as_str())
                .count();
            assert_eq!(*n, count, "{id}: {rid}");
        }
        // The hazards the level has, and only those
        let kinds: Vec<&str> = served["hazards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds.contains(&"spills"), level.spill_every_s > 0.0, "{id}");
        assert_eq!(kinds.contains(&"rush"), !level.rush_at_s.is_empty(), "{id}");
        assert_eq!(kinds.contains(&"carts"), !level.carts.is_empty(), "{id}");
        // And ★3 needs half the clock left, ★2 a quarter
        let limit = level.time_limit_s;
        assert_eq!(served["stars"][0]["stars"], 3);
        assert_eq!(
            served["stars"][0]["time_left_s"].as_f64().unwrap(),
            limit / 2.0
        );
        assert_eq!(
            served["stars"][1]["time_left_s"].as_f64().unwrap(),
            limit / 4.0
        );
    }
    let by_id = |id: &str| {
        v["levels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .cloned()
            .unwrap()
    };
    // A repeated recipe keeps its weight: salad stands twice on level 2
    let two = by_id("02_chop_and_salad");
    let salad = two["recipe_weights"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == "salad")
        .cloned()
        .unwrap();
    assert_eq!(salad["weight"], 2, "{two}");
    // One good player alone wins level 1 and none of level 2 (`levels::alone`): the
    // picker's "needs a team or bots" comes from here
    let one = by_id("01_first_kitchen");
    assert_eq!(one["needs_team"], false, "{one}");
    assert_eq!(
        one["alone"],
        serde_json::json!({"won": 20, "of": 20}),
        "{one}"
    );
    assert_eq!(two["needs_team"], true, "{two}");
    assert_eq!(two["alone"]["won"], 0, "{two}");
    let fire = by_id("04_kitchen_fire");
    assert!(
        fire["hazards"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["kind"] == "fire" && h["spread_s"].as_f64().unwrap() > 0.0),
        "{fire}"
    );
}
