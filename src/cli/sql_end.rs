//! How an `undercooked sql` query ended, for both engines (`sql` on SQLite, `sql_pg` on
//! PostgreSQL): what was asked (`Query`), why it stopped (`Stop`), and the last words and
//! exit code (`ended`).

use super::sql_print::Output;

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
