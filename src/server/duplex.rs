//! The byte stream a player's WebSocket runs on: read at its room's turns, written by
//! whoever has a frame.
//!
//! tungstenite still reads the socket (frames, masks, fragments, control frames and the
//! close handshake stay its job), from this stream, which reads the kernel's socket when a
//! turn of its room has come (`shared::turns`) and otherwise waits for the next: the kernel
//! does not wake anyone for what a client sends. (Until its hello is taken, it reads on its
//! own time, soon after it found nothing.) What tungstenite writes, its pongs and its
//! close, goes through the connection's `Outbound`, behind every frame the room handed over
//! before it, so the room and the socket's task never interleave on the wire. Reading
//! starts with whatever hyper had already read past the upgrade request.

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
}

impl Duplex {
    pub fn new(stream: Arc<Stream>, early: Bytes, out: Arc<Outbound>, turns: Arc<Turns>) -> Duplex {
        Duplex {
            stream,
            early,
            out,
            pace: Pace::own(turns),
            read_out: None,
        }
    }

    /// The socket's hello was taken: it reads at its room's turns from now on.
    pub fn follow_turns(&mut self) {
        self.pace.follow();
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
        loop {
            let turn = me.pace.current();
            if me.read_out != Some(turn) {
                let room = buf.remaining();
                match me.stream.as_ref().read(buf.initialize_unfilled()) {
                    Ok(n) => {
                        // Less than there was room for: the socket holds nothing more now,
                        // and the next read waits for the next turn.
                        if 0 < n && n < room {
                            me.read_out = Some(turn);
                        }
                        me.pace.fresh();
                        buf.advance(n);
                        return Poll::Ready(Ok(()));
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => me.read_out = Some(turn),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Poll::Ready(Err(e)),
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

    #[tokio::test]
    async fn a_joined_socket_reads_what_arrived_at_its_rooms_next_turn_and_not_before() {
        let turns = Turns::new();
        let (mut client, mut duplex) = pair(&turns);
        duplex.follow_turns();
        let mut buf = [0u8; 64];
        client.write_all(b"ready").expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
        let n = duplex.read(&mut buf).await.expect("read");
        assert_eq!(&buf[..n], b"ready", "the first read of a turn reads");

        client.write_all(b"input").expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
        let early = tokio::time::timeout(Duration::from_millis(150), duplex.read(&mut buf)).await;
        assert!(
            early.is_err(),
            "what arrives between turns waits for the next"
        );
        assert_eq!(turns.next(), 1, "the socket waits for the turn");
        let read = tokio::time::timeout(Duration::from_secs(5), duplex.read(&mut buf)).await;
        let n = read.expect("read at the turn").expect("read");
        assert_eq!(&buf[..n], b"input");
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
