//! Where rooms are: on this node alone, or across the nodes of a cluster over one
//! PostgreSQL. Everything about nodes lives here — a node's registration and its lease
//! (`node`, `lease`), the room directory (`directory`), the janitor (`janitor`), quick
//! play's decision (`quick`), the requests nodes send each other and how they are signed
//! (`forward`, `signing`, `secret`), and the upkeep that keeps it all (`upkeep`) — behind
//! one `Directory`, the way `store::db` made two engines one: the route handlers ask it
//! where a room is, for a code to open a room under, or for quick play's next step, and
//! carry the answer out; they never hold a transaction or ask whether the server is
//! clustered.
//!
//! A server whose history is SQLite is one node: `Directory::Single` answers from the
//! room registry alone. A server whose history is PostgreSQL joins the cluster:
//! `Directory::Cluster`. This module uses `shared` (the registry, the census, the
//! settings) and is used by `server`; `shared` and `room` never use it.

mod directory;
pub mod forward;
pub mod janitor;
mod lease;
mod node;
mod quick;
pub mod secret;
pub mod signing;
mod upkeep;

pub use directory::Owner;
pub use forward::{Answer, Call, Unanswered};
pub use janitor::{Janitor, Orphan, Swept};
pub use lease::{Addresses, Health, LEASE_S, RENEW_EVERY_S};
pub use node::Cluster;
pub use quick::{At, Busy, IN_FLIGHT, IN_FLIGHT_PER_ADDRESS, QuickStep, Tried};

use crate::shared::Shared;
use crate::store::StoreError;
use serde_json::Value;
use std::sync::Arc;

/// Where the rooms are known.
pub enum Directory {
    /// This node alone: its registry is the directory.
    Single,
    /// A node of a cluster.
    Cluster(Arc<Cluster>),
}

/// Where a room is.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    /// On this node (open, or claimed for it and opened on arrival).
    Here,
    /// On another node, alive when the directory was read.
    There(Owner),
    /// Nowhere: no such room, or its node is gone.
    Gone,
    /// Its node's lease lapsed and its round is being adopted by another node (or waits
    /// for the janitor to see the lapse): ask again in a moment.
    Moving,
}

/// A request sent to a room's node, as it went.
pub enum Reached {
    Answered(Answer),
    /// The node did not answer and its lease has lapsed: the room is gone.
    Gone,
    /// The node did not answer (why), but its lease is live: try again.
    Unavailable(String),
}

