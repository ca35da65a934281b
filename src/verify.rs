//! Re-running a replay: fold it again, re-encode every frame, compare with what was sent.
//!
//! This is the session whose only job is to re-run and compare (ggrs's sync test, for
//! rounds on disk). `replay_bytes` folds a file and reports the first divergence: a state
//! hash that differs, a frame whose bytes differ (with the differing JSON fields), a result
//! that differs. It never panics on a bad file: a foreign, corrupt or newer file is
//! `Unreadable`; a file cut short (no `End`, or a torn tail) is `Incomplete` once its
//! prefix has verified.

use crate::log::file::ReplayRead;
use crate::log::frames::{FrameDecompressor, FramesError};
use crate::log::{Applied, Header, Record, RoundFold, read_replay};
use crate::round::PlayerPasses;
use crate::sim::{Event, RoundResult};
use crate::store::reindex::Refusal;
use crate::wire::SnapFrame;
use serde_json::Value;
use std::fmt;

/// One differing field of a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDiff {
    pub path: String,
    pub recorded: Value,
    pub replayed: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    pub tick: u32,
    pub what: String,
    pub fields: Vec<FieldDiff>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "diverged at tick {}: {}", self.tick, self.what)?;
        for d in self.fields.iter().take(12) {
            write!(
                f,
                "; {} recorded {} replayed {}",
                d.path, d.recorded, d.replayed
            )?;
        }
        if self.fields.len() > 12 {
            write!(f, "; and {} more fields", self.fields.len() - 12)?;
        }
        Ok(())
    }
}

/// How a file came out of the re-run.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Identical,
    Diverged(Divergence),
    Unreadable(String),
    Incomplete(String),
}

impl Verdict {
    /// verify's exit code for this file: 0 identical, 1 diverged, 2 unreadable, 3 incomplete.
    pub fn exit_code(&self) -> u8 {
        match self {
            Verdict::Identical => 0,
            Verdict::Diverged(_) => 1,
            Verdict::Unreadable(_) => 2,
            Verdict::Incomplete(_) => 3,
        }
    }

    /// The worst of two codes for a batch: unreadable (2) > diverged (1) > incomplete (3) > ok.
    pub fn severity(code: u8) -> u8 {
        match code {
            2 => 3,
            1 => 2,
            3 => 1,
            _ => 0,
        }
    }
}

/// Why comparing a block of recorded frames stopped.
enum Stop {
    Frames(FramesError),
    Diverged(Divergence),
}

impl From<FramesError> for Stop {
    fn from(e: FramesError) -> Stop {
        Stop::Frames(e)
    }
}

/// Everything a re-run produced.
pub struct Rerun {
    pub header: Option<Header>,
    pub fold: Option<RoundFold>,
    /// The re-encoded player frames, one per pass, with the tick of each.
    pub frames: Vec<(u32, SnapFrame)>,
    pub verdict: Verdict,
    pub records: usize,
    /// The players' chain as the last pass left it (a resumed round encodes on from it).
    pub players: Option<PlayerPasses>,
    /// How many of `frames` the file had recorded (the rest were lost with their process).
    pub recorded_passes: usize,
}

/// The re-run under way: the fold, the players' frames as `Round` encodes them, and how far
/// the recorded frames have been compared.
struct Check {
    fold: RoundFold,
    players: PlayerPasses,
    frames: Vec<(u32, SnapFrame)>,
    events: Vec<Event>,
    /// The events of the tick that closed last.
    tick_events: Vec<Event>,
    decompressor: FrameDecompressor,
    checked_passes: usize,
    first_bad_hash: Option<u32>,
    ended: bool,
}

/// Why a replay file's re-run refuses it, for `reindex`: unreadable, or where it departs
/// from what it recorded; `None` when it does not (identical, or incomplete).
pub fn refusal(bytes: &[u8]) -> Option<Refusal> {
    match replay_bytes(bytes).verdict {
        Verdict::Diverged(d) => Some(Refusal::Diverged(d.to_string())),
        Verdict::Unreadable(why) => Some(Refusal::Unreadable(why)),
        Verdict::Identical | Verdict::Incomplete(_) => None,
    }
}

/// Folds a replay file's bytes and compares every recorded frame.
pub fn replay_bytes(bytes: &[u8]) -> Rerun {
    match read_replay(bytes) {
        Ok(read) => rerun(&read, &mut |_, _| {}),
        Err(e) => Rerun {
            verdict: Verdict::Unreadable(e.to_string()),
            ..Rerun::empty()
        },
    }
}

impl Rerun {
    fn empty() -> Rerun {
        Rerun {
            header: None,
            fold: None,
            frames: Vec::new(),
            verdict: Verdict::Identical,
            records: 0,
            players: None,
            recorded_passes: 0,
        }
    }
}

