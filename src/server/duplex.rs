//! The byte stream a player's WebSocket runs on: read by its room at the room's turns once
//! its hello is taken, written by whoever has a frame.
//!
//! tungstenite still reads the socket (frames, masks, fragments, control frames and the
//! close handshake stay its job), from this stream. No one asks the kernel to wake them for
//! what a client sends: a joined socket is read by its room at the start of each of its
//! turns (`server::ear`), which reads until the kernel has nothing more and then finds this
//! stream pending, with no one to wake (the room reads again at its next turn). Before its
//! hello is taken, and after the server closed it, the socket's own task reads it on its
//! own time: soon after it found nothing, then less often (`shared::turns::Pace`). What
//! tungstenite writes, its pongs and its close, goes through the connection's `Outbound`,
//! behind every frame the room handed over before it, so the room and the socket's task
//! never interleave on the wire. Reading starts with whatever hyper had already read past
//! the upgrade request.

use crate::shared::outbound::{Outbound, Stream};
use crate::shared::turns::{Pace, Turns};
use bytes::{Buf, Bytes};
use std::io::{self, Read};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection's stream as its WebSocket sees it.
pub struct Duplex {
    stream: Arc<Stream>,
    /// Bytes hyper read past the upgrade request, read before the socket.
    early: Bytes,
    out: Arc<Outbound>,
    pace: Pace,
    /// The turn in which the socket was last found to hold nothing more.
    read_out: Option<u64>,
    /// Whether its room reads it (else its task does, on its own time).
    by_room: bool,
    /// Read by the room: the kernel held nothing more at the last read of this turn.
    room_read_out: bool,
}

impl Duplex {
    pub fn new(stream: Arc<Stream>, early: Bytes, out: Arc<Outbound>, turns: Arc<Turns>) -> Duplex {
        Duplex {
            stream,
            early,
            out,
            pace: Pace::own(turns),
            read_out: None,
            by_room: false,
            room_read_out: false,
        }
    }

    /// Whether the room reads the stream from now on (else the socket's task does).
    pub fn read_by_room(&mut self, by_room: bool) {
        self.by_room = by_room;
        self.room_read_out = false;
    }

    /// A turn of the room's begins: the stream may hold something again.
    pub fn room_turn(&mut self) {
        self.room_read_out = false;
    }

    /// One non-blocking read of the kernel's socket into `buf`: `None` when it held nothing.
    /// A read of less than there was room for means it holds nothing more now.
    fn read_now(&mut self, buf: &mut ReadBuf<'_>) -> Option<io::Result<bool>> {
        let room = buf.remaining();
        loop {
            return match self.stream.as_ref().read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    Some(Ok(0 < n && n < room))
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Some(Err(e)),
            };
        }
    }
}

impl AsyncRead for Duplex {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if me.early.has_remaining() {
            let n = me.early.len().min(buf.remaining());
            buf.put_slice(&me.early[..n]);
            me.early.advance(n);
            return Poll::Ready(Ok(()));
        }
        if me.by_room {
            // Nothing registers to be woken: the room reads again at its next turn.
            if me.room_read_out {
                return Poll::Pending;
            }
            return match me.read_now(buf) {
                Some(Ok(all)) => {
                    me.room_read_out = all;
                    Poll::Ready(Ok(()))
                }
                Some(Err(e)) => Poll::Ready(Err(e)),
                None => {
                    me.room_read_out = true;
                    Poll::Pending
                }
            };
        }
        loop {
            let turn = me.pace.current();
            if me.read_out != Some(turn) {
                match me.read_now(buf) {
                    Some(Ok(all)) => {
                        // The next read waits for the next turn when this one read it all.
                        if all {
                            me.read_out = Some(turn);
                        }
                        me.pace.fresh();
                        return Poll::Ready(Ok(()));
                    }
                    Some(Err(e)) => return Poll::Ready(Err(e)),
                    None => me.read_out = Some(turn),
                }
            }
            std::task::ready!(me.pace.poll_after(cx, turn));
            me.read_out = None;
        }
    }
}

impl AsyncWrite for Duplex {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        // Always taken whole, so a frame of the WebSocket's is never split by one of the
        // room's; `poll_flush` waits for the kernel.
        self.out.raw(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.out.poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // The connection closes when the socket's task lets the stream go.
        self.out.poll_drain(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;
    use tokio::io::AsyncReadExt;

    /// A connected pair: the client's end, and the server's as a `Duplex` on `turns`.
    fn pair(turns: &Arc<Turns>) -> (std::net::TcpStream, Duplex) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        let client = std::net::TcpStream::connect(addr).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        let stream = crate::shared::outbound::stream(server).expect("non-blocking");
        let out = Outbound::new(stream.clone(), turns.clone());
        (
            client,
            Duplex::new(stream, Bytes::new(), out, turns.clone()),
        )
    }

    /// One read as the room does it: polled once, with no one to wake.
    fn room_read(duplex: &mut Duplex) -> Option<Vec<u8>> {
        let mut bytes = [0u8; 64];
        let mut buf = ReadBuf::new(&mut bytes);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match Pin::new(duplex).poll_read(&mut cx, &mut buf) {
            Poll::Ready(read) => {
                read.expect("read");
                Some(buf.filled().to_vec())
            }
            Poll::Pending => None,
        }
    }

    #[tokio::test]
    async fn a_socket_its_room_reads_reads_once_a_turn_what_arrived_and_never_waits() {
        let turns = Turns::new();
        let (mut client, mut duplex) = pair(&turns);
        duplex.read_by_room(true);
        assert_eq!(room_read(&mut duplex), None, "nothing arrived: pending");
        client.write_all(b"ready").expect("write");
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(room_read(&mut duplex), None, "read out in this turn");
        duplex.room_turn();
        assert_eq!(room_read(&mut duplex).as_deref(), Some(&b"ready"[..]));
        client.write_all(b"input").expect("write");
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            room_read(&mut duplex),
            None,
            "a short read took all there was: the next waits for the next turn"
        );
        duplex.room_turn();
        assert_eq!(room_read(&mut duplex).as_deref(), Some(&b"input"[..]));
        assert_eq!(turns.next(), 0, "the room's reading waits for no turn");
    }

    #[tokio::test]
    async fn before_its_hello_or_without_a_room_a_socket_reads_on_its_own_time() {
        for turns in [Turns::new(), Turns::none()] {
            // No turn comes in this test: the room's timer is not running.
            let (mut client, mut duplex) = pair(&turns);
            let reading = tokio::spawn(async move {
                let mut buf = [0u8; 64];
                let n = duplex.read(&mut buf).await.expect("read");
                buf[..n].to_vec()
            });
            tokio::time::sleep(Duration::from_millis(30)).await;
            client.write_all(b"hello").expect("write");
            let read = tokio::time::timeout(Duration::from_secs(5), reading).await;
            assert_eq!(read.expect("read with no turn").expect("task"), b"hello");
        }
    }
}