/// Why a node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The node secret file could not be read or made (the sentence names it).
    #[error("{0}")]
    SecretFile(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The directory could not be read (the database did not answer): why.
#[derive(Debug)]
pub struct Unreachable(pub String);

/// Why no code was had for a new room here.
#[derive(Debug)]
pub enum NoCode {
    /// This node is draining: it opens no room.
    Draining,
    /// The directory could not be reached.
    Unreachable(String),
}

impl Directory {
    /// Joins the cluster when the history is PostgreSQL (`Single` otherwise), as the node
    /// serving players at `public` and other nodes at `internal` (its internal listener);
    /// starts its upkeep.
    pub async fn join(
        shared: &Arc<Shared>,
        public: std::net::SocketAddr,
        internal: std::net::SocketAddr,
    ) -> Result<Directory, JoinError> {
        let Some(crate::store::Pool::Postgres(history)) = shared.store().map(|s| &s.pool) else {
            return Ok(Directory::Single);
        };
        let c = &shared.config;
        let secret_file = c.node_secret_file.clone().unwrap_or_else(|| {
            let key = c
                .session_key_file
                .clone()
                .unwrap_or_else(|| c.data_dir.join(crate::shared::session_key::FILE));
            key.parent()
                .unwrap_or(std::path::Path::new("."))
                .join(secret::FILE)
        });
        let secret = secret::SecretFile::open(&secret_file)
            .map_err(|e| JoinError::SecretFile(e.to_string()))?;
        let loopback = |a: std::net::SocketAddr| {
            if a.ip().is_unspecified() {
                std::net::SocketAddr::from(([127, 0, 0, 1], a.port()))
            } else {
                a
            }
        };
        let (public, internal) = (loopback(public), loopback(internal));
        let at = Addresses {
            node_id: c.node_id.clone().unwrap_or_else(|| public.to_string()),
            public_ws: c
                .public_url
                .clone()
                .unwrap_or_else(|| format!("ws://{public}"))
                .trim_end_matches('/')
                .to_string(),
            internal_http: c
                .internal_url
                .clone()
                .unwrap_or_else(|| format!("http://{internal}"))
                .trim_end_matches('/')
                .to_string(),
        };
        let cluster = Arc::new(Cluster::join(history, at, secret, c.max_players).await?);
        tokio::spawn(upkeep::keep(Arc::downgrade(shared), cluster.clone()));
        Ok(Directory::Cluster(cluster))
    }

    /// This node in its cluster, if it is in one.
    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        match self {
            Directory::Single => None,
            Directory::Cluster(c) => Some(c),
        }
    }

    /// Where a player's socket for room `code` on this node goes, when players must be
    /// told (in a cluster: the node's public address).
    pub fn ws_url(&self, code: &str) -> Option<String> {
        self.cluster().map(|c| c.ws_url(code))
    }

    /// Where room `code` is.
    pub async fn place(&self, shared: &Shared, code: &str) -> Result<Place, Unreachable> {
        if shared.rooms.get(code).is_some() {
            return Ok(Place::Here);
        }
        let Some(c) = self.cluster() else {
            return Ok(Place::Gone);
        };
        match c.owner_of(code).await {
            Ok(Some(owner)) if owner.node_id == c.node_id && owner.epoch == c.epoch => {
                // Claimed for this node by quick play and not opened yet, or closed a
                // moment ago: the caller opens it if it may.
                Ok(Place::Here)
            }
            Ok(Some(owner)) => Ok(Place::There(owner)),
            Ok(None) => match c.moving(code).await {
                Ok(true) => Ok(Place::Moving),
                Ok(false) => Ok(Place::Gone),
                Err(e) => Err(Unreachable(e.to_string())),
            },
            Err(e) => Err(Unreachable(e.to_string())),
        }
    }

    /// A code for a room about to open here: `None` (a fresh local code) on a single node;
    /// in a cluster, one claimed in the directory.
    pub async fn claim(&self) -> Result<Option<String>, NoCode> {
        let Some(c) = self.cluster() else {
            return Ok(None);
        };
        if c.draining() {
            return Err(NoCode::Draining);
        }
        for _ in 0..8 {
            let candidate = crate::shared::registry::room_code();
            match c.claim_code(&candidate).await {
                Ok(true) => return Ok(Some(candidate)),
                Ok(false) => continue,
                Err(e) => return Err(NoCode::Unreachable(e.to_string())),
            }
        }
        Err(NoCode::Unreachable("no free code in 8 draws".into()))
    }

    /// Whether room `code`, not open here, may be opened here now (quick play claimed it
    /// for this node and this process never opened it).
    pub async fn may_open(&self, code: &str) -> bool {
        match self.cluster() {
            Some(c) => c.may_open(code).await,
            None => false,
        }
    }

    /// Room `code` was opened here (it is never opened again by a late arrival).
    pub fn opened(&self, code: &str) {
        if let Some(c) = self.cluster() {
            c.opened.note(code);
        }
    }

    /// One of this node's quick-play permits for a caller from `from`: `Ok(None)` on a
    /// single node (quick play there is a look at the registry); `Busy::Full` when the
    /// caller's address holds its share, or the permits are taken and the line for them is
    /// full or did not move within a second.
    pub async fn quick_permit(
        &self,
        from: Option<crate::shared::admission::Source>,
    ) -> Result<Option<quick::QuickPermit>, Busy> {
        match self.cluster() {
            None => Ok(None),
            Some(c) => c.quick.permit(from).await.map(Some).ok_or(Busy::Full),
        }
    }

    /// Quick play's next step, given how the steps so far went.
    pub async fn quick_step(&self, shared: &Shared, tried: &Tried) -> Result<QuickStep, Busy> {
        match self.cluster() {
            Some(c) => c.quick_step(tried).await,
            None => Ok(shared
                .rooms
                .open_lobbies(
                    shared.config.max_players,
                    std::time::Duration::from_secs(shared.config.unclaimed_seat_s),
                )
                .into_iter()
                .find(|code| !tried.full.contains(code))
                .map_or(QuickStep::OpenHere { code: None }, |code| {
                    QuickStep::SeatIn { code, at: At::Here }
                })),
        }
    }

    /// Sends `call` to room's node `owner`; when it does not answer, its lease decides
    /// (lapsed: `Gone`; live: `Unavailable`).
    pub async fn reach(&self, owner: &Owner, call: &Call) -> Reached {
        let Some(c) = self.cluster() else {
            return Reached::Gone;
        };
        match c.send(owner, call).await {
            Ok(a) => Reached::Answered(a),
            Err(why) => {
                tracing::warn!(owner = %owner.node_id, path = %call.path, why = %why, "a request for another node got no answer");
                match c.alive(owner).await {
                    Ok(false) => Reached::Gone,
                    _ => Reached::Unavailable(why.to_string()),
                }
            }
        }
    }

    /// Checks a request another node sent this node's internal listener.
    pub fn verify(
        &self,
        headers: &signing::Headers<'_>,
        req: &signing::Request<'_>,
    ) -> Result<(), signing::Refused> {
        match self.cluster() {
            None => Err(signing::Refused::BadSignature),
            Some(c) => c
                .nonces
                .verify(&c.secret.secrets(), headers, req, crate::store::unix_now()),
        }
    }

    /// The lease, for `/healthz`: its health and its report.
    pub fn lease(&self) -> Option<(Health, Value)> {
        self.cluster().map(|c| (c.lease.health(), c.lease.report()))
    }

    /// Whether this node takes no new rooms (a cluster node draining).
    pub fn draining(&self) -> bool {
        self.cluster().is_some_and(|c| c.draining())
    }

    /// Stops taking rooms: the directory says so at once (quick play skips this node) and
    /// this node opens no room.
    pub async fn drain(&self) {
        if let Some(c) = self.cluster() {
            c.drain().await;
        }
    }

    /// At exit, after the rooms closed: this node's rows leave the directory and its lease
    /// ends.
    pub async fn leave(&self) {
        if let Some(c) = self.cluster() {
            c.leave().await;
        }
    }
}
