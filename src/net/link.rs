//! A connection as everyone who writes to it holds it: its id and the `Connection`.
//!
//! The room keeps one per seat or spectator, the socket's task keeps its own, and the id
//! travels with everything the task tells the room, so a late `Gone` from a replaced
//! socket only ever removes itself.

use super::conn::Connection;
use super::frame::Frame;
use crate::wire::messages::{Refusal, ServerMsg};
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone)]
pub struct Link {
    pub id: u64,
    conn: Arc<Connection>,
}

impl Link {
    pub fn new(conn: Arc<Connection>) -> Link {
        Link {
            id: conn.id(),
            conn,
        }
    }

    /// Refuses the connection: an `err` frame, then the close.
    pub fn refuse(&self, refusal: &Refusal, close: u16) {
        let _ = self.conn.send(&Frame::from(&ServerMsg::err(refusal)));
        self.conn.close(close);
    }
}

impl Deref for Link {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link").field("id", &self.id).finish()
    }
}
