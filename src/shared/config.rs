//! The server's settings, read once: every one a `serve` flag with its `UNDERCOOKED_*`
//! environment variable (the flag wins), parsed by clap into `ServerArgs`, then checked as a
//! whole into the plain `ServerConfig` the rest of the server reads and never re-parses.
//!
//! A bad value refuses to start with a message naming the variable and the accepted range;
//! `serve` exits 2 on it.

use clap::builder::TypedValueParser;
use std::fmt::Display;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Human,
    Json,
}

/// `undercooked serve`'s settings as given.
#[derive(clap::Args, Debug, Clone)]
pub struct ServerArgs {
    /// Address to listen on.
    #[arg(long, env = "UNDERCOOKED_BIND", default_value = "127.0.0.1:8000", value_parser = address)]
    pub bind: SocketAddr,
    /// Where live rounds' replay files, the outbox and the database go.
    #[arg(long, env = "UNDERCOOKED_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// Where a shutdown writes what the data folder's disk would not take (default: a
    /// folder under the system's temporary folder named for the data folder).
    #[arg(long, env = "UNDERCOOKED_RESCUE_DIR")]
    pub rescue_dir: Option<PathBuf>,
    /// The levels folder.
    #[arg(
        long = "levels",
        env = "UNDERCOOKED_LEVELS_DIR",
        default_value = "levels"
    )]
    pub levels_dir: PathBuf,
    /// Log lines as `human` or `json`.
    #[arg(
        long,
        value_enum,
        env = "UNDERCOOKED_LOG_FORMAT",
        default_value = "human"
    )]
    pub log_format: LogFormat,
    /// Which log lines to write (a `tracing` filter, such as `info` or `undercooked=debug`).
    #[arg(long = "log", env = "UNDERCOOKED_LOG", default_value = "info")]
    pub log_filter: String,
    /// The largest client frame, in bytes.
    #[arg(long, env = "UNDERCOOKED_MAX_MESSAGE_BYTES", default_value = "4096",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_MESSAGE_BYTES", 256, 65536))]
    pub max_message_bytes: usize,
    /// Client frames a second before `rate_limited` (the token bucket's size and refill).
    #[arg(long, env = "UNDERCOOKED_MAX_INPUTS_PER_S", default_value = "40",
          value_parser = ranged::<u32>("UNDERCOOKED_MAX_INPUTS_PER_S", 1, 1000))]
    pub max_inputs_per_s: u32,
    /// Simulation ticks a second.
    #[arg(long, env = "UNDERCOOKED_TICK_HZ", default_value = "20",
          value_parser = ranged::<u32>("UNDERCOOKED_TICK_HZ", 5, 60))]
    pub tick_hz: u32,
    /// Player snapshots a second (a divisor of the tick rate; default the tick rate, at most 20).
    #[arg(long, env = "UNDERCOOKED_SNAPSHOT_HZ",
          value_parser = ranged::<u32>("UNDERCOOKED_SNAPSHOT_HZ", 1, 60))]
    pub snapshot_hz: Option<u32>,
    /// The kernel's send buffer of each WebSocket, in bytes (0: the kernel's own sizing,
    /// which grows to `net.ipv4.tcp_wmem`'s maximum, 4 MiB by default, for a client that
    /// stops reading). With a size set, a client that stops reading holds at most about
    /// twice this in the kernel (Linux doubles it) besides its 64-frame send queue.
    #[arg(long, env = "UNDERCOOKED_SOCKET_SEND_BUFFER", default_value = "0",
          value_parser = ranged::<usize>("UNDERCOOKED_SOCKET_SEND_BUFFER", 0, 64 << 20))]
    pub socket_send_buffer: usize,
    /// Extra delay on every frame a socket sends (testing only).
    #[arg(long, env = "UNDERCOOKED_SIM_LATENCY_MS", default_value = "0",
          value_parser = ranged::<u64>("UNDERCOOKED_SIM_LATENCY_MS", 0, 5000))]
    pub sim_latency_ms: u64,
    /// Seats per room.
    #[arg(long, env = "UNDERCOOKED_MAX_PLAYERS", default_value = "4",
          value_parser = ranged::<u8>("UNDERCOOKED_MAX_PLAYERS", 1, crate::sim::SEATS as u8))]
    pub max_players: u8,
    /// `Origin`s allowed to open sockets, comma-separated (empty: any).
    #[arg(long, env = "UNDERCOOKED_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// Rooms the server holds at once.
    #[arg(long, env = "UNDERCOOKED_MAX_ROOMS", default_value = "1000",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_ROOMS", 1, 100_000))]
    pub max_rooms: usize,
    /// Spectators per room.
    #[arg(long, env = "UNDERCOOKED_MAX_SPECTATORS", default_value = "8",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_SPECTATORS", 0, 64))]
    pub max_spectators: usize,
    /// Enables the `/api/test/*` seams (`1` or `0`).
    #[arg(long, env = "UNDERCOOKED_TEST_MODE", default_value = "0", value_parser = switch,
          action = clap::ArgAction::Set, hide = true)]
    pub test_mode: bool,
    /// How long a dropped seat is kept, in seconds.
    #[arg(long, env = "UNDERCOOKED_GUEST_IDLE_TIMEOUT_S", default_value = "45",
          value_parser = ranged::<u64>("UNDERCOOKED_GUEST_IDLE_TIMEOUT_S", 1, 86_400))]
    pub guest_idle_timeout_s: u64,
    /// How long an empty room in the lobby or after a round stays open, in seconds.
    #[arg(long, env = "UNDERCOOKED_EMPTY_ROOM_GRACE_S", default_value = "30",
          value_parser = ranged::<u64>("UNDERCOOKED_EMPTY_ROOM_GRACE_S", 1, 86_400))]
    pub empty_room_grace_s: u64,
    /// Threads that run rooms and sockets (default: one per core).
    #[arg(long, env = "UNDERCOOKED_WORKER_THREADS",
          value_parser = ranged::<usize>("UNDERCOOKED_WORKER_THREADS", 1, 256))]
    pub worker_threads: Option<usize>,
    /// Connections held at once, every kind (default: three quarters of the process's
    /// descriptor limit less 64, at most 10,000).
    #[arg(long, env = "UNDERCOOKED_MAX_CONNECTIONS",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_CONNECTIONS", 32, 1_000_000))]
    pub max_connections: Option<usize>,
    /// Connections held at once from one address (an IPv6 /64 counts as one).
    #[arg(long, env = "UNDERCOOKED_MAX_CONNECTIONS_PER_IP", default_value = "64",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_CONNECTIONS_PER_IP", 1, 1_000_000))]
    pub max_connections_per_ip: usize,
    /// Of `UNDERCOOKED_MAX_CONNECTIONS`, the last ones kept for `/healthz`, `/metrics`,
    /// `/api/stats` and players returning to their seat.
    #[arg(long, env = "UNDERCOOKED_CONNECTION_RESERVE", default_value = "16",
          value_parser = ranged::<usize>("UNDERCOOKED_CONNECTION_RESERVE", 0, 10_000))]
    pub connection_reserve: usize,
    /// Sockets open at once that have not said `hello` yet (the last quarter kept for
    /// addresses that have been let in before).
    #[arg(long, env = "UNDERCOOKED_MAX_PENDING_SOCKETS", default_value = "256",
          value_parser = ranged::<usize>("UNDERCOOKED_MAX_PENDING_SOCKETS", 1, 1_000_000))]
    pub max_pending_sockets: usize,
    /// Of those, how many one address (an IPv6 /64) may hold.
    #[arg(long, env = "UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP", default_value = "8",
          value_parser = ranged::<u32>("UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP", 1, 1_000_000))]
    pub max_pending_sockets_per_ip: u32,
    /// HTTP requests one address may make a second, sustained (`429` past its budget).
    #[arg(long, env = "UNDERCOOKED_REQUESTS_PER_S", default_value = "20",
          value_parser = ranged::<u32>("UNDERCOOKED_REQUESTS_PER_S", 1, 1_000_000))]
    pub requests_per_s: u32,
    /// HTTP requests one address may make at once after a quiet spell (the bucket's size).
    #[arg(long, env = "UNDERCOOKED_REQUEST_BURST", default_value = "60",
          value_parser = ranged::<u32>("UNDERCOOKED_REQUEST_BURST", 1, 1_000_000))]
    pub request_burst: u32,
    /// Socket upgrades one address may ask for a second, sustained.
    #[arg(long, env = "UNDERCOOKED_UPGRADES_PER_S", default_value = "2",
          value_parser = ranged::<u32>("UNDERCOOKED_UPGRADES_PER_S", 1, 1_000_000))]
    pub upgrades_per_s: u32,
    /// Socket upgrades one address may ask for at once after a quiet spell.
    #[arg(long, env = "UNDERCOOKED_UPGRADE_BURST", default_value = "10",
          value_parser = ranged::<u32>("UNDERCOOKED_UPGRADE_BURST", 1, 1_000_000))]
    pub upgrade_burst: u32,
    /// Rooms one session may hold open at once (created, solo, or opened by its quick play).
    #[arg(long, env = "UNDERCOOKED_ROOMS_PER_SESSION", default_value = "3",
          value_parser = ranged::<u32>("UNDERCOOKED_ROOMS_PER_SESSION", 1, 1_000_000))]
    pub rooms_per_session: u32,
    /// Rooms one address (an IPv6 /64) may hold open at once.
    #[arg(long, env = "UNDERCOOKED_ROOMS_PER_IP", default_value = "8",
          value_parser = ranged::<u32>("UNDERCOOKED_ROOMS_PER_IP", 1, 1_000_000))]
    pub rooms_per_ip: u32,
    /// Seconds a seat reserved over HTTP is kept for a socket that never comes (a room
    /// whose seats were never taken closes then).
    #[arg(long, env = "UNDERCOOKED_UNCLAIMED_SEAT_S", default_value = "10",
          value_parser = ranged::<u64>("UNDERCOOKED_UNCLAIMED_SEAT_S", 1, 3600))]
    pub unclaimed_seat_s: u64,
    /// Seconds a connection has to send a request's head (from connecting, or from its last
    /// answer: so also how long an idle keep-alive connection is kept) and then its body.
    #[arg(long, env = "UNDERCOOKED_HEADER_TIMEOUT_S", default_value = "10",
          value_parser = ranged::<u64>("UNDERCOOKED_HEADER_TIMEOUT_S", 1, 300))]
    pub header_timeout_s: u64,
    /// Seconds after which a session that never finished a round is forgotten (counted
    /// from when it was last seen).
    #[arg(long, env = "UNDERCOOKED_SESSION_TTL_S", default_value = "86400",
          value_parser = ranged::<u64>("UNDERCOOKED_SESSION_TTL_S", 60, 31_536_000))]
    pub session_ttl_s: u64,
    /// New sessions (tokens the server has not seen) one address may start a minute.
    #[arg(long, env = "UNDERCOOKED_NEW_SESSIONS_PER_MIN", default_value = "30",
          value_parser = ranged::<u32>("UNDERCOOKED_NEW_SESSIONS_PER_MIN", 1, 100_000))]
    pub new_sessions_per_min: u32,
    /// The file holding the session key (64 hex digits); default `<data-dir>/session.key`.
    /// Every node of a cluster names the same key (a copy of one file); made when missing.
    #[arg(long, env = "UNDERCOOKED_SESSION_KEY_FILE")]
    pub session_key_file: Option<PathBuf>,
    /// Quick plays one address may ask for a minute (`429 rate_limited` past them).
    #[arg(long, env = "UNDERCOOKED_QUICK_PLAYS_PER_MIN", default_value = "60",
          value_parser = ranged::<u32>("UNDERCOOKED_QUICK_PLAYS_PER_MIN", 1, 100_000))]
    pub quick_plays_per_min: u32,
    /// In a cluster (a PostgreSQL history): this node's id, stable across restarts;
    /// default its public address as bound (`host:port`).
    #[arg(long, env = "UNDERCOOKED_NODE_ID")]
    pub node_id: Option<String>,
    /// In a cluster: where players reach this node's sockets, `ws://host:port` or
    /// `wss://…`; default `ws://` and the bound address (127.0.0.1 for an unspecified one).
    #[arg(long, env = "UNDERCOOKED_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// In a cluster: where this node listens for the other nodes (the internal routes,
    /// signed; never served on `--bind`). Keep it on loopback or a private network.
    #[arg(long, env = "UNDERCOOKED_INTERNAL_BIND", default_value = "127.0.0.1:0", value_parser = address)]
    pub internal_bind: SocketAddr,
    /// In a cluster: where other nodes reach this node's internal listener,
    /// `http://host:port`; default `http://` and the internal listener's bound address.
    #[arg(long, env = "UNDERCOOKED_INTERNAL_URL")]
    pub internal_url: Option<String>,
    /// In a cluster: the file of node secrets the nodes sign their requests to each other
    /// with (one 64-hex-digit secret a line; the first signs, every one verifies); default
    /// `node.secret` beside the session key file. Made when missing.
    #[arg(long, env = "UNDERCOOKED_NODE_SECRET_FILE")]
    pub node_secret_file: Option<PathBuf>,
    /// In a cluster: seconds a SIGTERM waits for the node's rounds to end while it takes
    /// no new rooms (draining), before the usual shutdown aborts what still plays.
    #[arg(long, env = "UNDERCOOKED_DRAIN_GRACE_S", default_value = "60",
          value_parser = ranged::<u64>("UNDERCOOKED_DRAIN_GRACE_S", 0, 3600))]
    pub drain_grace_s: u64,
    /// A SIGTERM hands the live rounds over instead of ending them: ticking stops at once,
    /// each round's log is flushed to a tick boundary, the sockets close 1012 (restart) and
    /// the process exits; the next start on this data dir resumes them (docs/ROOMS.md).
    #[arg(long, env = "UNDERCOOKED_HANDOFF", default_value = "0", value_parser = switch,
          num_args = 0..=1, default_missing_value = "1", action = clap::ArgAction::Set)]
    pub handoff: bool,
    /// Seconds since its file was last written within which a round left unfinished is
    /// resumed at start; an older one is recorded `aborted`, as nobody is waiting for it.
    #[arg(long, env = "UNDERCOOKED_RESUME_WITHIN_S", default_value = "600",
          value_parser = ranged::<u64>("UNDERCOOKED_RESUME_WITHIN_S", 0, 86_400))]
    pub resume_within_s: u64,
    /// Seconds a resumed round waits for the people who were playing to come back before
    /// it ticks on without the missing ones (their seats kept for the seat grace).
    #[arg(long, env = "UNDERCOOKED_RESUME_WAIT_S", default_value = "20",
          value_parser = ranged::<u64>("UNDERCOOKED_RESUME_WAIT_S", 0, 600))]
    pub resume_wait_s: u64,
}

