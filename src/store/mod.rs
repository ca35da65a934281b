//! The history in SQLite or PostgreSQL: opening the database, its migrations, and what
//! writes to it. `db` is the one trait both engines' connections implement; every function
//! below is written once against it (`on_conn!` / `in_tx!` pick the engine at the pool).
//!
//! The replay files are the authority; the database is a projection of them (`reindex`
//! rebuilds it). `rows` are the history's values, rendered from the log and the sim;
//! `history` holds the SQL that writes rounds, events and results, shared by the live write
//! chain (`chain`) and `reindex`; `quests` folds events and results into quest progress and
//! answers a session's standings; `sessions` finds, writes, rehashes and expires sessions; `replays` lists
//! recorded rounds for the replay viewer; `stored_replays` keeps finished rounds' replay files
//! in PostgreSQL, so that every node of a cluster serves every replay; `location` reads a
//! `--db` location (its engine, its PostgreSQL options, its printable form: never the
//! password). Every SQL statement of the server lives in this module.

pub mod boards;
pub mod chain;
pub mod credit;
pub mod db;
mod group;
pub mod history;
mod jobs;
pub mod location;
pub mod log_stream;
pub mod my_rounds;
pub mod outbox;
pub mod quests;
pub mod reindex;
pub mod replay_file;
pub mod replays;
pub mod rescue;
pub mod rows;
pub mod sessions;
pub mod stored_replays;
pub mod unfinished;
mod writer;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

pub use location::{LocationError, db_location, dialect_of, is_postgres, printable};

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
/// PostgreSQL's own migrations: the same tables in its types. sqlx's migrator takes an
/// advisory lock, so nodes starting together on an empty database migrate it once.
pub static PG_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

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
    /// A location that names no database undercooked reads (a typo of a PostgreSQL URL).
    #[error(transparent)]
    Location(#[from] LocationError),
    /// A secret file the history is opened with (the session key) cannot be used. It is
    /// `crate::shared::key_file::KeyFileError`, boxed because the store sits below
    /// `shared`; printed as it is, naming the file (not "cannot open the database").
    #[error(transparent)]
    KeyFile(Box<dyn std::error::Error + Send + Sync>),
}

fn options(location: &str) -> Result<SqliteConnectOptions, StoreError> {
    let opts = match location::sqlite_path(location) {
        Some(path) => SqliteConnectOptions::from_str(&format!("sqlite://{path}")).map_err(|e| {
            StoreError::Open {
                db: printable(location),
                error: e.to_string(),
            }
        })?,
        None => SqliteConnectOptions::new().filename(PathBuf::from(location)),
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
            db: printable(location),
            error: e.to_string(),
        })
}

