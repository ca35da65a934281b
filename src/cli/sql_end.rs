//! How an `undercooked sql` query ended, for both engines (`sql` on SQLite, `sql_pg` on
//! PostgreSQL): what was asked (`Query`), why it stopped (`Stop`), and the last words and
//! exit code (`ended`).

use super::sql_print::Output;

/// SQLite's heap while `sql` runs (`PRAGMA hard_heap_limit`): a query that needs more (a
/// gigabyte cell built by `hex(zeroblob(…))`, say) fails at once instead of growing the
/// process for as long as it runs. The page cache and the sorter spill to disk well within it.
pub const SQLITE_MEMORY_MIB: u64 = 64;

/// The longest timeout `--timeout-s` takes (an hour).
pub const MAX_TIMEOUT_S: u64 = 3600;

/// PostgreSQL: how long a query waits for a lock another session holds (a read waits only
/// behind a migration or a `LOCK TABLE`).
pub const LOCK_WAIT_S: u64 = 1;

/// What `sql` was asked: the statement, how to print its rows, and its time limit.
pub struct Query {
    pub text: String,
    pub json: bool,
    pub csv: bool,
    pub timeout_s: u64,
}

/// How the query ended, when it did not end well.
pub enum Stop {
    /// Past `--timeout-s`.
    Timeout,
    /// PostgreSQL: a lock the query needed was held past `LOCK_WAIT_S`.
    Locked,
    /// SQLite: the query needed more than `SQLITE_MEMORY_MIB` (a cell or a sort that big).
    Memory,
    /// The engine's own error.
    Failed(sqlx::Error),
}

/// Ends the output as the query ended (both engines): the rows printed stay whole (a table
/// keeps its count line; a query stopped before its first row prints nothing but the
/// refusal), and a stop is said in a sentence; the exit code.
pub fn ended(
    out: Output,
    stopped: Option<Stop>,
    timeout_s: u64,
    location: &str,
) -> anyhow::Result<u8> {
    match stopped {
        None => {
            out.finish()?;
            Ok(0)
        }
        Some(Stop::Timeout) => {
            let rows = out.count;
            if rows > 0 {
                out.finish()?;
            }
            eprintln!(
                "undercooked: stopped: the query ran past its {timeout_s}-second limit after {rows} row{} (raise it with --timeout-s or UNDERCOOKED_SQL_TIMEOUT_S, at most {MAX_TIMEOUT_S})",
                if rows == 1 { "" } else { "s" }
            );
            Ok(2)
        }
        Some(Stop::Locked) => {
            eprintln!(
                "undercooked: stopped: the query waited more than {} s for a lock another session holds (a migration's, say); try again",
                LOCK_WAIT_S
            );
            Ok(2)
        }
        Some(Stop::Memory) => {
            eprintln!(
                "undercooked: stopped: the query needed more than {SQLITE_MEMORY_MIB} MiB of memory (a cell or a sort that large); ask for less of it (substr(), length(), LIMIT)"
            );
            Ok(2)
        }
        Some(Stop::Failed(e)) => Ok(failed(location, &e)),
    }
}

/// Says why the query failed (a write refused by the engine is said as such): exit 2.
fn failed(location: &str, e: &sqlx::Error) -> u8 {
    let msg = e.to_string();
    let location = undercooked::store::printable(location);
    if msg.contains("readonly") || msg.contains("read-only") {
        eprintln!(
            "undercooked: refused: `sql` opens {location} read-only, so statements that write are not allowed ({msg})"
        );
    } else {
        eprintln!("undercooked: the query failed: {msg}");
    }
    2
}

/// Whether SQLite refused the query for memory (`SQLITE_NOMEM`, code 7: past
/// `SQLITE_MEMORY_MIB`).
pub fn out_of_memory(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.code().as_deref() == Some("7") || d.message().contains("out of memory"))
}

/// Ends the process, exit 2, once `limit` and a grace have passed, whatever it is doing: a
/// write to a pipe nobody reads, or a step that never returns, cannot hold `sql` past its
/// time limit. (The query's own checks stop it at the deadline; this is the backstop.)
pub fn watchdog(limit: std::time::Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit + std::time::Duration::from_secs(2));
        eprintln!(
            "undercooked: stopped: the query and its printing ran past the {}-second limit (raise it with --timeout-s or UNDERCOOKED_SQL_TIMEOUT_S, at most {MAX_TIMEOUT_S})",
            limit.as_secs()
        );
        std::process::exit(2);
    });
}
