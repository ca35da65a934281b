//! Picking a round up again from its replay file, after the process that played it stopped.
//!
//! A round's file is its log, so what a restart needs is already on disk: `plan` reads the
//! file, cuts it back to its last closed tick (what a crash left past that is a tick in
//! progress, or a record torn in half), and re-runs that prefix exactly as `verify` does —
//! every state hash and every recorded frame compared. Only a prefix that verifies is
//! resumed: a file that is unreadable or departs from its own re-run is refused by name,
//! and its round is recorded `aborted` as before (nothing half-resumed). `go_on` (through
//! `Round::resume`) then goes on writing after the cut, behind a `Resumed` record.
//!
//! The ticks a dead process played past the last flush (at most a second: the room flushes
//! its file once a second) never reached the disk and are played again from the cut; a
//! handoff flushes first, so it loses none.

use crate::log::file::ReplayRead;
use crate::log::{FoldError, Header, Record, read_replay};
use crate::round::{Round, RoundError};
use crate::sim::Event;
use crate::verify::{Rerun, Verdict, rerun};

/// Why a replay file's round is not picked up again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the round already ended (its file has an Ended record)")]
    Ended,
    #[error("the file is unreadable: {0}")]
    Unreadable(String),
    #[error("the file departs from its own re-run: {0}")]
    Diverged(String),
}

/// A round that can go on: its re-run up to the cut, and where the file is cut.
pub struct Plan {
    pub header: Header,
    pub rerun: Rerun,
    /// The file's length once cut back to its last closed tick.
    pub cut_at: u64,
    /// Bytes the cut drops (the tick in progress, a torn record).
    pub cut_bytes: u64,
    /// The tick the round resumes at.
    pub tick: u32,
}

/// Plans the resume of the round whose file holds `bytes`; `on_tick` hears each closed
/// tick of the prefix with its events (the room rebuilds its history rows and the work
/// counts from them).
pub fn plan(bytes: &[u8], on_tick: &mut dyn FnMut(u32, &[Event])) -> Result<Plan, Refused> {
    let read = read_replay(bytes).map_err(|e| Refused::Unreadable(e.to_string()))?;
    if read
        .records
        .iter()
        .any(|r| matches!(r, Record::Ended { .. }))
    {
        return Err(Refused::Ended);
    }
    // The last record a resume may follow: a header, a closed tick, a block of frames, an
    // earlier resume. Inputs and seat records past it belong to a tick that never closed.
    let keep = read
        .records
        .iter()
        .rposition(|r| {
            matches!(
                r,
                Record::Started(_)
                    | Record::TickClosed { .. }
                    | Record::FramesSent { .. }
                    | Record::Resumed { .. }
            )
        })
        .ok_or_else(|| Refused::Unreadable("the file ends before its header is complete".into()))?;
    let prefix = ReplayRead {
        records: read.records[..=keep].to_vec(),
        ends: read.ends[..=keep].to_vec(),
        torn_at: None,
    };
    let cut_at = prefix.ends[keep] as u64;
    let rerun = rerun(&prefix, on_tick);
    match &rerun.verdict {
        Verdict::Incomplete(_) => {}
        Verdict::Identical => return Err(Refused::Ended),
        Verdict::Diverged(d) => return Err(Refused::Diverged(d.to_string())),
        Verdict::Unreadable(why) => return Err(Refused::Unreadable(why.clone())),
    }
    let (Some(header), Some(fold)) = (rerun.header.clone(), rerun.fold.as_ref()) else {
        return Err(Refused::Unreadable("the file has no header".into()));
    };
    let tick = fold.state.tick;
    Ok(Plan {
        header,
        cut_at,
        cut_bytes: bytes.len() as u64 - cut_at,
        tick,
        rerun,
    })
}

