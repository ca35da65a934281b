//! The fuzzers' committed corpus, replayed on stable: every input under
//! `fuzz/corpus/<target>/` goes through the same `undercooked::fuzz_entry` function its
//! cargo-fuzz target calls, so an input that once crashed a parser fails CI if the crash
//! comes back — without nightly or libFuzzer. (How the corpus was made: docs/SECURITY.md.)

use std::path::Path;

/// Every file of one target's corpus through its entry point; how many there were.
fn replay(target: &str, entry: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut n = 0;
    for file in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = file.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let ran = std::panic::catch_unwind(|| entry(&bytes));
        assert!(ran.is_ok(), "{} panicked", path.display());
        n += 1;
    }
    n
}

#[test]
fn the_client_frame_corpus_parses_without_a_panic() {
    let n = replay("client_frame", undercooked::fuzz_entry::client_frame);
    assert!(n >= 20, "the committed corpus is there ({n} inputs)");
}

#[test]
fn the_replay_file_corpus_reads_without_a_panic() {
    let n = replay("replay_file", undercooked::fuzz_entry::replay_file);
    assert!(n >= 20, "the committed corpus is there ({n} inputs)");
}

#[test]
fn the_level_file_corpus_loads_without_a_panic() {
    let n = replay("level_file", undercooked::fuzz_entry::level_file);
    assert!(n >= 20, "the committed corpus is there ({n} inputs)");
}

#[test]
fn the_http_body_corpus_parses_without_a_panic() {
    let n = replay("http_body", undercooked::fuzz_entry::http_body);
    assert!(n >= 20, "the committed corpus is there ({n} inputs)");
}
