//! `location`'s promises: no spelling of a password is ever printed, whatever is printed
//! instead names the database or the problem, and a near miss of a PostgreSQL URL is
//! refused rather than taken for a SQLite file.

use super::*;

#[test]
fn every_spelling_of_a_password_is_masked() {
    let shown = "postgres://cook@dbhost:5432/uc";
    for url in [
        "postgres://cook:s3cret@dbhost:5432/uc",
        "postgres://cook@dbhost/uc?password=s3cret",
        "postgres://dbhost/uc?user=cook&password=s3cret&sslmode=prefer",
        "POSTGRES://cook:s3cret@dbhost/uc",
        "PostgreSQL://cook:s3cret@dbhost/uc",
        // A raw `@` in the password: the last one ends the user's part.
        "postgres://cook:s3@cret@dbhost/uc",
    ] {
        assert_eq!(printable(url), shown, "{url}");
    }
    assert_eq!(printable("postgres://c@h:6000"), "postgres://c@h:6000");
    assert_eq!(printable("sqlite://data/uc.db"), "sqlite://data/uc.db");
    // Whatever does not parse is named by its problem, none of its text.
    for (url, says) in [
        (
            "postgres://cook:s3/cret@dbhost/uc",
            "does not parse (invalid port number)",
        ),
        ("postgres://cook:s3#cret@dbhost/uc", "does not parse"),
        (
            "postgres:/cook:s3cret@dbhost/uc",
            "starts `postgres:/` but is not",
        ),
        ("postgres:cook:s3cret@dbhost/uc", "a typo?"),
        (
            "Postgres//cook:s3cret@dbhost/uc",
            "starts `Postgres//` but is not",
        ),
        ("postgresq://cook:s3cret@dbhost/uc", "a typo?"),
        ("pgsql://cook:s3cret@dbhost/uc", "a typo?"),
        ("mysql://cook:s3cret@dbhost/uc", "a mysql:// URL"),
        (
            "postgres://cook@dbhost/uc?passwrd=s3cret",
            "parameter `passwrd`",
        ),
        ("postgres://cook@dbhost/uc?s3cret", "its name not shown"),
    ] {
        let shown = printable(url);
        assert!(shown.contains(says), "{url}: {shown}");
        for part in ["s3", "cret", "dbhost"] {
            assert!(!shown.contains(part), "{url}: {shown}");
        }
    }
}

#[test]
fn a_location_names_its_engine_in_any_case_and_typos_are_refused() {
    let (pg, lite) = (Some(Dialect::Postgres), Some(Dialect::Sqlite));
    for (location, dialect) in [
        ("postgres://x/y", pg),
        ("POSTGRESQL://x/y", pg),
        ("sqlite://data/uc.db", lite),
        ("SQLite:data/uc.db", lite),
        ("data/uc.db", lite),
        ("postgres/uc.db", lite),
        ("pgdata//uc.db", lite),
        ("pgdata:uc.db", lite),
        ("postgres:///uc", pg),
        ("data:uc.db", lite),
    ] {
        assert_eq!(dialect_of(location).ok(), dialect, "{location}");
    }
    assert!(is_postgres("PostgreSQL://x/y") && !is_postgres("sqlite://x"));
    for typo in [
        "postgres:/x/y",
        "postgres:x",
        "postgres//x/y",
        "pg://x",
        "http://x",
    ] {
        assert!(dialect_of(typo).is_err(), "{typo}");
        assert!(
            db_location(Some(typo), Path::new("data")).is_err(),
            "{typo}"
        );
    }
    assert_eq!(sqlite_path("SQLITE://a/b.db"), Some("a/b.db"));
    assert_eq!(sqlite_path("sqlite:a.db"), Some("a.db"));
    assert_eq!(sqlite_path("a.db"), None);
}
