//! The history in SQLite: opening the database, its migrations, and what writes to it.
//!
//! The replay files are the authority; the database is a projection of them (`reindex`
//! rebuilds it). `rows` are the history's values, rendered from the log and the sim;
//! `history` holds the SQL that writes rounds, events and results, shared by the live write
//! chain (`chain`) and `reindex`; `quests` folds events and results into quest progress and
//! answers a session's standings; `sessions` finds, writes, rehashes and expires sessions; `replays` lists
//! recorded rounds for the replay viewer. Every SQL statement
//! of the server lives in this module.

pub mod chain;
mod group;
pub mod history;
mod jobs;
pub mod outbox;
pub mod quests;
pub mod reindex;
pub mod replay_file;
pub mod replays;
pub mod rescue;
pub mod rows;
pub mod sessions;
mod writer;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database was written by a newer build (it has a migration this one lacks).
    #[error(
        "{db} was written by a newer undercooked (it has schema migration {version}, which this build does not know); refusing to touch it — use the newer build"
    )]
    Newer { db: String, version: i64 },
    #[error("cannot open the database {db}: {error}")]
    Open { db: String, error: String },
    #[error(
        "there is no database at {db}: `undercooked serve` creates it, and `undercooked reindex` builds it from replay files (--data-dir or --db say where)"
    )]
    Missing { db: String },
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
}

/// Where the database is: `--db sqlite://…` / `UNDERCOOKED_DB`, else `<data-dir>/undercooked.db`.
pub fn db_location(db: Option<&str>, data_dir: &Path) -> String {
    match db {
        Some(url) => url.to_string(),
        None => format!("sqlite://{}", data_dir.join("undercooked.db").display()),
    }
}

fn options(location: &str) -> Result<SqliteConnectOptions, StoreError> {
    let opts = if location.starts_with("sqlite:") {
        SqliteConnectOptions::from_str(location).map_err(|e| StoreError::Open {
            db: location.to_string(),
            error: e.to_string(),
        })?
    } else {
        SqliteConnectOptions::new().filename(PathBuf::from(location))
    };
    Ok(opts.foreign_keys(true).busy_timeout(Duration::from_secs(5)))
}

async fn connect(
    location: &str,
    opts: SqliteConnectOptions,
    connections: u32,
) -> Result<SqlitePool, StoreError> {
    SqlitePoolOptions::new()
        .max_connections(connections)
        .connect_with(opts)
        .await
        .map_err(|e| StoreError::Open {
            db: location.to_string(),
            error: e.to_string(),
        })
}

#[derive(Clone)]
pub struct Store {
    pub pool: SqlitePool,
    pub location: String,
}

impl Store {
    /// Opens (creating on first use) the database, in WAL mode, and applies the migrations.
    /// A database from a newer build is refused, never altered.
    pub async fn open(location: &str) -> Result<Store, StoreError> {
        if let Some(path) = location
            .strip_prefix("sqlite://")
            .or_else(|| location.strip_prefix("sqlite:"))
            && let Some(parent) = Path::new(path.split('?').next().unwrap_or(path)).parent()
            && !parent.as_os_str().is_empty()
        {
            let _ = std::fs::create_dir_all(parent);
        }
        // WAL with synchronous=NORMAL: a crash never corrupts the database and at worst loses
        // the last transactions, which the replay files still hold (reindex repairs).
        let opts = options(location)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal);
        let pool = connect(location, opts, 4).await?;
        match MIGRATOR.run(&pool).await {
            Ok(()) => {}
            Err(sqlx::migrate::MigrateError::VersionMissing(version)) => {
                return Err(StoreError::Newer {
                    db: location.to_string(),
                    version,
                });
            }
            Err(e) => {
                return Err(StoreError::Open {
                    db: location.to_string(),
                    error: e.to_string(),
                });
            }
        }
        Ok(Store {
            pool,
            location: location.to_string(),
        })
    }

    /// Opens an existing database read-only and with `query_only` on (for `undercooked
    /// sql`): writes are refused by SQLite itself. A database that is not there is named,
    /// with the commands that make one.
    pub async fn open_read_only(location: &str) -> Result<Store, StoreError> {
        let opts = options(location)?
            .read_only(true)
            .pragma("query_only", "ON");
        if !opts.get_filename().exists() {
            return Err(StoreError::Missing {
                db: opts.get_filename().display().to_string(),
            });
        }
        let pool = connect(location, opts, 1).await?;
        let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&pool)
            .await
            .ok()
            .flatten();
        let known = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        if let Some(v) = newest.filter(|v| *v > known) {
            return Err(StoreError::Newer {
                db: location.to_string(),
                version: v,
            });
        }
        Ok(Store {
            pool,
            location: location.to_string(),
        })
    }
}

pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
