//! What a whole text message from a client is, once its frames passed the rules: a
//! `hello`, a message for the room, or something the socket answers itself (a `ping`, a
//! message that does not parse, a message its phase does not take).
//!
//! The same rules hold whoever reads the socket (its task before the room takes its
//! `hello`, the room after), so they live here, once.

use super::guard::Guard;
use crate::wire::messages::{
    ClientMsg, PROTOCOL_VERSION, Refusal, RoomMsg, ServerMsg, code, parse_client,
};

/// A message the socket's reader passes on.
#[derive(Debug)]
pub enum Heard {
    /// A `hello` (the protocol version is its task's to check).
    Hello {
        p: i64,
        token: Option<String>,
        name: Option<String>,
    },
    /// A message for the room.
    Room(RoomMsg),
}

/// Where a message goes, by the socket's phase: before its `hello` was taken, only a
/// `hello` goes on; after, never a second one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expecting {
    Hello,
    RoomMessages,
}

/// What a message comes to: passed on, or answered by the socket.
#[derive(Debug)]
pub enum Classified {
    On(Heard),
    Answer(ServerMsg),
}

/// Parses one text message (its frames passed the guard): what goes on, or the answer.
pub fn classify(guard: &mut Guard, text: &str, expecting: Expecting) -> Classified {
    let msg = match parse_client(text) {
        Ok(msg) => msg,
        Err(r) => return Classified::Answer(ServerMsg::err(&r)),
    };
    guard.parsed();
    match (msg, expecting) {
        (ClientMsg::Ping { t }, _) => Classified::Answer(ServerMsg::Pong {
            p: PROTOCOL_VERSION,
            t,
            now: now_s(),
        }),
        (ClientMsg::Hello { p, token, name }, Expecting::Hello) => {
            Classified::On(Heard::Hello { p, token, name })
        }
        (ClientMsg::Hello { .. }, Expecting::RoomMessages) => Classified::Answer(second_hello()),
        (ClientMsg::Room(msg), Expecting::RoomMessages) => Classified::On(Heard::Room(msg)),
        (ClientMsg::Room(msg), Expecting::Hello) => {
            let why = format!("{} before hello: say hello first", msg.kind());
            Classified::Answer(ServerMsg::err(&Refusal::new(code::WRONG_STATE, why)))
        }
    }
}

/// The answer to a second `hello` on a socket: `wrong_state`, and the socket stays (a
/// second hello would mint a token that is not the seat's).
pub fn second_hello() -> ServerMsg {
    let why = "hello was already said on this socket";
    ServerMsg::err(&Refusal::new(code::WRONG_STATE, why))
}

/// Unix time in seconds, to the millisecond (`pong.now`).
fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
}
