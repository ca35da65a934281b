//! How `undercooked sql` prints rows as they arrive: an aligned table, JSON lines or CSV.
//!
//! Nothing holds the whole result: JSON lines and CSV print each row as it comes, and the
//! table measures its column widths on its first `TABLE_SAMPLE` rows, prints them, then
//! prints every later row at once with those widths (a later cell wider than its column
//! pushes the rest of its line right). So memory stays flat whatever the result's size.

use super::out::Stdout;
use sqlx::{Row, TypeInfo, ValueRef};

/// Rows the table holds to measure its columns before it prints anything.
pub const TABLE_SAMPLE: usize = 1000;

/// One cell as JSON: integers and reals as numbers, blobs as hex, text as strings.
pub fn cell(row: &sqlx::sqlite::SqliteRow, i: usize) -> serde_json::Value {
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

/// One PostgreSQL cell as JSON, by its type: integers, reals and numerics as numbers,
/// booleans, JSON as itself, bytes as hex; anything else as its text, or null when it has
/// none this build can decode.
pub fn pg_cell(row: &sqlx::postgres::PgRow, i: usize) -> serde_json::Value {
    use serde_json::Value;
    let Ok(raw) = row.try_get_raw(i) else {
        return Value::Null;
    };
    if raw.is_null() {
        return Value::Null;
    }
    match raw.type_info().name() {
        "INT2" => row.try_get::<i16, _>(i).map(Value::from),
        "INT4" => row.try_get::<i32, _>(i).map(Value::from),
        "INT8" => row.try_get::<i64, _>(i).map(Value::from),
        "FLOAT4" => row.try_get::<f32, _>(i).map(Value::from),
        "FLOAT8" => row.try_get::<f64, _>(i).map(Value::from),
        "BOOL" => row.try_get::<bool, _>(i).map(Value::from),
        "NUMERIC" => row.try_get::<sqlx::types::Decimal, _>(i).map(|d| {
            // A whole number prints as an integer (`SUM` of a BIGINT column is NUMERIC).
            i64::try_from(d)
                .ok()
                .filter(|n| sqlx::types::Decimal::from(*n) == d)
                .map_or_else(|| Value::from(d.to_string()), Value::from)
        }),
        "BYTEA" => row
            .try_get::<Vec<u8>, _>(i)
            .map(|b| Value::from(b.iter().map(|x| format!("{x:02x}")).collect::<String>())),
        _ => row.try_get::<String, _>(i).map(Value::from),
    }
    .unwrap_or_default()
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "NULL".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What has been printed of a result, of either engine: its columns (the first row's
/// names) and how many rows.
pub struct Output {
    printer: Printer,
    columns: Vec<String>,
    pub count: u64,
}

impl Output {
    pub fn new(json: bool, csv: bool) -> Output {
        Output {
            printer: Printer::new(json, csv),
            columns: Vec::new(),
            count: 0,
        }
    }

    /// Prints one row, `cell` reading its values (the first row's names are the header).
    pub fn row<R: sqlx::Row>(
        &mut self,
        row: &R,
        cell: fn(&R, usize) -> serde_json::Value,
    ) -> csv::Result<()> {
        if self.count == 0 {
            use sqlx::Column;
            self.columns = row.columns().iter().map(|c| c.name().to_string()).collect();
            self.printer.header(&self.columns)?;
        }
        let values: Vec<serde_json::Value> =
            (0..self.columns.len()).map(|i| cell(row, i)).collect();
        self.printer.row(&self.columns, &values)?;
        self.count += 1;
        Ok(())
    }

    /// Ends the output: a table's sample and its row count.
    pub fn finish(self) -> csv::Result<()> {
        self.printer.finish(&self.columns, self.count)
    }
}

/// The output format, with what it holds between rows.
pub enum Printer {
    Json,
    Csv(Box<csv::Writer<Stdout>>),
    /// `widths` is empty until the sample is printed.
    Table {
        sample: Vec<Vec<String>>,
        widths: Vec<usize>,
    },
}

impl Printer {
    pub fn new(json: bool, csv: bool) -> Printer {
        if json {
            Printer::Json
        } else if csv {
            Printer::Csv(Box::new(csv::Writer::from_writer(Stdout)))
        } else {
            Printer::Table {
                sample: Vec::new(),
                widths: Vec::new(),
            }
        }
    }

    /// Prints (or, for the table's sample, keeps) one row; `columns` are the result's names.
    pub fn row(&mut self, columns: &[String], row: &[serde_json::Value]) -> csv::Result<()> {
        match self {
            Printer::Json => {
                let obj: serde_json::Map<String, serde_json::Value> =
                    columns.iter().cloned().zip(row.iter().cloned()).collect();
                outln!("{}", serde_json::Value::Object(obj));
            }
            Printer::Csv(w) => w.write_record(row.iter().map(text))?,
            Printer::Table { sample, widths } if widths.is_empty() => {
                sample.push(row.iter().map(text).collect());
                if sample.len() >= TABLE_SAMPLE {
                    *widths = print_head(columns, sample);
                }
            }
            Printer::Table { widths, .. } => {
                outln!("{}", line(row.iter().map(text).collect(), widths));
            }
        }
        Ok(())
    }

    /// Writes the CSV header (the first row's column names).
    pub fn header(&mut self, columns: &[String]) -> csv::Result<()> {
        match self {
            Printer::Csv(w) => w.write_record(columns),
            _ => Ok(()),
        }
    }

    /// Ends the output: prints a table whose sample was never full, and its row count.
    pub fn finish(mut self, columns: &[String], rows: u64) -> csv::Result<()> {
        match &mut self {
            Printer::Json => {}
            Printer::Csv(w) => w.flush()?,
            Printer::Table { sample, widths } => {
                if widths.is_empty() {
                    print_head(columns, sample);
                }
                outln!("({rows} row{})", if rows == 1 { "" } else { "s" });
            }
        }
        Ok(())
    }
}

/// Prints the header, the rule and the sample rows (emptying it); returns the widths.
fn print_head(columns: &[String], sample: &mut Vec<Vec<String>>) -> Vec<usize> {
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| {
            sample
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([columns[i].chars().count(), 1])
                .max()
                .unwrap_or(1)
        })
        .collect();
    outln!("{}", line(columns.to_vec(), &widths));
    outln!(
        "{}",
        line(widths.iter().map(|w| "-".repeat(*w)).collect(), &widths)
    );
    for row in sample.drain(..) {
        outln!("{}", line(row, &widths));
    }
    widths
}

fn line(cells: Vec<String>, widths: &[usize]) -> String {
    cells
        .iter()
        .zip(widths)
        .map(|(c, w)| format!("{c:<w$}"))
        .collect::<Vec<_>>()
        .join("  ")
        .trim_end()
        .to_string()
}
