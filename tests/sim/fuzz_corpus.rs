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

#[test]
fn the_ws_frame_corpus_reads_the_same_in_any_chunks_without_a_panic() {
    let n = replay("ws_frame", undercooked::fuzz_entry::ws_frame);
    assert!(n >= 20, "the committed corpus is there ({n} inputs)");
}

#[test]
fn the_crafted_attack_files_are_in_the_corpus_as_built_and_each_is_unreadable() {
    // Given issue 23's crafted files as their builders make them (re-written into the
    // corpus with UNDERCOOKED_RECORD_CRAFTED=1).
    let record = std::env::var_os("UNDERCOOKED_RECORD_CRAFTED").is_some();
    for c in crate::crafted::all() {
        let bytes = (c.build)();
        let path = crate::crafted::path(c.name);
        if record {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(committed == bytes, "{} is committed as built", c.name);
        // When the re-run reads one, it is unreadable, saying what is wrong.
        match undercooked::verify::replay_bytes(&bytes).verdict {
            undercooked::verify::Verdict::Unreadable(why) => {
                assert!(why.contains(c.says), "{}: {why}", c.name)
            }
            other => panic!("{}: {other:?}", c.name),
        }
    }
}
