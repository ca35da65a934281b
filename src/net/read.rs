//! A client's bytes into WebSocket frames, a read's budget at a time.
//!
//! The server reads frames, not messages. tungstenite's `WebSocket::read` returns whole
//! messages: the fragments of one, and control frames, are read inside a single call, and
//! it answers each ping by writing a pong. A client sending empty fragments, or pings, at
//! full speed kept one call reading as long as it sent, and every room on its thread
//! waited. So tungstenite parses each header here (`FrameHeader::parse`), and this reader
//! keeps the rest of RFC 6455's reading side: unmasking, fragments put together, UTF-8
//! checked (`1007`), control frames short and whole, the close's code. Each frame, of any
//! kind, goes to the caller, who counts it against the client's rate; and one read takes at
//! most `Budget::READ` of frames and bytes from one socket, leaving the rest in the kernel
//! for the next.
//!
//! A frame's header is read before its payload: one longer than the limit is never read
//! at all (`1009`). The buffer rests at a kilobyte, grows for a long frame up to the limit,
//! and shrinks back once that frame has been read.

use std::io::{self, Read};
use std::ops::ControlFlow;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Control, Data, OpCode};

/// The buffer's resting size: a tick's few inputs (about 100 bytes each) fit many times.
pub(crate) const CHUNK: usize = 1024;

/// Close codes of RFC 6455 this reader answers a broken frame with.
pub const PROTOCOL_ERROR: u16 = 1002;
pub const INVALID_DATA: u16 = 1007;
pub const TOO_BIG: u16 = 1009;

/// What one read may take from one socket (a room reads each of its sockets once a tick).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub frames: usize,
    pub bytes: usize,
}

impl Budget {
    /// Far above a player's two inputs a tick (a socket that sends at the 40-a-second rate
    /// has 2 a tick), far below what would hold a room's thread (a read of tiny frames
    /// costs tens of microseconds).
    pub const READ: Budget = Budget {
        frames: 32,
        bytes: 16 * 1024,
    };
}

/// One frame from the client, as the rules see it.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameIn<'a> {
    /// The last frame of a text message: the whole message, valid UTF-8.
    Text(&'a str),
    /// The last frame of a binary message, and the message's length.
    Binary(usize),
    /// A frame of a message that is not whole yet.
    Fragment,
    Ping(&'a [u8]),
    Pong,
    /// The client's close, with its code if it gave one.
    Close(Option<u16>),
}

/// Why a read stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// The kernel held nothing more.
    Dry,
    /// The budget was spent: the rest waits in the kernel for the next read.
    Budget,
    /// The caller stopped it.
    Halted,
    /// The client's stream ended, or failed.
    Ended,
    /// The client broke the protocol: the socket closes with this code.
    Broke(u16),
}

/// A message put together from fragments: whether it is text, its bytes so far, and
/// whether the last one came (it is then handed out once, and dropped at the next frame).
#[derive(Debug)]
struct Partial {
    text: bool,
    bytes: Vec<u8>,
    whole: bool,
}

/// One socket's reading side.
#[derive(Debug)]
pub struct FrameReader {
    /// Bytes read; those not yet taken are `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The frame whose header was taken, and its payload's length.
    header: Option<(FrameHeader, usize)>,
    partial: Option<Partial>,
    /// The longest frame, or message, read.
    limit: usize,
    /// A read from the kernel came back short: it held nothing more, for now.
    read_out: bool,
}

impl FrameReader {
    /// A reader that starts with `early` (bytes read with the upgrade request) and reads
    /// frames and messages of at most `limit` bytes.
    pub fn new(early: Vec<u8>, limit: usize) -> FrameReader {
        let end = early.len();
        let mut buf = early;
        buf.resize(end.max(CHUNK), 0);
        FrameReader {
            buf,
            start: 0,
            end,
            header: None,
            partial: None,
            limit,
            read_out: false,
        }
    }

