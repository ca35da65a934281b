//! Re-running a replay: fold it again, re-encode every frame, compare with what was sent.
//!
//! This is the session whose only job is to re-run and compare (ggrs's sync test, for
//! rounds on disk). `replay_bytes` folds a file and reports the first divergence: a state
//! hash that differs, a frame whose bytes differ (with the differing JSON fields), a result
//! that differs. It never panics on a bad file: a foreign, corrupt or newer file is
//! `Unreadable`; a file cut short (no `End`, or a torn tail) is `Incomplete` once its
//! prefix has verified.

use crate::log::frames::FrameInflater;
use crate::log::{Applied, Header, Record, RoundFold, read_replay};
use crate::sim::Event;
use crate::wire::SnapEncoder;
use crate::wire::project;
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

/// Everything a re-run produced.
pub struct Rerun {
    pub header: Option<Header>,
    pub fold: Option<RoundFold>,
    /// The re-encoded player frames, one per pass, with the tick of each.
    pub frames: Vec<(u32, String)>,
    pub verdict: Verdict,
    pub records: usize,
}

/// Folds a replay file's bytes and compares every recorded frame.
pub fn replay_bytes(bytes: &[u8]) -> Rerun {
    let mut rerun = Rerun {
        header: None,
        fold: None,
        frames: Vec::new(),
        verdict: Verdict::Identical,
        records: 0,
    };
    let read = match read_replay(bytes) {
        Ok(r) => r,
        Err(e) => {
            rerun.verdict = Verdict::Unreadable(e.to_string());
            return rerun;
        }
    };
    rerun.records = read.records.len();
    let Some(Record::Header(header)) = read.records.first() else {
        rerun.verdict = Verdict::Unreadable("the file ends before its header is complete".into());
        return rerun;
    };
    rerun.header = Some(header.clone());
    let mut fold = match RoundFold::new(header.clone()) {
        Ok(f) => f,
        Err(e) => {
            rerun.verdict = Verdict::Unreadable(format!("record 0 (Header): {e}"));
            return rerun;
        }
    };
    let mut encoder = SnapEncoder::new();
    let mut unsent: Vec<Event> = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    rerun.frames.push((
        0,
        encoder.encode(project(&fold.state, &fold.rules), &[], &fold.ids),
    ));
    let mut checked_passes = 0usize;
    let mut first_bad_hash: Option<u32> = None;
    let mut ended = false;
    let mut inflater = FrameInflater::default();

    for (n, record) in read.records.iter().enumerate().skip(1) {
        let bad = |e: &dyn fmt::Display| {
            Verdict::Unreadable(format!("record {n} ({}): {e}", record.name()))
        };
        match record {
            Record::Frames {
                first_pass,
                deflated,
            } => {
                let recorded = match inflater.block(deflated) {
                    Ok(f) => f,
                    Err(e) => {
                        rerun.verdict = bad(&e);
                        break;
                    }
                };
                if *first_pass as usize != checked_passes {
                    rerun.verdict = bad(&format!(
                        "frames start at pass {first_pass}, expected {checked_passes}"
                    ));
                    break;
                }
                for (i, rec_frame) in recorded.iter().enumerate() {
                    let pass = checked_passes + i;
                    let Some((tick, replayed)) = rerun.frames.get(pass) else {
                        let tick = fold.state.tick;
                        rerun.verdict = Verdict::Diverged(Divergence {
                            tick,
                            what: format!(
                                "a frame was recorded for pass {pass}, which the replay never reached"
                            ),
                            fields: vec![],
                        });
                        break;
                    };
                    if rec_frame != replayed {
                        rerun.verdict =
                            Verdict::Diverged(frame_divergence(*tick, pass, rec_frame, replayed));
                        break;
                    }
                }
                if rerun.verdict != Verdict::Identical {
                    break;
                }
                checked_passes += recorded.len();
            }
            Record::End { result, .. } => match fold.apply(record, &mut events) {
                Ok(Applied::Ended { matches }) => {
                    ended = true;
                    if !matches {
                        let replayed = fold.state.verdict.map_or("none", |v| v.result.name());
                        rerun.verdict = Verdict::Diverged(Divergence {
                            tick: fold.state.tick,
                            what: "the round's result differs".into(),
                            fields: vec![FieldDiff {
                                path: "result".into(),
                                recorded: Value::from(result.as_str()),
                                replayed: Value::from(replayed),
                            }],
                        });
                    } else if checked_passes != rerun.frames.len() {
                        rerun.verdict = Verdict::Diverged(Divergence {
                            tick: fold.state.tick,
                            what: format!(
                                "the replay produced {} frames but {} were recorded",
                                rerun.frames.len(),
                                checked_passes
                            ),
                            fields: vec![],
                        });
                    }
                    break;
                }
                Ok(_) => {
                    rerun.verdict = bad(&"End did not end the round");
                    break;
                }
                Err(e) => {
                    rerun.verdict = bad(&e);
                    break;
                }
            },
            _ => match fold.apply(record, &mut events) {
                Ok(Applied::Stepped { hash_matches }) => {
                    unsent.append(&mut events);
                    if !hash_matches && first_bad_hash.is_none() {
                        first_bad_hash = Some(fold.state.tick - 1);
                    }
                    if fold.is_pass() {
                        let frame =
                            encoder.encode(project(&fold.state, &fold.rules), &unsent, &fold.ids);
                        unsent.clear();
                        rerun.frames.push((fold.state.tick, frame));
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    rerun.verdict = bad(&e);
                    break;
                }
            },
        }
    }
    // A state hash that differs without any frame differing first still diverged.
    if let (Verdict::Identical | Verdict::Incomplete(_), Some(tick)) =
        (&rerun.verdict, first_bad_hash)
    {
        rerun.verdict = Verdict::Diverged(Divergence {
            tick,
            what: "the state hash differs (no sent frame differs before it)".into(),
            fields: vec![],
        });
    }
    if rerun.verdict == Verdict::Identical && !ended {
        rerun.verdict = Verdict::Incomplete(match read.torn_at {
            Some(at) => format!(
                "torn tail at byte {at} after {} complete records; the prefix verified",
                read.records.len()
            ),
            None => format!(
                "no End record after {} records; the prefix verified",
                read.records.len()
            ),
        });
    }
    rerun.fold = Some(fold);
    rerun
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
