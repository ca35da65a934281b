//! Level parsing: good levels, and every refusal naming its line and column.

use super::*;

const OK: &str = r#"id = "t1"
order = 0
name = "Test"
target_score = 10
recipes = ["tomato_soup"]
grid = """
#######
#t.K.S#
#1.2.W#
#3.4.C#
#######
"""
"#;

#[test]
fn a_good_level_parses_with_defaults() {
    let level = Level::parse("t1.toml", OK).unwrap();
    assert_eq!(level.time_limit_s, 150.0);
    assert_eq!(level.plates, 3);
    assert_eq!(level.max_orders, 4);
    assert_eq!(level.grid.width(), 7);
}

#[test]
fn an_unknown_letter_is_named_with_line_and_column() {
    let bad = OK.replace("#3.4.C#", "#3.4XC#");
    let err = Level::parse("x.toml", &bad).unwrap_err();
    assert_eq!((err.line, err.column), (10, 5), "{err}");
    assert!(err.message.contains("unknown grid letter 'X'"), "{err}");
    assert!(err.to_string().starts_with("x.toml:10:5:"));
}

#[test]
fn a_ragged_row_is_refused() {
    let bad = OK.replace("#1.2.W#", "#1.2.W");
    let err = Level::parse("x.toml", &bad).unwrap_err();
    assert_eq!(err.line, 9, "{err}");
    assert!(err.message.contains("ragged"));
}

#[test]
fn a_missing_spawn_is_refused() {
    let err = Level::parse("x.toml", &OK.replace('4', ".")).unwrap_err();
    assert!(err.message.contains("no spawn 4"), "{err}");
}

#[test]
fn an_unmakeable_recipe_is_refused_at_the_recipe() {
    let err = Level::parse(
        "x.toml",
        &OK.replace("[\"tomato_soup\"]", "[\"tomato_soup\", \"salad\"]"),
    )
    .unwrap_err();
    assert_eq!(err.line, 5);
    assert!(err.message.contains("no lettuce shelf"), "{err}");
}

#[test]
fn an_unreachable_station_is_refused() {
    let walled = OK
        .replace("#t.K.S#", "#t.K#S#")
        .replace("#1.2.W#", "#1.2##W");
    let err = Level::parse("x.toml", &walled.replace("#3.4.C#", "#3.4#C#")).unwrap_err();
    assert!(err.message.contains("cannot be reached"), "{err}");
}

#[test]
fn unknown_keys_and_bad_types_are_refused_with_a_position() {
    let err = Level::parse("x.toml", &OK.replace("order = 0", "order = \"one\"")).unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    let err = Level::parse("x.toml", &format!("{OK}\n[tuning]\nchop_seconds = 2\n")).unwrap_err();
    assert!(err.message.contains("chop_seconds"), "{err}");
    let err = Level::parse("x.toml", "id = ").unwrap_err();
    assert_eq!(err.line, 1);
}

#[test]
fn cart_waypoints_must_be_axis_aligned_floor_runs() {
    let diag = format!("{OK}\n[hazards]\ncarts = [[[1, 2], [2, 3]]]\n");
    assert!(
        Level::parse("x.toml", &diag)
            .unwrap_err()
            .message
            .contains("axis-aligned")
    );
    let wall = format!("{OK}\n[hazards]\ncarts = [[[1, 2], [0, 2]]]\n");
    assert!(
        Level::parse("x.toml", &wall)
            .unwrap_err()
            .message
            .contains("not a floor tile")
    );
    let good = format!("{OK}\n[hazards]\ncarts = [[[1, 2], [1, 3]]]\n");
    assert_eq!(Level::parse("x.toml", &good).unwrap().carts.len(), 1);
}
