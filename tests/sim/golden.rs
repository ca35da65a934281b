//! The golden corpus: one bot-played replay per campaign level in `replays/`, each verified
//! frame by frame. A deliberate rule change re-records them with
//! `UNDERCOOKED_RECORD_GOLDENS=1 cargo test --release --test sim golden::`; an accidental one
//! fails here.

use crate::kitchen;

use std::path::PathBuf;
use undercooked::verify::{Verdict, replay_bytes};

/// The seed and bot count of each level's golden round.
const GOLDEN_SEED: u64 = 1;
const GOLDEN_BOTS: u8 = 4;

/// Whether this run re-records the corpus (`UNDERCOOKED_RECORD_GOLDENS=1`).
fn recording() -> bool {
    std::env::var("UNDERCOOKED_RECORD_GOLDENS").is_ok_and(|v| v == "1")
}

fn replays_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("replays")
}

fn golden_path(level_id: &str) -> PathBuf {
    replays_dir().join(format!("{level_id}.ucr"))
}

#[test]
fn every_campaign_level_has_a_golden_replay_that_verifies_identical() {
    let record = recording();
    for level in kitchen::campaign()
        .into_iter()
        .filter(|l| l.level.order > 0)
    {
        let path = golden_path(&level.level.id);
        if record {
            let sim =
                undercooked::simulate::simulate(&level, GOLDEN_SEED, GOLDEN_BOTS, 20).unwrap();
            std::fs::create_dir_all(replays_dir()).unwrap();
            std::fs::write(&path, &sim.bytes).unwrap();
        }
        let bytes = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (record with UNDERCOOKED_RECORD_GOLDENS=1)",
                path.display()
            )
        });
        let verdict = replay_bytes(&bytes).verdict;
        assert_eq!(verdict, Verdict::Identical, "{}", path.display());
    }
}

#[test]
fn simulating_a_golden_round_again_writes_the_same_bytes() {
    // The writer's format (record layout, names, the result word) and the sim together:
    // a fresh simulate of each golden round must be its file, byte for byte. While recording,
    // the files are being rewritten by the test above, so this one waits for the next run.
    if recording() {
        return;
    }
    for level in kitchen::campaign()
        .into_iter()
        .filter(|l| l.level.order > 0)
    {
        let sim = undercooked::simulate::simulate(&level, GOLDEN_SEED, GOLDEN_BOTS, 20).unwrap();
        let recorded = std::fs::read(golden_path(&level.level.id)).unwrap();
        assert!(
            sim.bytes == recorded,
            "{}: a fresh simulate differs from the golden file ({} vs {} bytes)",
            level.level.id,
            sim.bytes.len(),
            recorded.len()
        );
    }
}

#[test]
fn the_golden_replays_were_recorded_from_the_shipped_levels() {
    // A level edit without a re-record shows up here, before anyone wonders why a golden
    // replay no longer matches a fresh simulate. (Skipped while recording, as above.)
    if recording() {
        return;
    }
    for level in kitchen::campaign()
        .into_iter()
        .filter(|l| l.level.order > 0)
    {
        let bytes = std::fs::read(golden_path(&level.level.id)).unwrap();
        let rerun = replay_bytes(&bytes);
        let header = rerun.header.unwrap();
        assert_eq!(
            header.level_toml, level.text,
            "{} changed since its golden replay was recorded",
            level.level.id
        );
    }
}
