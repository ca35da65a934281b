//! Secret files: reading one only when nobody else can have put it there, and creating one
//! that nobody else can read. The session key is one (`session_key`); any other secret a
//! node keeps in a file (one per line, say, to rotate) reads and writes through the same
//! two functions, `read` and `read_or_create`, generic over the form its text must have.
//!
//! Whoever can write the file can choose the secret, so a file writable by its group or by
//! others, or owned by a user who is neither this process's nor root (root can write any
//! file anyway: OpenSSH's `StrictModes` rule), is refused, naming the `chmod` or `chown`
//! that fixes it. One readable by group or others is used, with a warning. A file whose text
//! is not of its form is named as the key file it should be, with the form it must have.
//! A new file is written whole or not at all and owner-only from its first byte, and never
//! replaces one another process made first.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most a secret file may hold: far above a few keys, far below a file read by mistake.
const MAX_BYTES: u64 = 64 * 1024;

/// The form a secret file's text must have.
pub struct Form<T> {
    /// What the file is, after "is not a": `session key file`.
    pub what: &'static str,
    /// The form, said to whoever must fix the file: `it must hold 64 hex digits, as …`.
    pub must: &'static str,
    /// The secret in the file's text (whitespace around it included), or `None`.
    pub parse: fn(&str) -> Option<T>,
}

/// Why a secret file cannot be used; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("cannot read the key file {}: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the key file {} is not a regular file", path.display())]
    NotAFile { path: PathBuf },
    #[error(
        "the key file {} is writable by its group or by others (mode {mode:03o}), so they could choose the key: refused; `chmod 600 {}` fixes it",
        path.display(), path.display()
    )]
    Writable { path: PathBuf, mode: u32 },
    #[error(
        "the key file {} belongs to uid {owner}, not to this process's user (uid {user}), who could choose the key: refused; `chown {user} {}` (as root) fixes it",
        path.display(), path.display()
    )]
    Owner {
        path: PathBuf,
        owner: u32,
        user: u32,
    },
    #[error("{} is not a {what}: {must}", path.display())]
    Form {
        path: PathBuf,
        what: &'static str,
        must: &'static str,
    },
    #[error("cannot create the key file {}: {error}", path.display())]
    Create {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl KeyFileError {
    /// Whether the file is simply not there (`read_or_create` then makes it).
    pub fn is_missing(&self) -> bool {
        matches!(self, KeyFileError::Unreadable { error, .. } if error.kind() == std::io::ErrorKind::NotFound)
    }
}

/// The secret in `path`, once the file is found safe (owner and mode) and of its form.
pub fn read<T>(path: &Path, form: &Form<T>) -> Result<T, KeyFileError> {
    let unreadable = |error| KeyFileError::Unreadable {
        path: path.to_path_buf(),
        error,
    };
    // Not a FIFO or a device: opening one could block or read for ever.
    if !std::fs::metadata(path).map_err(unreadable)?.is_file() {
        return Err(KeyFileError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    // The open file's own metadata: what is checked is what is read.
    #[cfg(unix)]
    judge(path, &file.metadata().map_err(unreadable)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    let wrong_form = || KeyFileError::Form {
        path: path.to_path_buf(),
        what: form.what,
        must: form.must,
    };
    if bytes.len() as u64 > MAX_BYTES {
        return Err(wrong_form());
    }
    let text = String::from_utf8(bytes).map_err(|_| wrong_form())?;
    (form.parse)(&text).ok_or_else(wrong_form)
}

/// Refuses a file others could have written; warns about one others can read.
#[cfg(unix)]
fn judge(path: &Path, meta: &std::fs::Metadata) -> Result<(), KeyFileError> {
    use std::os::unix::fs::MetadataExt;
    let user = rustix::process::geteuid().as_raw();
    if meta.uid() != user && meta.uid() != 0 {
        return Err(KeyFileError::Owner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            user,
        });
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o022 != 0 {
        return Err(KeyFileError::Writable {
            path: path.to_path_buf(),
            mode,
        });
    }
    if mode & 0o044 != 0 {
        tracing::warn!(
            file = %path.display(),
            mode = format!("{mode:03o}"),
            "the key file is readable by its group or by others: `chmod 600` keeps it to its owner"
        );
    }
    Ok(())
}

/// The secret in `path`; when there is no file, one is made holding `make()`'s text (and if
/// another process made it first, that one is read instead: theirs is the secret).
pub fn read_or_create<T>(
    path: &Path,
    form: &Form<T>,
    make: impl FnOnce() -> String,
) -> Result<T, KeyFileError> {
    match read(path, form) {
        Err(e) if e.is_missing() => match write_new(path, &make()) {
            Ok(()) => read(path, form),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read(path, form),
            Err(error) => Err(KeyFileError::Create {
                path: path.to_path_buf(),
                error,
            }),
        },
        other => other,
    }
}

/// Written to a temporary file created owner-only (never readable by others, even empty),
/// flushed, and linked into place: a crash leaves no file or the whole file, never half of
/// one, and a file already there (another node's, made a moment before) is never replaced
/// (`AlreadyExists`).
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(|| "key".into(), |n| n.to_string_lossy().into_owned());
    let partial = dir.join(format!("{name}.{}.partial", std::process::id()));
    // A partial file of an earlier process with this id (it crashed) is not ours to keep.
    let _ = std::fs::remove_file(&partial);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&partial)?;
    let written = f.write_all(text.as_bytes()).and_then(|()| f.sync_all());
    let linked = written.and_then(|()| std::fs::hard_link(&partial, path));
    let _ = std::fs::remove_file(&partial);
    // The new name made durable too, or a crash could lose a key already handed out.
    if linked.is_ok()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
    linked
}

#[cfg(test)]
mod tests;
