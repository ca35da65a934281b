//! Reading the recorded frames back: `FramesSent` blocks in, whole frames out, in bounded
//! memory whatever the file says.
//!
//! A block's few kilobytes may claim gigabytes (zstd and deflate compress a run of one byte
//! a thousandfold or more), so nothing here is sized by what a block decompresses to. Output
//! comes through a 64 KiB buffer and is split into frames as it comes; what a frame holds is
//! capped (`MAX_FRAME_BYTES`), and so is what a whole file's frames decompress to
//! (`MAX_FRAMES_INFLATED`). A frame that is empty, a block at the wrong pass, and more frames
//! than the round had passes are refused too: none is something this program writes, and
//! each would let a small file make a reader hold millions of frames. docs/REPLAY.md lists
//! the limits; docs/SECURITY.md the tests that attack them.

use super::frames::Codec;
use flate2::{Decompress, FlushDecompress, Status};
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
use zstd::zstd_safe::DParameter;

/// The longest one recorded frame may be (the largest shipped level's full frame is about
/// 2 KB); a longer one is corruption, refused before it is held.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
/// The most all of a file's frames may decompress to (a 3,000-tick round of the largest
/// shipped level decompresses to 2 MB: an hour at that rate is about 48 MB).
pub const MAX_FRAMES_INFLATED: usize = 256 << 20;
/// The largest zstd window a reader accepts (the writer uses 2^16); a stream asking for more
/// is not ours, and is refused rather than given the memory.
const MAX_WINDOW_LOG: u32 = 20;
/// What one step of decompression writes at most.
const CHUNK: usize = 64 << 10;

/// Why the recorded frames cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramesError {
    #[error("no frame decoder: {0}")]
    Codec(String),
    #[error("frames block does not decompress: {0}")]
    Corrupt(String),
    #[error("frames start at pass {got}, expected {expected}")]
    WrongPass { got: u32, expected: usize },
    #[error("recorded frame {0} is longer than 1 MiB")]
    FrameTooLong(usize),
    #[error("the recorded frames decompress to more than 256 MiB")]
    TooMuch,
    #[error("recorded frame {0} is empty")]
    Empty(usize),
    #[error("recorded frame {0} is not UTF-8")]
    NotUtf8(usize),
    /// (Checked by readers that pass frames on as JSON, like the HTTP API.)
    #[error("recorded frame {0} is not JSON")]
    NotJson(usize),
    #[error(
        "more recorded frames than passes: a frame for pass {frame}, which the round had not reached"
    )]
    TooMany { frame: usize, passes: usize },
}

/// The reading side: blocks in, in order; whole frames out.
pub struct FrameDecompressor {
    codec: Codec,
    backend: Backend,
    /// The frame the last block began and did not end (at most `MAX_FRAME_BYTES`).
    partial: Vec<u8>,
    chunk: Vec<u8>,
    inflated: usize,
    frames: usize,
}

/// The codec's own state: one stream runs through every block.
enum Backend {
    Deflate(Decompress),
    Zstd(Box<Decoder<'static>>),
}

impl FrameDecompressor {
    pub fn new(codec: Codec) -> Result<FrameDecompressor, FramesError> {
        Ok(FrameDecompressor {
            codec,
            backend: FrameDecompressor::backend(codec)?,
            partial: Vec::new(),
            chunk: vec![0; CHUNK],
            inflated: 0,
            frames: 0,
        })
    }

    /// A fresh stream for the blocks after a `Resumed` record (the writer that resumed the
    /// round started a new compressor). The count of frames goes on, and so does the cap
    /// on what all of them decompress to; a frame a block left unfinished cannot go on in
    /// another stream.
    pub fn restart(&mut self) -> Result<(), FramesError> {
        if !self.partial.is_empty() {
            return Err(FramesError::Corrupt(format!(
                "frame {} is cut off by the resume",
                self.frames
            )));
        }
        self.backend = FrameDecompressor::backend(self.codec)?;
        Ok(())
    }

