//! The recorded frames: what the player audience was sent, kept for `verify`.
//!
//! All of a round's frames form one raw-deflate stream, each frame's JSON followed by a
//! newline (JSON never contains a raw one, so the split is exact). The stream is cut into
//! blocks at sync-flush points (the live room writes one block a second, with its flush):
//! each `FramesSent` record holds the bytes of one block, and a reader inflates the blocks in
//! order. Sharing one stream lets every block reuse the window of the seconds before it,
//! which is what keeps a 150 s round's frames small (deflate via flate2, pure Rust).

use flate2::write::DeflateEncoder;
use flate2::{Compression, Decompress, FlushDecompress, Status};
use std::io::Write;

/// The deflate level of the frame stream. Measured on the golden rounds' frames (a 4-bot
/// round re-deflated at each level, docs/DECISIONS.md): level 9 cost 18–20 µs a frame, level
/// 5 about 4 µs for 5–9 % more bytes; the 64×64 hall's 150 s round stays well under 256 KB.
const LEVEL: u32 = 5;

/// Passes per block the writers aim for (a full-frame cadence: one second at 20 Hz).
pub const PASSES_PER_BLOCK: usize = 20;
/// The most one block may inflate to; more is corruption, not frames.
const MAX_BLOCK_INFLATED: usize = 64 << 20;

/// The writing side: frames in, one block's bytes out at each `cut`.
///
/// Frames wait as plain text until the cut and are deflated there in one go: a deflate
/// state is a few hundred KB of tables, and with a hundred rooms touching theirs twenty
/// times a second each touch missed the cache (the live profile showed deflate at 20 % of
/// the server's CPU, ten times what the same frames cost one room alone). Once a second per
/// room, the tables are warm for the whole block. The bytes are the same either way.
pub struct FrameDeflater {
    enc: DeflateEncoder<Vec<u8>>,
    pending: Vec<u8>,
}

impl Default for FrameDeflater {
    fn default() -> Self {
        FrameDeflater {
            enc: DeflateEncoder::new(Vec::new(), Compression::new(LEVEL)),
            pending: Vec::new(),
        }
    }
}

impl FrameDeflater {
    pub fn push(&mut self, frame: &str) {
        self.pending.extend_from_slice(frame.as_bytes());
        self.pending.push(b'\n');
    }

    /// Ends the current block at a sync-flush point and returns its bytes.
    pub fn cut(&mut self) -> Vec<u8> {
        // Writing into a Vec cannot fail.
        let _ = self.enc.write_all(&self.pending);
        self.pending.clear();
        let _ = self.enc.flush();
        std::mem::take(self.enc.get_mut())
    }
}

/// The reading side: blocks in, in order; whole frames out.
pub struct FrameInflater {
    dec: Decompress,
    partial: Vec<u8>,
}

impl Default for FrameInflater {
    fn default() -> Self {
        FrameInflater {
            dec: Decompress::new(false),
            partial: Vec::new(),
        }
    }
}

impl FrameInflater {
    /// Inflates the next block and returns the frames it completes.
    pub fn block(&mut self, bytes: &[u8]) -> Result<Vec<String>, String> {
        let mut out: Vec<u8> = Vec::with_capacity(bytes.len() * 12 + 1024);
        let mut input = bytes;
        loop {
            if out.len() == out.capacity() {
                out.reserve(out.capacity().max(4096));
            }
            let before_in = self.dec.total_in();
            let status = self
                .dec
                .decompress_vec(input, &mut out, FlushDecompress::Sync)
                .map_err(|e| format!("frames block does not inflate: {e}"))?;
            let used = (self.dec.total_in() - before_in) as usize;
            input = &input[used..];
            if out.len() > MAX_BLOCK_INFLATED {
                return Err("frames block inflates to more than 64 MiB".into());
            }
            match status {
                Status::StreamEnd => break,
                _ if input.is_empty() && out.len() < out.capacity() => break,
                Status::BufError if input.is_empty() => break,
                _ => {}
            }
        }
        self.partial.extend_from_slice(&out);
        let mut frames = Vec::new();
        let mut start = 0;
        for (i, b) in self.partial.iter().enumerate() {
            if *b == b'\n' {
                let text = std::str::from_utf8(&self.partial[start..i])
                    .map_err(|_| "a recorded frame is not UTF-8".to_string())?;
                frames.push(text.to_string());
                start = i + 1;
            }
        }
        self.partial.drain(..start);
        Ok(frames)
    }
}

/// Every frame a round's records hold, in pass order (its `FramesSent` blocks inflated).
pub fn recorded(records: &[super::Record]) -> Result<Vec<String>, String> {
    let mut inflater = FrameInflater::default();
    let mut frames = Vec::new();
    for r in records {
        if let super::Record::FramesSent { deflated, .. } = r {
            frames.extend(inflater.block(deflated)?);
        }
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_through_consecutive_blocks() {
        let mut d = FrameDeflater::default();
        let mut i = FrameInflater::default();
        let frames: Vec<String> = (0..50)
            .map(|t| format!("{{\"t\":{t},\"x\":\"{}\"}}", "ab".repeat(t)))
            .collect();
        d.push(&frames[0]);
        d.push(&frames[1]);
        let b1 = d.cut();
        for f in &frames[2..] {
            d.push(f);
        }
        let b2 = d.cut();
        let mut got = i.block(&b1).unwrap();
        got.extend(i.block(&b2).unwrap());
        assert_eq!(got, frames);
        assert!(
            FrameInflater::default()
                .block(b"\xff\xff not deflate at all")
                .is_err()
        );
    }
}
