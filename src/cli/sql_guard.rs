//! What `undercooked sql` lets through: one statement that only reads.
//!
//! The database is opened read-only and with `query_only` on, and before that the statement
//! itself is checked, because a read-only connection still lets some statements write files
//! (`VACUUM INTO` writes a full copy of the database anywhere, `ATTACH` creates one, a
//! `PRAGMA` can switch the journal): one statement (a trailing `;` is fine), starting with
//! `SELECT`, `WITH`, `VALUES` or `EXPLAIN`, or (SQLite) a `PRAGMA` from a list of ones that
//! only report. Comments and quoted text are skipped as the engine itself reads them
//! (`sql_lex`: PostgreSQL's nest), so neither hides nor fakes a keyword.
//!
//! On PostgreSQL this is the second line, not the first: the role `sql` connects as must
//! be one that cannot write files or run programs (`sql_pg` refuses any other), because a
//! list of names cannot know every way a superuser's statement reaches the server's disk.

use super::sql_lex::code_of;
use undercooked::store::db::Dialect;

/// PostgreSQL functions that act beyond a read-only transaction: they change settings,
/// stop other sessions (a node's), take locks a node waits on, or read and write files on
/// the server. Refused wherever they appear in the text, quoted or not (a quoted name is
/// still a call), so a false alarm in a string literal is a refusal that names it.
const ACTING_FUNCTIONS: &[&str] = &[
    "set_config",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_advisory",
    "pg_try_advisory",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_",
    "pg_stat_file",
    "lo_import",
    "lo_export",
    "lo_from_bytea",
    "dblink",
    "pg_switch_wal",
    "pg_create_",
    "pg_drop_replication_slot",
    "pg_promote",
    // These run SQL given as text, which no check of this text can see into.
    "query_to_xml",
    "ts_stat",
    "ts_rewrite",
];

/// Pragmas that only report, with or without a parenthesised argument (never `=`).
const READING_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "database_list",
    "collation_list",
    "function_list",
    "pragma_list",
    "compile_options",
    "integrity_check",
    "quick_check",
    "foreign_key_check",
];

/// Pragmas that report when given no argument at all (with one, they set).
const READING_BARE_PRAGMAS: &[&str] = &[
    "page_count",
    "page_size",
    "freelist_count",
    "user_version",
    "schema_version",
    "journal_mode",
    "encoding",
    "foreign_keys",
];

