//! Small JSON writing helpers for the hand-written frame encoder.
//!
//! Frames are written from integers: a value in hundredths becomes `2.5`, `0.07` or
//! `150.0` exactly as a float formatter would print the same number, but without any float
//! arithmetic, so the bytes cannot vary between machines. Strings go through serde_json's
//! escaper (never hand-rolled).

/// `"name":`
pub fn key(out: &mut String, name: &str) {
    out.push('"');
    out.push_str(name);
    out.push_str("\":");
}

/// A JSON string, escaped by serde_json.
pub fn string(out: &mut String, s: &str) {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'.' | b' '))
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
    }
}

/// An integer, by `itoa` (what serde_json writes its own with): written through `fmt`,
/// the numbers were a third of the frame encoder's samples under load.
pub fn int(out: &mut String, v: i64) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// A number given in hundredths, written with the fewest decimals that keep it exact
/// (at least one): 250 → `2.5`, 7 → `0.07`, 15000 → `150.0`, -5 → `-0.05`.
pub fn centi(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let a = v.unsigned_abs();
    let (whole, frac) = (a / 100, (a % 100) as u8);
    out.push_str(itoa::Buffer::new().format(whole));
    out.push('.');
    out.push(char::from(b'0' + frac / 10));
    if frac % 10 != 0 {
        out.push(char::from(b'0' + frac % 10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hundredths_print_like_floats_do() {
        for (v, want) in [
            (250, "2.5"),
            (7, "0.07"),
            (15000, "150.0"),
            (0, "0.0"),
            (-5, "-0.05"),
            (100, "1.0"),
            (1234, "12.34"),
        ] {
            let mut s = String::new();
            centi(&mut s, v);
            assert_eq!(s, want);
            let f: f64 = serde_json::from_str(&s).unwrap();
            assert_eq!(
                serde_json::to_string(&f).unwrap(),
                want,
                "a float formatter agrees on {v}"
            );
        }
    }
}
