//! Where each engine's lexer ends a comment, a string, a dollar quote, shown on the text
//! that would fool a reader of the other engine's rules, and what is refused unread.

use super::code_of;
use undercooked::store::db::Dialect::{Postgres, Sqlite};

/// The code's words, spaces squeezed.
fn words(sql: &str, dialect: undercooked::store::db::Dialect) -> String {
    let code = code_of(sql, dialect).expect(sql);
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn postgresql_comments_nest_and_sqlite_comments_do_not() {
    let sql = "/* /* */ SELECT 1 */ COPY (SELECT current_user) TO PROGRAM 'id > /tmp/x'";
    assert_eq!(
        words(sql, Postgres),
        "COPY (SELECT current_user) TO PROGRAM q"
    );
    assert!(words(sql, Sqlite).starts_with("SELECT 1 */ COPY"));
    // `/*/` opens a comment without closing it: the `*` belongs to the opening.
    assert_eq!(words("SELECT /*/ x */ 1", Postgres), "SELECT 1");
    assert!(code_of("SELECT /*/ 1", Postgres).is_err());
    assert_eq!(words("SELECT /* a /* b */ c */ 1", Postgres), "SELECT 1");
    // A `--` comment ends at a carriage return on PostgreSQL, at a line feed only on SQLite.
    assert_eq!(
        words("SELECT 1 -- x\r; COPY t", Postgres),
        "SELECT 1 ; COPY t"
    );
    assert_eq!(words("SELECT 1 -- x\r; COPY t", Sqlite), "SELECT 1");
}

#[test]
fn dollar_quotes_and_escaped_strings_are_read_to_their_real_end() {
    for (sql, code) in [
        ("SELECT $$ ; COPY $$", "SELECT q"),
        ("SELECT $t$ $$ ; $u$ $t$ AS x", "SELECT q AS x"),
        ("SELECT $a$ x$b$a$ ; y", "SELECT q ; y"),
        ("SELECT $1, a$$b$ FROM t", "SELECT $1, a$$b$ FROM t"),
        ("SELECT E'it\\'s; COPY' AS s", "SELECT q AS s"),
        ("SELECT e'\\\\' ; COPY t", "SELECT q ; COPY t"),
        // Without the E, a backslash is a character: the string ends at the quote.
        (
            "SELECT 'a\\' ; DELETE FROM t --'",
            "SELECT q ; DELETE FROM t",
        ),
        ("SELECT me'x' ; y", "SELECT me q ; y"),
        ("SELECT 'it''s' , \"a\"\"b\"", "SELECT q , q"),
        // A backtick and a bracket are operators on PostgreSQL, quotes on SQLite.
        ("SELECT 1 ` ; COPY t `", "SELECT 1 ` ; COPY t `"),
        ("SELECT a[1] ; COPY t", "SELECT a[1] ; COPY t"),
    ] {
        assert_eq!(words(sql, Postgres), code, "{sql}");
    }
    assert_eq!(words("SELECT 1 ` ; x ` , [a;b]", Sqlite), "SELECT 1 q , q");
    assert_eq!(words("SELECT $$ ; x", Sqlite), "SELECT $$ ; x");
    assert_eq!(words("SELECT E'a\\' ; x", Sqlite), "SELECT E q ; x");
}

#[test]
fn what_cannot_be_read_is_refused_by_name() {
    for (sql, says) in [
        ("SELECT U&'\\0063opy'", "U&'…' and U&\"…\""),
        ("SELECT u&\"d\\0061ta\"", "Unicode escapes"),
        ("SELECT $x$ never closed", "a $x$…$x$ quote is not closed"),
        ("SELECT E'open\\'", "an E'… string is not closed"),
        ("SELECT /* /* */ 1", "a /* comment is not closed"),
        ("SELECT 'open", "a quoted '…' is not closed"),
        ("SELECT E'a'\n'\\' ; COPY t --'", "may join the two"),
        ("SELECT E'a' -- c\n /* d */ 'b'", "may join the two"),
        ("SELECT 1\0; COPY t", "NUL"),
    ] {
        let got = code_of(sql, Postgres).expect_err(sql);
        assert!(got.contains(says), "{sql}: {got}");
    }
    assert!(code_of("SELECT [a", Sqlite).is_err());
    assert!(
        code_of("SELECT U&'x'", Sqlite).is_ok(),
        "SQLite has no U& strings"
    );
}