/// `Ok` when the statement may run; otherwise the sentence saying why not.
pub fn check(sql: &str, dialect: Dialect) -> Result<(), String> {
    let code = code_of(sql, dialect)?;
    let body = code.trim().trim_end_matches(';').trim_end();
    let lower = sql.to_ascii_lowercase();
    if let Some(f) = ACTING_FUNCTIONS.iter().find(|f| lower.contains(*f)) {
        return Err(format!(
            "{f}… acts beyond a read-only query (settings, other sessions, locks or server files): `sql` only reads"
        ));
    }
    if body.contains(';') {
        return Err("one statement at a time".into());
    }
    let words: Vec<String> = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let Some(first) = words.first() else {
        return Err("the query is empty".into());
    };
    match first.as_str() {
        "select" | "with" | "values" | "explain" => Ok(()),
        "pragma" if dialect == Dialect::Sqlite => {
            let name = words.get(1).map(String::as_str).unwrap_or("");
            // `pragma main.table_info(x)`: the schema name comes first.
            let name = match (name, words.get(2)) {
                ("main" | "temp", Some(n)) if body.contains('.') => n.as_str(),
                _ => name,
            };
            let bare = words.len() <= 2 + body.contains('.') as usize;
            if body.contains('=') {
                Err(format!(
                    "PRAGMA {name} with `=` sets it: only reading pragmas run here"
                ))
            } else if READING_PRAGMAS.contains(&name)
                || (READING_BARE_PRAGMAS.contains(&name) && bare && !body.contains('('))
            {
                Ok(())
            } else {
                Err(format!(
                    "PRAGMA {name} is not one of the pragmas that only report ({}; and {} without an argument)",
                    READING_PRAGMAS.join(", "),
                    READING_BARE_PRAGMAS.join(", ")
                ))
            }
        }
        other => Err(format!(
            "{} statements are refused: `sql` only reads (SELECT, WITH, VALUES, EXPLAIN{})",
            other.to_ascii_uppercase(),
            match dialect {
                Dialect::Sqlite => ", or a reporting PRAGMA",
                Dialect::Postgres => "",
            }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect::{Postgres, Sqlite};

    fn check(sql: &str) -> Result<(), String> {
        super::check(sql, Sqlite)
    }

    #[test]
    fn reads_pass() {
        for q in [
            "SELECT * FROM rounds",
            "  select 1;",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "VALUES (1)",
            "EXPLAIN QUERY PLAN SELECT * FROM events",
            "PRAGMA table_info(rounds)",
            "pragma main.table_info(rounds)",
            "PRAGMA page_count",
            "SELECT 'a; VACUUM' AS s -- ; DROP TABLE x",
            "/* note */ SELECT 1",
        ] {
            assert_eq!(check(q), Ok(()), "{q}");
        }
    }

    #[test]
    fn writes_and_file_makers_are_refused_by_name() {
        for (q, says) in [
            (
                "VACUUM INTO '/tmp/copy.db'",
                "VACUUM statements are refused",
            ),
            ("ATTACH 'x.db' AS x", "ATTACH statements are refused"),
            ("CREATE TEMP TABLE t (x)", "CREATE statements are refused"),
            ("DELETE FROM rounds", "DELETE statements are refused"),
            ("PRAGMA journal_mode=DELETE", "with `=` sets it"),
            ("PRAGMA journal_mode(DELETE)", "not one of the pragmas"),
            ("PRAGMA user_version = 3", "with `=` sets it"),
            ("PRAGMA writable_schema", "not one of the pragmas"),
            ("SELECT 1; VACUUM INTO '/tmp/x'", "one statement at a time"),
            ("", "empty"),
            ("SELECT 'open", "not closed"),
            (
                "SELECT set_config('default_transaction_read_only', 'off', false)",
                "set_config… acts beyond",
            ),
            (
                "SELECT \"pg_terminate_backend\"(pid) FROM pg_stat_activity",
                "pg_terminate_backend… acts beyond",
            ),
            ("SELECT pg_advisory_lock(42)", "pg_advisory… acts beyond"),
        ] {
            let got = check(q).expect_err(q);
            assert!(got.contains(says), "{q}: {got}");
        }
    }

    #[test]
    fn postgresql_text_is_read_as_postgresql_reads_it() {
        // A nested comment hides a SELECT from a reader that does not nest, and the
        // statement PostgreSQL runs is the COPY.
        let copy = "/* /* */ SELECT 1 */ COPY (SELECT current_user) TO PROGRAM 'id > /tmp/x'";
        let got = super::check(copy, Postgres).expect_err(copy);
        assert!(got.contains("COPY statements are refused"), "{got}");
        for (q, says) in [
            (
                "SELECT $$x$$; COPY t TO '/tmp/t'",
                "one statement at a time",
            ),
            (
                "SELECT 'a\\'; COPY t TO '/tmp/t' --'",
                "one statement at a time",
            ),
            ("SELECT U&\"pg_read_file\"('/etc/passwd')", "U&"),
            (
                "SELECT query_to_xml('SELECT 1', true, true, '')",
                "query_to_xml… acts beyond",
            ),
            ("PRAGMA table_info(rounds)", "PRAGMA statements are refused"),
        ] {
            let got = super::check(q, Postgres).expect_err(q);
            assert!(got.contains(says), "{q}: {got}");
        }
        for q in [
            "SELECT $$it's; here$$ AS s, E'\\'' AS q",
            "/* a /* b */ c */ SELECT 1",
            "SELECT a[1] FROM (SELECT ARRAY[1, 2] AS a) x",
        ] {
            assert_eq!(super::check(q, Postgres), Ok(()), "{q}");
        }
    }
}
