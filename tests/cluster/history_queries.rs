//! docs/HISTORY.md's example queries on PostgreSQL, given / when / then: the same bot-played
//! rounds reindexed into a PostgreSQL database and a SQLite one, every example (its
//! PostgreSQL version where the doc gives one) answers the same rows on both, through
//! `undercooked sql --json` as an operator would run it.
//!
//! The rows are compared as multisets: where a query's `ORDER BY` leaves ties (several
//! players with the same best stars and score) the two engines may list them in either order.
//! Numbers are compared by value: `undercooked sql` prints a PostgreSQL `NUMERIC` that is
//! not whole as its text.

use crate::postgres;
use serde_json::Value;
use std::path::Path;
use undercooked::store::{Store, reindex};

/// One example: its SQLite text, and the text PostgreSQL runs (its PostgreSQL version, or
/// the same text when the doc gives none).
struct Example {
    sqlite: String,
    postgres: String,
}

/// HISTORY.md's examples: each ```` ```sql ```` block, paired with the ```` ```sql postgres
/// ```` block that follows it, if any.
fn examples() -> Vec<Example> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/HISTORY.md"))
        .expect("docs/HISTORY.md");
    let mut out: Vec<Example> = Vec::new();
    // The block being read, and whether it is a PostgreSQL version.
    let mut open: Option<(String, bool)> = None;
    for line in doc.lines() {
        match (&mut open, line.trim_end()) {
            (None, "```sql") => open = Some((String::new(), false)),
            (None, "```sql postgres") => open = Some((String::new(), true)),
            (Some((text, postgres)), "```") => {
                let text = text.trim().to_string();
                if *postgres {
                    let last = out
                        .last_mut()
                        .expect("a `sql postgres` block follows the SQLite query it translates");
                    assert_eq!(
                        last.postgres, last.sqlite,
                        "two PostgreSQL versions of one query"
                    );
                    last.postgres = text;
                } else {
                    out.push(Example {
                        sqlite: text.clone(),
                        postgres: text,
                    });
                }
                open = None;
            }
            (Some((text, _)), line) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

/// Bot-played rounds (the first four campaign levels, two seeds each) as replay files in
/// `dir`, as tests/history builds its SQLite database.
pub(crate) fn bot_replays(dir: &Path) {
    std::fs::create_dir_all(dir).expect("a replay folder");
    let levels =
        undercooked::levels::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("levels"))
            .expect("the shipped levels load");
    for (i, level) in levels.into_iter().take(4).enumerate() {
        for seed in [1, 8] {
            let sim = undercooked::simulate::simulate(&level, seed, 4, 20).expect("a bot round");
            std::fs::write(dir.join(format!("LOCAL-{i}{seed}-{seed}.ucr")), sim.bytes)
                .expect("write a replay");
        }
    }
}

/// `undercooked sql --json --db DB QUERY`: its rows, each cell normalised (numbers, and
/// numbers printed as text, to one form).
fn rows(db: &str, query: &str) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_undercooked"))
        .args(["sql", "--json", "--db", db, "--", query])
        .output()
        .expect("undercooked sql runs");
    assert!(
        out.status.success(),
        "undercooked sql on {} refused:\n{query}\n{}",
        db.split(':').next().unwrap_or(db),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let row: serde_json::Map<String, Value> =
                serde_json::from_str(line).expect("a JSON row");
            row.into_iter()
                .map(|(column, cell)| format!("{column}={}", normalised(&cell)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    rows.sort();
    rows
}

/// A cell as text, numbers (or text that is a number) to six decimals.
fn normalised(cell: &Value) -> String {
    let number = match cell {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse::<f64>().ok(),
        _ => None,
    };
    match number {
        Some(n) => format!("{n:.6}"),
        None => cell.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_history_example_answers_on_postgresql_as_on_sqlite() {
    if !postgres::available() {
        return;
    }
    // Given the same bot-played rounds reindexed into PostgreSQL and into SQLite,
    let dir = std::env::temp_dir().join(format!("uc-cluster-{}-history", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let replays = dir.join("replays");
    bot_replays(&replays);
    let pg_url = postgres::database();
    let lite_url = format!("sqlite://{}", dir.join("history.db").display());
    for url in [&pg_url, &lite_url] {
        let store = Store::open(url).await.expect("open the history");
        let report = reindex::reindex(&store, &replays, undercooked::verify::refusal, |_, _| {})
            .await
            .expect("reindex the bot rounds");
        assert_eq!((report.files, report.rounds), (8, 8), "{url}");
        store.close().await;
    }
    let examples = examples();
    assert!(
        examples.len() >= 12,
        "HISTORY.md has {} examples",
        examples.len()
    );
    let translated = examples.iter().filter(|e| e.postgres != e.sqlite).count();
    assert!(
        translated >= 5,
        "json_extract, date(…, 'unixepoch'), SUM of a comparison and MAX(a, b) need PostgreSQL versions"
    );
    // when each example runs on both, through `undercooked sql` (on PostgreSQL as a role
    // that can only read: `sql` refuses a superuser),
    let pg_url = postgres::reader(&pg_url);
    for e in &examples {
        let on_sqlite = rows(&lite_url, &e.sqlite);
        let on_postgres = rows(&pg_url, &e.postgres);
        // then both answer, and answer the same rows.
        assert!(
            !on_sqlite.is_empty(),
            "no rows on SQLite from:\n{}",
            e.sqlite
        );
        assert_eq!(
            on_postgres, on_sqlite,
            "PostgreSQL answers\n{}\nunlike SQLite answers\n{}",
            e.postgres, e.sqlite
        );
    }
}
