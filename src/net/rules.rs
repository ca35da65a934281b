//! One read under the rules: frames in (a budget's worth, `read`), each
//! counted against the client's rate (`guard`), whole messages classified (`heard`), the
//! socket's own answers written (refusals, `pong` messages, pongs, the close's echo), and
//! the messages the phase passes on handed to the reader.

use super::frame::{self, Frame};
use super::guard::Verdict;
use super::heard::{Classified, Expecting, Heard, classify};
use super::phase::{Phase, State};
use super::read::{Budget, FrameIn, Stop};
use super::write::Writer;
use crate::wire::messages::{ServerMsg, close};
use std::net::TcpStream;
use std::ops::ControlFlow;
use std::time::Instant;

/// A read: how it stopped, and the close code when the rules closed the socket.
#[derive(Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    pub stop: Stop,
    pub closed: Option<u16>,
}

/// One read under the rules (`guard`, `heard`): frames in, answers out, the
/// messages the phase passes on to `take`.
pub(super) fn read_under_rules(
    st: &mut State,
    now: Instant,
    mut take: impl FnMut(Heard),
) -> ReadOutcome {
    let phase = st.phase;
    let draining = matches!(phase, Phase::Closing | Phase::Draining { .. });
    let expecting = match phase {
        Phase::AwaitingHello => Expecting::Hello,
        _ => Expecting::RoomMessages,
    };
    let State {
        stream,
        reader,
        guard,
        writer,
        ..
    } = st;
    let (mut closed, mut client_closed, mut read_any) = (None, None, false);
    let stop = reader.read_frames(&*stream, Budget::READ, |frame| {
        read_any = true;
        if let FrameIn::Close(code) = frame {
            client_closed = Some(code.unwrap_or(close::NORMAL));
            return ControlFlow::Break(());
        }
        if draining {
            return ControlFlow::Continue(());
        }
        let verdict = match frame {
            FrameIn::Text(text) => match guard.frame(now) {
                Verdict::Pass => guard.message(text.len(), false),
                refused => refused,
            },
            FrameIn::Binary(len) => match guard.frame(now) {
                Verdict::Pass => guard.message(len, true),
                refused => refused,
            },
            _ => guard.frame(now),
        };
        match verdict {
            Verdict::Pass => {}
            Verdict::Refused(r) => {
                answer(writer, stream, &ServerMsg::err(&r));
                return ControlFlow::Continue(());
            }
            Verdict::Abuse(r) => {
                answer(writer, stream, &ServerMsg::err(&r));
                closed = Some(close::ABUSE);
                return ControlFlow::Break(());
            }
        }
        match frame {
            FrameIn::Text(text) => match classify(guard, text, expecting) {
                Classified::On(heard) => {
                    let hello = matches!(heard, Heard::Hello { .. });
                    take(heard);
                    if hello {
                        // The task decides on the hello before it reads on.
                        return ControlFlow::Break(());
                    }
                }
                Classified::Answer(msg) => answer(writer, stream, &msg),
            },
            FrameIn::Ping(payload) => {
                let _ = writer.pong(stream, frame::pong(payload));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    if read_any {
        st.last_seen = now;
    }
    match &stop {
        Stop::Dry => st.guard.read_dry(now),
        Stop::Broke(code) => closed = closed.or(Some(*code)),
        _ => {}
    }
    if let Some(code) = client_closed {
        // The client's close: answered with its code, unless the server's went first.
        if st.phase.takes_frames() {
            let State { stream, writer, .. } = &mut *st;
            let _ = writer.close(stream, frame::close(code));
        }
        st.phase = Phase::Closed;
    }
    ReadOutcome { stop, closed }
}

/// What the socket answers itself (a refusal, a `pong` message): within the backlog's
/// bounds like any frame, dropped past them.
fn answer(writer: &mut Writer, stream: &TcpStream, msg: &ServerMsg) {
    let _ = writer.frame(stream, Frame::from(msg).wire());
}