/// The caps on connections (docs/SECURITY.md says what each refusal looks like).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections at once, the reserve included.
    pub max: usize,
    pub per_ip: usize,
    /// The last `reserve` permits of `max`: `/healthz`, `/metrics`, `/api/stats` and seated
    /// players only.
    pub reserve: usize,
    /// Sockets that have not said `hello`, and one address's share of them.
    pub pending_sockets: usize,
    pub pending_per_ip: u32,
    /// How long a request's head (and then its body) may take.
    pub header_timeout: std::time::Duration,
}

impl ConnectionLimits {
    /// The default for `max`: three quarters of the descriptors this process may open, less
    /// 64 (the database, replay files, the listener), between 32 and 10,000. The rest of the
    /// descriptors stay for the live rooms' replay files.
    pub fn default_max() -> usize {
        let fds = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(u64::MAX);
        let usable = fds.saturating_sub(64).saturating_mul(3) / 4;
        usable.clamp(32, 10_000) as usize
    }
}

/// The settings, checked as a whole.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    pub rescue_dir: PathBuf,
    pub levels_dir: PathBuf,
    pub log_format: LogFormat,
    pub log_filter: String,
    pub max_message_bytes: usize,
    pub max_inputs_per_s: u32,
    pub tick_hz: u32,
    pub snapshot_hz: u32,
    pub sim_latency_ms: u64,
    pub socket_send_buffer: usize,
    pub max_players: u8,
    /// Allowed `Origin`s; empty = any.
    pub allowed_origins: Vec<String>,
    pub max_rooms: usize,
    pub max_spectators: usize,
    pub test_mode: bool,
    pub guest_idle_timeout_s: u64,
    /// How long an empty room in the lobby or after a round stays open.
    pub empty_room_grace_s: u64,
    /// Runtime worker threads; `None` is one per core.
    pub worker_threads: Option<usize>,
    pub connections: ConnectionLimits,
    pub session_ttl_s: u64,
    pub new_sessions_per_min: u32,
    pub quick_plays_per_min: u32,
    /// Each address's request and upgrade budgets: (per second, burst).
    pub requests: (u32, u32),
    pub upgrades: (u32, u32),
    /// Rooms open at once per session and per address.
    pub rooms_per_session: u32,
    pub rooms_per_ip: u32,
    pub unclaimed_seat_s: u64,
    /// Where the session key is (`UNDERCOOKED_SESSION_KEY_FILE`); `None`: in the data dir.
    pub session_key_file: Option<PathBuf>,
    /// The cluster's settings (`None`: default from the bound address).
    pub node_id: Option<String>,
    pub public_url: Option<String>,
    pub internal_bind: SocketAddr,
    pub internal_url: Option<String>,
    pub node_secret_file: Option<PathBuf>,
    pub drain_grace_s: u64,
    /// Resume (docs/ROOMS.md): a SIGTERM hands rounds over; which unfinished rounds a
    /// start resumes; how long a resumed round waits for its people.
    pub handoff: bool,
    pub resume_within_s: u64,
    pub resume_wait_s: u64,
}

