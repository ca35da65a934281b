//! The server's settings: command-line flags over environment variables over defaults.
//!
//! Every limit of the protocol's Limits table has its variable; a bad value refuses to start
//! with a message naming the variable and the accepted range. The result is a plain
//! `ServerConfig` the rest of the server reads and never re-parses.

use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Human,
    Json,
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    pub levels_dir: PathBuf,
    pub log_format: LogFormat,
    pub max_message_bytes: usize,
    pub max_inputs_per_s: u32,
    pub tick_hz: u32,
    pub snapshot_hz: u32,
    pub sim_latency_ms: u64,
    pub max_players: u8,
    /// Allowed `Origin`s; empty = any.
    pub allowed_origins: Vec<String>,
    pub max_rooms: usize,
    pub max_spectators: usize,
    pub test_mode: bool,
    pub guest_idle_timeout_s: u64,
    /// How long an empty room in the lobby or after a round stays open.
    pub empty_room_grace_s: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 8000)),
            data_dir: PathBuf::from("data"),
            levels_dir: PathBuf::from("levels"),
            log_format: LogFormat::Human,
            max_message_bytes: 4096,
            max_inputs_per_s: 40,
            tick_hz: 20,
            snapshot_hz: 20,
            sim_latency_ms: 0,
            max_players: 4,
            allowed_origins: Vec::new(),
            max_rooms: 1000,
            max_spectators: 8,
            test_mode: false,
            guest_idle_timeout_s: 45,
            empty_room_grace_s: 30,
        }
    }
}

/// A refused setting: which one, what it got, what it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    env: &dyn Fn(&str) -> Option<String>,
    name: &str,
    default: T,
    min: T,
    max: T,
) -> Result<T, ConfigError> {
    let Some(raw) = env(name) else {
        return Ok(default);
    };
    let v: T = raw.trim().parse().map_err(|_| {
        ConfigError(format!(
            "{name}={raw:?} is not a whole number (accepted: {min}-{max})"
        ))
    })?;
    if v < min || v > max {
        return Err(ConfigError(format!(
            "{name}={v} is out of range (accepted: {min}-{max})"
        )));
    }
    Ok(v)
}

impl ServerConfig {
    /// Reads the environment (through `env`, so tests can pass their own) over the defaults.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<ServerConfig, ConfigError> {
        let d = ServerConfig::default();
        let tick_hz = number(env, "UNDERCOOKED_TICK_HZ", d.tick_hz, 5, 60)?;
        let snapshot_hz = number(
            env,
            "UNDERCOOKED_SNAPSHOT_HZ",
            tick_hz.min(d.snapshot_hz),
            1,
            tick_hz,
        )?;
        if tick_hz % snapshot_hz != 0 {
            return Err(ConfigError(format!(
                "UNDERCOOKED_SNAPSHOT_HZ={snapshot_hz} must divide UNDERCOOKED_TICK_HZ={tick_hz} (accepted: a divisor of the tick rate)"
            )));
        }
        let test_mode = match env("UNDERCOOKED_TEST_MODE").as_deref().map(str::trim) {
            None | Some("") | Some("0") | Some("false") => false,
            Some("1") | Some("true") => true,
            Some(other) => {
                return Err(ConfigError(format!(
                    "UNDERCOOKED_TEST_MODE={other:?} is not 0 or 1"
                )));
            }
        };
        let allowed_origins = env("UNDERCOOKED_ALLOWED_ORIGINS")
            .map(|s| {
                s.split(',')
                    .map(|o| o.trim().to_string())
                    .filter(|o| !o.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let bind = match env("UNDERCOOKED_BIND") {
            Some(raw) => raw.trim().parse().map_err(|_| {
                ConfigError(format!(
                    "UNDERCOOKED_BIND={raw:?} is not an address like 127.0.0.1:8000"
                ))
            })?,
            None => d.bind,
        };
        Ok(ServerConfig {
            bind,
            data_dir: env("UNDERCOOKED_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or(d.data_dir),
            levels_dir: env("UNDERCOOKED_LEVELS_DIR")
                .map(PathBuf::from)
                .unwrap_or(d.levels_dir),
            log_format: d.log_format,
            max_message_bytes: number(
                env,
                "UNDERCOOKED_MAX_MESSAGE_BYTES",
                d.max_message_bytes,
                256,
                65536,
            )?,
            max_inputs_per_s: number(
                env,
                "UNDERCOOKED_MAX_INPUTS_PER_S",
                d.max_inputs_per_s,
                1,
                1000,
            )?,
            tick_hz,
            snapshot_hz,
            sim_latency_ms: number(env, "UNDERCOOKED_SIM_LATENCY_MS", d.sim_latency_ms, 0, 5000)?,
            max_players: number(env, "UNDERCOOKED_MAX_PLAYERS", d.max_players, 1, 4)?,
            allowed_origins,
            max_rooms: number(env, "UNDERCOOKED_MAX_ROOMS", d.max_rooms, 1, 100_000)?,
            max_spectators: number(env, "UNDERCOOKED_MAX_SPECTATORS", d.max_spectators, 0, 64)?,
            test_mode,
            guest_idle_timeout_s: number(
                env,
                "UNDERCOOKED_GUEST_IDLE_TIMEOUT_S",
                d.guest_idle_timeout_s,
                1,
                86_400,
            )?,
            empty_room_grace_s: number(
                env,
                "UNDERCOOKED_EMPTY_ROOM_GRACE_S",
                d.empty_room_grace_s,
                1,
                86_400,
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ServerConfig::from_env(&move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_and_overrides() {
        let c = with(&[]).unwrap();
        assert_eq!(
            (c.tick_hz, c.snapshot_hz, c.max_players, c.max_rooms),
            (20, 20, 4, 1000)
        );
        let c = with(&[
            ("UNDERCOOKED_TICK_HZ", "30"),
            ("UNDERCOOKED_SNAPSHOT_HZ", "10"),
        ])
        .unwrap();
        assert_eq!((c.tick_hz, c.snapshot_hz), (30, 10));
    }

    #[test]
    fn bad_values_name_the_variable_and_the_range() {
        let e = with(&[("UNDERCOOKED_MAX_PLAYERS", "5")]).unwrap_err();
        assert_eq!(
            e.0,
            "UNDERCOOKED_MAX_PLAYERS=5 is out of range (accepted: 1-4)"
        );
        let e = with(&[("UNDERCOOKED_TICK_HZ", "fast")]).unwrap_err();
        assert!(
            e.0.contains("UNDERCOOKED_TICK_HZ") && e.0.contains("5-60"),
            "{e}"
        );
        let e = with(&[
            ("UNDERCOOKED_TICK_HZ", "20"),
            ("UNDERCOOKED_SNAPSHOT_HZ", "15"),
        ])
        .unwrap_err();
        assert!(e.0.contains("must divide"), "{e}");
    }
}
