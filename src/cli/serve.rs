//! `undercooked serve`: the live server (HTTP + WebSocket) until SIGINT/SIGTERM.

use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use undercooked::server::config::{LogFormat, ServerConfig};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on (default 127.0.0.1:8000; env UNDERCOOKED_BIND).
    #[arg(long)]
    bind: Option<String>,
    /// Where live rounds' replay files and the database go (default ./data; env UNDERCOOKED_DATA_DIR).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The levels folder (default ./levels; env UNDERCOOKED_LEVELS_DIR).
    #[arg(long = "levels")]
    levels: Option<PathBuf>,
    /// The history database (default sqlite://<data-dir>/undercooked.db; env UNDERCOOKED_DB).
    #[arg(long, env = "UNDERCOOKED_DB")]
    db: Option<String>,
    /// Log lines as `human` or `json`.
    #[arg(long, default_value = "human", value_parser = ["human", "json"])]
    log_format: String,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let mut config = match ServerConfig::from_env(&|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("undercooked: {e}");
            return Ok(2);
        }
    };
    if let Some(b) = args.bind {
        config.bind = b
            .parse()
            .with_context(|| format!("--bind {b:?} is not an address like 127.0.0.1:8000"))?;
    }
    if let Some(d) = args.data_dir {
        config.data_dir = d;
    }
    if let Some(l) = args.levels {
        config.levels_dir = l;
    }
    config.log_format = if args.log_format == "json" {
        LogFormat::Json
    } else {
        LogFormat::Human
    };
    init_tracing(config.log_format);

    let levels = undercooked::levels::load_dir(&config.levels_dir)?;
    if !levels.iter().any(|l| l.level.order > 0) {
        anyhow::bail!(
            "{} holds no campaign level (NN_name.toml with order > 0)",
            config.levels_dir.display()
        );
    }
    std::fs::create_dir_all(config.data_dir.join("replays"))
        .with_context(|| format!("creating {}", config.data_dir.display()))?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        // Signal handlers first: a SIGTERM that arrives while the database opens still
        // shuts down cleanly instead of killing the process.
        let stop = shutdown_signal()?;
        let db = undercooked::store::db_location(args.db.as_deref(), &config.data_dir);
        let store = undercooked::store::Store::open(&db).await?;
        let listener = listen(config.bind).with_context(|| format!("binding {}", config.bind))?;
        let addr = listener.local_addr()?;
        let shared = undercooked::server::shared::Shared::new(config.clone(), levels);
        shared.attach_history(store).await?;
        tracing::info!(%addr, levels = shared.levels.len(), data_dir = %config.data_dir.display(), db = %db, "undercooked serving");
        undercooked::server::run(listener, Arc::clone(&shared), stop).await;
        tracing::info!("stopped");
        anyhow::Ok(())
    })?;
    Ok(0)
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("UNDERCOOKED_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Human => builder.try_init(),
    };
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
