//! `undercooked sql` and one wide cell: a table prints any cell, cut past
//! `MAX_CELL_CHARS` with a marker saying how long it was, while `--csv` and `--json` print it
//! whole; a cell too big for the query's memory stops the query at once with a sentence
//! naming the bound, in bounded memory, rather than running past the time limit and aborting.

use super::{bin, run, tmp};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A data folder with an empty history (a reindex of no files creates the database).
fn empty_history(name: &str) -> PathBuf {
    let data = tmp(name);
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(data.join("replays")).unwrap();
    let (code, stdout, stderr) = run(bin().arg("reindex").env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 0, "{stdout}{stderr}");
    data
}

#[test]
fn a_70_kb_cell_is_cut_in_the_table_with_its_length_and_whole_in_csv() {
    let data = empty_history("sql-wide");
    // 70,000 characters in one cell: the old table's padding panicked past 65,535.
    let query = "SELECT 1 AS n, hex(zeroblob(35000)) AS wide";
    let (code, stdout, stderr) = run(bin()
        .args(["sql", query])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("… (70000 chars)"),
        "{}",
        &stdout[..200.min(stdout.len())]
    );
    assert!(
        stdout.len() < 5000,
        "the table holds the cell's start: {} bytes",
        stdout.len()
    );
    assert!(
        stdout.trim_end().ends_with("(1 row)"),
        "the table is closed"
    );
    let (code, stdout, stderr) = run(bin()
        .args(["sql", "--csv", query])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&"0".repeat(70_000)),
        "CSV prints the cell whole"
    );
}

#[test]
fn a_gigabyte_cell_is_stopped_at_the_memory_bound_at_once() {
    let data = empty_history("sql-huge");
    // A cell of 999,999,998 characters, just under SQLite's longest string: the old `sql`
    // built it and its copies (3.4 GB resident here) and panicked padding it in the table.
    let started = Instant::now();
    let mut child = bin()
        .args(["sql", "SELECT hex(zeroblob(499999999)) AS huge"])
        .env("UNDERCOOKED_DATA_DIR", &data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0u64;
    while child.try_wait().unwrap().is_none() {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
        peak = peak.max(hwm.unwrap_or(0));
        assert!(started.elapsed() < Duration::from_secs(30), "still running");
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "a 1 GB cell: exit {:?} after {took:?}, peak {peak} KiB: {stderr}",
        out.status.code()
    );
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("stopped: the query needed more than 64 MiB"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing printed");
    assert!(took < Duration::from_secs(10), "stopped at once: {took:?}");
    assert!(peak < 256 * 1024, "peak memory {peak} KiB");
    // A 20 MB cell is built within the bound but its copy for the row is not (sqlx panics
    // in its worker then): the same stop, no panic printed.
    let (code, _, stderr) = run(bin()
        .args(["sql", "--csv", "SELECT hex(zeroblob(10000000)) AS big"])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("stopped: the query needed more than 64 MiB")
            && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn printing_into_a_pipe_nobody_reads_is_held_to_the_time_limit() {
    let data = empty_history("sql-stuck");
    // A 10 MB cell written to a pipe that is never read: the write blocks once the pipe is
    // full, where no check of the query's own can run.
    let started = Instant::now();
    let mut child = bin()
        .args(["sql", "--csv", "--timeout-s", "1"])
        .arg("SELECT hex(zeroblob(5000000)) AS big")
        .env("UNDERCOOKED_DATA_DIR", &data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let status = status.expect("`sql` was still writing 10 s after its 1-second limit");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ran past the 1-second limit"), "{stderr}");
    assert!(
        took < Duration::from_secs(5),
        "ended {took:?} after it started"
    );
}