    fn backend(codec: Codec) -> Result<Backend, FramesError> {
        Ok(match codec {
            Codec::Deflate => Backend::Deflate(Decompress::new(false)),
            Codec::Zstd => {
                let codec = |e: std::io::Error| FramesError::Codec(e.to_string());
                let mut dec = Decoder::new().map_err(codec)?;
                dec.set_parameter(DParameter::WindowLogMax(MAX_WINDOW_LOG))
                    .map_err(codec)?;
                Backend::Zstd(Box::new(dec))
            }
        })
    }

    /// The reader of a round whose header says `format_version`.
    pub fn of_version(format_version: u16) -> Result<FrameDecompressor, FramesError> {
        FrameDecompressor::new(Codec::of_version(format_version).map_err(FramesError::Codec)?)
    }

    /// Decompresses the block that starts at pass `first_pass` and returns the frames it
    /// completes; the round has had `passes` passes so far, and no frame may be past them.
    pub fn block(
        &mut self,
        first_pass: u32,
        bytes: &[u8],
        passes: usize,
    ) -> Result<Vec<String>, FramesError> {
        let mut frames = Vec::new();
        self.block_with(first_pass, bytes, passes, |f| {
            frames.push(f.to_string());
            Ok::<(), FramesError>(())
        })?;
        Ok(frames)
    }

    /// `block`, handing each frame to `each` as it completes instead of keeping them (so a
    /// block's frames are never all held at once); `each` may stop the block with its own
    /// error.
    pub fn block_with<E: From<FramesError>>(
        &mut self,
        first_pass: u32,
        bytes: &[u8],
        passes: usize,
        mut each: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        if first_pass as usize != self.frames {
            return Err(FramesError::WrongPass {
                got: first_pass,
                expected: self.frames,
            }
            .into());
        }
        let mut input = bytes;
        // Each step takes input or gives output, and output is capped: the loop ends.
        loop {
            let (used, wrote, done) = self.step(input)?;
            input = &input[used..];
            self.inflated += wrote;
            if self.inflated > MAX_FRAMES_INFLATED {
                return Err(FramesError::TooMuch.into());
            }
            self.split(wrote, passes, &mut each)?;
            if done {
                return Ok(());
            }
            if used == 0 && wrote == 0 {
                return Err(FramesError::Corrupt("the stream makes no progress".into()).into());
            }
        }
    }

    /// One step of the codec into `chunk`: (input used, bytes written, block finished).
    fn step(&mut self, input: &[u8]) -> Result<(usize, usize, bool), FramesError> {
        match &mut self.backend {
            Backend::Deflate(dec) => {
                let (before_in, before_out) = (dec.total_in(), dec.total_out());
                let status = dec
                    .decompress(input, &mut self.chunk, FlushDecompress::Sync)
                    .map_err(|e| FramesError::Corrupt(e.to_string()))?;
                let used = (dec.total_in() - before_in) as usize;
                let wrote = (dec.total_out() - before_out) as usize;
                let drained = used == input.len() && wrote < CHUNK;
                let done = match status {
                    Status::StreamEnd => true,
                    Status::BufError => used == input.len(),
                    Status::Ok => drained,
                };
                Ok((used, wrote, done))
            }
            Backend::Zstd(dec) => {
                let mut input_buf = InBuffer::around(input);
                let mut output = OutBuffer::around(&mut self.chunk[..]);
                dec.run(&mut input_buf, &mut output)
                    .map_err(|e| FramesError::Corrupt(e.to_string()))?;
                let (used, wrote) = (input_buf.pos(), output.pos());
                // Done when the input is used up and the output had room to spare (zstd
                // holds nothing back then).
                Ok((used, wrote, used == input.len() && wrote < CHUNK))
            }
        }
    }

