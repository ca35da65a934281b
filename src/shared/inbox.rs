//! A room's inputs, left by its sockets for its next turn instead of sent to its mailbox.
//!
//! Inputs are the one message a playing client sends twenty times a second, and the room
//! does nothing with one but check it and queue it for the next tick. Sending each through
//! the mailbox woke the room's task for it (four players: 80 wake-ups a second on top of
//! the 20 ticks, most of them a hand-over to another thread). Here a socket leaves the
//! input under a lock and goes on; the room takes everything waiting at the start of each
//! turn, its timer's (every tick, in every phase) or a command's, so an input is still
//! handled before anything its socket sent after it, and checked at most one tick later
//! than it arrived, which is before the tick it is for.

use crate::wire::messages::InputMsg;
use std::sync::{Mutex, MutexGuard};

/// Inputs an inbox holds before sockets send theirs through the mailbox instead (which
/// wakes the room). Each socket's inputs are already rate-limited (`max_inputs_per_s`).
pub const INBOX: usize = 1024;

/// Why an input was not left in the inbox.
#[derive(Debug, PartialEq)]
pub enum Refused {
    /// The inbox is full: send it through the mailbox.
    Full(InputMsg),
    /// The room has closed.
    Closed,
}

/// One room's waiting inputs, by connection id, in the order they arrived.
#[derive(Debug, Default)]
pub struct Inbox {
    waiting: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    inputs: Vec<(u64, InputMsg)>,
    closed: bool,
}

impl Inbox {
    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        super::lock(&self.waiting)
    }

    /// Leaves connection `conn`'s input for the room's next turn.
    pub fn put(&self, conn: u64, input: InputMsg) -> Result<(), Refused> {
        let mut w = self.waiting();
        if w.closed {
            return Err(Refused::Closed);
        }
        if w.inputs.len() >= INBOX {
            return Err(Refused::Full(input));
        }
        w.inputs.push((conn, input));
        Ok(())
    }

    /// Everything waiting, swapped into `into` (which should come empty; its buffer is
    /// kept for the next take).
    pub fn take(&self, into: &mut Vec<(u64, InputMsg)>) {
        let mut w = self.waiting();
        if !w.inputs.is_empty() {
            std::mem::swap(&mut w.inputs, into);
        }
    }

    /// The room has closed: what waits is dropped, and later inputs are refused.
    pub fn close(&self) {
        let mut w = self.waiting();
        w.closed = true;
        w.inputs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(seq: u64) -> InputMsg {
        InputMsg {
            seq,
            mv: (0.0, 0.0),
            act: false,
            face: None,
            clamped: false,
        }
    }

    #[test]
    fn inputs_come_out_in_the_order_they_went_in() {
        let inbox = Inbox::default();
        assert_eq!(inbox.put(1, input(1)), Ok(()));
        assert_eq!(inbox.put(2, input(1)), Ok(()));
        assert_eq!(inbox.put(1, input(2)), Ok(()));
        let mut got = Vec::new();
        inbox.take(&mut got);
        let order: Vec<(u64, u64)> = got.iter().map(|(c, i)| (*c, i.seq)).collect();
        assert_eq!(order, [(1, 1), (2, 1), (1, 2)]);
        got.clear();
        inbox.take(&mut got);
        assert!(got.is_empty(), "a take empties the inbox");
    }

    #[test]
    fn a_full_inbox_gives_the_input_back_and_a_closed_one_refuses() {
        let inbox = Inbox::default();
        for seq in 0..INBOX as u64 {
            assert_eq!(inbox.put(1, input(seq)), Ok(()));
        }
        assert_eq!(inbox.put(1, input(9999)), Err(Refused::Full(input(9999))));
        inbox.close();
        assert_eq!(inbox.put(1, input(1)), Err(Refused::Closed));
        let mut got = Vec::new();
        inbox.take(&mut got);
        assert!(got.is_empty(), "a closed inbox drops what waited");
    }
}
