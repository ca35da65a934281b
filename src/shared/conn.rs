//! A connection as the room and the socket both see it: an id and a bounded way out.
//!
//! A text frame is a `Frame`: encoded once, with its WebSocket header, and shared by every
//! connection that receives it (cloning one is a reference count, never a copy). A served
//! socket has an `Outbound`: a frame is written to the kernel by whoever sends it, queued
//! only when the kernel's buffer is full (`shared::outbound`). A connection without one (a
//! test's, or a socket held back by the test latency) has a bounded queue its socket's task
//! writes from. Either way nothing ever waits: a full backlog or queue drops the frame, and
//! the sender decides what that means. A close is sent by the socket's task, after
//! everything handed over before it.
//!
//! Once its `hello` is taken a socket is read by its room, at each of the room's turns
//! (`Hears`, which `server::ear` implements): the room reads what every client sent since
//! the last turn and handles it in the same turn, and the socket's task is not woken for it.

use super::census::Census;
use super::outbound::Outbound;
use crate::wire::messages::{Refusal, RoomMsg, ServerMsg};
use bytes::Bytes;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

pub use super::outbound::SEND_QUEUE;

/// One encoded text frame, shareable by any number of connections: the whole WebSocket
/// frame as a server sends it (header, unmasked, then the text), and where the text starts.
#[derive(Clone, Debug)]
pub struct Frame {
    wire: Bytes,
    text_at: usize,
}

impl Frame {
    /// The text, as a WebSocket message carries it (the same bytes, not a copy).
    pub fn bytes(&self) -> Utf8Bytes {
        // The text was a `String`, so it is UTF-8: the empty fallback is never taken.
        Utf8Bytes::try_from(self.wire.slice(self.text_at..)).unwrap_or_default()
    }

    /// The WebSocket frame, header and all, ready for any connection's socket.
    pub fn wire(&self) -> &Bytes {
        &self.wire
    }
}

impl From<String> for Frame {
    fn from(s: String) -> Frame {
        let header = FrameHeader {
            opcode: OpCode::Data(Data::Text),
            ..FrameHeader::default()
        };
        let len = s.len() as u64;
        let mut wire = Vec::with_capacity(header.len(len) + s.len());
        // Writing into a Vec cannot fail.
        let _ = header.format(len, &mut wire);
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

/// What a connection's writer sends: a text frame, or a close frame (then it stops).
#[derive(Debug, Clone)]
pub enum Out {
    Text(Frame),
    Close(u16),
}

/// A connection's id and its way out.
#[derive(Clone, Debug)]
pub struct ConnLink {
    pub id: u64,
    way: Way,
}

#[derive(Clone, Debug)]
enum Way {
    /// Written by the sender, straight to the socket.
    Direct(Arc<Outbound>),
    /// Queued for the socket's task to write.
    Queue(mpsc::Sender<Out>),
}

impl ConnLink {
    /// A connection whose frames and close go through a queue, and the receiving end of
    /// the queue (for its writer).
    pub fn open(id: u64) -> (ConnLink, mpsc::Receiver<Out>) {
        let (tx, rx) = mpsc::channel(SEND_QUEUE);
        let way = Way::Queue(tx);
        (ConnLink { id, way }, rx)
    }

    /// A connection whose frames are written by their sender through `out`.
    pub fn direct(id: u64, out: Arc<Outbound>) -> ConnLink {
        let way = Way::Direct(out);
        ConnLink { id, way }
    }

    /// Sends a frame without waiting. `Some(depth)` (frames now waiting, at least this one)
    /// when it was taken, `None` when the backlog or queue was full or the connection gone.
    pub fn send(&self, frame: &Frame) -> Option<usize> {
        match &self.way {
            Way::Direct(out) => out.frame(frame.wire()),
            Way::Queue(tx) => {
                tx.try_send(Out::Text(frame.clone())).ok()?;
                // At least this frame: the writer (on another thread) may already have
                // taken it by the time the capacity is read.
                Some((tx.max_capacity() - tx.capacity()).max(1))
            }
        }
    }

    /// Asks for a close with this code: nothing sent after this goes out, and the socket's
    /// task sends the close after what was sent before, then stops writing.
    pub fn close(&self, code: u16) {
        match &self.way {
            Way::Direct(out) => out.close(code),
            Way::Queue(tx) => {
                let _ = tx.try_send(Out::Close(code));
            }
        }
    }

    /// Refuses the connection: an `err` frame, then the close, counted in the census.
    pub fn refuse(&self, census: &Census, refusal: &Refusal, close: u16) {
        let _ = self.send(&Frame::from(&ServerMsg::err(refusal)));
        self.close(close);
        census.refused(close);
    }
}

/// A joined socket's reading, as its room does it. The transport's rules (the rate and
/// size limits, strict parsing, `ping`, the close handshake) stay the socket's: the room
/// only ever sees the messages meant for it.
pub trait Hears: Send + Sync {
    /// From now on the room reads the socket, at its turns; its task no longer does.
    fn claim(&self);
    /// Reads everything the client sent since the last turn: the room's messages go into
    /// `heard`, in order, with the connection's id; what the socket answers itself goes out
    /// through `link`. A socket
    /// that ended, or that the server closed, is handed back to its task (which drains it
    /// and tells the room it is gone).
    fn hear(&self, link: &ConnLink, now: Instant, heard: &mut Vec<(u64, RoomMsg)>);
    /// The room no longer reads the socket (the connection left the room, or the room
    /// closed): its task reads it again.
    fn release(&self);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_sent_to_many_connections_is_one_buffer() {
        let frame = Frame::from(String::from("{\"type\":\"snap\"}"));
        let (a, mut rx_a) = ConnLink::open(1);
        let (b, mut rx_b) = ConnLink::open(2);
        assert_eq!(a.send(&frame), Some(1));
        assert_eq!(b.send(&frame), Some(1));
        let (Ok(Out::Text(got_a)), Ok(Out::Text(got_b))) = (rx_a.try_recv(), rx_b.try_recv())
        else {
            panic!("both connections got the frame");
        };
        assert_eq!(got_a.bytes().as_str(), frame.bytes().as_str());
        assert_eq!(
            (got_a.bytes().as_ptr(), got_b.bytes().as_ptr()),
            (frame.bytes().as_ptr(), frame.bytes().as_ptr()),
            "every connection's frame points at the same bytes"
        );
    }

    #[test]
    fn a_full_queue_refuses_without_waiting() {
        let frame = Frame::from(String::from("x"));
        let (link, _rx) = ConnLink::open(1);
        for n in 1..=SEND_QUEUE {
            assert_eq!(link.send(&frame), Some(n));
        }
        assert_eq!(link.send(&frame), None);
    }
}
