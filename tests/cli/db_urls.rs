//! A database URL's password never reaches the terminal or a log line: `sql`, `reindex`,
//! `verify --db` and `serve`, failing on a URL in any spelling of its password, print it
//! as user@host:port/database or name its problem, never the password; a mistyped
//! PostgreSQL URL is refused as one, not opened as a SQLite file.

use super::{bin, run, tmp};

/// A port where something accepts a connection and closes it at once, so that sqlx fails
/// at once (a refused port it would retry for 5 s), naming the location it could not open.
fn closing_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            drop(conn);
        }
    });
    port
}

#[test]
fn no_spelling_of_a_database_url_prints_its_password() {
    let port = closing_port();
    let data = tmp("db-urls");
    std::fs::create_dir_all(data.join("replays")).unwrap();
    let at = |auth: &str| format!("postgres://{auth}@127.0.0.1:{port}/uc");
    let masked = at("cook");
    // Each spelling, and what is printed instead: the parsed URL, or its problem.
    let spellings = [
        (at("cook:hunter2"), masked.as_str()),
        (format!("{masked}?password=hunter2"), &masked),
        (
            at("cook:hunter2").replace("postgres:", "POSTGRES:"),
            &masked,
        ),
        (
            at("cook:hunter2").replace("postgres:", "PostgreSQL:"),
            &masked,
        ),
        (at("cook:hun@ter2"), &masked),
        (at("cook:hunter2").replace("://", ":/"), "a typo?"),
        (at("cook:hunter2").replace("://", "//"), "a typo?"),
        (at("cook:hun/ter2"), "does not parse (invalid port number)"),
        (format!("{masked}?pasword=hunter2"), "parameter `pasword`"),
    ];
    for (url, shown) in &spellings {
        for args in [
            vec!["sql", "--db", url, "SELECT 1"],
            vec!["reindex", "--db", url],
            vec!["verify", "--db", url, "NOPE-1-1"],
            vec!["serve", "--bind", "127.0.0.1:0", "--db", url],
        ] {
            let (code, stdout, stderr) = run(bin().args(&args).env("UNDERCOOKED_DATA_DIR", &data));
            assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
            let printed = format!("{stdout}{stderr}");
            assert!(printed.contains(shown), "{args:?}: {printed}");
            for secret in ["hunter2", "hun@", "ter2"] {
                assert!(!printed.contains(secret), "{args:?}: {printed}");
            }
        }
    }
    // A typo was not taken for a SQLite file's name.
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!here.join("postgres:").exists() && !here.join("postgres").exists());
}
