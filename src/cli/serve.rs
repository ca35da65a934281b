//! `undercooked serve`: the live server (HTTP + WebSocket) until SIGINT/SIGTERM.

use anyhow::Context;
use undercooked::levels::{Levels, scan_dir};
use undercooked::shared::config::{LogFormat, ServerArgs, ServerConfig};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    server: ServerArgs,
    /// The history database: sqlite://PATH (default sqlite://<data-dir>/undercooked.db) or
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (several nodes; docs/SCALING.md).
    #[arg(long, env = "UNDERCOOKED_DB")]
    db: Option<String>,
    /// Mebibytes the replay API keeps of its answers (rounds, frames, files) in all.
    #[arg(long, env = "UNDERCOOKED_REPLAY_CACHE_MB", default_value = "64",
          value_parser = undercooked::shared::config::ranged::<usize>("UNDERCOOKED_REPLAY_CACHE_MB", 1, 4096))]
    replay_cache_mb: usize,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let config = match ServerConfig::try_from(args.server) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("undercooked: {e}");
            return Ok(2);
        }
    };
    if let Err(e) = init_tracing(config.log_format, &config.log_filter) {
        eprintln!("undercooked: {e}");
        return Ok(2);
    }
    // A broken level file is named (below, once logging is up) and left out; the good
    // levels are served.
    let levels = Levels::scanned(scan_dir(&config.levels_dir)?);
    if levels.campaign().next().is_none() {
        anyhow::bail!(
            "{} holds no campaign level (NN_name.toml with order > 0)",
            config.levels_dir.display()
        );
    }
    std::fs::create_dir_all(config.data_dir.join("replays"))
        .with_context(|| format!("creating {}", config.data_dir.display()))?;
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = config.worker_threads {
        runtime.worker_threads(n);
    }
    // A small blocking pool whose idle threads end soon: bursts of file reads queue for a
    // thread instead of starting hundreds (docs/SECURITY.md).
    runtime
        .max_blocking_threads(undercooked::server::BLOCKING_THREADS)
        .thread_keep_alive(undercooked::server::BLOCKING_KEEP_ALIVE);
    let runtime = runtime
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        // Signal handlers first: a SIGTERM that arrives while the database opens still
        // shuts down cleanly instead of killing the process.
        let stop = shutdown_signal()?;
        let db = undercooked::store::db_location(args.db.as_deref(), &config.data_dir)?;
        let listener = listen(config.bind).with_context(|| format!("binding {}", config.bind))?;
        let addr = listener.local_addr()?;
        let data_dir = config.data_dir.clone();
        for broken in &levels.broken {
            tracing::warn!(file = %broken.file, errors = %broken.errors.join("; "), "level file left out: it is not a level");
        }
        let shared = undercooked::server::open(config, levels, &db).await?;
        let node = undercooked::server::join(shared, addr)
            .await?
            .with_replay_cache_mb(args.replay_cache_mb);
        let db = undercooked::store::printable(&db);
        tracing::info!(%addr, levels = node.shared.levels.all().len(), data_dir = %data_dir.display(), %db, "undercooked serving");
        undercooked::server::run(listener, node, stop).await;
        tracing::info!("stopped");
        anyhow::Ok(())
    })?;
    Ok(0)
}

/// Libraries whose frame- and request-level lines would carry what a client sent (a
/// `hello` with its token, a seam's path with one), capped at every filter setting.
const QUIET: &str = "tungstenite=off,tokio_tungstenite=off,warp=warn,hyper=warn,hyper_util=warn";

/// Log lines to stderr, human or JSON, filtered by `--log` / `UNDERCOOKED_LOG` (`RUST_LOG`
/// is not read: one variable says what is logged). The libraries in `QUIET` are capped
/// whatever the filter says, so no level ever writes a token.
fn init_tracing(format: LogFormat, filter: &str) -> Result<(), String> {
    // The caps go last: for the same target, the later directive wins (and a filter that
    // does not parse fails here, named as it was given).
    let filter = tracing_subscriber::EnvFilter::try_new(format!("{filter},{QUIET}"))
        .map_err(|e| format!("UNDERCOOKED_LOG={filter:?} is not a log filter: {e}"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Colour only for a terminal: a log file or a collector gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Human => builder.try_init(),
    };
    Ok(())
}

/// Registers SIGINT and SIGTERM now and returns the future that resolves on either.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Binds with a deep accept backlog: a burst of a thousand handshakes must not overflow the
/// kernel's queue (an overflow costs a client a one-second SYN retransmit).
fn listen(addr: std::net::SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}
