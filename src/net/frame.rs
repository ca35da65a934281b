//! Frames as the server writes them: a text frame encoded once, with its WebSocket header,
//! and shared by every connection it goes to; and the two control frames a socket writes
//! itself, a pong and a close.
//!
//! A `Frame` is the whole WebSocket frame (header, unmasked, then the text): cloning one is
//! a reference count, so a `snap` for four players and eight spectators is one buffer, and
//! a room writes it to each socket with one non-blocking `write` and no copy.

use crate::wire::messages::ServerMsg;
use bytes::Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};

/// One encoded text frame, shareable by any number of connections.
#[derive(Clone, Debug)]
pub struct Frame {
    wire: Bytes,
    text_at: usize,
}

impl Frame {
    /// The text the frame carries.
    pub fn text(&self) -> &str {
        // The text was a `String`, so it is UTF-8: the empty fallback is never taken.
        std::str::from_utf8(&self.wire[self.text_at..]).unwrap_or_default()
    }

    /// The WebSocket frame, header and all, ready for any connection's socket.
    pub fn wire(&self) -> &Bytes {
        &self.wire
    }
}

impl From<String> for Frame {
    fn from(s: String) -> Frame {
        let mut wire = Vec::with_capacity(14 + s.len());
        header(&mut wire, OpCode::Data(Data::Text), s.len());
        let text_at = wire.len();
        wire.extend_from_slice(s.as_bytes());
        Frame {
            wire: Bytes::from(wire),
            text_at,
        }
    }
}

impl From<&ServerMsg> for Frame {
    fn from(msg: &ServerMsg) -> Frame {
        Frame::from(msg.to_json())
    }
}

/// The pong that answers a ping carrying `payload` (at most 125 bytes: the reader refuses
/// longer control frames).
pub fn pong(payload: &[u8]) -> Bytes {
    let mut wire = Vec::with_capacity(2 + payload.len());
    header(&mut wire, OpCode::Control(Control::Pong), payload.len());
    wire.extend_from_slice(payload);
    Bytes::from(wire)
}

/// A close frame with `code` and no reason.
pub fn close(code: u16) -> Bytes {
    let mut wire = Vec::with_capacity(4);
    header(&mut wire, OpCode::Control(Control::Close), 2);
    wire.extend_from_slice(&code.to_be_bytes());
    Bytes::from(wire)
}

/// A server's frame header (final, unmasked) for `len` payload bytes.
fn header(out: &mut Vec<u8>, opcode: OpCode, len: usize) {
    let header = FrameHeader {
        opcode,
        ..FrameHeader::default()
    };
    // Writing into a Vec cannot fail.
    let _ = header.format(len as u64, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_frame_is_its_header_then_its_text() {
        let frame = Frame::from(String::from("{\"type\":\"snap\"}"));
        assert_eq!(&frame.wire()[..2], &[0x81, 15]);
        assert_eq!(frame.text(), "{\"type\":\"snap\"}");
        let long = Frame::from("x".repeat(300));
        assert_eq!(&long.wire()[..4], &[0x81, 126, 1, 44], "a 16-bit length");
        assert_eq!(long.text().len(), 300);
    }

    #[test]
    fn control_frames_are_final_and_unmasked() {
        assert_eq!(&pong(b"hi")[..], &[0x8A, 2, b'h', b'i']);
        assert_eq!(&close(4404)[..], &[0x88, 2, 0x11, 0x34]);
    }
}