/// Folds records already read and compares every recorded frame; `on_tick` hears each
/// closed tick with its events (a resumed round rebuilds its history's rows from them).
pub fn rerun(read: &ReplayRead, on_tick: &mut dyn FnMut(u32, &[Event])) -> Rerun {
    let mut rerun = Rerun::empty();
    rerun.records = read.records.len();
    let Some(Record::Started(header)) = read.records.first() else {
        rerun.verdict = Verdict::Unreadable("the file ends before its header is complete".into());
        return rerun;
    };
    rerun.header = Some(header.clone());
    let fold = match RoundFold::new(header.clone()) {
        Ok(f) => f,
        Err(e) => {
            rerun.verdict = Verdict::Unreadable(format!("record 0 (Started): {e}"));
            return rerun;
        }
    };
    let decompressor = match FrameDecompressor::of_version(header.format_version) {
        Ok(i) => i,
        Err(e) => {
            rerun.verdict = Verdict::Unreadable(format!("record 0 (Started): {e}"));
            return rerun;
        }
    };
    let (players, first) = PlayerPasses::start(&fold);
    let mut check = Check {
        fold,
        players,
        frames: vec![(0, first)],
        events: Vec::new(),
        tick_events: Vec::new(),
        decompressor,
        checked_passes: 0,
        first_bad_hash: None,
        ended: false,
    };
    for (n, record) in read.records.iter().enumerate().skip(1) {
        if let Err(verdict) = check.record(n, record) {
            rerun.verdict = verdict;
            break;
        }
        if let Record::TickClosed { tick, .. } = record {
            on_tick(*tick, &check.tick_events);
        }
        if check.ended {
            break;
        }
    }
    rerun.verdict = check.conclude(rerun.verdict, read);
    rerun.frames = check.frames;
    rerun.fold = Some(check.fold);
    rerun.players = Some(check.players);
    rerun.recorded_passes = check.checked_passes;
    rerun
}

impl Check {
    /// Folds one record (or compares one block of recorded frames).
    fn record(&mut self, n: usize, record: &Record) -> Result<(), Verdict> {
        let bad = |e: &dyn fmt::Display| {
            Verdict::Unreadable(format!("record {n} ({}): {e}", record.name()))
        };
        match record {
            Record::FramesSent {
                first_pass,
                compressed,
            } => self.frames_sent(*first_pass, compressed, bad),
            Record::Resumed { .. } => {
                self.fold
                    .apply(record, &mut self.events)
                    .map_err(|e| bad(&e))?;
                self.decompressor.restart().map_err(|e| bad(&e))
            }
            Record::Ended { result, .. } => match self.fold.apply(record, &mut self.events) {
                Ok(Applied::Ended { matches }) => {
                    self.ended = true;
                    self.check_end(*result, matches)
                }
                Ok(_) => Err(bad(&"Ended did not end the round")),
                Err(e) => Err(bad(&e)),
            },
            _ => match self.fold.apply(record, &mut self.events) {
                Ok(Applied::Stepped { hash_matches }) => {
                    if !hash_matches && self.first_bad_hash.is_none() {
                        self.first_bad_hash = Some(self.fold.state.tick - 1);
                    }
                    if let Some(frame) = self.players.after_tick(&self.fold, &self.events) {
                        self.frames.push((self.fold.state.tick, frame));
                    }
                    std::mem::swap(&mut self.events, &mut self.tick_events);
                    self.events.clear();
                    Ok(())
                }
                Ok(_) => Ok(()),
                Err(e) => Err(bad(&e)),
            },
        }
    }

    /// One block of recorded frames against the re-encoded ones.
    fn frames_sent(
        &mut self,
        first_pass: u32,
        compressed: &[u8],
        bad: impl Fn(&dyn fmt::Display) -> Verdict,
    ) -> Result<(), Verdict> {
        // The frames a block may hold are the passes the re-run has reached: a frame past
        // them, like a block at the wrong pass, is not something a round writes. Each frame
        // is compared as it comes out, so a block's frames are never all held.
        let (frames, checked) = (&self.frames, &mut self.checked_passes);
        let compared =
            self.decompressor
                .block_with(first_pass, compressed, frames.len(), |rec_frame| {
                    let pass = *checked;
                    let Some((tick, replayed)) = frames.get(pass) else {
                        let why = format!("no pass {pass} for a recorded frame");
                        return Err(Stop::Frames(FramesError::Corrupt(why)));
                    };
                    if rec_frame != replayed.raw() {
                        let d = frame_divergence(*tick, pass, rec_frame, replayed.raw());
                        return Err(Stop::Diverged(d));
                    }
                    *checked += 1;
                    Ok(())
                });
        match compared {
            Ok(()) => Ok(()),
            Err(Stop::Frames(e)) => Err(bad(&e)),
            Err(Stop::Diverged(d)) => Err(Verdict::Diverged(d)),
        }
    }

