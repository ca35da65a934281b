//! How big a level may be: a grid past 96×96, a 49th station, a 17th cart or a cart's 65th
//! waypoint is refused at its place, so is a level whose worst frame the replay readers
//! could not read back, and a kitchen whose opening full frame is over budget is warned
//! about; every shipped level fits well inside all of them.

use crate::kitchen;
use undercooked::frame_budget::{BUDGET, lint, opening_frame_bytes, worst_frame, worst_frame_text};
use undercooked::levels::check_level_file;
use undercooked::log::frames::{FrameCompressor, FrameDecompressor, FramesError, PASSES_PER_BLOCK};
use undercooked::log::records::FORMAT_VERSION;
use undercooked::log::unframe::{MAX_FRAME_BYTES, MAX_FRAMES_INFLATED};
use undercooked::sim::Level;
use undercooked::sim::level::{MAX_CARTS, MAX_GRID_SIDE, MAX_STATIONS, MAX_WAYPOINTS};

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
        let worst = worst_frame(lv);
        eprintln!(
            "{}: {side} tiles, {stations} stations, opening frame {bytes} B, worst frame {} B, {} MB a round at most",
            lv.id,
            worst.bytes,
            worst.round_bytes() / 1_000_000
        );
        assert!(
            worst.round_bytes() * 2 <= MAX_FRAMES_INFLATED,
            "{}: {worst:?}",
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

/// A level file around `grid` with `extra` after the grid (its first row is on line 7).
fn text_with(grid: &str, extra: &str) -> String {
    format!("{}{extra}\n", text(grid))
}

/// `n` carts of two tiles each, side by side along the floor rows from row 3 of a kitchen
/// `w` wide: the attack's way of packing carts in.
fn packed_carts(w: usize, n: usize) -> String {
    let per_row = (w - 2) / 2;
    let carts: Vec<String> = (0..n)
        .map(|i| {
            let (x, y) = (1 + 2 * (i % per_row), 3 + i / per_row);
            format!("[[{x}, {y}], [{}, {y}]]", x + 1)
        })
        .collect();
    format!("[hazards]\ncarts = [{}]", carts.join(", "))
}

/// `MAX_CARTS` carts of `MAX_WAYPOINTS` waypoints each: a square wave between two rows,
/// back along a third, each cart three rows below the one before, from row 3.
fn carts_at_the_caps() -> String {
    let carts: Vec<String> = (0..MAX_CARTS)
        .map(|c| {
            let y = 3 + 3 * c;
            let mut wps = vec![(1, y)];
            let mut x = 1;
            while wps.len() < MAX_WAYPOINTS - 2 {
                let row = wps[wps.len() - 1].1;
                x += 1;
                wps.push((x, row));
                if wps.len() < MAX_WAYPOINTS - 2 {
                    wps.push((x, if row == y { y + 1 } else { y }));
                }
            }
            wps.push((x, y + 2));
            wps.push((1, y + 2));
            let wps: Vec<String> = wps.iter().map(|(x, y)| format!("[{x}, {y}]")).collect();
            format!("[{}]", wps.join(", "))
        })
        .collect();
    format!("[hazards]\ncarts = [\n{}\n]", carts.join(",\n"))
}

/// The largest level allowed: 96×96, 48 stations, `MAX_CARTS` carts of `MAX_WAYPOINTS`
/// waypoints, 16 orders open, fires on every station, spills, a rush.
fn the_level_at_the_caps() -> String {
    let grid = kitchen(MAX_GRID_SIDE, MAX_GRID_SIDE, MAX_STATIONS - 5);
    let extra = format!(
        "[orders]\nmax_orders = 16\n{}\nspill_every_s = 2\nrush_at_s = [5]\n[tuning]\nmax_fires = 64\nspill_life_s = 20",
        carts_at_the_caps()
    );
    text_with(&grid, &extra)
}

#[test]
fn the_attack_a_96_by_96_kitchen_of_1395_carts_is_refused_by_levels_check_at_cart_17() {
    let dir = std::env::temp_dir().join(format!("uc-carts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("01_big.toml");
    let level = text_with(
        &kitchen(MAX_GRID_SIDE, MAX_GRID_SIDE, 10),
        &packed_carts(MAX_GRID_SIDE, 1395),
    );
    std::fs::write(&file, &level).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .args(["levels", "check", "--seeds", "0"])
        .arg(&file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{said}");
    // The carts list is on the line after `[hazards]`; the 17th cart is its 17th entry.
    let line = level.lines().position(|l| l.starts_with("carts")).unwrap() + 1;
    let column = level
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("[[33, 3]")
        .unwrap();
    let column = level.lines().nth(line - 1).unwrap()[..column]
        .chars()
        .count()
        + 1;
    let want = format!(
        "{}:{line}:{column}: a level has at most 16 carts: this is cart 17 of 1395",
        file.display()
    );
    assert!(said.contains(&want), "want {want:?} in:\n{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cart_past_the_64th_waypoint_is_refused_at_that_waypoint() {
    let grid = kitchen(MAX_GRID_SIDE, 10, 0);
    // A loop out along row 3 and back along row 4: `n` waypoints, the last at x = n - 2.
    let cart = |n: usize| {
        let mut wps = vec!["[1, 4]".to_string()];
        wps.extend((1..n - 1).map(|x| format!("[{x}, 3]")));
        wps.push(format!("[{}, 4]", n - 2));
        text_with(&grid, &format!("[hazards]\ncarts = [[{}]]", wps.join(", ")))
    };
    let one_more = cart(MAX_WAYPOINTS + 1);
    let err = Level::parse("long.toml", &one_more).unwrap_err();
    let line = one_more
        .lines()
        .position(|l| l.starts_with("carts"))
        .unwrap()
        + 1;
    let at = one_more
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("[63, 4]")
        .unwrap()
        + 1;
    assert_eq!(
        err.to_string(),
        format!(
            "long.toml:{line}:{at}: a cart has at most 64 waypoints: this is waypoint 65 of 65"
        )
    );
    let most = cart(MAX_WAYPOINTS);
    assert!(Level::parse("long.toml", &most).is_ok());
}

#[test]
fn the_level_at_the_caps_is_accepted_and_its_worst_frame_reads_back_under_the_caps() {
    let text = the_level_at_the_caps();
    let level = check_level_file("01_big.toml", &text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        (
            level.carts.len(),
            level.carts[0].len(),
            level.grid.stations().len()
        ),
        (MAX_CARTS, MAX_WAYPOINTS, MAX_STATIONS)
    );
    let worst = worst_frame(&level);
    eprintln!(
        "the level at the caps: {worst:?}, {} B a round",
        worst.round_bytes()
    );
    assert_eq!(worst.carts.1, MAX_CARTS);
    assert_eq!(worst.stations.1, MAX_STATIONS);
    assert_eq!(worst.orders.1, 16);
    assert!(worst.spills.1 >= 10, "{worst:?}");
    assert!(worst.bytes <= MAX_FRAME_BYTES, "{worst:?}");
    assert!(worst.round_bytes() <= MAX_FRAMES_INFLATED, "{worst:?}");
    // The worst frame, as bytes: through the replay's compressor and back through the
    // reader that refuses past the caps, as many times as a round could record it.
    let frame = worst_frame_text(&level);
    assert_eq!(frame.len(), worst.bytes);
    let mut compressor = FrameCompressor::new().unwrap();
    let mut reader = FrameDecompressor::of_version(FORMAT_VERSION).unwrap();
    let (mut read, mut pass) = (0, 0);
    while pass < worst.passes {
        let block = PASSES_PER_BLOCK.min(worst.passes - pass);
        for _ in 0..block {
            compressor.push(&frame);
        }
        let bytes = compressor.cut().unwrap();
        reader
            .block_with(pass as u32, &bytes, worst.passes, |f| {
                read += f.len();
                Ok::<(), FramesError>(())
            })
            .unwrap_or_else(|e| panic!("pass {pass}: {e}"));
        pass += block;
    }
    assert_eq!(read, worst.bytes * worst.passes);
}

#[test]
fn a_played_round_never_records_a_frame_past_its_levels_worst_frame() {
    // The level at the caps with a short clock: 4 bots, the carts running, spills landing.
    let text = the_level_at_the_caps()
        .replace("target_score = 60", "target_score = 60\ntime_limit_s = 12");
    let level = check_level_file("01_big.toml", &text).unwrap();
    let worst = worst_frame(&level).bytes;
    let source = undercooked::levels::LevelSource {
        file_name: "01_big.toml".into(),
        text,
        level,
    };
    let round = undercooked::simulate::simulate(&source, 7, 4, 20).unwrap();
    let records = undercooked::log::read_replay(&round.bytes).unwrap().records;
    let frames = undercooked::log::frames::recorded(&records).unwrap();
    let largest = frames.iter().map(|f| f.len()).max().unwrap();
    eprintln!(
        "{} frames, the largest {largest} B, the worst possible {worst} B",
        frames.len()
    );
    assert!(largest <= worst, "{largest} > {worst}");
}

#[test]
fn a_level_whose_spills_would_fill_a_replay_past_its_cap_is_refused_at_spill_every_s() {
    // A spill every tick, each lying ten minutes: thousands at once on a 96×96 floor.
    let text = text_with(
        &kitchen(MAX_GRID_SIDE, MAX_GRID_SIDE, 0),
        "[hazards]\nspill_every_s = 0.05\n[tuning]\nspill_life_s = 600",
    );
    let err = check_level_file("01_big.toml", &text)
        .unwrap_err()
        .remove(0);
    let line = text
        .lines()
        .position(|l| l.starts_with("spill_every_s"))
        .unwrap()
        + 1;
    let said = err.to_string();
    assert!(
        said.starts_with(&format!("01_big.toml:{line}:1: a round here could record")),
        "{said}"
    );
    assert!(said.contains("spills at once"), "{said}");
    // The parser alone takes it (a replay of such a level still reads): the refusal is
    // the level folder's.
    assert!(Level::parse("01_big.toml", &text).is_ok());
}

#[test]
fn a_shipped_kitchen_on_an_hour_long_clock_is_refused_at_its_time_limit() {
    // Level 1's kitchen: its worst frame is small, but an hour of them at 60 a second is
    // past what the replay readers take.
    let text = text(&kitchen(11, 6, 0)).replace(
        "target_score = 60",
        "target_score = 60\ntime_limit_s = 3600",
    );
    let err = check_level_file("01_big.toml", &text)
        .unwrap_err()
        .remove(0);
    let said = err.to_string();
    assert!(
        said.starts_with("01_big.toml:5:1: a round here could record 216061 frames of up to "),
        "{said}"
    );
    assert!(
        said.ends_with(
            "past the replay readers' 256 MiB: fewer of the largest part, or a shorter time_limit_s"
        ),
        "{said}"
    );
}
