//! `undercooked loadtest --url http://HOST:PORT [--url …] --rooms N --duration S [--level ID]
//! [--ramp R] [--planners K] [--json]`: rooms of bot-played clients against a running server,
//! or against several nodes of a cluster (`--url` repeated, or a comma list: room i is
//! created on the i mod N-th); a progress bar on a terminal, then a table (or one JSON object
//! with `--json`), with a row per node when there are several.
//!
//! Exit codes: 0 the run finished (whatever it measured), 2 bad arguments or no server.

use super::LevelsDir;
use anyhow::{Context, bail};
use std::io::{IsTerminal, Write};
use std::time::Duration;
use undercooked::loadtest::{Config, Figures, Report, Spread};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's base URL (http://HOST:PORT). Repeat it, or give a comma list, for the
    /// nodes of a cluster: room i is created on the (i mod N)-th and its guests join through
    /// the next one.
    #[arg(long = "url", required = true, value_delimiter = ',')]
    urls: Vec<String>,
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
    let mut nodes = Vec::new();
    for url in &args.urls {
        let addr = address(url)?;
        if nodes.contains(&addr) {
            bail!("--url {url:?} is given twice: each node once");
        }
        nodes.push(addr);
    }
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
        nodes,
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

/// `http://HOST:PORT` (a trailing `/` allowed) as the address it names.
fn address(url: &str) -> anyhow::Result<std::net::SocketAddr> {
    let Some(hostport) = url.strip_prefix("http://") else {
        bail!("--url must be http://HOST:PORT, got {url:?}");
    };
    std::net::ToSocketAddrs::to_socket_addrs(hostport.trim_end_matches('/'))
        .with_context(|| format!("--url {url:?} is not HOST:PORT"))?
        .next()
        .with_context(|| format!("--url {url:?} names no address"))
}

fn spread(s: &Spread) -> String {
    format!(
        "p50 {:.1} / p95 {:.1} / p99 {:.1} / max {:.1} ms ({} samples)",
        s.p50, s.p95, s.p99, s.max, s.samples
    )
}

fn table(r: &Report) -> String {
    let t = &r.total;
    let mut rows = vec![
        (
            "rooms × clients".to_string(),
            format!(
                "{} × 4 = {} sockets ({} planning a room)",
                r.rooms, t.clients, r.planners
            ),
        ),
        ("measured".to_string(), format!("{:.0} s", r.seconds)),
    ];
    rows.extend(figure_rows(t, r.expected_snaps_per_client_s));
    rows.insert(
        rows.len() - 2,
        (
            "this client's CPU".to_string(),
            format!("{:.2} ms per room-second", r.client_cpu_ms_per_room_s),
        ),
    );
    // Against one server its row would repeat the totals.
    if r.nodes.len() > 1 {
        for n in &r.nodes {
            rows.push((String::new(), String::new()));
            rows.push((
                format!("node {}", n.node),
                format!(
                    "{} room{}, {} sockets",
                    n.rooms,
                    if n.rooms == 1 { "" } else { "s" },
                    n.figures.clients
                ),
            ));
            rows.extend(
                figure_rows(&n.figures, r.expected_snaps_per_client_s)
                    .into_iter()
                    .map(|(k, v)| (format!("  {k}"), v)),
            );
        }
    }
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}").trim_end().to_string() + "\n")
        .collect()
}

/// The rows of one set of figures (the totals', or one node's).
fn figure_rows(f: &Figures, expected_snaps: f64) -> Vec<(String, String)> {
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
    [
        ("handshake (connect → welcome)", spread(&f.handshake_ms)),
        ("input → next snap", spread(&f.echo_ms)),
        (
            "snaps per client per second",
            format!("{:.2} (expected {expected_snaps:.2})", f.snaps_per_client_s),
        ),
        (
            "full frames beyond the cadence",
            f.extra_full_frames.to_string(),
        ),
        (
            "downlink per client",
            format!("{:.1} KB/s", f.downlink_bytes_per_client_s / 1000.0),
        ),
        ("closes by code", list(&f.closes)),
        ("errors", list(&f.errors)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}
