//! The shipped campaign, whatever levels it holds: numbered 1..N without a gap, at least
//! ten, clean of design warnings, each mechanic taught somewhere, one 64x64 hall.

use crate::kitchen;

use undercooked::sim::grid::{DIRS, StationKind};

#[test]
fn the_campaign_is_at_least_ten_levels_numbered_without_a_gap() {
    let levels = kitchen::campaign();
    let orders: Vec<u32> = levels.iter().map(|l| l.level.order).collect();
    assert!(orders.len() >= 10, "only {} campaign levels", orders.len());
    let expected: Vec<u32> = (1..=orders.len() as u32).collect();
    assert_eq!(
        orders, expected,
        "campaign orders must run 1..N in file order"
    );
    let first = &levels[0].level;
    assert_eq!(first.recipes.len(), 1, "the first level teaches one recipe");
}

#[test]
fn every_campaign_level_passes_the_design_lints() {
    // What `undercooked levels check levels/ --strict` enforces, without the sweep.
    for l in kitchen::campaign() {
        let lints = undercooked::levels::lint::lints(&l.level);
        assert!(lints.is_empty(), "{}: {lints:?}", l.level.id);
    }
}

#[test]
fn every_mechanic_is_the_headline_of_some_level() {
    let levels = kitchen::campaign();
    let any = |what: &str, f: &dyn Fn(&undercooked::sim::Level) -> bool| {
        assert!(levels.iter().any(|l| f(&l.level)), "no level about {what}");
    };
    any("salads", &|l| {
        l.recipes.iter().any(|r| r.soup_ingredient().is_none())
    });
    any("washing (one plate)", &|l| l.plates == 1);
    any("spreading fire", &|l| {
        l.tuning.burn_grace_s < 6.0
            && l.grid.stations().iter().any(|s| {
                s.kind == StationKind::Stove
                    && DIRS.iter().any(|(dx, dy)| {
                        l.grid
                            .station_index_at(s.x as i32 + dx, s.y as i32 + dy)
                            .is_some()
                    })
            })
    });
    any("spills", &|l| l.spill_every_s > 0.0);
    any("carts", &|l| !l.carts.is_empty());
    any("rushes", &|l| !l.rush_at_s.is_empty());
    any("the bin", &|l| {
        l.grid.stations().iter().any(|s| s.kind == StationKind::Bin)
    });
    any("a 64x64 hall", &|l| {
        (l.grid.width(), l.grid.height()) == (64, 64)
    });
}

#[test]
fn only_nn_name_toml_files_are_levels() {
    assert!(undercooked::levels::is_level_file("01_first_kitchen.toml"));
    assert!(!undercooked::levels::is_level_file("first_kitchen.toml"));
    assert!(!undercooked::levels::is_level_file(
        "01_first_kitchen.toml.bak"
    ));
    assert!(!undercooked::levels::is_level_file("1_x.toml"));
}

#[test]
fn a_level_whose_id_differs_from_its_file_name_is_refused() {
    let text = &kitchen::campaign()[0].text;
    let err = undercooked::levels::parse_level_file("02_other.toml", text).unwrap_err();
    assert!(
        err.message.contains("does not match the file name"),
        "{err}"
    );
    assert_eq!(err.line, 2);
}

#[test]
fn a_kitchen_one_tile_wide_with_no_branch_is_named_no_passing_room() {
    let level = |grid: &str| {
        let text = format!(
            "id = \"01_row\"\norder = 0\nname = \"Row\"\ntarget_score = 60\nrecipes = [\"tomato_soup\"]\ngrid = \"\"\"\n{grid}\n\"\"\"\n[orders]\ninterval_s = [8, 12]\n"
        );
        undercooked::levels::parse_level_file("01_row.toml", &text).unwrap()
    };
    let kinds = |grid: &str| -> Vec<&'static str> {
        undercooked::levels::lint::lints(&level(grid))
            .iter()
            .map(|l| l.kind)
            .collect()
    };
    // One row, no pocket: nobody can pass.
    let row = "##########\n#tCKKSWP##\n#1.2..3.4#\n##########";
    assert!(kinds(row).contains(&"no-passing-room"), "{:?}", kinds(row));
    // The same row with one pocket to step into: a cook can let another by.
    let pocket = "##########\n#tCKKSWP##\n#1.2..3.4#\n#####.####\n##########";
    assert!(
        !kinds(pocket).contains(&"no-passing-room"),
        "{:?}",
        kinds(pocket)
    );
}

#[test]
fn a_spawn_on_the_only_tile_beside_a_shelf_is_named_spawn_on_only_way() {
    // Given a kitchen whose lettuce shelf is used from one tile only, with spawn 1 on it
    let level = |grid: &str| {
        let text = format!(
            "id = \"01_cut\"\norder = 0\nname = \"Cut\"\ntarget_score = 60\nrecipes = [\"salad\"]\ngrid = \"\"\"\n{grid}\n\"\"\"\n[orders]\ninterval_s = [8, 12]\n"
        );
        undercooked::levels::parse_level_file("01_cut.toml", &text).unwrap()
    };
    let lints = |grid: &str| undercooked::levels::lint::lints(&level(grid));
    let cut = "#########\n#lCC.PSW#\n#1......#\n#.......#\n#t.C.234#\n#########";
    // When the level is checked, then the lint names the spawn and the shelf
    let found: Vec<_> = lints(cut)
        .into_iter()
        .filter(|l| l.kind == "spawn-on-only-way")
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("spawn 1"), "{}", found[0].message);
    assert!(
        found[0].message.contains("spawn_shelf at (1, 1)"),
        "{}",
        found[0].message
    );
    // And with spawn 1 in the open, nobody's spawn cuts a station off: no lint
    let moved = "#########\n#lCC.PSW#\n#.......#\n#...1...#\n#t.C.234#\n#########";
    assert!(
        !lints(moved).iter().any(|l| l.kind == "spawn-on-only-way"),
        "{:?}",
        lints(moved)
    );
}
