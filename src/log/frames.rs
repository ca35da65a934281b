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
//! (flate2, pure Rust) and is still read. docs/DECISIONS.md has what each measured.

use flate2::{Decompress, FlushDecompress, Status};
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
use zstd::zstd_safe::zstd_sys::ZSTD_EndDirective;
use zstd::zstd_safe::{CCtx, CParameter, DParameter, ParamSwitch, Strategy};

/// Passes per block the writers aim for (a full-frame cadence: one second at 20 Hz).
pub const PASSES_PER_BLOCK: usize = 20;
/// The most one block may decompress to; more is corruption, not frames.
const MAX_BLOCK_INFLATED: usize = 64 << 20;
/// The largest zstd window a reader accepts (the writer uses 2^16); a stream asking for more
/// is not ours, and is refused rather than given the memory.
const MAX_WINDOW_LOG: u32 = 20;

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

/// The reading side: blocks in, in order; whole frames out.
pub struct FrameDecompressor {
    backend: Backend,
    partial: Vec<u8>,
}

/// The codec's own state: one stream runs through every block.
enum Backend {
    Deflate(Decompress),
    Zstd(Box<Decoder<'static>>),
}

impl FrameDecompressor {
    pub fn new(codec: Codec) -> Result<FrameDecompressor, String> {
        let backend = match codec {
            Codec::Deflate => Backend::Deflate(Decompress::new(false)),
            Codec::Zstd => {
                let mut dec = Decoder::new().map_err(|e| format!("no zstd decoder: {e}"))?;
                dec.set_parameter(DParameter::WindowLogMax(MAX_WINDOW_LOG))
                    .map_err(|e| format!("no zstd decoder: {e}"))?;
                Backend::Zstd(Box::new(dec))
            }
        };
        Ok(FrameDecompressor {
            backend,
            partial: Vec::new(),
        })
    }

    /// The reader of a round whose header says `format_version`.
    pub fn of_version(format_version: u16) -> Result<FrameDecompressor, String> {
        FrameDecompressor::new(Codec::of_version(format_version)?)
    }

    /// Decompresses the next block and returns the frames it completes.
    pub fn block(&mut self, bytes: &[u8]) -> Result<Vec<String>, String> {
        // Straight onto what is left of the frame the last block began.
        match &mut self.backend {
            Backend::Deflate(dec) => inflate(dec, bytes, &mut self.partial)?,
            Backend::Zstd(dec) => unzstd(dec, bytes, &mut self.partial)?,
        }
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

/// Inflates a version 1 block onto the end of `out`.
fn inflate(dec: &mut Decompress, bytes: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    let mut input = bytes;
    loop {
        reserve_some(out);
        let before_in = dec.total_in();
        let status = dec
            .decompress_vec(input, out, FlushDecompress::Sync)
            .map_err(|e| format!("frames block does not inflate: {e}"))?;
        let used = (dec.total_in() - before_in) as usize;
        input = &input[used..];
        if out.len() - start > MAX_BLOCK_INFLATED {
            return Err("frames block inflates to more than 64 MiB".into());
        }
        match status {
            Status::StreamEnd => break,
            _ if input.is_empty() && out.len() < out.capacity() => break,
            Status::BufError if input.is_empty() => break,
            _ => {}
        }
    }
    Ok(())
}

/// Decompresses a version 2 block onto the end of `out`.
fn unzstd(dec: &mut Decoder<'static>, bytes: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    let mut input = InBuffer::around(bytes);
    loop {
        reserve_some(out);
        let room = out.capacity() - out.len();
        let before = out.len();
        let wrote = {
            let mut output = OutBuffer::around_pos(out, before);
            dec.run(&mut input, &mut output)
                .map_err(|e| format!("frames block does not decompress: {e}"))?;
            output.pos() - before
        };
        if out.len() - start > MAX_BLOCK_INFLATED {
            return Err("frames block decompresses to more than 64 MiB".into());
        }
        // Done when the input is used up and the output had room to spare (zstd holds
        // nothing back then).
        if input.pos() == bytes.len() && wrote < room {
            break;
        }
    }
    Ok(())
}

/// Every frame a round's records hold, in pass order (its `FramesSent` blocks decompressed
/// with the codec its header names).
pub fn recorded(records: &[super::Record]) -> Result<Vec<String>, String> {
    let Some(super::Record::Started(header)) = records.first() else {
        return Err("the records do not start with a header".into());
    };
    let mut decompressor = FrameDecompressor::of_version(header.format_version)?;
    let mut frames = Vec::new();
    for r in records {
        if let super::Record::FramesSent { compressed, .. } = r {
            frames.extend(decompressor.block(compressed)?);
        }
    }
    Ok(frames)
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
        let mut got = i.block(&b1).unwrap();
        assert_eq!(got.len(), 2);
        got.extend(i.block(&b2).unwrap());
        assert_eq!(got, frames);
        for bad in [&b"\xff\xff not zstd at all"[..], &b2[..]] {
            // Garbage, or the second block without the first.
            assert!(
                FrameDecompressor::new(Codec::Zstd)
                    .unwrap()
                    .block(bad)
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
        let got: Vec<String> = blocks.iter().flat_map(|b| i.block(b).unwrap()).collect();
        assert_eq!(got, frames);
        assert!(FrameDecompressor::of_version(3).is_err());
        assert!(
            FrameDecompressor::new(Codec::Deflate)
                .unwrap()
                .block(b"\xff\xff not deflate at all")
                .is_err()
        );
    }
}
