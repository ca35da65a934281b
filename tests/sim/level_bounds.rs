//! How big a level may be: a grid past 96×96 or a 49th station is refused at its cell, and a
//! kitchen whose opening full frame is over budget is warned about; every shipped level
//! fits well inside all three.

use crate::kitchen;
use undercooked::frame_budget::{BUDGET, lint, opening_frame_bytes};
use undercooked::sim::Level;
use undercooked::sim::level::{MAX_GRID_SIDE, MAX_STATIONS};

/// A level file around `grid` (its first row is on line 7).
fn text(grid: &str) -> String {
    format!(
        "id = \"01_big\"\norder = 0\nname = \"Big\"\ntarget_score = 60\nrecipes = [\"tomato_soup\"]\ngrid = \"\"\"\n{}\n\"\"\"\n",
        grid.trim()
    )
}

/// A walled kitchen `w` wide: the tomato soup's stations and spawns, open floor below,
/// then a bottom row of `prep` prep stations (the rest floor), `h` rows in all.
fn kitchen(w: usize, h: usize, prep: usize) -> String {
    let inner = w - 2;
    let mut rows = vec!["#".repeat(w)];
    rows.push(format!("#tCKSW{}#", ".".repeat(inner - 5)));
    rows.push(format!("#1.2.3.4{}#", ".".repeat(inner - 7)));
    for _ in 0..h - 5 {
        rows.push(format!("#{}#", ".".repeat(inner)));
    }
    rows.push(format!(
        "#{}{}#",
        "P".repeat(prep),
        ".".repeat(inner - prep)
    ));
    rows.push("#".repeat(w));
    rows.join("\n")
}

#[test]
fn the_attack_a_128_by_128_kitchen_of_7800_stations_is_refused_at_column_97() {
    let mut grid = kitchen(128, 128, 126);
    // Fill the open floor with stations too, as the attack did.
    grid = grid.replace("#..", "#PP").replace("..", "PP");
    let err = Level::parse("big.toml", &text(&grid)).unwrap_err();
    assert_eq!((err.line, err.column), (7, MAX_GRID_SIDE + 1), "{err}");
    assert!(
        err.to_string()
            .starts_with("big.toml:7:97: grid is 128 tiles wide: a level is at most 96x96"),
        "{err}"
    );
}

#[test]
fn a_grid_one_row_too_tall_is_refused_at_that_row() {
    let ok = kitchen(20, MAX_GRID_SIDE, 0);
    assert!(Level::parse("tall.toml", &text(&ok)).is_ok());
    let tall = kitchen(20, MAX_GRID_SIDE + 1, 0);
    let err = Level::parse("tall.toml", &text(&tall)).unwrap_err();
    assert_eq!((err.line, err.column), (7 + MAX_GRID_SIDE, 1), "{err}");
    assert!(err.message.contains("97 rows tall"), "{err}");
}

#[test]
fn a_station_past_the_48th_is_refused_at_its_cell() {
    // 5 stations on the top row and 43 preps: 48, the most a level may have.
    let most = kitchen(50, 6, MAX_STATIONS - 5);
    assert!(Level::parse("most.toml", &text(&most)).is_ok());
    let over = kitchen(50, 6, MAX_STATIONS - 4);
    let err = Level::parse("over.toml", &text(&over)).unwrap_err();
    // The bottom row of stations is the grid's fifth row: line 11; the 44th prep, column 45.
    assert_eq!(
        err.to_string(),
        "over.toml:11:45: a level has at most 48 stations: this is station 49"
    );
}

#[test]
fn a_kitchen_whose_opening_frame_passes_the_budget_is_warned_at_its_grid() {
    let crowded = text(&kitchen(50, 6, MAX_STATIONS - 5));
    let level = Level::parse("01_big.toml", &crowded).unwrap();
    let bytes = opening_frame_bytes(&level);
    assert!(bytes > BUDGET, "48 stations open at {bytes} bytes");
    let warning = lint("01_big.toml", &crowded, &level).expect("over budget");
    assert!(
        warning.to_string().starts_with(&format!(
            "01_big.toml:6:1: a 4-cook round opens with a {bytes}-byte full frame, over the 3072-byte budget (48 stations"
        )),
        "{warning}"
    );
    let roomy = text(&kitchen(50, 6, 10));
    let level = Level::parse("01_big.toml", &roomy).unwrap();
    assert_eq!(lint("01_big.toml", &roomy, &level), None);
}

#[test]
fn every_shipped_level_fits_the_maxima_with_margin() {
    for l in kitchen::campaign() {
        let lv = &l.level;
        let side = lv.grid.width().max(lv.grid.height()) as usize;
        let stations = lv.grid.stations().len();
        let bytes = opening_frame_bytes(lv);
        eprintln!(
            "{}: {side} tiles, {stations} stations, opening frame {bytes} B",
            lv.id
        );
        assert!(
            side * 3 <= MAX_GRID_SIDE * 2,
            "{}: {side} tiles a side",
            lv.id
        );
        assert!(
            stations * 2 <= MAX_STATIONS,
            "{}: {stations} stations",
            lv.id
        );
        assert!(
            bytes * 3 <= BUDGET * 2,
            "{}: opening frame {bytes} B",
            lv.id
        );
        assert_eq!(lint(&l.file_name, &l.text, lv), None);
    }
}

#[test]
fn the_largest_level_allowed_has_a_layout_under_16_kb() {
    // 96×96 with 48 stations: the layout a client fetches (`GET /api/levels/{id}`) was
    // 407 KB for the attack's 128×128 of 7,800 stations.
    let most = kitchen(MAX_GRID_SIDE, MAX_GRID_SIDE, MAX_STATIONS - 5);
    let level = Level::parse("most.toml", &text(&most)).unwrap();
    let layout =
        serde_json::to_string(&undercooked::wire::layout::LevelLayout::of(&level)).unwrap();
    eprintln!("the largest level allowed: a {}-byte layout", layout.len());
    assert!(layout.len() < 16 * 1024, "{} bytes", layout.len());
}
