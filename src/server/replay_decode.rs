//! What the replay API answers for a file, decoded from its bytes: the round's header and
//! layout, or its recorded frames as one JSON body (plain and gzip); the file itself is kept
//! as read.
//!
//! These run on the blocking pool (`replay_cache` sends them there) and read the file through
//! the same bounded readers as `verify`: a record's claimed lengths are capped by bincode's
//! decode limit, the frames by `log::unframe`'s. A file they cannot read is `Unreadable`
//! with the reason, which the API answers `422`; nothing here panics or allocates what a
//! file merely claims.

use crate::log::frames::{FramesError, recorded_with};
use crate::log::{Record, read_replay};
use crate::sim::Level;
use crate::wire::layout::LevelLayout;
use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};
use std::io::Write;

/// One file's answer, as the cache keeps it.
pub enum Decoded {
    /// `GET /api/replays/{id}`'s body, without the `id` (the request brings it).
    Round(Value),
    /// `GET /api/replays/{id}/frames`'s body, and the same gzipped.
    Frames { plain: Bytes, gzip: Bytes },
    /// `GET /api/replays/{id}/file`'s body: the file's bytes as they are.
    File(Bytes),
    /// Why the file cannot be read.
    Unreadable(String),
}

impl Decoded {
    /// About what the entry holds, for the cache's byte budget.
    pub fn bytes(&self) -> usize {
        match self {
            Decoded::Round(v) => v.to_string().len(),
            Decoded::Frames { plain, gzip } => plain.len() + gzip.len(),
            Decoded::File(bytes) => bytes.len(),
            Decoded::Unreadable(why) => why.len(),
        }
    }
}

/// The round's header (seats, seed, rates) and its level's layout, from the level text the
/// file carries.
pub fn round(bytes: &[u8]) -> Decoded {
    let read = match read_replay(bytes) {
        Ok(r) => r,
        Err(e) => return Decoded::Unreadable(e.to_string()),
    };
    let Some(Record::Started(h)) = read.records.first() else {
        return Decoded::Unreadable("the file has no header".into());
    };
    let level = match Level::parse(&h.level_file, &h.level_toml) {
        Ok(l) => l,
        Err(e) => return Decoded::Unreadable(e.to_string()),
    };
    let seats: Vec<_> = h
        .seats
        .iter()
        .map(|s| json!({"seat": s.seat, "id": s.player_id, "name": s.name, "color": s.color}))
        .collect();
    Decoded::Round(json!({
        "room_code": h.room_code, "round_no": h.round_no, "seed": h.seed.to_string(),
        "started_at": h.started_unix_s, "tick_hz": h.tick_hz, "snapshot_hz": h.snapshot_hz,
        "seats": seats, "layout": LevelLayout::of(&level),
        "ended": read.records.iter().any(|r| matches!(r, Record::Ended { .. })),
    }))
}

/// `{"frames": [...]}`: every recorded `snap` body in order, each checked to be JSON (the
/// body is only JSON if each is), written straight into the body as it is decompressed.
pub fn frames(bytes: &[u8]) -> Decoded {
    let read = match read_replay(bytes) {
        Ok(r) => r,
        Err(e) => return Decoded::Unreadable(e.to_string()),
    };
    let mut body = String::from("{\"frames\":[");
    let mut n = 0usize;
    let built = recorded_with(&read.records, |frame| {
        if serde_json::from_str::<serde::de::IgnoredAny>(frame).is_err() {
            return Err(FramesError::NotJson(n));
        }
        if n > 0 {
            body.push(',');
        }
        body.push_str(frame);
        n += 1;
        Ok::<(), FramesError>(())
    });
    if let Err(e) = built {
        return Decoded::Unreadable(e.to_string());
    }
    body.push_str("]}");
    // Fast gzip: a round's frames shrink about tenfold, and every browser takes it.
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    let gzip = match enc.write_all(body.as_bytes()).and_then(|()| enc.finish()) {
        Ok(g) => g,
        Err(e) => return Decoded::Unreadable(format!("the frames do not compress: {e}")),
    };
    Decoded::Frames {
        plain: Bytes::from(body),
        gzip: Bytes::from(gzip),
    }
}
