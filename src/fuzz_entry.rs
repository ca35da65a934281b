//! The fuzz targets' entry points: one function per kind of bytes the server takes from
//! outside, each of which must return for any input and never panic.
//!
//! `fuzz/` (cargo-fuzz, on nightly) feeds them what libFuzzer makes; `tests/sim/fuzz_corpus.rs`
//! replays the committed, minimized corpus (`fuzz/corpus/<target>/`) through the same
//! functions on stable, so an input that once found a crash fails CI if it comes back.
//! docs/SECURITY.md has the runs' figures.

/// A client's WebSocket text frame, as the socket parses it (strict JSON, duplicate keys
/// refused, every field checked).
pub fn client_frame(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::wire::messages::parse_client(text);
    }
}

/// A replay file, as `verify` and `replay` read it: records decoded, the round re-run,
/// every recorded frame decompressed and compared.
pub fn replay_file(data: &[u8]) {
    let _ = crate::verify::replay_bytes(data);
}

/// A level file, as the server and `levels check` load it: TOML, the grammar, the lints.
pub fn level_file(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(level) = crate::levels::check_level_file("fuzzed.toml", text)
    {
        let _ = crate::levels::lint::lints(&level);
        let _ = crate::frame_budget::lint("fuzzed.toml", text, &level);
    }
}

/// An HTTP request body as a room route parses it. The first byte picks the declared
/// content type and the route's body (`{name?, token?}` or a bot's `{seat?}`); the rest is
/// the body.
pub fn http_body(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let content_type = match pick % 4 {
        0 => None,
        1 => Some("application/json"),
        2 => Some("application/json; charset=utf-8"),
        _ => Some("text/plain"),
    };
    let _ = crate::server::parse_room_body(content_type, body, pick & 4 != 0);
}

/// A client's bytes through the server's WebSocket frame reader (`net::read`), split at
/// read boundaries the input picks, under a frame limit and a read budget it picks. The
/// reader must never panic, never hand out a message longer than its limit, never take
/// more frames or bytes in one read than the budget allows, never hold more than its limit
/// plus its buffer — and, as a model check, hand out the same frames and stop the same way
/// as when every byte is there at once, since the kernel may split a client's bytes
/// anywhere.
///
/// The input: byte 0 holds how many chunk sizes follow (1–8, low 3 bits), whether to halt
/// the read after each text message (bit 3), whether the first chunk came with the upgrade
/// request (bit 4) and which limit (bits 5–7); byte 1 the budget's frames, byte 2 its
/// bytes, byte 3 the limit's scale; then the chunk sizes (0: the kernel holds nothing for
/// now, `WouldBlock`), used in turn; the rest is the stream.
pub fn ws_frame(data: &[u8]) {
    let _ = ws_frames_read(data);
}

/// `ws_frame`'s work: the frames read and how the reading ended (`Some(code)`: the client
/// broke the protocol), or `None` for an input too short to configure a read.
fn ws_frames_read(data: &[u8]) -> Option<(Vec<Got>, Option<u16>)> {
    use crate::net::read::{Budget, FrameReader};

    let [config, frames, bytes, scale, rest @ ..] = data else {
        return None;
    };
    let n_sizes = usize::from(config & 7) + 1;
    if rest.len() < n_sizes {
        return None;
    }
    let (sizes, stream) = rest.split_at(n_sizes);
    let limit = match config >> 5 {
        0 => usize::from(*scale),
        1 => usize::from(*scale) * 16,
        2 => 125,
        3 => 64 * 1024, // the server's default (`max_message_bytes`)
        _ => usize::from(*scale) * 256 + 1,
    };
    let budget = Budget {
        frames: usize::from(frames % 32) + 1,
        bytes: (usize::from(*bytes) + 1) * 64,
    };
    let halt_on_text = config & 8 != 0;
    let early_len = match config & 16 != 0 {
        true => chunk_size(sizes[0]).min(stream.len()),
        false => 0,
    };
    let (early, stream) = stream.split_at(early_len);

    // As the server reads: in chunks, a budget at a time.
    let mut reader = FrameReader::new(early.to_vec(), limit);
    let mut source = Chunks::new(stream, sizes);
    let mut got = Vec::new();
    let mut calls = 0;
    let end = loop {
        calls += 1;
        // Each call takes a byte, hands out a frame, or finds the kernel dry once in a row:
        // more calls than that is a reader going round without progress.
        assert!(calls <= 4 * data.len() + 8, "the reader makes progress");
        source.taken = 0;
        let mut this_read = 0;
        let stop = reader.read_frames(&mut source, budget, |frame| {
            this_read += 1;
            let halt = halt_on_text && matches!(frame, crate::net::read::FrameIn::Text(_));
            got.push(Got::from(frame, limit));
            match halt {
                true => std::ops::ControlFlow::Break(()),
                false => std::ops::ControlFlow::Continue(()),
            }
        });
        assert!(this_read <= budget.frames, "{this_read} frames in one read");
        assert!(
            source.taken <= budget.bytes,
            "{} bytes in one read",
            source.taken
        );
        let most = limit + limit.max(crate::net::read::CHUNK).max(early.len());
        assert!(reader.held() <= most, "holds {} > {most}", reader.held());
        match stop {
            Stop::Dry | Stop::Budget => {}
            Stop::Halted => assert!(halt_on_text, "halted only by the caller"),
            Stop::Ended => break None,
            Stop::Broke(code) => {
                let codes = [
                    crate::net::read::PROTOCOL_ERROR,
                    crate::net::read::INVALID_DATA,
                    crate::net::read::TOO_BIG,
                ];
                assert!(codes.contains(&code), "close code {code}");
                break Some(code);
            }
        }
    };

    // The model: every byte there at once, no budget, nothing early.
    let whole: Vec<u8> = [early, stream].concat();
    let mut model = FrameReader::new(Vec::new(), limit);
    let mut source = Chunks::new(&whole, &[]);
    let mut want = Vec::new();
    let unlimited = Budget {
        frames: usize::MAX,
        bytes: usize::MAX,
    };
    let model_end = loop {
        match model.read_frames(&mut source, unlimited, |frame| {
            want.push(Got::from(frame, limit));
            std::ops::ControlFlow::Continue(())
        }) {
            Stop::Ended => break None,
            Stop::Broke(code) => break Some(code),
            Stop::Dry | Stop::Budget | Stop::Halted => {}
        }
    };
    assert_eq!(got, want, "the same frames however the bytes are split");
    assert_eq!(end, model_end, "the same end however the bytes are split");
    Some((got, end))
}

