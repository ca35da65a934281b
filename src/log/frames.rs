//! The recorded frames: what the player audience was sent, kept for `verify`.
//!
//! All of a round's frames form one compressed stream, each frame's JSON followed by a
//! newline (JSON never contains a raw one, so the split is exact). The stream is cut into
//! blocks at flush points (the live room writes one block a second, with its flush): each
//! `FramesSent` record holds the bytes of one block, and a reader decompresses the blocks in
//! order. Sharing one stream lets every block reuse the window of the seconds before it,
//! which is what keeps a 150 s round's frames small.
//!
//! The codec is the replay's format version's (`Codec::of_version`): version 2, what this
//! build writes, is a zstd stream with its parameters set below; version 1 was raw deflate
//! (flate2, pure Rust) and is still read. docs/DECISIONS.md has what each measured. The
//! reading side, with its limits, is `super::unframe`.

pub use super::unframe::{FrameDecompressor, FramesError, recorded, recorded_with};
use zstd::stream::raw::{InBuffer, OutBuffer};
use zstd::zstd_safe::zstd_sys::ZSTD_EndDirective;
use zstd::zstd_safe::{CCtx, CParameter, ParamSwitch, Strategy};

/// Passes per block the writers aim for (a full-frame cadence: one second at 20 Hz).
pub const PASSES_PER_BLOCK: usize = 20;
/// How a replay's frame stream is compressed, by the file's format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Format version 1: one raw-deflate stream, blocks cut at sync flushes.
    Deflate,
    /// Format version 2: one zstd frame, blocks cut at `ZSTD_e_flush`.
    Zstd,
}

impl Codec {
    pub fn of_version(format_version: u16) -> Result<Codec, String> {
        match format_version {
            1 => Ok(Codec::Deflate),
            2 => Ok(Codec::Zstd),
            v => Err(format!(
                "format version {v} is not one this build reads (1 to {})",
                super::records::FORMAT_VERSION
            )),
        }
    }
}

/// The writing side: frames in, one block's bytes out at each `cut`.
///
/// Frames wait as plain text until the cut and are compressed there in one go: a
/// compressor's tables are a few hundred KB, and with a hundred rooms touching theirs twenty
/// times a second each touch missed the cache (the live profile showed deflate at 20 % of
/// the server's CPU, ten times what the same frames cost one room alone). Once a second per
/// room, the tables are warm for the whole block.
///
/// The parameters are zstd's greedy strategy with a 64 KB window (the last few seconds of
/// frames, which is where the matches are), 2^12-entry hash and chain tables searched as a
/// hash chain (not zstd's row match finder, which it picks by itself for this window: on
/// these blocks its upkeep cost more than it saved), four probes (a search log of 2)
/// and matches of at least 5 bytes: on the golden rounds' frames with a hundred rounds
/// interleaved, about 40 % of deflate level 5's CPU for 3–8 % more bytes
/// (`docs/DECISIONS.md` has the figures).
pub struct FrameCompressor {
    cctx: CCtx<'static>,
    pending: Vec<u8>,
}

impl FrameCompressor {
    pub fn new() -> std::io::Result<FrameCompressor> {
        let mut cctx = CCtx::try_create()
            .ok_or_else(|| std::io::Error::other("zstd could not allocate a context"))?;
        for p in [
            CParameter::CompressionLevel(3),
            CParameter::WindowLog(16),
            CParameter::HashLog(12),
            CParameter::ChainLog(12),
            CParameter::SearchLog(2),
            CParameter::MinMatch(5),
            CParameter::TargetLength(0),
            CParameter::Strategy(Strategy::ZSTD_greedy),
            CParameter::UseRowMatchFinder(ParamSwitch::Disable),
        ] {
            cctx.set_parameter(p).map_err(zstd_error)?;
        }
        Ok(FrameCompressor {
            cctx,
            pending: Vec::new(),
        })
    }

    pub fn push(&mut self, frame: &str) {
        self.pending.extend_from_slice(frame.as_bytes());
        self.pending.push(b'\n');
    }

    /// Ends the current block at a flush point and returns its bytes.
    pub fn cut(&mut self) -> std::io::Result<Vec<u8>> {
        let mut out: Vec<u8> = Vec::new();
        let mut input = InBuffer::around(&self.pending);
        // Takes the whole input and flushes it; 0 once nothing is left to write out.
        loop {
            reserve_some(&mut out);
            let at = out.len();
            let mut output = OutBuffer::around_pos(&mut out, at);
            let left = self
                .cctx
                .compress_stream2(&mut output, &mut input, ZSTD_EndDirective::ZSTD_e_flush)
                .map_err(zstd_error)?;
            if left == 0 {
                break;
            }
        }
        self.pending.clear();
        Ok(out)
    }
}

/// A zstd error code as an I/O error, by zstd's own name for it.
fn zstd_error(code: usize) -> std::io::Error {
    std::io::Error::other(zstd::zstd_safe::get_error_name(code))
}

/// Room for at least 4 KB more output.
fn reserve_some(out: &mut Vec<u8>) {
    if out.capacity() - out.len() < 4096 {
        out.reserve(out.capacity().max(4096));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames() -> Vec<String> {
        (0..50)
            .map(|t| format!("{{\"t\":{t},\"x\":\"{}\"}}", "ab".repeat(t)))
            .collect()
    }

    #[test]
    fn frames_round_trip_through_consecutive_blocks() {
        let frames = frames();
        let mut d = FrameCompressor::new().unwrap();
        let mut i = FrameDecompressor::of_version(crate::log::records::FORMAT_VERSION).unwrap();
        d.push(&frames[0]);
        d.push(&frames[1]);
        let b1 = d.cut().unwrap();
        for f in &frames[2..] {
            d.push(f);
        }
        let b2 = d.cut().unwrap();
        // Each block stands as written: its frames come out before the next block is read.
        let mut got = i.block(0, &b1, 100).unwrap();
        assert_eq!(got.len(), 2);
        got.extend(i.block(2, &b2, 100).unwrap());
        assert_eq!(got, frames);
        for bad in [&b"\xff\xff not zstd at all"[..], &b2[..]] {
            // Garbage, or the second block without the first.
            assert!(
                FrameDecompressor::new(Codec::Zstd)
                    .unwrap()
                    .block(0, bad, 100)
                    .is_err()
            );
        }
    }

    #[test]
    fn a_version_1_stream_of_deflate_blocks_is_still_read() {
        use flate2::Compression;
        use flate2::write::DeflateEncoder;
        use std::io::Write;
        let frames = frames();
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::new(5));
        let mut blocks = Vec::new();
        for chunk in frames.chunks(20) {
            for f in chunk {
                enc.write_all(f.as_bytes()).unwrap();
                enc.write_all(b"\n").unwrap();
            }
            enc.flush().unwrap();
            blocks.push(std::mem::take(enc.get_mut()));
        }
        let mut i = FrameDecompressor::of_version(1).unwrap();
        let mut got: Vec<String> = Vec::new();
        for b in &blocks {
            got.extend(i.block(got.len() as u32, b, 100).unwrap());
        }
        assert_eq!(got, frames);
        assert!(FrameDecompressor::of_version(3).is_err());
        assert!(
            FrameDecompressor::new(Codec::Deflate)
                .unwrap()
                .block(0, b"\xff\xff not deflate at all", 100)
                .is_err()
        );
    }
}
