//! The level picker's "needs a team or bots" (issue 34) is measured, not guessed: every
//! shipped level's entry in `levels::alone::MEASURED` names the file's text as it is and the
//! rounds of seeds 11–30 the scripted person wins alone on it. A level file edited without
//! measuring it again fails here, with the line to put in the table.

use undercooked::levels::alone::{self, Alone};

#[test]
fn the_alone_table_matches_every_shipped_level_played_again() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    let levels = undercooked::levels::load_dir(&dir).expect("the campaign loads");
    let mut want = Vec::new();
    for source in levels.iter().filter(|l| l.level.order > 0) {
        want.push(Alone {
            id: Box::leak(source.level.id.clone().into_boxed_str()),
            text_xxh3: alone::text_hash(&source.text),
            won: undercooked::simulate::won_alone(source, 20),
        });
    }
    let lines: Vec<String> = want
        .iter()
        .map(|a| {
            format!(
                "    Alone {{ id: {:?}, text_xxh3: {:#018x}, won: {} }},",
                a.id, a.text_xxh3, a.won
            )
        })
        .collect();
    assert_eq!(
        alone::MEASURED,
        want.as_slice(),
        "levels::alone::MEASURED should read:\n{}",
        lines.join("\n")
    );
    // What the table says reaches the level's source.
    for source in levels.iter().filter(|l| l.level.order > 0) {
        assert!(alone::measured(source).is_some(), "{}", source.level.id);
    }
}
