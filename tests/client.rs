//! The web client's pure modules (delta merge, interpolation, prediction and
//! reconciliation, input `seq`) under Node's own test runner, as part of `cargo test`; and
//! the first-load budget of what the server ships.
//!
//! The merge test gets a fixture from here: a whole bot round's player frames, with a full
//! frame of every pass next to them, so the client's merge is checked against the server's
//! own encoder. Without `node` the test is skipped with a line saying so, unless `CI` is
//! set: then it is a failure.

mod kitchen;

use std::path::PathBuf;
use std::process::Command;
use undercooked::log::Record;
use undercooked::round::PlayerPasses;

/// The player chain of a bot round and, for every pass, a full frame of the same view.
fn frames_fixture() -> PathBuf {
    let level = kitchen::campaign().into_iter().next().unwrap();
    let sim = undercooked::simulate::simulate(&level, 5, 3, 20).unwrap();
    let read = undercooked::log::read_replay(&sim.bytes).unwrap();
    let Record::Started(h) = &read.records[0] else {
        panic!("a header first")
    };
    let mut fold = undercooked::log::RoundFold::new(h.clone()).unwrap();
    let (mut passes, first) = PlayerPasses::start(&fold);
    let mut chain = vec![first.raw().to_string()];
    let mut fulls = vec![passes.encoder().full(&fold.ids).unwrap().raw().to_string()];
    let mut events = Vec::new();
    for r in &read.records[1..] {
        if matches!(r, Record::FramesSent { .. } | Record::Ended { .. }) {
            continue;
        }
        fold.apply(r, &mut events).unwrap();
        if matches!(r, Record::TickClosed { .. }) {
            if let Some(f) = passes.after_tick(&fold, &events) {
                chain.push(f.raw().to_string());
                fulls.push(passes.encoder().full(&fold.ids).unwrap().raw().to_string());
            }
            events.clear();
        }
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client-frames.json");
    let body = format!(
        "{{\"chain\":[{}],\"fulls\":[{}]}}",
        chain.join(","),
        fulls.join(",")
    );
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn the_client_modules_pass_their_node_tests() {
    let node = Command::new("node").arg("--version").output();
    if node.is_err() {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but `node` is missing (the client's unit tests run under Node)");
        }
        eprintln!("skipped: no `node` on this machine");
        return;
    }
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(web.join("test"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    tests.sort();
    assert!(tests.len() >= 4, "{tests:?}");
    let out = Command::new("node")
        .arg("--test")
        .args(&tests)
        .env("UC_FRAMES_FIXTURE", frames_fixture())
        .current_dir(&web)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("# skipped 0"),
        "no client test may be skipped here (the fixture is given):\n{stdout}"
    );
}

#[test]
fn the_first_load_fits_in_200_kb() {
    // Every file the server ships, as sent to a browser that takes gzip: an upper bound of
    // the first load (a page loads most of them, not the tests, which are not shipped).
    let shipped = undercooked::server::shipped_assets();
    assert!(shipped.iter().any(|(p, _)| p == "index.html"));
    assert!(
        shipped.iter().all(|(p, _)| !p.starts_with("test/")),
        "{shipped:?}"
    );
    let total: usize = shipped.iter().map(|(_, n)| n).sum();
    assert!(total <= 200 * 1024, "{total} bytes shipped: {shipped:?}");
}
