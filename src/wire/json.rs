//! Small JSON writing helpers for the hand-written frame encoder, and the field writers
//! (`Object`, `Array`) that make each frame writer a plain list of fields.
//!
//! Frames are written from integers: a value in hundredths becomes `2.5`, `0.07` or
//! `150.0` exactly as a float formatter would print the same number, but without any float
//! arithmetic, so the bytes cannot vary between machines. Strings go through serde_json's
//! escaper (never hand-rolled).

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

/// One JSON object being written, a field at a time, so that a writer is a plain list of
/// fields: each field after the first is preceded by its comma.
///
/// Every method is inlined: a writer's `Object` then lives in registers, `empty` is known
/// at each field, and the commas cost what hand-written ones did. (Left to the compiler,
/// some were not, and the flag was tested and stored at every field: 2 % more
/// instructions for the whole `snap` encoder under callgrind.)
pub struct Object<'a> {
    out: &'a mut String,
    /// No field written yet: the next one needs no comma.
    empty: bool,
}

impl<'a> Object<'a> {
    /// `{`, the fields `fields` writes, `}`.
    #[inline(always)]
    pub fn write(out: &'a mut String, fields: impl FnOnce(&mut Object<'_>)) {
        out.push('{');
        let mut o = Object { out, empty: true };
        fields(&mut o);
        o.out.push('}');
    }

    /// `"name":`, after the comma it needs; the value is to be written next.
    #[inline(always)]
    fn key(&mut self, name: &str) -> &mut String {
        // Inlined where each field is written, the comma is decided and the name's length
        // known there: the key is three short writes, none a call to copy its bytes (a
        // `key` function of its own, called, was a fifth of the encoder's instructions).
        self.out.push_str(if self.empty { "\"" } else { ",\"" });
        self.empty = false;
        self.out.push_str(name);
        self.out.push_str("\":");
        self.out
    }

    #[inline(always)]
    pub fn int(&mut self, name: &str, v: i64) -> &mut Self {
        int(self.key(name), v);
        self
    }

    /// A number given in hundredths (`centi`).
    #[inline(always)]
    pub fn centi(&mut self, name: &str, v: i64) -> &mut Self {
        centi(self.key(name), v);
        self
    }

    #[inline(always)]
    pub fn string(&mut self, name: &str, v: &str) -> &mut Self {
        string(self.key(name), v);
        self
    }

    /// A string, or `null` when there is none.
    #[inline(always)]
    pub fn opt_string(&mut self, name: &str, v: Option<&str>) -> &mut Self {
        let out = self.key(name);
        match v {
            Some(v) => string(out, v),
            None => out.push_str("null"),
        }
        self
    }

    #[inline(always)]
    pub fn bool(&mut self, name: &str, v: bool) -> &mut Self {
        self.key(name).push_str(if v { "true" } else { "false" });
        self
    }

    /// A nested object of the fields `fields` writes.
    #[inline(always)]
    pub fn object(&mut self, name: &str, fields: impl FnOnce(&mut Object<'_>)) -> &mut Self {
        Object::write(self.key(name), fields);
        self
    }

    /// A nested array of the items `items` writes.
    #[inline(always)]
    pub fn array(&mut self, name: &str, items: impl FnOnce(&mut Array<'_>)) -> &mut Self {
        Array::write(self.key(name), items);
        self
    }

    /// A nested array as `array` writes it, but only when `items` wrote an item: else
    /// nothing at all, not even the comma. Written in place and taken back when empty, so
    /// it needs no buffer of its own.
    #[inline(always)]
    pub fn array_if_any(&mut self, name: &str, items: impl FnOnce(&mut Array<'_>)) -> &mut Self {
        let (mark, empty) = (self.out.len(), self.empty);
        self.key(name).push('[');
        let mut a = Array {
            out: &mut *self.out,
            empty: true,
        };
        items(&mut a);
        if a.empty {
            self.out.truncate(mark);
            self.empty = empty;
        } else {
            self.out.push(']');
        }
        self
    }
}

/// One JSON array being written, an item at a time, each after the first with its comma.
pub struct Array<'a> {
    out: &'a mut String,
    /// No item written yet.
    empty: bool,
}

impl<'a> Array<'a> {
    /// `[`, the items `items` writes, `]`.
    #[inline(always)]
    pub fn write(out: &'a mut String, items: impl FnOnce(&mut Array<'_>)) {
        out.push('[');
        let mut a = Array { out, empty: true };
        items(&mut a);
        a.out.push(']');
    }

    /// The next item, written whole by `value` (an object's own writer, say).
    #[inline(always)]
    pub fn item(&mut self, value: impl FnOnce(&mut String)) -> &mut Self {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        value(self.out);
        self
    }

    /// The next item: an object of the fields `fields` writes.
    #[inline(always)]
    pub fn object(&mut self, fields: impl FnOnce(&mut Object<'_>)) -> &mut Self {
        self.item(|out| Object::write(out, fields))
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

    #[test]
    fn fields_get_their_commas_and_an_empty_array_if_any_leaves_no_trace() {
        let mut s = String::new();
        Object::write(&mut s, |o| {
            o.array_if_any("none", |_| {})
                .int("a", -1)
                .centi("c", 250)
                .opt_string("h", None)
                .opt_string("g", Some("pot"))
                .bool("full", false)
                .array_if_any("none", |_| {})
                .array_if_any("some", |a| {
                    a.object(|o| {
                        o.string("k", "a \"quoted\" name");
                    })
                    .object(|_| {});
                })
                .object("d", |_| {})
                .array("e", |_| {});
        });
        assert_eq!(
            s,
            r#"{"a":-1,"c":2.5,"h":null,"g":"pot","full":false,"some":[{"k":"a \"quoted\" name"},{}],"d":{},"e":[]}"#
        );
    }
}
