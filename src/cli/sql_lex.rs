//! The statement's code as the database itself will read it: comments removed and quoted
//! text blanked, by each engine's own rules, so that the guard (`sql_guard`) sees the
//! keywords and `;` the engine will run, and nothing a comment or a string hides.
//!
//! The two engines disagree where it matters. PostgreSQL nests `/* /* */ */` comments (so
//! `/* /* */ SELECT 1 */ COPY …` is a COPY there, and a SELECT to a reader that does not
//! nest), quotes with `$$…$$` and `$tag$…$tag$`, reads backslash escapes in `E'…'`, ends a
//! `--` comment at a carriage return too, and takes `` ` `` and `[` as operators; SQLite
//! does none of that and quotes names with `` `…` `` and `[…]`. `U&'…'` and `U&"…"`
//! (PostgreSQL's Unicode escapes) are refused by name: a name spelled in escapes could be
//! any name. Hand-written because it is small and its rules are the engines' own lexers'
//! (PostgreSQL's `scan.l`, SQLite's `tokenize.c`), each a few lines here; a general SQL
//! tokenizer crate would be a parser's worth of code to trust for the same answer.
//!
//! Anything this cannot read to its end (a comment, string or dollar quote left open) is
//! refused, naming it: text the guard did not read is text it cannot vouch for. So is an
//! `E'…'` string followed by another quoted part (PostgreSQL joins parts split across lines
//! and reads the later ones with escapes too), and a NUL (the engines stop reading there).

use undercooked::store::db::Dialect;

/// Where a quoted run that opened at `chars[from]` ends (the index after its closing
/// `quote`): `quote` doubled is one quote inside; with `backslash`, `\` escapes the next
/// character. `None` when it never closes.
fn quoted_end(chars: &[char], from: usize, quote: char, backslash: bool) -> Option<usize> {
    let mut i = from + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if backslash => i += 2,
            c if c == quote && chars.get(i + 1) == Some(&quote) => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Where the comment that opened at `chars[from]` (`/*`) ends; nested ones count on
/// PostgreSQL. `None` when it never closes.
fn comment_end(chars: &[char], from: usize, nests: bool) -> Option<usize> {
    let mut depth = 1;
    let mut i = from + 2;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('*', Some('/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            ('/', Some('*')) if nests => {
                depth += 1;
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// A character a PostgreSQL name or dollar-quote tag may start with (any non-ASCII too).
fn starts_name(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

/// The dollar-quote delimiter that starts at `chars[from]` (`$$` or `$tag$`), if one does.
fn dollar_tag(chars: &[char], from: usize) -> Option<String> {
    let mut i = from + 1;
    if chars.get(i).is_some_and(|c| starts_name(*c)) {
        while chars
            .get(i)
            .is_some_and(|c| starts_name(*c) || c.is_ascii_digit())
        {
            i += 1;
        }
    }
    (chars.get(i) == Some(&'$')).then(|| chars[from..=i].iter().collect())
}

/// Whether a quote comes next after `chars[from..]`'s spaces and comments: PostgreSQL joins
/// `E'a'` and a `'b'` on a following line into one string, read in the first's mode. (It
/// joins only across a line break; any spacing is taken here, refusing more, never less.)
fn continued(chars: &[char], from: usize) -> bool {
    let mut i = from;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            (c, _) if c.is_whitespace() => i += 1,
            ('-', Some('-')) => {
                i += chars[i..]
                    .iter()
                    .position(|c| *c == '\n')
                    .unwrap_or(chars.len() - i);
            }
            ('/', Some('*')) => match comment_end(chars, i, true) {
                Some(end) => i = end,
                None => return false,
            },
            (c, _) => return c == '\'',
        }
    }
    false
}

/// The code of `sql` as `dialect` reads it: each comment a space, each string, quoted name
/// or dollar quote ` q `; or the sentence saying what could not be read.
pub fn code_of(sql: &str, dialect: Dialect) -> Result<String, String> {
    let pg = dialect == Dialect::Postgres;
    // The engines read a statement up to a NUL: text past one is not what runs.
    if sql.contains('\0') {
        return Err("a NUL character is refused".into());
    }
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '-' && next == Some('-') {
            let ends = |c: &char| *c == '\n' || (pg && *c == '\r');
            i = chars[i..]
                .iter()
                .position(ends)
                .map_or(chars.len(), |n| i + n);
            out.push(' ');
        } else if c == '/' && next == Some('*') {
            i = comment_end(&chars, i, pg).ok_or("a /* comment is not closed")?;
            out.push(' ');
        } else if starts_name(c) {
            // A whole word first: `E'…'` and `U&'…'` are prefixes only at a word's start.
            let start = i;
            while chars
                .get(i)
                .is_some_and(|&c| starts_name(c) || c.is_ascii_digit() || (pg && c == '$'))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let quote = chars.get(i).copied();
            if pg
                && word.eq_ignore_ascii_case("u")
                && quote == Some('&')
                && let Some('\'' | '"') = chars.get(i + 1)
            {
                return Err("U&'…' and U&\"…\" (text in Unicode escapes) are refused: the guard does not decode them, so it cannot tell what they name; write the text plainly".into());
            }
            if pg && word.eq_ignore_ascii_case("e") && quote == Some('\'') {
                i = quoted_end(&chars, i, '\'', true).ok_or("an E'… string is not closed")?;
                if continued(&chars, i) {
                    return Err("an E'…' string followed by another quoted part is refused: PostgreSQL may join the two and read the second with backslash escapes too; write it as one string".into());
                }
                out.push_str(" q ");
            } else {
                out.push_str(&word);
            }
        } else if pg && c == '$' {
            match dollar_tag(&chars, i) {
                Some(tag) => {
                    let body = i + tag.chars().count();
                    let rest: String = chars[body..].iter().collect();
                    let close = rest
                        .find(&tag)
                        .ok_or_else(|| format!("a {tag}…{tag} quote is not closed"))?;
                    i = body + rest[..close].chars().count() + tag.chars().count();
                    out.push_str(" q ");
                }
                None => {
                    out.push('$');
                    i += 1;
                }
            }
        } else if !pg && c == '[' {
            // SQLite's `[name]` has no escape: its first `]` ends it.
            let close = chars[i..].iter().position(|c| *c == ']');
            i += close.ok_or("a quoted […] is not closed")? + 1;
            out.push_str(" q ");
        } else if c == '\'' || c == '"' || (!pg && c == '`') {
            i = quoted_end(&chars, i, c, false)
                .ok_or_else(|| format!("a quoted {c}…{c} is not closed"))?;
            out.push_str(" q ");
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
