//! The byte stream a player's WebSocket runs on when its room writes frames directly.
//!
//! tungstenite still reads the socket (frames, masks, fragments, control frames and the
//! close handshake stay its job); what it writes, its pongs and its close, goes through the
//! connection's `Outbound`, behind every frame the room handed over before it, so the room
//! and the socket's task never interleave on the wire. Reading starts with whatever hyper
//! had already read past the upgrade request.

use crate::shared::outbound::Outbound;
use bytes::{Buf, Bytes};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A connection's stream as its WebSocket sees it.
pub struct Duplex {
    stream: Arc<TcpStream>,
    /// Bytes hyper read past the upgrade request, read before the socket.
    early: Bytes,
    out: Arc<Outbound>,
}

impl Duplex {
    pub fn new(stream: Arc<TcpStream>, early: Bytes, out: Arc<Outbound>) -> Duplex {
        Duplex { stream, early, out }
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
            ready!(me.stream.poll_read_ready(cx))?;
            match me.stream.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                // The readiness was stale; polling again registers for the next.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
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
