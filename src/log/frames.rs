//! The recorded frames: what the player audience was sent, kept for `verify`.
//!
//! Frames are grouped in blocks (the live room writes one a second, with its flush), each
//! block the newline-joined JSON of consecutive passes, deflated. JSON never contains a raw
//! newline, so the split is exact. Deflate (flate2, pure Rust) shrinks a second of similar
//! frames about tenfold, which is what keeps a 150 s round's file small.

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use std::io::{Read, Write};

/// Passes per block the writers aim for (a full-frame cadence: one second at 20 Hz).
pub const PASSES_PER_BLOCK: usize = 20;
/// The most a block may inflate to; a larger one is corruption.
const MAX_INFLATED: u64 = 64 << 20;

pub fn deflate_frames(frames: &[String]) -> Vec<u8> {
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::new(6));
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            let _ = enc.write_all(b"\n");
        }
        let _ = enc.write_all(f.as_bytes());
    }
    enc.finish().unwrap_or_default()
}

pub fn inflate_frames(deflated: &[u8]) -> Result<Vec<String>, String> {
    let mut text = String::new();
    DeflateDecoder::new(deflated)
        .take(MAX_INFLATED)
        .read_to_string(&mut text)
        .map_err(|e| format!("frames block does not inflate: {e}"))?;
    if text.is_empty() {
        return Ok(Vec::new());
    }
    Ok(text.split('\n').map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn frames_round_trip_through_a_block() {
        let frames = vec!["{\"t\":0}".to_string(), "{\"t\":1}".to_string()];
        let block = super::deflate_frames(&frames);
        assert_eq!(super::inflate_frames(&block).unwrap(), frames);
        assert!(super::inflate_frames(b"not deflate at all").is_err());
    }
}