/// A refused setting: which one, what it got, what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl TryFrom<ServerArgs> for ServerConfig {
    type Error = ConfigError;

    fn try_from(a: ServerArgs) -> Result<ServerConfig, ConfigError> {
        let snapshot_hz = a.snapshot_hz.unwrap_or(a.tick_hz.min(20));
        if snapshot_hz > a.tick_hz || !a.tick_hz.is_multiple_of(snapshot_hz) {
            return Err(ConfigError(format!(
                "UNDERCOOKED_SNAPSHOT_HZ={snapshot_hz} must divide UNDERCOOKED_TICK_HZ={} (accepted: a divisor of the tick rate)",
                a.tick_hz
            )));
        }
        let max = a
            .max_connections
            .unwrap_or_else(ConnectionLimits::default_max);
        if a.connection_reserve >= max {
            return Err(ConfigError(format!(
                "UNDERCOOKED_CONNECTION_RESERVE={} must be less than UNDERCOOKED_MAX_CONNECTIONS={max} (the reserve is part of the cap)",
                a.connection_reserve
            )));
        }
        if let Some(u) = &a.public_url
            && !(u.starts_with("ws://") || u.starts_with("wss://"))
        {
            return Err(ConfigError(format!(
                "UNDERCOOKED_PUBLIC_URL={u:?} must start with ws:// or wss:// (where players open sockets)"
            )));
        }
        if let Some(u) = &a.internal_url
            && !u.starts_with("http://")
        {
            return Err(ConfigError(format!(
                "UNDERCOOKED_INTERNAL_URL={u:?} must start with http:// (where other nodes reach this node's internal listener)"
            )));
        }
        let connections = ConnectionLimits {
            max,
            per_ip: a.max_connections_per_ip,
            reserve: a.connection_reserve,
            pending_sockets: a.max_pending_sockets,
            pending_per_ip: a.max_pending_sockets_per_ip,
            header_timeout: std::time::Duration::from_secs(a.header_timeout_s),
        };
        Ok(ServerConfig {
            bind: a.bind,
            rescue_dir: a
                .rescue_dir
                .unwrap_or_else(|| default_rescue_dir(&a.data_dir)),
            data_dir: a.data_dir,
            levels_dir: a.levels_dir,
            log_format: a.log_format,
            log_filter: a.log_filter,
            max_message_bytes: a.max_message_bytes,
            max_inputs_per_s: a.max_inputs_per_s,
            tick_hz: a.tick_hz,
            snapshot_hz,
            sim_latency_ms: a.sim_latency_ms,
            socket_send_buffer: a.socket_send_buffer,
            max_players: a.max_players,
            allowed_origins: a
                .allowed_origins
                .into_iter()
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            max_rooms: a.max_rooms,
            max_spectators: a.max_spectators,
            test_mode: a.test_mode,
            guest_idle_timeout_s: a.guest_idle_timeout_s,
            empty_room_grace_s: a.empty_room_grace_s,
            worker_threads: a.worker_threads,
            connections,
            session_ttl_s: a.session_ttl_s,
            new_sessions_per_min: a.new_sessions_per_min,
            quick_plays_per_min: a.quick_plays_per_min,
            requests: (a.requests_per_s, a.request_burst),
            upgrades: (a.upgrades_per_s, a.upgrade_burst),
            rooms_per_session: a.rooms_per_session,
            rooms_per_ip: a.rooms_per_ip,
            unclaimed_seat_s: a.unclaimed_seat_s,
            session_key_file: a.session_key_file,
            node_id: a.node_id,
            public_url: a.public_url,
            internal_bind: a.internal_bind,
            internal_url: a.internal_url,
            node_secret_file: a.node_secret_file,
            drain_grace_s: a.drain_grace_s,
            handoff: a.handoff,
            resume_within_s: a.resume_within_s,
            resume_wait_s: a.resume_wait_s,
        })
    }
}