use crate::net::read::Stop;

/// A frame as `ws_frame` compares it (the reader's frames borrow its buffer).
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Text(String),
    Binary(usize),
    Fragment,
    Ping(Vec<u8>),
    Pong,
    Close(Option<u16>),
}

impl Got {
    /// The frame, owned, after checking it is no longer than the reader's limits.
    fn from(frame: crate::net::read::FrameIn<'_>, limit: usize) -> Got {
        use crate::net::read::FrameIn;
        match frame {
            FrameIn::Text(text) => {
                assert!(text.len() <= limit, "a text of {} > {limit}", text.len());
                Got::Text(text.to_owned())
            }
            FrameIn::Binary(len) => {
                assert!(len <= limit, "a binary message of {len} > {limit}");
                Got::Binary(len)
            }
            FrameIn::Fragment => Got::Fragment,
            FrameIn::Ping(payload) => {
                assert!(payload.len() <= 125, "a ping of {}", payload.len());
                Got::Ping(payload.to_vec())
            }
            FrameIn::Pong => Got::Pong,
            FrameIn::Close(code) => Got::Close(code),
        }
    }
}

/// A chunk size byte: 1–127 bytes as is, above that in steps of 64 (up to 8 KiB), so that
/// both a header split byte by byte and a long frame in few reads are reachable.
fn chunk_size(b: u8) -> usize {
    match b {
        0..=127 => usize::from(b),
        _ => usize::from(b - 127) * 64,
    }
}

/// A socket that hands out its bytes in the chunks the sizes say, in turn (0: nothing for
/// now, once in a row; no sizes: all it can at once), and counts what a read took.
struct Chunks<'a> {
    bytes: &'a [u8],
    sizes: &'a [u8],
    next: usize,
    blocked: bool,
    taken: usize,
}

impl<'a> Chunks<'a> {
    fn new(bytes: &'a [u8], sizes: &'a [u8]) -> Chunks<'a> {
        Chunks {
            bytes,
            sizes,
            next: 0,
            blocked: false,
            taken: 0,
        }
    }
}

impl std::io::Read for Chunks<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes.get(self.next % self.sizes.len().max(1)).copied();
        self.next += 1;
        let size = match size.map(chunk_size) {
            None => usize::MAX,
            Some(0) if !self.blocked && !self.bytes.is_empty() => {
                self.blocked = true;
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            Some(0) => 1,
            Some(n) => n,
        };
        self.blocked = false;
        let n = size.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.taken += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::{Got, ws_frames_read};

    /// A client's frame: FIN, the opcode, masked with `1 2 3 4`.
    fn masked(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [1, 2, 3, 4];
        let mut f = vec![0x80 | opcode, 0x80 | payload.len() as u8];
        f.extend(mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i & 3]));
        f
    }

    #[test]
    fn the_ws_frame_target_reads_frames_split_a_byte_at_a_time_and_the_breach_after_them() {
        // Two chunk sizes (1 byte, then nothing for now), a halt after each text, a limit
        // of 64 × 16 bytes, a budget of 2 frames and 128 bytes.
        let mut input = vec![0b0010_1001, 1, 1, 64, 1, 0];
        input.extend(masked(1, b"hello"));
        input.extend(masked(9, b"ping"));
        input.extend(masked(2, &[0; 100]));
        input.extend([0x81, 5, b'h', b'e', b'l', b'l', b'o']); // unmasked: 1002
        let (frames, end) = ws_frames_read(&input).expect("configured");
        assert_eq!(
            frames,
            [
                Got::Text("hello".into()),
                Got::Ping(b"ping".to_vec()),
                Got::Binary(100)
            ]
        );
        assert_eq!(end, Some(crate::net::read::PROTOCOL_ERROR));
    }
}
