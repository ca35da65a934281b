//! One trait over the two databases the history can live in: SQLite (embedded, the default)
//! and PostgreSQL (several nodes). Every statement of the store is written once, against
//! `Db`, with `$1`-style parameters, which both engines read (sqlx's SQLite driver binds
//! `$N` by its number). Where the engines' SQL differs, the statement asks `dialect()`.
//!
//! Why a trait of our own and not `sqlx::Any`: `Any`'s `QueryBuilder` writes `?` for
//! PostgreSQL (sqlx#3000), and its values are a lowest common denominator. Why not generic
//! code over `sqlx::Database`: the bounds (`Encode` for each type, `Executor` for each
//! connection) spread to every function of the store. Here they are stated once, below,
//! and each store function is compiled for both connections.

use sqlx::FromRow;
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::sqlite::{SqliteConnection, SqliteRow};
use std::future::Future;

/// Which engine a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A bound parameter: the history's values are integers, reals and text, each nullable.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Int(Option<i64>),
    Real(f64),
    Text(Option<&'a str>),
}

impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(Some(v))
    }
}
impl From<Option<i64>> for Arg<'_> {
    fn from(v: Option<i64>) -> Self {
        Arg::Int(v)
    }
}
impl From<f64> for Arg<'_> {
    fn from(v: f64) -> Self {
        Arg::Real(v)
    }
}
impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(Some(v))
    }
}
impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(Some(v))
    }
}
impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Arg::Text(v)
    }
}
impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Arg::Text(v.as_deref())
    }
}

/// The parameters of a statement, in order: `args![a, b, c]`.
macro_rules! args {
    ($($v:expr),* $(,)?) => { [$($crate::store::db::Arg::from($v)),*] };
}
pub(crate) use args;

/// A row type both engines can decode (a tuple of `i64`, `f64`, `String` and their
/// `Option`s, or a struct deriving `FromRow`).
pub trait Row:
    for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + 'static
{
}
impl<T> Row for T where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + 'static
{
}

/// A connection (or a transaction, through `&mut *tx`) of either engine.
///
/// Transactions are begun and committed where the engine is still known (the `in_tx!`
/// macro, and the write chain's group), so the trait has no transaction type of its own.
pub trait Db: Send + Sized {
    fn dialect(&self) -> Dialect;
    /// The PostgreSQL connection itself, for the one statement written for it alone (the
    /// history's bulk insert binds arrays, which SQLite has not); `None` on SQLite.
    fn postgres(&mut self) -> Option<&mut PgConnection>;
    /// Runs a statement; the number of rows it changed.
    fn execute<'a>(
        &'a mut self,
        sql: &'static str,
        args: &'a [Arg<'a>],
    ) -> impl Future<Output = sqlx::Result<u64>> + Send + 'a;
    fn fetch_all<'a, T: Row>(
        &'a mut self,
        sql: &'static str,
        args: &'a [Arg<'a>],
    ) -> impl Future<Output = sqlx::Result<Vec<T>>> + Send + 'a;
    fn fetch_optional<'a, T: Row>(
        &'a mut self,
        sql: &'static str,
        args: &'a [Arg<'a>],
    ) -> impl Future<Output = sqlx::Result<Option<T>>> + Send + 'a;

    /// One row, or `RowNotFound`.
    fn fetch_one<'a, T: Row>(
        &'a mut self,
        sql: &'static str,
        args: &'a [Arg<'a>],
    ) -> impl Future<Output = sqlx::Result<T>> + Send + 'a {
        async move {
            self.fetch_optional(sql, args)
                .await?
                .ok_or(sqlx::Error::RowNotFound)
        }
    }
}

/// Binds `args` in order to a query of either engine.
macro_rules! bind_all {
    ($q:expr, $args:expr) => {{
        let mut q = $q;
        for a in $args {
            q = match *a {
                Arg::Int(v) => q.bind(v),
                Arg::Real(v) => q.bind(v),
                Arg::Text(v) => q.bind(v),
            };
        }
        q
    }};
}

macro_rules! impl_db {
    ($conn:ty, $dialect:expr, $postgres:expr) => {
        impl Db for $conn {
            fn dialect(&self) -> Dialect {
                $dialect
            }
            fn postgres(&mut self) -> Option<&mut PgConnection> {
                $postgres(self)
            }
            async fn execute<'a>(
                &'a mut self,
                sql: &'static str,
                args: &'a [Arg<'a>],
            ) -> sqlx::Result<u64> {
                let q = bind_all!(sqlx::query(sql), args);
                Ok(q.execute(&mut *self).await?.rows_affected())
            }
            async fn fetch_all<'a, T: Row>(
                &'a mut self,
                sql: &'static str,
                args: &'a [Arg<'a>],
            ) -> sqlx::Result<Vec<T>> {
                bind_all!(sqlx::query_as::<_, T>(sql), args)
                    .fetch_all(&mut *self)
                    .await
            }
            async fn fetch_optional<'a, T: Row>(
                &'a mut self,
                sql: &'static str,
                args: &'a [Arg<'a>],
            ) -> sqlx::Result<Option<T>> {
                bind_all!(sqlx::query_as::<_, T>(sql), args)
                    .fetch_optional(&mut *self)
                    .await
            }
        }
    };
}

impl_db!(SqliteConnection, Dialect::Sqlite, |_| None);
impl_db!(PgConnection, Dialect::Postgres, Some);