impl ServerConfig {
    /// The settings from `UNDERCOOKED_*` names and values, as an operator writes them (the
    /// process environment fills in the rest, as for `serve`). Tests start servers this way.
    pub fn from_settings(settings: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        use clap::{Args, FromArgMatches};
        let cmd = ServerArgs::augment_args(clap::Command::new("serve").no_binary_name(true));
        let mut argv: Vec<String> = Vec::new();
        for (var, value) in settings {
            let flag = cmd
                .get_arguments()
                .find(|a| a.get_env().is_some_and(|e| e == *var))
                .and_then(|a| a.get_long())
                .ok_or_else(|| ConfigError(format!("{var} is not a server setting")))?;
            argv.push(format!("--{flag}={value}"));
        }
        let matches = cmd
            .try_get_matches_from(argv)
            .map_err(|e| ConfigError(e.to_string()))?;
        let args =
            ServerArgs::from_arg_matches(&matches).map_err(|e| ConfigError(e.to_string()))?;
        ServerConfig::try_from(args)
    }
}

impl Default for ServerConfig {
    /// The documented defaults (what `serve` runs with when nothing is set).
    fn default() -> ServerConfig {
        ServerConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 8000)),
            data_dir: PathBuf::from("data"),
            rescue_dir: default_rescue_dir(&PathBuf::from("data")),
            levels_dir: PathBuf::from("levels"),
            log_format: LogFormat::Human,
            log_filter: "info".into(),
            max_message_bytes: 4096,
            max_inputs_per_s: 40,
            tick_hz: 20,
            snapshot_hz: 20,
            sim_latency_ms: 0,
            socket_send_buffer: 0,
            max_players: crate::sim::SEATS as u8,
            allowed_origins: Vec::new(),
            max_rooms: 1000,
            max_spectators: 8,
            test_mode: false,
            guest_idle_timeout_s: 45,
            empty_room_grace_s: 30,
            worker_threads: None,
            connections: ConnectionLimits {
                max: ConnectionLimits::default_max(),
                per_ip: 64,
                reserve: 16,
                pending_sockets: 256,
                pending_per_ip: 8,
                header_timeout: std::time::Duration::from_secs(10),
            },
            session_ttl_s: 86_400,
            new_sessions_per_min: 30,
            quick_plays_per_min: 60,
            requests: (20, 60),
            upgrades: (2, 10),
            rooms_per_session: 3,
            rooms_per_ip: 8,
            unclaimed_seat_s: 10,
            session_key_file: None,
            node_id: None,
            public_url: None,
            internal_bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            internal_url: None,
            node_secret_file: None,
            drain_grace_s: 60,
            handoff: false,
            resume_within_s: 600,
            resume_wait_s: 20,
        }
    }
}

