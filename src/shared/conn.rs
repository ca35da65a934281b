//! A connection as the room and the socket both see it: an id and a bounded send queue.
//!
//! What goes into the queue is an `Out`: a text frame, or a close (after which the socket's
//! writer stops). A text frame is a `Frame`: bytes encoded once and shared by every
//! connection that receives them (cloning one is a reference count, never a copy), which
//! the socket hands to the WebSocket as they are. Nothing ever waits on a queue: a full
//! one drops the frame, and the sender decides what that means.

use super::census::Census;
use crate::wire::messages::{Refusal, ServerMsg};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// Frames a connection's send queue holds before the room starts dropping `snap`s for it.
pub const SEND_QUEUE: usize = 64;

/// One encoded text frame, shareable by any number of connections.
#[derive(Clone, Debug)]
pub struct Frame(Utf8Bytes);

impl Frame {
    pub fn bytes(&self) -> &Utf8Bytes {
        &self.0
    }
}

impl From<String> for Frame {
    /// Takes the string's buffer as it is (no copy).
    fn from(s: String) -> Frame {
        Frame(Utf8Bytes::from(s))
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

/// A connection's id and its send queue.
#[derive(Clone, Debug)]
pub struct ConnLink {
    pub id: u64,
    tx: mpsc::Sender<Out>,
}

impl ConnLink {
    /// A connection and the receiving end of its queue (for its writer).
    pub fn open(id: u64) -> (ConnLink, mpsc::Receiver<Out>) {
        let (tx, rx) = mpsc::channel(SEND_QUEUE);
        (ConnLink { id, tx }, rx)
    }

    /// Queues a frame without waiting. `Some(depth)` (frames now queued) when it went in,
    /// `None` when the queue was full or the connection gone.
    pub fn send(&self, frame: &Frame) -> Option<usize> {
        self.tx.try_send(Out::Text(frame.clone())).ok()?;
        // At least this frame: the writer (on another thread) may already have taken it
        // by the time the capacity is read.
        Some((self.tx.max_capacity() - self.tx.capacity()).max(1))
    }

    /// Queues a close with this code; the writer sends it after what is queued, then stops.
    pub fn close(&self, code: u16) {
        let _ = self.tx.try_send(Out::Close(code));
    }

    /// Refuses the connection: an `err` frame, then the close, counted in the census.
    pub fn refuse(&self, census: &Census, refusal: &Refusal, close: u16) {
        let _ = self
            .tx
            .try_send(Out::Text(Frame::from(&ServerMsg::err(refusal))));
        self.close(close);
        census.refused(close);
    }
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
