//! Where the history is, read once: which engine a `--db` / `UNDERCOOKED_DB` location names,
//! the PostgreSQL connect options it parses to, and the form it may be printed in.
//!
//! A location is read by its scheme, case-insensitively (`POSTGRES://` is PostgreSQL):
//! `postgres://` or `postgresql://` is PostgreSQL, `sqlite:` or no scheme at all a SQLite
//! file. Anything close to a PostgreSQL URL that is not one (`postgres:/…`, `postgres//…`,
//! `pgsql://…`) is refused as a typo, never read as a file name (which would quietly open a
//! fresh SQLite history), and so is a `scheme://` of another engine.
//!
//! A PostgreSQL URL carries a password, so it is never printed as given: `printable` prints
//! what sqlx parsed (`postgres://user@host:port/db`), and a URL that does not parse is
//! named by its problem, without its text. Its parameters are checked against the ones sqlx
//! knows before sqlx sees them, because sqlx logs an unknown one with its value
//! (`?passwrod=…`).

use super::db::Dialect;
use sqlx::ConnectOptions;
use sqlx::postgres::PgConnectOptions;
use std::path::Path;

/// The query parameters sqlx 0.9's PostgreSQL driver reads (`options/parse.rs`), besides
/// `options[NAME]`; any other it would log, value included.
const KNOWN_PARAMETERS: &[&str] = &[
    "sslmode",
    "ssl-mode",
    "sslrootcert",
    "ssl-root-cert",
    "ssl-ca",
    "sslcert",
    "ssl-cert",
    "sslkey",
    "ssl-key",
    "statement-cache-capacity",
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "application_name",
    "options",
];

/// What is wrong with a location; no message holds more of its text than its scheme.
#[derive(Debug, thiserror::Error)]
pub enum LocationError {
    #[error(
        "the database URL starts `{start}` but is not a PostgreSQL URL (a typo?): write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or sqlite://PATH for a SQLite file"
    )]
    Typo { start: String },
    #[error(
        "the database URL is a {scheme}:// URL: undercooked keeps its history in sqlite://PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
    )]
    Engine { scheme: String },
    #[error(
        "the PostgreSQL URL does not parse ({why}): write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, with any `@`, `/`, `?` or `#` in the password written %40, %2F, %3F, %23"
    )]
    Unparsed { why: String },
    #[error(
        "the PostgreSQL URL has a parameter {name} that undercooked does not pass on (known: {}, options[NAME])",
        KNOWN_PARAMETERS.join(", ")
    )]
    Parameter { name: String },
}

/// Where the database is: `--db` / `UNDERCOOKED_DB`, else `<data-dir>/undercooked.db`; a
/// location that names no engine undercooked reads is refused here, before anything opens.
pub fn db_location(db: Option<&str>, data_dir: &Path) -> Result<String, LocationError> {
    match db {
        Some(url) => {
            dialect_of(url)?;
            Ok(url.to_string())
        }
        None => Ok(format!(
            "sqlite://{}",
            data_dir.join("undercooked.db").display()
        )),
    }
}

/// The scheme of `location` (letters, digits, `+`, `-`, `.`, before a `:`), if it has one,
/// and what follows the `:`.
fn scheme_of(location: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = location.split_once(':')?;
    let well_formed = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    well_formed.then_some((scheme, rest))
}

/// Whether `word` (lower case) reads as an attempt at "postgres": `postgres`, `postgresql`
/// and their misspellings (`postgre`, `postgress`, `postrges`), `pg…`, `psql`.
fn postgres_like(word: &str) -> bool {
    ["postg", "postr", "pg", "psql"]
        .iter()
        .any(|p| word.starts_with(p))
}