/// Goes on writing the round of `rerun` (a plan's) into `out`, which holds the file up to
/// the cut: the `Resumed` record stamped with the two times (the file's last write, now).
pub fn go_on<W: std::io::Write>(
    rerun: Rerun,
    out: W,
    times: (u64, u64),
) -> Result<Round<W>, RoundError> {
    let (Some(fold), Some(players)) = (rerun.fold, rerun.players) else {
        return Err(RoundError::Fold(FoldError("the re-run has no fold".into())));
    };
    Round::resume(
        fold,
        players,
        &rerun.frames,
        rerun.recorded_passes,
        out,
        times,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::BotTeam;
    use crate::levels::{LevelSource, load_dir};
    use crate::log::Accepted;
    use crate::verify::replay_bytes;

    fn first_level() -> LevelSource {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
        load_dir(&dir).unwrap().remove(0)
    }

    /// Bots play `round` until its verdict (from whatever tick it is at).
    fn play_out<W: std::io::Write>(round: &mut Round<W>, source: &LevelSource) {
        let seats: Vec<u8> = (0..2).collect();
        let mut team = BotTeam::new(&source.level, 20, &seats);
        let mut view = crate::wire::project(&round.fold().state, &round.fold().rules);
        while !round.decided() {
            for input in team.decide(&view) {
                round.append(Accepted::from(input)).unwrap();
            }
            if round.close_tick().unwrap().frame.is_some()
                && let Some(v) = round.players().last_view()
            {
                view = v.clone();
            }
        }
    }

    /// A headless round of the first level with two bots, as `simulate` writes it.
    fn simulated() -> Vec<u8> {
        crate::simulate::simulate(&first_level(), 11, 2, 20)
            .unwrap()
            .bytes
    }

    #[test]
    fn a_round_cut_anywhere_resumes_and_verifies_whole() {
        let source = first_level();
        let whole = simulated();
        assert_eq!(replay_bytes(&whole).verdict, Verdict::Identical);
        let header_end = read_replay(&whole).unwrap().ends[0];
        assert!(plan(&whole[..header_end - 1], &mut |_, _| {}).is_err());
        // Cut just after the header, mid-record, mid-block; each resumed twice.
        let cuts = [
            header_end,
            header_end + 3,
            whole.len() / 3,
            whole.len() / 2 + 13,
        ];
        for cut in cuts {
            let bytes = &whole[..cut];
            let mut ticks = 0;
            let first = plan(bytes, &mut |_, _| ticks += 1).expect("a cut file resumes");
            assert_eq!(ticks, first.tick, "every closed tick is heard once");
            let mut out = bytes[..first.cut_at as usize].to_vec();
            let mut round = go_on(first.rerun, &mut out, (5, 9)).unwrap();
            play_out(&mut round, &source);
            let _ = round.finish().unwrap();
            let again = replay_bytes(&out);
            assert_eq!(again.verdict, Verdict::Identical, "cut at byte {cut}");
            let read = read_replay(&out).unwrap();
            let resumed = read
                .records
                .iter()
                .filter(|r| matches!(r, Record::Resumed { .. }))
                .count();
            assert_eq!(resumed, 1, "one Resumed record marks the gap");
            // Cut again after the first resume, and resumed a second time.
            let twice = &out[..out.len() * 3 / 4];
            let second = plan(twice, &mut |_, _| {}).expect("a resumed file resumes again");
            let mut out2 = twice[..second.cut_at as usize].to_vec();
            let mut round = go_on(second.rerun, &mut out2, (9, 12)).unwrap();
            play_out(&mut round, &source);
            let _ = round.finish().unwrap();
            assert_eq!(replay_bytes(&out2).verdict, Verdict::Identical);
        }
    }

    #[test]
    fn an_ended_a_corrupt_or_a_foreign_file_is_refused_by_name() {
        let whole = simulated();
        assert_eq!(plan(&whole, &mut |_, _| {}).err(), Some(Refused::Ended));
        let mut flipped = whole[..whole.len() / 2].to_vec();
        let at = flipped.len() / 2;
        flipped[at] ^= 0x40;
        let why = plan(&flipped, &mut |_, _| {}).err().map(|e| e.to_string());
        assert!(
            why.as_deref()
                .is_some_and(|w| w.starts_with("the file is unreadable: ") && w.contains("byte")),
            "{why:?}"
        );
        let why = plan(b"not a replay at all", &mut |_, _| {}).err();
        assert!(matches!(why, Some(Refused::Unreadable(_))), "{why:?}");
    }
}
