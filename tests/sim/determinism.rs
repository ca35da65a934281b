//! The fold is deterministic: the same log gives the same states and frames, however it is
//! cut, written and read back; random logs never panic it.

use crate::kitchen;

use proptest::prelude::*;
use undercooked::log::{Record, RoundFold, read_replay};
use undercooked::verify::{Verdict, replay_bytes};
use undercooked::wire::merge::{apply_frame, keyed};
use undercooked::wire::{encode_full, project};

fn records_of(bytes: &[u8]) -> Vec<Record> {
    read_replay(bytes).unwrap().records
}

fn hashes(records: &[Record]) -> Vec<u64> {
    let Record::Started(h) = &records[0] else {
        panic!()
    };
    let mut fold = RoundFold::new(h.clone()).unwrap();
    let mut out = Vec::new();
    let mut ev = Vec::new();
    for r in &records[1..] {
        fold.apply(r, &mut ev).unwrap();
        if matches!(r, Record::TickClosed { .. }) {
            out.push(fold.state.state_hash());
        }
    }
    out
}

#[test]
fn the_same_log_folded_twice_gives_the_same_hash_at_every_tick_and_matches_the_recording() {
    let level = &kitchen::campaign()[1];
    let records = records_of(
        &undercooked::simulate::simulate(level, 11, 3, 20)
            .unwrap()
            .bytes,
    );
    let a = hashes(&records);
    assert_eq!(a, hashes(&records));
    let recorded: Vec<u64> = records
        .iter()
        .filter_map(|r| {
            if let Record::TickClosed { state_hash, .. } = r {
                Some(*state_hash)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(a, recorded);
}

#[test]
fn a_prefix_folded_then_the_rest_equals_the_whole_fold() {
    let level = &kitchen::campaign()[0];
    let records = records_of(
        &undercooked::simulate::simulate(level, 5, 2, 20)
            .unwrap()
            .bytes,
    );
    let Record::Started(h) = &records[0] else {
        panic!()
    };
    let mut whole = RoundFold::new(h.clone()).unwrap();
    let mut ev = Vec::new();
    for r in &records[1..] {
        whole.apply(r, &mut ev).unwrap();
    }
    let cut = records.len() / 3;
    let mut first = RoundFold::new(h.clone()).unwrap();
    for r in &records[1..cut] {
        first.apply(r, &mut ev).unwrap();
    }
    let snapshot = first.state.clone();
    let mut rest = first;
    assert_eq!(rest.state, snapshot);
    for r in &records[cut..] {
        rest.apply(r, &mut ev).unwrap();
    }
    assert_eq!(rest.state, whole.state);
}

#[test]
fn simulate_is_byte_identical_for_the_same_arguments() {
    let level = &kitchen::campaign()[2];
    let a = undercooked::simulate::simulate(level, 9, 2, 20)
        .unwrap()
        .bytes;
    let b = undercooked::simulate::simulate(level, 9, 2, 20)
        .unwrap()
        .bytes;
    assert_eq!(a, b);
    let c = undercooked::simulate::simulate(level, 10, 2, 20)
        .unwrap()
        .bytes;
    assert_ne!(a, c, "another seed is another round");
}

#[test]
fn a_delta_chain_merged_onto_the_last_full_equals_the_full_re_encode_over_whole_rounds() {
    for level in kitchen::campaign() {
        let bytes = undercooked::simulate::simulate(&level, 2, 4, 20)
            .unwrap()
            .bytes;
        let records = records_of(&bytes);
        let Record::Started(h) = &records[0] else {
            panic!()
        };
        let mut fold = RoundFold::new(h.clone()).unwrap();
        let rerun = replay_bytes(&bytes);
        assert_eq!(rerun.verdict, Verdict::Identical, "{}", level.level.id);
        let mut merged = None;
        let mut frames = rerun.frames.iter();
        let (_, f0) = frames.next().unwrap();
        apply_frame(&mut merged, &serde_json::from_str(f0.raw()).unwrap()).unwrap();
        let mut ev = Vec::new();
        let mut checked = 0;
        for r in &records[1..] {
            fold.apply(r, &mut ev).unwrap();
            if matches!(r, Record::TickClosed { .. }) && fold.is_pass() {
                let (tick, frame) = frames.next().unwrap();
                assert_eq!(*tick, fold.state.tick);
                apply_frame(&mut merged, &serde_json::from_str(frame.raw()).unwrap()).unwrap();
                let full = encode_full(&project(&fold.state, &fold.rules), &[], &fold.ids);
                let full: serde_json::Value = serde_json::from_str(full.raw()).unwrap();
                assert_eq!(
                    keyed(merged.as_ref().unwrap()),
                    keyed(&full),
                    "{} tick {tick}",
                    level.level.id
                );
                checked += 1;
            }
        }
        assert!(checked > 100);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn random_input_logs_never_panic_and_fold_the_same_twice(
        level_pick in 0usize..7,
        seed in any::<u64>(),
        script in proptest::collection::vec((0u8..4, -1000i16..=1000, -1000i16..=1000, any::<bool>(), 0u8..6, 0u8..12), 0..400),
    ) {
        let levels = kitchen::campaign();
        let level = &levels[level_pick % levels.len()];
        let run = || {
            let header = undercooked::simulate::bot_header(level, seed, 4, 20);
            let mut fold = RoundFold::new(header).unwrap();
            let mut ev = Vec::new();
            let mut hashes = Vec::new();
            let mut seq = [0u64; 4];
            for (seat, x, y, act, face, extra) in &script {
                let tick = fold.state.tick;
                seq[*seat as usize] += 1;
                let face = (*face < 4).then_some(*face);
                fold.apply(&Record::InputAccepted { tick, seat: *seat, seq: seq[*seat as usize], mv: (*x, *y), act: *act, face }, &mut ev).unwrap();
                match extra {
                    0 => { fold.apply(&Record::Disconnected { tick, seat: *seat }, &mut ev).unwrap(); }
                    1 => { fold.apply(&Record::Connected { tick, seat: *seat }, &mut ev).unwrap(); }
                    2 => { fold.apply(&Record::Emoted { tick, seat: *seat, id: "wave".into() }, &mut ev).unwrap(); }
                    _ => {}
                }
                if fold.state.verdict.is_some() { break; }
                let h = fold.close_tick(&mut ev).unwrap();
                hashes.push(h);
                let _ = encode_full(&project(&fold.state, &fold.rules), &ev, &fold.ids);
                ev.clear();
            }
            hashes
        };
        prop_assert_eq!(run(), run());
    }
}
