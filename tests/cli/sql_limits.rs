//! `undercooked sql`'s bounds as a user meets them: a result of any size streams through in
//! flat memory, and a query that runs too long is stopped with a sentence naming the limit.

use super::{bin, run, tmp};
use std::io::Read;
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

/// The process's peak resident memory so far, in KiB (`VmHWM`), if it is still running.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_200_mb_result_streams_through_in_flat_memory() {
    let data = empty_history("sql-big");
    // 20,000 rows of 10,000 characters: 200 MB of CSV, which the old `sql` held whole
    // (and more: each row's values, then their text) before printing a byte.
    let query = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) \
                 SELECT x, hex(zeroblob(5000)) AS pad FROM c";
    let mut child = bin()
        .args(["sql", "--csv", "--timeout-s", "600", query])
        .env("UNDERCOOKED_DATA_DIR", &data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let sink = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => return total,
                Ok(n) => total += n as u64,
            }
        }
    });
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let bytes = sink.join().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        bytes > 200_000_000,
        "the whole result was printed: {bytes} bytes"
    );
    eprintln!("sql printed {bytes} bytes with a peak of {peak} KiB resident");
    assert!(
        peak < 64 * 1024,
        "peak memory {peak} KiB for a {bytes}-byte result: it must not grow with the result"
    );
}

#[test]
fn a_query_past_its_timeout_is_stopped_and_the_refusal_names_the_limit() {
    let data = empty_history("sql-slow");
    // Counting an endless sequence never ends by itself and never prints a row.
    let endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    let started = Instant::now();
    let (code, stdout, stderr) = run(bin()
        .args(["sql", endless])
        .env("UNDERCOOKED_DATA_DIR", &data)
        .env("UNDERCOOKED_SQL_TIMEOUT_S", "1"));
    let took = started.elapsed();
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("ran past its 1-second limit after 0 rows")
            && stderr.contains("UNDERCOOKED_SQL_TIMEOUT_S"),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        took < Duration::from_secs(5),
        "stopped near its deadline: {took:?}"
    );
    // A result that keeps printing is held to the same limit, with what came out kept whole.
    let (code, stdout, stderr) = run(bin()
        .args(["sql", "--timeout-s", "1", &endless.replace("count(*)", "x")])
        .env("UNDERCOOKED_DATA_DIR", &data));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("ran past its 1-second limit after"),
        "{stderr}"
    );
    assert!(stdout.trim_end().ends_with(" rows)"), "the table is closed");
    // A bad setting is refused naming the variable and the range.
    for (bad, says) in [
        (
            "0",
            "UNDERCOOKED_SQL_TIMEOUT_S=0 is out of range (accepted: 1-3600)",
        ),
        (
            "ten",
            "UNDERCOOKED_SQL_TIMEOUT_S=\"ten\" is not a whole number",
        ),
    ] {
        let (code, _, stderr) = run(bin()
            .args(["sql", "SELECT 1"])
            .env("UNDERCOOKED_DATA_DIR", &data)
            .env("UNDERCOOKED_SQL_TIMEOUT_S", bad));
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
}
