//! `undercooked loadtest --url http://HOST:PORT --rooms N --duration S [--level ID]
//! [--ramp R] [--planners K] [--json]`: rooms of bot-played clients against a running server; a progress
//! bar on a terminal, then a table (or one JSON object with `--json`).
//!
//! Exit codes: 0 the run finished (whatever it measured), 2 bad arguments or no server.

use super::LevelsDir;
use anyhow::{Context, bail};
use std::io::{IsTerminal, Write};
use std::time::Duration;
use undercooked::loadtest::{Config, Report, Spread};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's base URL (http://HOST:PORT).
    #[arg(long)]
    url: String,
    /// Rooms of 4 playing clients.
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Seconds measured once every room plays.
    #[arg(long, default_value_t = 20)]
    duration: u64,
    /// The level every room plays (the server and this machine must both have it).
    #[arg(long, default_value = "01_first_kitchen")]
    level: String,
    /// Rooms opened per second.
    #[arg(long, default_value_t = 20.0)]
    ramp: f64,
    /// Seats per room whose bot plans from the frames it receives (the rest walk back and
    /// forth, one input a snap, without reading the frames: a tenth of the client's CPU).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=4))]
    planners: u8,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    levels: LevelsDir,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let Some(hostport) = args.url.strip_prefix("http://") else {
        bail!("--url must be http://HOST:PORT, got {:?}", args.url);
    };
    let addr = std::net::ToSocketAddrs::to_socket_addrs(hostport.trim_end_matches('/'))
        .with_context(|| format!("--url {:?} is not HOST:PORT", args.url))?
        .next()
        .with_context(|| format!("--url {:?} names no address", args.url))?;
    if args.rooms == 0 || args.rooms > 10_000 {
        bail!("--rooms must be between 1 and 10000, got {}", args.rooms);
    }
    if args.duration == 0 || args.duration > 3600 {
        bail!(
            "--duration must be between 1 and 3600 seconds, got {}",
            args.duration
        );
    }
    if !(args.ramp > 0.0 && args.ramp <= 10_000.0) {
        bail!(
            "--ramp must be between 0 and 10000 rooms a second, got {}",
            args.ramp
        );
    }
    let source = undercooked::levels::find(&args.levels.levels, &args.level)?;
    let config = Config {
        addr,
        rooms: args.rooms,
        duration: Duration::from_secs(args.duration),
        level: args.level.clone(),
        level_source: source.level,
        ramp: args.ramp,
        planners: args.planners,
    };
    let tty = std::io::stderr().is_terminal();
    let runtime = tokio::runtime::Runtime::new()?;
    let report = runtime
        .block_on(undercooked::loadtest::run(config, |done, total| {
            if tty {
                let width = 30;
                let filled = ((done / total.max(0.001)) * width as f64) as usize;
                eprint!(
                    "\r[{}{}] {done:.0}/{total:.0} s",
                    "#".repeat(filled.min(width)),
                    " ".repeat(width - filled.min(width))
                );
                let _ = std::io::stderr().flush();
            }
        }))
        .map_err(anyhow::Error::msg)?;
    if tty {
        eprintln!();
    }
    if args.json {
        outln!("{}", serde_json::to_string(&report)?);
    } else {
        out!("{}", table(&report));
    }
    Ok(0)
}

fn spread(s: &Spread) -> String {
    format!(
        "p50 {:.1} / p95 {:.1} / p99 {:.1} / max {:.1} ms ({} samples)",
        s.p50, s.p95, s.p99, s.max, s.samples
    )
}

fn table(r: &Report) -> String {
    let mut rows = vec![
        (
            "rooms × clients",
            format!(
                "{} × 4 = {} sockets ({} planning a room)",
                r.rooms, r.clients, r.planners
            ),
        ),
        ("measured", format!("{:.0} s", r.seconds)),
        ("handshake (connect → welcome)", spread(&r.handshake_ms)),
        ("input → next snap", spread(&r.echo_ms)),
        (
            "snaps per client per second",
            format!(
                "{:.2} (expected {:.2})",
                r.snaps_per_client_s, r.expected_snaps_per_client_s
            ),
        ),
        (
            "full frames beyond the cadence",
            r.extra_full_frames.to_string(),
        ),
        (
            "downlink per client",
            format!("{:.1} KB/s", r.downlink_bytes_per_client_s / 1000.0),
        ),
        (
            "this client's CPU",
            format!("{:.2} ms per room-second", r.client_cpu_ms_per_room_s),
        ),
    ];
    let list = |m: &std::collections::BTreeMap<String, u64>| {
        if m.is_empty() {
            "none".to_string()
        } else {
            m.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    rows.push(("closes by code", list(&r.closes)));
    rows.push(("errors", list(&r.errors)));
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}\n"))
        .collect()
}
