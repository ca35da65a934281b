//! How `undercooked sql` prints rows as they arrive: an aligned table, JSON lines or CSV.
//!
//! Nothing holds the whole result: JSON lines and CSV print each row as it comes, and the
//! table measures its column widths on its first `TABLE_SAMPLE` rows, prints them, then
//! prints every later row at once with those widths (a later cell wider than its column
//! pushes the rest of its line right). So memory stays flat whatever the result's size.
//! A table cell longer than `MAX_CELL_CHARS` is cut there, with a marker saying how long it
//! was (`… (70000 chars)`): a terminal cannot show it anyway, and `--csv` or `--json` print
//! it whole. The padding is written out rather than asked of `format!`, whose width stops at
//! 65,535.

use super::out::Stdout;
use sqlx::{Row, TypeInfo, ValueRef};

/// Rows the table holds to measure its columns before it prints anything.
pub const TABLE_SAMPLE: usize = 1000;

/// The most characters of one cell a table prints.
pub const MAX_CELL_CHARS: usize = 1000;

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

/// A cell as a table prints it: past `MAX_CELL_CHARS` characters, its start and its length.
fn clipped(v: &serde_json::Value) -> String {
    let long = match v {
        serde_json::Value::String(s) => s,
        other => return clip(&text(other)),
    };
    clip(long)
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_CELL_CHARS) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}… ({} chars)", &s[..cut], s.chars().count()),
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
                sample.push(row.iter().map(clipped).collect());
                if sample.len() >= TABLE_SAMPLE {
                    *widths = print_head(columns, sample);
                }
            }
            Printer::Table { widths, .. } => {
                outln!("{}", line(row.iter().map(clipped).collect(), widths));
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
                .chain([clip(&columns[i]).chars().count(), 1])
                .max()
                .unwrap_or(1)
        })
        .collect();
    outln!(
        "{}",
        line(columns.iter().map(|c| clip(c)).collect(), &widths)
    );
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
        .map(|(c, w)| {
            let pad = w.saturating_sub(c.chars().count());
            format!("{c}{}", " ".repeat(pad))
        })
        .collect::<Vec<_>>()
        .join("  ")
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_past_the_cut_keeps_its_start_and_says_its_length() {
        let wide = "é".repeat(70_000);
        let cut = clip(&wide);
        assert!(
            cut.ends_with("… (70000 chars)"),
            "{}",
            &cut[cut.len() - 40..]
        );
        assert_eq!(
            cut.chars().count(),
            MAX_CELL_CHARS + "… (70000 chars)".chars().count()
        );
        assert_eq!(clip("short"), "short");
        // Padding past 65,535 columns (`format!`'s width stops there) is written out.
        let padded = line(vec!["a".into(), "b".into()], &[70_000, 1]);
        assert_eq!(padded.len(), 70_000 + 2 + 1);
    }
}