    /// Splits the `wrote` bytes just decompressed into frames, onto the unfinished one.
    fn split<E: From<FramesError>>(
        &mut self,
        wrote: usize,
        passes: usize,
        each: &mut impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut rest = &self.chunk[..wrote];
        loop {
            let line_end = rest.iter().position(|&b| b == b'\n');
            let piece = &rest[..line_end.unwrap_or(rest.len())];
            if self.partial.len() + piece.len() > MAX_FRAME_BYTES {
                return Err(FramesError::FrameTooLong(self.frames).into());
            }
            self.partial.extend_from_slice(piece);
            let Some(end) = line_end else {
                return Ok(());
            };
            rest = &rest[end + 1..];
            let n = self.frames;
            if self.partial.is_empty() {
                return Err(FramesError::Empty(n).into());
            }
            if n >= passes {
                return Err(FramesError::TooMany { frame: n, passes }.into());
            }
            let text = std::str::from_utf8(&self.partial).map_err(|_| FramesError::NotUtf8(n))?;
            each(text)?;
            self.frames += 1;
            self.partial.clear();
        }
    }
}

/// Every frame a round's records hold, in pass order, each handed to `each` as it is read
/// (`FramesSent` blocks decompressed with the codec the header names). Without a fold, a
/// round's passes are bounded by its ticks: the pass of tick 0, then at most one a tick.
pub fn recorded_with(
    records: &[super::Record],
    mut each: impl FnMut(&str) -> Result<(), FramesError>,
) -> Result<(), FramesError> {
    let Some(super::Record::Started(header)) = records.first() else {
        return Err(FramesError::Codec(
            "the records do not start with a header".into(),
        ));
    };
    let mut decompressor = FrameDecompressor::of_version(header.format_version)?;
    let mut passes = 1;
    for r in records {
        match r {
            super::Record::TickClosed { .. } => passes += 1,
            super::Record::Resumed { .. } => decompressor.restart()?,
            super::Record::FramesSent {
                first_pass,
                compressed,
            } => decompressor.block_with(*first_pass, compressed, passes, &mut each)?,
            _ => {}
        }
    }
    Ok(())
}

/// Every frame a round's records hold, in pass order.
pub fn recorded(records: &[super::Record]) -> Result<Vec<String>, FramesError> {
    let mut frames = Vec::new();
    recorded_with(records, |f| {
        frames.push(f.to_string());
        Ok::<(), FramesError>(())
    })?;
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::frames::FrameCompressor;

    /// One block of these frames, as the writer cuts it.
    fn block(frames: &[&str]) -> Vec<u8> {
        let mut c = FrameCompressor::new().unwrap();
        for f in frames {
            c.push(f);
        }
        c.cut().unwrap()
    }

    fn reader() -> FrameDecompressor {
        FrameDecompressor::new(Codec::Zstd).unwrap()
    }

    #[test]
    fn a_file_whose_frames_decompress_past_256_mib_is_refused_at_the_cap() {
        // 257 frames of just under 1 MiB each, every one allowed on its own.
        let big = "a".repeat(MAX_FRAME_BYTES - 1);
        let (mut c, mut r) = (FrameCompressor::new().unwrap(), reader());
        let mut seen = 0usize;
        let mut err = None;
        for first in 0..257u32 {
            c.push(&big);
            let block = c.cut().unwrap();
            match r.block_with(first, &block, 1000, |f| {
                seen += f.len();
                Ok::<(), FramesError>(())
            }) {
                Ok(()) => {}
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        assert_eq!(err, Some(FramesError::TooMuch));
        assert!(seen <= MAX_FRAMES_INFLATED, "{seen}");
    }

    #[test]
    fn a_frame_past_1_mib_empty_frames_extra_frames_and_a_wrong_pass_are_refused() {
        let long = "a".repeat(MAX_FRAME_BYTES + 1);
        assert_eq!(
            reader().block(0, &block(&[&long]), 10),
            Err(FramesError::FrameTooLong(0))
        );
        let exact = "a".repeat(MAX_FRAME_BYTES);
        assert_eq!(
            reader().block(0, &block(&[&exact]), 10).map(|f| f.len()),
            Ok(1)
        );
        assert_eq!(
            reader().block(0, &block(&["{}", ""]), 10),
            Err(FramesError::Empty(1))
        );
        assert_eq!(
            reader().block(0, &block(&["{}", "{}", "{}"]), 2),
            Err(FramesError::TooMany {
                frame: 2,
                passes: 2
            })
        );
        let mut r = reader();
        assert_eq!(r.block(0, &block(&["{}"]), 10).map(|f| f.len()), Ok(1));
        assert_eq!(
            r.block(0, &block(&["{}"]), 10),
            Err(FramesError::WrongPass {
                got: 0,
                expected: 1
            })
        );
    }
}
