//! `undercooked sql "SELECT …"`: a read-only query over the history, printed as an aligned
//! table, JSON lines or CSV. The statement is checked first (`sql_guard`), and the database
//! is opened read-only with `query_only` on.

use super::DbArgs;
use anyhow::Context;
use sqlx::{Column, Row, TypeInfo, ValueRef};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The query (the database is opened read-only: writes are refused).
    query: String,
    /// One JSON object per row.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV with a header row.
    #[arg(long)]
    csv: bool,
    #[command(flatten)]
    db: DbArgs,
}

fn cell(row: &sqlx::sqlite::SqliteRow, i: usize) -> serde_json::Value {
    let Ok(raw) = row.try_get_raw(i) else {
        return serde_json::Value::Null;
    };
    if raw.is_null() {
        return serde_json::Value::Null;
    }
    let type_name = raw.type_info().name().to_ascii_uppercase();
    if type_name.contains("INT") {
        row.try_get::<i64, _>(i)
            .map(serde_json::Value::from)
            .unwrap_or_default()
    } else if type_name.contains("REAL")
        || type_name.contains("FLOAT")
        || type_name.contains("DOUBLE")
    {
        row.try_get::<f64, _>(i)
            .map(serde_json::Value::from)
            .unwrap_or_default()
    } else if type_name.contains("BLOB") {
        row.try_get::<Vec<u8>, _>(i)
            .map(|b| {
                serde_json::Value::from(b.iter().map(|x| format!("{x:02x}")).collect::<String>())
            })
            .unwrap_or_default()
    } else {
        row.try_get::<String, _>(i)
            .map(serde_json::Value::from)
            .or_else(|_| row.try_get::<i64, _>(i).map(serde_json::Value::from))
            .or_else(|_| row.try_get::<f64, _>(i).map(serde_json::Value::from))
            .unwrap_or_default()
    }
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "NULL".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    if let Err(why) = super::sql_guard::check(&args.query) {
        eprintln!("undercooked: refused: {why}");
        return Ok(2);
    }
    rt.block_on(async move {
        let location = args.db.location();
        let store = undercooked::store::Store::open_read_only(&location).await?;
        let rows = match sqlx::query(sqlx::AssertSqlSafe(args.query.clone())).fetch_all(&store.pool).await {
            Ok(rows) => rows,
            Err(e) => {
                let msg = e.to_string();
                if msg.contains("readonly") || msg.contains("read-only") {
                    eprintln!("undercooked: refused: `sql` opens {location} read-only, so statements that write are not allowed ({msg})");
                } else {
                    eprintln!("undercooked: the query failed: {msg}");
                }
                return Ok(2);
            }
        };
        let columns: Vec<String> = rows.first().map(|r| r.columns().iter().map(|c| c.name().to_string()).collect()).unwrap_or_default();
        let table: Vec<Vec<serde_json::Value>> = rows.iter().map(|r| (0..columns.len()).map(|i| cell(r, i)).collect()).collect();
        if args.json {
            for row in &table {
                let obj: serde_json::Map<String, serde_json::Value> = columns.iter().cloned().zip(row.iter().cloned()).collect();
                outln!("{}", serde_json::Value::Object(obj));
            }
        } else if args.csv {
            let mut w = csv::Writer::from_writer(super::out::Stdout);
            w.write_record(&columns)?;
            for row in &table {
                w.write_record(row.iter().map(text))?;
            }
            w.flush()?;
        } else {
            let widths: Vec<usize> = (0..columns.len())
                .map(|i| table.iter().map(|r| text(&r[i]).chars().count()).chain([columns[i].chars().count()]).max().unwrap_or(0))
                .collect();
            let line = |cells: Vec<String>| cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect::<Vec<_>>().join("  ").trim_end().to_string();
            outln!("{}", line(columns.clone()));
            outln!("{}", line(widths.iter().map(|w| "-".repeat(*w)).collect()));
            for row in &table {
                outln!("{}", line(row.iter().map(text).collect()));
            }
            outln!("({} row{})", table.len(), if table.len() == 1 { "" } else { "s" });
        }
        anyhow::Ok(0)
    })
}
