//! Who is in a room: the seats (each with its token, session, name, colour, ready flag and
//! connection, if any), the spectators, and who holds the host's crown.
//!
//! Plain data and lookups; what happens when someone arrives or leaves is `arrivals`.

use crate::net::Link;
use crate::wire::messages::{SeatWire, SpectatorWire};
use std::time::Instant;

/// A live connection in a room. The room reads its socket while it holds it: a `Conn`
/// claims the socket's reading when it is made and lets it go when it is dropped, however
/// the connection leaves (gone, evicted, refused, the room closed).
pub(super) struct Conn {
    pub link: Link,
    /// The `seq` discipline: the highest accepted `input.seq` (starts at 0).
    pub last_seq: u64,
    /// The next `snap` to this connection must be a full one.
    pub needs_full: bool,
    /// Emotes sent in the current one-second window, and when it began.
    pub emote_window: (Instant, u32),
}

impl Conn {
    pub fn new(link: Link) -> Conn {
        link.claim();
        Conn {
            link,
            last_seq: 0,
            needs_full: true,
            emote_window: (Instant::now(), 0),
        }
    }

    pub fn id(&self) -> u64 {
        self.link.id
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.link.release();
    }
}

pub(super) struct Seat {
    /// Empty for a bot (no token is empty, so none can match it).
    pub token: String,
    pub session_id: String,
    pub name: String,
    pub color: &'static str,
    pub ready: bool,
    pub conn: Option<Conn>,
    /// When the seat lost its connection (or was reserved and not yet connected).
    pub disconnected_at: Option<Instant>,
    /// Whether a socket ever held this seat (a reconnect of such a seat is a rejoin).
    pub ever_connected: bool,
    /// A bot cook the room plays itself: always present, always ready, never a host.
    pub bot: bool,
}

impl Seat {
    /// Whether the cook is there: a person with a live socket, or a bot.
    pub fn present(&self) -> bool {
        self.bot || self.conn.is_some()
    }

    /// A person who was here and has gone (the socket closed): not one on the way.
    pub fn away(&self) -> bool {
        !self.bot && self.ever_connected && self.conn.is_none()
    }
}

pub(super) struct Spectator {
    pub token: String,
    pub name: String,
    pub color: &'static str,
    pub conn: Conn,
}

pub(super) struct Seats {
    /// Seat `i` at index `i`; `None` is a free seat.
    pub list: Vec<Option<Seat>>,
    /// In join order.
    pub spectators: Vec<Spectator>,
    pub host: Option<u8>,
}

impl Seats {
    pub fn new(count: usize) -> Seats {
        Seats {
            list: (0..count).map(|_| None).collect(),
            spectators: Vec::new(),
            host: None,
        }
    }

    pub fn get(&self, seat: u8) -> Option<&Seat> {
        self.list.get(seat as usize).and_then(Option::as_ref)
    }

    pub fn get_mut(&mut self, seat: u8) -> Option<&mut Seat> {
        self.list.get_mut(seat as usize).and_then(Option::as_mut)
    }

    pub fn taken(&self) -> impl Iterator<Item = &Seat> {
        self.list.iter().flatten()
    }

    pub fn seated(&self) -> usize {
        self.taken().count()
    }

    /// The people whose socket is in the room now.
    pub fn connected_people(&self) -> usize {
        self.taken().filter(|s| !s.bot && s.conn.is_some()).count()
    }

    /// No person holds a seat (bots alone do not keep a room open).
    pub fn is_empty(&self) -> bool {
        self.taken().all(|s| s.bot)
    }

    pub fn of_token(&self, token: &str) -> Option<u8> {
        self.list
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| !s.bot && s.token == token))
            .map(|i| i as u8)
    }

    /// The seats bots play, in seat order.
    pub fn bots(&self) -> Vec<u8> {
        (0..self.list.len() as u8)
            .filter(|&i| self.get(i).is_some_and(|s| s.bot))
            .collect()
    }

    /// The bot team of a round on `level` in these seats, when it has bots: they leave the
    /// seats people play room (docs/GAME.md).
    pub fn team(&self, level: &crate::sim::Level, tick_hz: u32) -> Option<crate::bots::BotTeam> {
        let bots = self.bots();
        let people: Vec<u8> = (0..self.list.len() as u8)
            .filter(|&i| self.get(i).is_some_and(|s| !s.bot))
            .collect();
        (!bots.is_empty())
            .then(|| crate::bots::BotTeam::new(level, tick_hz, &bots).with_people(&people))
    }

    pub fn of_conn(&self, conn: u64) -> Option<u8> {
        self.list
            .iter()
            .position(|s| {
                s.as_ref()
                    .and_then(|s| s.conn.as_ref())
                    .is_some_and(|c| c.id() == conn)
            })
            .map(|i| i as u8)
    }

    pub fn free(&self) -> Option<u8> {
        self.list.iter().position(Option::is_none).map(|i| i as u8)
    }

    /// The token of a live connection, seated or watching.
    pub fn token_of_conn(&self, conn: u64) -> Option<&str> {
        self.taken()
            .find(|s| s.conn.as_ref().is_some_and(|c| c.id() == conn))
            .map(|s| s.token.as_str())
            .or_else(|| {
                self.spectators
                    .iter()
                    .find(|s| s.conn.id() == conn)
                    .map(|s| s.token.as_str())
            })
    }

    pub fn conn_mut(&mut self, conn: u64) -> Option<&mut Conn> {
        self.conns_mut().find(|c| c.id() == conn)
    }

    /// Every live connection: seats first (seat order), then spectators.
    pub fn conns_mut(&mut self) -> impl Iterator<Item = &mut Conn> {
        self.list
            .iter_mut()
            .flatten()
            .filter_map(|s| s.conn.as_mut())
            .chain(self.spectators.iter_mut().map(|s| &mut s.conn))
    }

    /// Every live connection with its token, in the same order.
    pub fn viewers(&self) -> Vec<(u64, String)> {
        self.taken()
            .filter_map(|s| s.conn.as_ref().map(|c| (c.id(), s.token.clone())))
            .chain(
                self.spectators
                    .iter()
                    .map(|s| (s.conn.id(), s.token.clone())),
            )
            .collect()
    }

    /// The crown goes to the lowest connected seat (or stays empty until someone connects).
    pub fn pass_crown(&mut self) {
        self.host = self
            .list
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.conn.is_some()))
            .map(|i| i as u8);
    }

    /// A crown nobody holds goes to `seat`.
    pub fn crown_if_free(&mut self, seat: u8) {
        self.host.get_or_insert(seat);
    }

    pub fn seat_wires(&self) -> Vec<SeatWire> {
        self.list
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.as_ref().map(|s| SeatWire {
                    index: i as u8,
                    name: s.name.clone(),
                    color: s.color.to_string(),
                    ready: s.ready,
                    host: self.host == Some(i as u8),
                    connected: s.present(),
                    bot: s.bot,
                })
            })
            .collect()
    }

    pub fn spectator_wires(&self) -> Vec<SpectatorWire> {
        self.spectators
            .iter()
            .map(|s| SpectatorWire {
                name: s.name.clone(),
                color: s.color.to_string(),
            })
            .collect()
    }
}
