//! The binary as a user runs it: `simulate`, `replay`, `verify` and their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "cli/replay_attacks.rs"]
mod replay_attacks;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_undercooked"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("UNDERCOOKED_LEVELS_DIR");
    c
}

/// How many golden replays `replays/` holds (one per campaign level).
fn goldens() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("replays"))
        .unwrap()
        .filter(|f| {
            f.as_ref()
                .is_ok_and(|f| f.path().extension().is_some_and(|e| e == "ucr"))
        })
        .count()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("undercooked-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into(),
        String::from_utf8_lossy(&stderr).into(),
    )
}

fn simulate(out: &Path, seed: u64) {
    let (code, stdout, stderr) = run(bin()
        .args([
            "simulate",
            "--level",
            "01_first_kitchen",
            "--seed",
            &seed.to_string(),
            "--bots",
            "2",
            "--out",
        ])
        .arg(out));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("01_first_kitchen: won"), "{stdout}");
}

#[test]
fn simulate_writes_the_same_bytes_for_the_same_arguments_and_replay_tells_the_round() {
    let (a, b) = (tmp("a.ucr"), tmp("b.ucr"));
    simulate(&a, 4);
    simulate(&b, 4);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (code, stdout, _) = run(bin().arg("replay").arg(&a));
    assert_eq!(code, 0);
    for want in [
        "level    01_first_kitchen",
        "seed     4",
        "result   won",
        "stars",
        "counters served",
        "verify   identical",
    ] {
        assert!(stdout.contains(want), "{want:?} missing from:\n{stdout}");
    }
    let (code, stdout, _) = run(bin().args(["replay", "--json"]).arg(&a));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["result"], "won");
    let (code, stdout, _) = run(bin().args(["replay", "--frames"]).arg(&a));
    assert_eq!(code, 0);
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["full"], true);
    assert_eq!(first["t"], 0);
}

#[test]
fn verify_exit_codes_name_each_file_and_the_worst_wins() {
    let good = tmp("good.ucr");
    simulate(&good, 6);
    let bytes = std::fs::read(&good).unwrap();
    let cut = tmp("cut.ucr");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let foreign = tmp("foreign.ucr");
    std::fs::write(&foreign, b"this is not a replay").unwrap();

    assert_eq!(run(bin().arg("verify").arg(&good)).0, 0);
    let (code, stdout, _) = run(bin().arg("verify").arg(&cut));
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("cut.ucr: INCOMPLETE"), "{stdout}");
    let (code, stdout, _) = run(bin().arg("verify").arg(&foreign));
    assert_eq!(code, 2);
    assert!(
        stdout.contains("foreign.ucr: UNREADABLE") && stdout.contains("bad magic"),
        "{stdout}"
    );
    let (code, stdout, _) = run(bin().arg("verify").args([&good, &cut, &foreign]));
    assert_eq!(code, 2, "unreadable is the worst");
    assert_eq!(stdout.lines().count(), 3, "one line per file:\n{stdout}");
}

#[test]
fn verify_names_the_tick_and_fields_of_a_divergence() {
    use undercooked::log::{Record, ReplayWriter, read_replay};
    let good = tmp("div-src.ucr");
    simulate(&good, 8);
    let mut records = read_replay(&std::fs::read(&good).unwrap()).unwrap().records;
    // Change what a cook did at one tick: the refold's frames must differ from the recording.
    let at = records
        .iter()
        .position(|r| matches!(r, Record::InputAccepted { tick, act: false, .. } if *tick > 40))
        .unwrap();
    if let Record::InputAccepted { mv, .. } = &mut records[at] {
        *mv = (-mv.0, -mv.1);
        if *mv == (0, 0) {
            *mv = (1000, 0);
        }
    }
    let mut w = ReplayWriter::new(Vec::new()).unwrap();
    for r in &records {
        w.append(r).unwrap();
    }
    let diverged = tmp("diverged.ucr");
    std::fs::write(&diverged, w.into_inner()).unwrap();
    let (code, stdout, _) = run(bin().arg("verify").arg(&diverged));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("diverged.ucr: DIVERGED at tick"),
        "{stdout}"
    );
    assert!(
        !stdout.to_lowercase().contains("diverged: diverged"),
        "one word once: {stdout}"
    );
    // replay says the same of it, instead of calling the round unfinished.
    let (code, stdout, _) = run(bin().arg("replay").arg(&diverged));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("result   unknown: the file diverged from its re-run at tick"),
        "{stdout}"
    );
    assert!(
        stdout.contains("recorded") && stdout.contains("replayed") && stdout.contains("p[i="),
        "names the field: {stdout}"
    );
}

