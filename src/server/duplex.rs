//! The byte stream a player's WebSocket runs on: read by its room at the room's turns once
//! its hello is taken, written by whoever has a frame.
//!
//! tungstenite still reads the socket (frames, masks, fragments, control frames and the
//! close handshake stay its job), through its blocking-style API over this non-blocking
//! stream: a read the kernel cannot serve is `WouldBlock`, which tungstenite passes up with
//! its partial frame kept. No one asks the kernel to wake anyone for what a client sends: a
//! joined socket is read by its room at the start of each of its turns (`server::ear`)
//! until the kernel holds nothing more; before its hello is taken, and after the server
//! closed it, the socket's own task reads it on its own time. A read that fills less than
//! tungstenite asked for is taken to have emptied the socket: until the next turn (`turn`)
//! the stream answers `WouldBlock` without asking the kernel, so a turn costs one `read`
//! per socket. What tungstenite writes, its pongs and its close, goes through the
//! connection's `Outbound`, behind every frame the room handed over before it, so the room
//! and the socket's task never interleave on the wire.

use crate::shared::outbound::{Outbound, Stream};
use std::io::{self, Read, Write};
use std::sync::Arc;

/// A connection's stream as its WebSocket sees it.
pub struct Duplex {
    stream: Arc<Stream>,
    out: Arc<Outbound>,
    /// The kernel held nothing more at the last read of this turn.
    read_out: bool,
}

impl Duplex {
    pub fn new(stream: Arc<Stream>, out: Arc<Outbound>) -> Duplex {
        Duplex {
            stream,
            out,
            read_out: false,
        }
    }

    /// A new turn (the room's, or the end of the task's own wait): the socket may hold
    /// something again.
    pub fn turn(&mut self) {
        self.read_out = false;
    }

    /// The connection's way out.
    pub fn out(&self) -> &Arc<Outbound> {
        &self.out
    }
}

impl Read for Duplex {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read_out {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        loop {
            return match self.stream.as_ref().read(buf) {
                Ok(n) => {
                    self.read_out = 0 < n && n < buf.len();
                    Ok(n)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.read_out = e.kind() == io::ErrorKind::WouldBlock;
                    Err(e)
                }
            };
        }
    }
}

impl Write for Duplex {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Always taken whole, so a frame of the WebSocket's is never split by one of the
        // room's; what the kernel does not take waits in the `Outbound`'s backlog.
        self.out.raw(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Handed over is as far as a write goes here: the backlog is written out by the
        // socket's task, which waits for it where it has to (a close).
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::turns::Turns;

    /// A connected pair: the client's end, and the server's as a `Duplex`.
    fn pair() -> (std::net::TcpStream, Duplex) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        let client = std::net::TcpStream::connect(addr).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        let stream = crate::shared::outbound::stream(server).expect("non-blocking");
        let out = Outbound::new(stream.clone(), Turns::new());
        (client, Duplex::new(stream, out))
    }

    /// One read: what it read, or `None` for `WouldBlock`.
    fn read(duplex: &mut Duplex) -> Option<Vec<u8>> {
        let mut buf = [0u8; 64];
        match duplex.read(&mut buf) {
            Ok(n) => Some(buf[..n].to_vec()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
            Err(e) => panic!("read failed: {e}"),
        }
    }

    #[test]
    fn a_turn_reads_what_arrived_once_and_never_blocks() {
        let (mut client, mut duplex) = pair();
        assert_eq!(read(&mut duplex), None, "nothing arrived: would block");
        client.write_all(b"ready").expect("write");
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(read(&mut duplex), None, "read out in this turn");
        duplex.turn();
        assert_eq!(read(&mut duplex).as_deref(), Some(&b"ready"[..]));
        client.write_all(b"input").expect("write");
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            read(&mut duplex),
            None,
            "a short read took all there was: the next waits for the next turn"
        );
        duplex.turn();
        assert_eq!(read(&mut duplex).as_deref(), Some(&b"input"[..]));
    }

    #[test]
    fn a_closed_client_reads_as_the_end_of_the_stream() {
        let (client, mut duplex) = pair();
        drop(client);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(read(&mut duplex).as_deref(), Some(&b""[..]));
    }
}