/// A whole number within `min..=max`; the refusal names the variable and the range.
/// `<temp>/undercooked-rescue-<crc32 of the data folder's absolute path>`: off the data
/// folder's disk as a rule, and one folder per data folder, so two servers on one machine
/// never put back each other's rounds.
fn default_rescue_dir(data_dir: &std::path::Path) -> PathBuf {
    let absolute = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let key = crc32fast::hash(absolute.as_os_str().as_encoded_bytes());
    std::env::temp_dir().join(format!("undercooked-rescue-{key:08x}"))
}

pub fn ranged<T>(var: &'static str, min: T, max: T) -> impl TypedValueParser<Value = T>
where
    T: FromStr + PartialOrd + Display + Copy + Clone + Send + Sync + 'static,
{
    clap::builder::StringValueParser::new().try_map(move |raw: String| {
        let v: T = raw
            .trim()
            .parse()
            .map_err(|_| format!("{var}={raw:?} is not a whole number (accepted: {min}-{max})"))?;
        if v < min || v > max {
            return Err(format!("{var}={v} is out of range (accepted: {min}-{max})"));
        }
        Ok(v)
    })
}

fn address(raw: &str) -> Result<SocketAddr, String> {
    raw.trim()
        .parse()
        .map_err(|_| format!("UNDERCOOKED_BIND={raw:?} is not an address like 127.0.0.1:8000"))
}

/// `1`/`true` or `0`/`false` (empty is `0`).
fn switch(raw: &str) -> Result<bool, String> {
    match raw.trim() {
        "" | "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        other => Err(format!("UNDERCOOKED_TEST_MODE={other:?} is not 0 or 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let c = ServerConfig::from_settings(&[]).unwrap();
        assert_eq!(
            (c.tick_hz, c.snapshot_hz, c.max_players, c.max_rooms),
            (20, 20, 4, 1000)
        );
        let d = ServerConfig::default();
        assert_eq!(
            (c.bind, c.max_message_bytes, c.guest_idle_timeout_s),
            (d.bind, d.max_message_bytes, d.guest_idle_timeout_s),
            "the documented defaults are clap's defaults"
        );
        assert_eq!(
            (c.requests, c.upgrades, c.rooms_per_session, c.rooms_per_ip),
            (d.requests, d.upgrades, d.rooms_per_session, d.rooms_per_ip),
        );
        assert_eq!(
            (c.unclaimed_seat_s, c.connections.pending_per_ip),
            (d.unclaimed_seat_s, d.connections.pending_per_ip),
        );
        let c = ServerConfig::from_settings(&[
            ("UNDERCOOKED_TICK_HZ", "30"),
            ("UNDERCOOKED_SNAPSHOT_HZ", "10"),
            ("UNDERCOOKED_ALLOWED_ORIGINS", "http://a, ,http://b"),
        ])
        .unwrap();
        assert_eq!((c.tick_hz, c.snapshot_hz), (30, 10));
        assert_eq!(c.allowed_origins, ["http://a", "http://b"]);
    }

    #[test]
    fn bad_values_name_the_variable_and_the_range() {
        let e = ServerConfig::from_settings(&[("UNDERCOOKED_MAX_PLAYERS", "5")]).unwrap_err();
        assert!(
            e.0.contains("UNDERCOOKED_MAX_PLAYERS=5 is out of range (accepted: 1-4)"),
            "{e}"
        );
        let e = ServerConfig::from_settings(&[("UNDERCOOKED_TICK_HZ", "fast")]).unwrap_err();
        assert!(
            e.0.contains("UNDERCOOKED_TICK_HZ") && e.0.contains("5-60"),
            "{e}"
        );
        let e = ServerConfig::from_settings(&[
            ("UNDERCOOKED_TICK_HZ", "20"),
            ("UNDERCOOKED_SNAPSHOT_HZ", "15"),
        ])
        .unwrap_err();
        assert!(e.0.contains("must divide"), "{e}");
        let e = ServerConfig::from_settings(&[("UNDERCOOKED_TEST_MODE", "yes")]).unwrap_err();
        assert!(e.0.contains("is not 0 or 1"), "{e}");
        let e = ServerConfig::from_settings(&[
            ("UNDERCOOKED_MAX_CONNECTIONS", "100"),
            ("UNDERCOOKED_CONNECTION_RESERVE", "100"),
        ])
        .unwrap_err();
        assert!(
            e.0.contains("UNDERCOOKED_CONNECTION_RESERVE=100 must be less than UNDERCOOKED_MAX_CONNECTIONS=100"),
            "{e}"
        );
    }

    #[test]
    fn the_connection_cap_follows_the_descriptor_limit_and_stays_in_bounds() {
        let max = ConnectionLimits::default_max();
        assert!((32..=10_000).contains(&max), "{max}");
        assert_eq!(ServerConfig::default().connections.max, max);
        let c = ServerConfig::from_settings(&[("UNDERCOOKED_MAX_CONNECTIONS", "500")]).unwrap();
        assert_eq!(c.connections.max, 500);
    }
}