    /// Reads frames from `stream`, within `budget`, handing each to `each` (which may stop
    /// the read). The stream is a `TcpStream` in the server; any `Read` is taken so that
    /// the fuzz target (`fuzz_entry::ws_frame`) can feed bytes at read boundaries it picks.
    pub fn read_frames(
        &mut self,
        mut stream: impl Read,
        budget: Budget,
        mut each: impl FnMut(FrameIn<'_>) -> ControlFlow<()>,
    ) -> Stop {
        self.read_out = false;
        let (mut frames, mut bytes) = (0, 0);
        loop {
            match self.next_frame() {
                Err(code) => return Stop::Broke(code),
                Ok(Some(frame)) => {
                    frames += 1;
                    if each(frame).is_break() {
                        return Stop::Halted;
                    }
                    if frames >= budget.frames {
                        return Stop::Budget;
                    }
                    continue;
                }
                Ok(None) => {}
            }
            if self.read_out {
                return Stop::Dry;
            }
            if bytes >= budget.bytes {
                return Stop::Budget;
            }
            match self.read_in(&mut stream, budget.bytes - bytes) {
                Ok(0) => return Stop::Ended,
                Ok(n) => bytes += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Stop::Dry,
                Err(_) => return Stop::Ended,
            }
        }
    }

    /// Bytes held that no frame has taken yet (a frame under way, or the next ones).
    pub fn held(&self) -> usize {
        self.end - self.start + self.partial.as_ref().map_or(0, |p| p.bytes.len())
    }

    /// The next whole frame in the buffer, `None` when more bytes are needed, or the close
    /// code for a frame that breaks the protocol.
    fn next_frame(&mut self) -> Result<Option<FrameIn<'_>>, u16> {
        if self.partial.as_ref().is_some_and(|p| p.whole) {
            self.partial = None;
        }
        if self.header.is_none() {
            let mut cursor = io::Cursor::new(&self.buf[self.start..self.end]);
            let Some((header, len)) =
                FrameHeader::parse(&mut cursor).map_err(|_| PROTOCOL_ERROR)?
            else {
                return Ok(None);
            };
            if len > self.limit as u64 {
                return Err(TOO_BIG);
            }
            self.start += cursor.position() as usize;
            self.header = Some((header, len as usize));
        }
        let Some((header, len)) = self
            .header
            .take_if(|(_, len)| self.end - self.start >= *len)
        else {
            return Ok(None);
        };
        let at = self.start;
        self.start += len;
        let payload = &mut self.buf[at..at + len];
        let Some(mask) = header.mask else {
            return Err(PROTOCOL_ERROR); // a client's frames are masked (RFC 6455, 5.3)
        };
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i & 3];
        }
        if header.rsv1 || header.rsv2 || header.rsv3 {
            return Err(PROTOCOL_ERROR); // no extension was agreed
        }
        let fin = header.is_final;
        let frame = match header.opcode {
            OpCode::Control(_) if !fin || len > 125 => return Err(PROTOCOL_ERROR),
            OpCode::Control(Control::Ping) => FrameIn::Ping(payload),
            OpCode::Control(Control::Pong) => FrameIn::Pong,
            OpCode::Control(Control::Close) => FrameIn::Close(close_code(payload)?),
            OpCode::Data(Data::Continue) => {
                // A continuation with nothing to continue breaks the protocol.
                let Some(partial) = self.partial.as_mut() else {
                    return Err(PROTOCOL_ERROR);
                };
                if partial.bytes.len() + len > self.limit {
                    return Err(TOO_BIG);
                }
                partial.bytes.extend_from_slice(payload);
                if !fin {
                    return Ok(Some(FrameIn::Fragment));
                }
                partial.whole = true;
                match partial.text {
                    true => FrameIn::Text(
                        std::str::from_utf8(&partial.bytes).map_err(|_| INVALID_DATA)?,
                    ),
                    false => FrameIn::Binary(partial.bytes.len()),
                }
            }
            // A new message inside a fragmented one breaks the protocol.
            OpCode::Data(_) if self.partial.is_some() => return Err(PROTOCOL_ERROR),
            OpCode::Data(data @ (Data::Text | Data::Binary)) if !fin => {
                self.partial = Some(Partial {
                    text: data == Data::Text,
                    bytes: payload.to_vec(),
                    whole: false,
                });
                FrameIn::Fragment
            }
            OpCode::Data(Data::Text) => {
                FrameIn::Text(std::str::from_utf8(payload).map_err(|_| INVALID_DATA)?)
            }
            OpCode::Data(Data::Binary) => FrameIn::Binary(len),
            // Reserved opcodes (tungstenite's parser refuses those already).
            _ => return Err(PROTOCOL_ERROR),
        };
        Ok(Some(frame))
    }

    /// Reads into the buffer, at most `most` bytes: how many (0: the stream ended).
    fn read_in(&mut self, stream: &mut impl Read, most: usize) -> io::Result<usize> {
        self.make_room();
        let ask = (self.buf.len() - self.end).min(most);
        loop {
            match stream.read(&mut self.buf[self.end..self.end + ask]) {
                Ok(n) => {
                    self.end += n;
                    self.read_out = n < ask;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Room at the end of the buffer for the frame under way (or a header): what was taken
    /// goes, the buffer grows for a long frame and shrinks back after one.
    fn make_room(&mut self) {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        }
        let need = self
            .header
            .as_ref()
            .map_or(CHUNK, |(_, len)| (*len).max(CHUNK));
        if self.buf.len() > need.max(4 * CHUNK) && self.end - self.start <= CHUNK {
            self.buf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
            self.buf.truncate(CHUNK);
            self.buf.shrink_to_fit();
        }
        if self.buf.len() - self.start < need || self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
        }
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
    }
}

/// The code of a client's close frame (none for an empty one), or the close code its
/// breach earns.
fn close_code(payload: &[u8]) -> Result<Option<u16>, u16> {
    match payload {
        [] => Ok(None),
        [_] => Err(PROTOCOL_ERROR),
        [a, b, reason @ ..] => {
            let code = u16::from_be_bytes([*a, *b]);
            if !CloseCode::from(code).is_allowed() {
                return Err(PROTOCOL_ERROR);
            }
            std::str::from_utf8(reason).map_err(|_| INVALID_DATA)?;
            Ok(Some(code))
        }
    }
}