#[test]
fn bad_arguments_get_a_one_line_error_naming_what_is_wrong() {
    let (code, _, stderr) =
        run(bin().args(["simulate", "--level", "no_such_level", "--seed", "1"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no level \"no_such_level\"") && stderr.contains("01_first_kitchen"),
        "{stderr}"
    );
    let (code, _, stderr) = run(bin().args([
        "simulate",
        "--level",
        "01_first_kitchen",
        "--seed",
        "1",
        "--bots",
        "9",
    ]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--bots must be between 1 and 4"),
        "{stderr}"
    );
    let (code, _, stderr) =
        run(bin().args(["simulate", "--level", "01_first_kitchen", "--seed", "x"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--seed"), "{stderr}");
    let (code, _, stderr) = run(bin().args(["replay", "/no/such/file.ucr"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/file.ucr"), "{stderr}");
}

#[test]
fn a_malformed_level_is_refused_with_file_line_and_column() {
    let dir = tmp("levels");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("levels/01_first_kitchen.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("01_first_kitchen.toml"),
        text.replace("#t..C.C..S#", "#t..C.Q..S#"),
    )
    .unwrap();
    let (code, _, stderr) = run(bin()
        .args([
            "simulate",
            "--level",
            "01_first_kitchen",
            "--seed",
            "1",
            "--levels",
        ])
        .arg(&dir));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("01_first_kitchen.toml:11:7: unknown grid letter 'Q'"),
        "{stderr}"
    );
}

#[test]
fn verify_over_the_golden_corpus_folder_passes_with_one_line_per_file() {
    let (code, stdout, stderr) = run(bin().args(["verify", "replays"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": ok")).count(),
        goldens(),
        "{stdout}"
    );
}

#[test]
fn serve_refuses_a_bad_setting_naming_the_variable_and_its_range() {
    let (code, _, stderr) = run(bin().arg("serve").env("UNDERCOOKED_MAX_PLAYERS", "7"));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("UNDERCOOKED_MAX_PLAYERS=7 is out of range (accepted: 1-4)"),
        "{stderr}"
    );
    let (code, _, stderr) = run(bin()
        .arg("serve")
        .env("UNDERCOOKED_TICK_HZ", "20")
        .env("UNDERCOOKED_SNAPSHOT_HZ", "3"));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("UNDERCOOKED_SNAPSHOT_HZ=3 must divide UNDERCOOKED_TICK_HZ=20"),
        "{stderr}"
    );
}

#[test]
fn serve_stops_cleanly_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = tmp("serve-data");
    let mut child = bin()
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--log-format",
            "json",
            "--data-dir",
        ])
        .arg(&data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed().as_secs() < 10, "the server did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stop = std::time::Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(stop.elapsed().as_secs() < 5, "not stopped within 5 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let mut log = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut log).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(log.lines().next().unwrap()).expect("json log lines");
    assert!(
        first["fields"]["message"]
            .as_str()
            .unwrap()
            .contains("serving"),
        "{log}"
    );
}

#[test]
fn reindex_then_sql_answers_as_a_table_json_and_csv_and_refuses_writes() {
    let data = tmp("sqldata");
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(data.join("replays")).unwrap();
    for f in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("replays")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, data.join("replays").join(f.file_name().unwrap())).unwrap();
    }
    let (code, stdout, stderr) = run(bin().arg("reindex").env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let n = goldens();
    assert!(
        stdout.contains(&format!("reindexed {n} of {n} files")),
        "{stdout}"
    );
    let (code, stdout, _) = run(bin()
        .args([
            "sql",
            "SELECT level_id, result FROM rounds ORDER BY level_id",
        ])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 0);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("level_id") && lines[1].starts_with("---"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("01_first_kitchen   won"),
        "an aligned table: {stdout}"
    );
    assert!(stdout.trim_end().ends_with(&format!("({n} rows)")));
    let (_, stdout, _) = run(bin()
        .args(["sql", "--json", "SELECT COUNT(*) AS n FROM rounds"])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(stdout.trim(), format!(r#"{{"n":{n}}}"#));
    let (_, stdout, _) = run(bin()
        .args(["sql", "--csv", "SELECT 'a,b' AS x, 1 AS y"])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(stdout, "x,y\n\"a,b\",1\n");
    let (code, _, stderr) = run(bin()
        .args(["sql", "DELETE FROM rounds"])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("refused") && stderr.contains("only reads"),
        "{stderr}"
    );
    // Nothing writes a file: not a copy of the database, not a temporary table, not a
    // journal switch, not a second statement hidden after a first.
    let copy = tmp("copy-of-history.db");
    let _ = std::fs::remove_file(&copy);
    for q in [
        format!("VACUUM INTO '{}'", copy.display()),
        "CREATE TEMP TABLE t (x)".to_string(),
        "PRAGMA journal_mode=DELETE".to_string(),
        format!("SELECT 1; VACUUM INTO '{}'", copy.display()),
        format!("ATTACH '{}' AS other", copy.display()),
    ] {
        let (code, _, stderr) = run(bin()
            .args(["sql", q.as_str()])
            .env("UNDERCOOKED_DATA_DIR", &data));
        assert_eq!(code, 2, "{q}: {stderr}");
        assert!(
            stderr.starts_with("undercooked: refused: "),
            "{q}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
    assert!(!copy.exists(), "no statement wrote a file");
    // A missing database is named, with what makes one.
    let (code, _, stderr) = run(bin()
        .args(["sql", "SELECT 1"])
        .env("UNDERCOOKED_DATA_DIR", tmp("no-such-data-dir")));
    assert_ne!(code, 0);
    assert!(
        stderr.contains("there is no database at")
            && stderr.contains("undercooked serve")
            && stderr.contains("undercooked reindex"),
        "{stderr}"
    );
    let (_, stdout, _) = run(bin()
        .args(["sql", "--json", "SELECT COUNT(*) AS n FROM rounds"])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(
        stdout.trim(),
        format!(r#"{{"n":{n}}}"#),
        "nothing was deleted"
    );
}

/// A folder holding the given level files.
fn level_dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = tmp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

const GOOD: &str = "id = \"01_good\"\norder = 1\nname = \"Good\"\ntime_limit_s = 60\ntarget_score = 120\nrecipes = [\"tomato_soup\"]\ngrid = \"\"\"\n#########\n#t..KK.S#\n#.1...2.#\n#.3...4.#\n#C..P..W#\n#########\n\"\"\"\n[orders]\ninterval_s = [8, 12]\n";

#[test]
fn levels_check_names_every_error_of_a_broken_file_and_exits_2() {
    // Given a folder with one good level and one with two mistakes (and a clashing order)
    let broken = "id = \"02_bad\"\norder = 1\nname = \"Bad\"\ntarget_score = 50\nrecipes = [\"tomato_soup\", \"pizza\"]\ngrid = \"\"\"\n#####\n#1X2#\n#34t#\n#####\n\"\"\"\n";
    let dir = level_dir(
        "check-broken",
        &[("01_good.toml", GOOD), ("02_bad.toml", broken)],
    );
    // When it is checked
    let (code, stdout, _) = run(bin().args(["levels", "check", "--seeds", "0"]).arg(&dir));
    // Then every error is named with file:line:column, the good level still passes, exit 2
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.contains("02_bad.toml:5:"),
        "the unknown recipe: {stdout}"
    );
    assert!(stdout.contains("pizza"), "{stdout}");
    assert!(
        stdout.contains("02_bad.toml:8:"),
        "the unknown grid letter: {stdout}"
    );
    assert!(stdout.contains("01_good.toml: ok"), "{stdout}");
    assert!(stdout.contains("1 levels ok, 1 broken"), "{stdout}");
}

#[test]
fn levels_check_refuses_a_campaign_order_taken_twice() {
    let twin = GOOD.replace("01_good", "02_twin");
    let dir = level_dir(
        "check-twins",
        &[("01_good.toml", GOOD), ("02_twin.toml", &twin)],
    );
    let (code, stdout, _) = run(bin().args(["levels", "check", "--seeds", "0"]).arg(&dir));
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.contains("02_twin.toml:2:1: order 1 is already 01_good.toml's"),
        "{stdout}"
    );
}

#[test]
fn levels_check_warns_about_design_and_fails_only_with_strict() {
    // A stove with no station beside it: fire cannot spread.
    let lonely = GOOD.replace("#t..KK.S#", "#t.K.K.S#");
    let dir = level_dir("check-lint", &[("01_good.toml", &lonely)]);
    let (code, stdout, _) = run(bin().args(["levels", "check", "--seeds", "0"]).arg(&dir));
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("warning[fire-cannot-spread]"), "{stdout}");
    let (code, _, _) = run(bin()
        .args(["levels", "check", "--strict", "--seeds", "0"])
        .arg(&dir));
    assert_eq!(code, 1);
}

#[test]
fn levels_check_sweeps_a_level_with_one_to_four_bots() {
    let dir = level_dir("check-sweep", &[("01_good.toml", GOOD)]);
    let (code, stdout, stderr) = run(bin().args(["levels", "check", "--seeds", "2"]).arg(&dir));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| 01_good |"))
        .collect();
    assert_eq!(rows.len(), 4, "one row per bot count: {stdout}");
    assert!(rows[0].starts_with("| 01_good | 1 |"), "{stdout}");
}

/// Runs the command with its stdout read for one line only, then closed (`| head -1`).
fn first_line_then_close(cmd: &mut Command) -> (i32, String, String) {
    use std::io::{BufRead, Read};
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut first).unwrap();
    drop(out);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), first, stderr)
}

#[test]
fn a_closed_stdout_ends_the_command_quietly_with_its_own_exit_code() {
    // `verify replays | head -1`: the golden corpus verifies, so 0, and no panic.
    let (code, first, stderr) = first_line_then_close(bin().args(["verify", "replays"]));
    assert!(first.ends_with(": ok\n"), "{first}");
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // `replay --frames | head -1`: thousands of frames, the reader gone after one.
    let (code, first, stderr) =
        first_line_then_close(bin().args(["replay", "--frames", "replays/01_first_kitchen.ucr"]));
    assert!(first.starts_with("{"), "{first}");
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn verify_of_a_folder_without_replays_fails_with_a_sentence() {
    let empty = tmp("no-replays-here");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, stdout, _) = run(bin().arg("verify").arg(&empty));
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.contains("UNREADABLE: no replay files (*.ucr) in this folder"),
        "{stdout}"
    );
}

#[test]
fn replay_refuses_frames_with_json() {
    let (code, _, stderr) = run(bin().args([
        "replay",
        "--frames",
        "--json",
        "replays/01_first_kitchen.ucr",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--json"), "{stderr}");
}

#[path = "cli/sql_limits.rs"]
mod sql_limits;

#[path = "cli/db_urls.rs"]
mod db_urls;

#[path = "cli/key_files.rs"]
mod key_files;

#[path = "cli/sql_cells.rs"]
mod sql_cells;