/// Which engine `location` names, or why it names none.
pub fn dialect_of(location: &str) -> Result<Dialect, LocationError> {
    // What a typo is shown by: the scheme and the slashes after it, nothing further.
    let typo = |len: usize| LocationError::Typo {
        start: location[..len].to_string(),
    };
    let Some((scheme, rest)) = scheme_of(location) else {
        // `postgres//host/db`: the colon forgotten (a folder so named takes one slash).
        let lower = location.to_ascii_lowercase();
        return match lower.split_once("//") {
            Some((word @ ("postgres" | "postgresql"), _)) => Err(typo(word.len() + 2)),
            _ => Ok(Dialect::Sqlite),
        };
    };
    let slashes = rest.len() - rest.trim_start_matches('/').len();
    let start = scheme.len() + 1 + slashes.min(2);
    match scheme.to_ascii_lowercase().as_str() {
        // Three slashes are libpq's too: an empty host, the local socket.
        "postgres" | "postgresql" if slashes >= 2 => Ok(Dialect::Postgres),
        "postgres" | "postgresql" => Err(typo(start)),
        "sqlite" => Ok(Dialect::Sqlite),
        word if postgres_like(word) && slashes > 0 => Err(typo(start)),
        _ if slashes >= 2 => Err(LocationError::Engine {
            scheme: scheme.to_string(),
        }),
        // `data:x.db`, `C:\…`: a file name with a colon in it.
        _ => Ok(Dialect::Sqlite),
    }
}

/// Whether `location` names a PostgreSQL database (its scheme in any case).
pub fn is_postgres(location: &str) -> bool {
    matches!(dialect_of(location), Ok(Dialect::Postgres))
}

/// The path of a `sqlite:` location (any case of the scheme), or `None` for a bare path.
pub(super) fn sqlite_path(location: &str) -> Option<&str> {
    let (scheme, rest) = scheme_of(location)?;
    scheme
        .eq_ignore_ascii_case("sqlite")
        .then(|| rest.strip_prefix("//").unwrap_or(rest))
}

/// The connect options of a PostgreSQL URL, its parameters checked first (an unknown one
/// is named when it is a plain word, and never with its value).
pub(super) fn pg_options(location: &str) -> Result<PgConnectOptions, LocationError> {
    if dialect_of(location)? != Dialect::Postgres {
        return Err(LocationError::Engine {
            scheme: "sqlite".to_string(),
        });
    }
    let url =
        url::Url::parse(location).map_err(|e| LocationError::Unparsed { why: e.to_string() })?;
    for (key, _) in url.query_pairs() {
        let known = KNOWN_PARAMETERS.contains(&&*key)
            || (key.starts_with("options[") && key.ends_with(']'));
        if !known {
            let plain = key.len() <= 24
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '-'));
            let name = match plain {
                true => format!("`{key}`"),
                false => "(its name not shown: it may be a password)".to_string(),
            };
            return Err(LocationError::Parameter { name });
        }
    }
    PgConnectOptions::from_url(&url).map_err(|e| LocationError::Unparsed { why: e.to_string() })
}

/// The location as it may be printed: a SQLite location as it is; a PostgreSQL one as the
/// options it parsed to, `postgres://user@host:port/database`, with no password and no
/// parameters; anything else as what is wrong with it, without its text.
pub fn printable(location: &str) -> String {
    match dialect_of(location) {
        Ok(Dialect::Sqlite) => location.to_string(),
        Ok(Dialect::Postgres) => match pg_options(location) {
            Ok(o) => {
                let host = match o.get_socket() {
                    Some(socket) => socket.display().to_string(),
                    None => o.get_host().to_string(),
                };
                let db = o
                    .get_database()
                    .map(|d| format!("/{d}"))
                    .unwrap_or_default();
                format!(
                    "postgres://{}@{host}:{}{db}",
                    o.get_username(),
                    o.get_port()
                )
            }
            Err(e) => format!("(a database URL not shown: {e})"),
        },
        Err(e) => format!("(a database URL not shown: {e})"),
    }
}

#[cfg(test)]
mod tests;