/// The pool of either engine.
#[derive(Clone, Debug)]
pub enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$conn` bound to a connection from the store's pool, of whichever
/// engine; the body is compiled once per engine.
macro_rules! on_conn {
    ($store:expr, $conn:ident => $body:expr) => {
        match &$store.pool {
            $crate::store::Pool::Sqlite(p) => {
                let mut c = p.acquire().await?;
                let $conn = &mut *c;
                $body
            }
            $crate::store::Pool::Postgres(p) => {
                let mut c = p.acquire().await?;
                let $conn = &mut *c;
                $body
            }
        }
    };
}
pub(crate) use on_conn;

/// Runs `$body` in a transaction (`$tx`, a connection) and commits it when the body is
/// `Ok`; an `Err` rolls back. The body's error type must take `sqlx::Error` by `From`.
macro_rules! in_tx {
    ($store:expr, $tx:ident => $body:expr) => {
        match &$store.pool {
            $crate::store::Pool::Sqlite(p) => {
                let mut t = p.begin().await?;
                let $tx = &mut *t;
                let out = $body;
                if out.is_ok() {
                    t.commit().await?;
                }
                out
            }
            $crate::store::Pool::Postgres(p) => {
                let mut t = p.begin().await?;
                let $tx = &mut *t;
                let out = $body;
                if out.is_ok() {
                    t.commit().await?;
                }
                out
            }
        }
    };
}
pub(crate) use in_tx;

#[derive(Clone)]
pub struct Store {
    pub pool: Pool,
    /// The location as given, password and all: printed only through `printable`.
    pub location: String,
}

/// Applies a migrator, telling a database from a newer build apart.
async fn migrate<'a, A>(
    migrator: &sqlx::migrate::Migrator,
    pool: A,
    location: &str,
) -> Result<(), StoreError>
where
    A: sqlx::Acquire<'a>,
    <A::Connection as std::ops::Deref>::Target: sqlx::migrate::Migrate,
{
    match migrator.run(pool).await {
        Ok(()) => Ok(()),
        Err(sqlx::migrate::MigrateError::VersionMissing(version)) => Err(StoreError::Newer {
            db: printable(location),
            version,
        }),
        Err(e) => Err(StoreError::Open {
            db: printable(location),
            error: e.to_string(),
        }),
    }
}

/// Shown without the password, as everything prints a location (`printable`).
impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &printable(&self.location))
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating on first use) the database and applies the migrations: a SQLite
    /// file in WAL mode, or a PostgreSQL database (`postgres://…`), which must exist. A
    /// database from a newer build is refused, never altered.
    pub async fn open(location: &str) -> Result<Store, StoreError> {
        if dialect_of(location)? == db::Dialect::Postgres {
            return Store::open_postgres(location, 16).await;
        }
        if let Some(path) = location::sqlite_path(location)
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
        migrate(&MIGRATOR, &pool, location).await?;
        Ok(Store {
            pool: Pool::Sqlite(pool),
            location: location.to_string(),
        })
    }

    async fn open_postgres(location: &str, connections: u32) -> Result<Store, StoreError> {
        let open_error = |e: sqlx::Error| StoreError::Open {
            db: printable(location),
            error: e.to_string(),
        };
        let opts = location::pg_options(location)?;
        let pool = PgPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(opts)
            .await
            .map_err(open_error)?;
        migrate(&PG_MIGRATOR, &pool, location).await?;
        Ok(Store {
            pool: Pool::Postgres(pool),
            location: location.to_string(),
        })
    }

    /// The engine behind this store.
    pub fn dialect(&self) -> db::Dialect {
        match self.pool {
            Pool::Sqlite(_) => db::Dialect::Sqlite,
            Pool::Postgres(_) => db::Dialect::Postgres,
        }
    }

    /// The SQLite pool, when the store is SQLite (tests and SQLite-only tools read it).
    pub fn sqlite(&self) -> Option<SqlitePool> {
        match &self.pool {
            Pool::Sqlite(p) => Some(p.clone()),
            Pool::Postgres(_) => None,
        }
    }

    /// Closes the pool (waiting for its connections to be returned).
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }

    /// Opens an existing database read-only (for `undercooked sql`). SQLite: the file is
    /// opened read-only with `query_only` on, so writes are refused by SQLite itself; a
    /// database that is not there is named, with the commands that make one. PostgreSQL:
    /// every connection's transactions default to read-only, with a statement timeout.
    pub async fn open_read_only(location: &str) -> Result<Store, StoreError> {
        if dialect_of(location)? == db::Dialect::Postgres {
            return Store::open_postgres_read_only(location).await;
        }
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
                db: printable(location),
                version: v,
            });
        }
        Ok(Store {
            pool: Pool::Sqlite(pool),
            location: location.to_string(),
        })
    }

    async fn open_postgres_read_only(location: &str) -> Result<Store, StoreError> {
        let open_error = |e: sqlx::Error| StoreError::Open {
            db: printable(location),
            error: e.to_string(),
        };
        // Set at connection start-up, before any statement of the caller's: a statement
        // cannot be read-only by its text alone (a function may write), so PostgreSQL is
        // asked to refuse every write of these sessions itself.
        let opts = location::pg_options(location)?.options([
            ("default_transaction_read_only", "on"),
            ("statement_timeout", "10s"),
        ]);
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(opts)
            .await
            .map_err(open_error)?;
        let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&pool)
            .await
            .ok()
            .flatten();
        let Some(newest) = newest else {
            return Err(StoreError::Missing {
                db: printable(location),
            });
        };
        let known = PG_MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        if newest > known {
            return Err(StoreError::Newer {
                db: printable(location),
                version: newest,
            });
        }
        Ok(Store {
            pool: Pool::Postgres(pool),
            location: location.to_string(),
        })
    }
}

pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