    /// The recorded result against the fold's, and every frame accounted for.
    fn check_end(&self, recorded: RoundResult, matches: bool) -> Result<(), Verdict> {
        let tick = self.fold.state.tick;
        if !matches {
            let replayed = self.fold.state.verdict.map_or("none", |v| v.result.name());
            return Err(Verdict::Diverged(Divergence {
                tick,
                what: "the round's result differs".into(),
                fields: vec![FieldDiff {
                    path: "result".into(),
                    recorded: Value::from(recorded.name()),
                    replayed: Value::from(replayed),
                }],
            }));
        }
        if self.checked_passes != self.frames.len() {
            return Err(Verdict::Diverged(Divergence {
                tick,
                what: format!(
                    "the replay produced {} frames but {} were recorded",
                    self.frames.len(),
                    self.checked_passes
                ),
                fields: vec![],
            }));
        }
        Ok(())
    }

    /// The verdict once the records ran out: a state hash that differed without any frame
    /// differing first still diverged; a file with no end verified only its prefix.
    fn conclude(&self, verdict: Verdict, read: &ReplayRead) -> Verdict {
        if let (Verdict::Identical | Verdict::Incomplete(_), Some(tick)) =
            (&verdict, self.first_bad_hash)
        {
            return Verdict::Diverged(Divergence {
                tick,
                what: "the state hash differs (no sent frame differs before it)".into(),
                fields: vec![],
            });
        }
        if verdict == Verdict::Identical && !self.ended {
            return Verdict::Incomplete(match read.torn_at {
                Some(at) => format!(
                    "torn tail at byte {at} after {} complete records; the prefix verified",
                    read.records.len()
                ),
                None => format!(
                    "no Ended record after {} records; the prefix verified",
                    read.records.len()
                ),
            });
        }
        verdict
    }
}

fn frame_divergence(tick: u32, pass: usize, recorded: &str, replayed: &str) -> Divergence {
    let (a, b) = (
        serde_json::from_str::<Value>(recorded),
        serde_json::from_str::<Value>(replayed),
    );
    let mut fields = Vec::new();
    match (a, b) {
        (Ok(a), Ok(b)) => diff_values("", &a, &b, &mut fields),
        (Err(e), _) => fields.push(FieldDiff {
            path: "(frame)".into(),
            recorded: Value::from(format!("not JSON: {e}")),
            replayed: Value::from(replayed),
        }),
        (_, Err(e)) => fields.push(FieldDiff {
            path: "(frame)".into(),
            recorded: Value::from(recorded),
            replayed: Value::from(format!("not JSON: {e}")),
        }),
    }
    Divergence {
        tick,
        what: format!("the snap frame of pass {pass} differs"),
        fields,
    }
}

/// A label for an array element: its identity keys when it has them, else its index.
fn element_label(kind: &str, v: &Value, index: usize) -> String {
    let keys = crate::wire::merge::identity_keys(kind);
    if !keys.is_empty() && keys.iter().all(|k| v.get(*k).is_some()) {
        let parts: Vec<String> = keys.iter().map(|k| format!("{k}={}", v[*k])).collect();
        format!("[{}]", parts.join(","))
    } else {
        format!("[{index}]")
    }
}

/// Lists the differing leaves of two JSON values as paths (`d.p[i="c0"].x`).
pub fn diff_values(path: &str, a: &Value, b: &Value, out: &mut Vec<FieldDiff>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match y.get(k) {
                    Some(vb) => diff_values(&p, va, vb, out),
                    None => out.push(FieldDiff {
                        path: p,
                        recorded: va.clone(),
                        replayed: Value::Null,
                    }),
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    out.push(FieldDiff {
                        path: p,
                        recorded: Value::Null,
                        replayed: vb.clone(),
                    });
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let kind = path.rsplit('.').next().unwrap_or("");
            for i in 0..x.len().max(y.len()) {
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff_values(
                        &format!("{path}{}", element_label(kind, va, i)),
                        va,
                        vb,
                        out,
                    ),
                    (Some(va), None) => out.push(FieldDiff {
                        path: format!("{path}{}", element_label(kind, va, i)),
                        recorded: va.clone(),
                        replayed: Value::Null,
                    }),
                    (None, Some(vb)) => out.push(FieldDiff {
                        path: format!("{path}{}", element_label(kind, vb, i)),
                        recorded: Value::Null,
                        replayed: vb.clone(),
                    }),
                    (None, None) => {}
                }
            }
        }
        _ if a != b => out.push(FieldDiff {
            path: path.to_string(),
            recorded: a.clone(),
            replayed: b.clone(),
        }),
        _ => {}
    }
}
