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
