//! Standard output that a reader going away does not turn into a panic.
//!
//! `println!` panics when stdout is a closed pipe (`undercooked verify DIR | head -1`), so
//! the commands print through `outln!` / `out!` and `Stdout` instead: once the pipe is
//! closed, what is left to print is dropped quietly and the command runs to its end, so it
//! exits with the code it would have had.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Set once stdout refused a write; nothing more is printed after it.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output, for writers (the CSV writer) as for `outln!`.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !CLOSED.load(Relaxed) && io::stdout().lock().write_all(buf).is_err() {
            CLOSED.store(true, Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !CLOSED.load(Relaxed) && io::stdout().lock().flush().is_err() {
            CLOSED.store(true, Relaxed);
        }
        Ok(())
    }
}

pub fn print(args: std::fmt::Arguments) {
    let _ = Stdout.write_fmt(args);
}

/// `println!` that a closed stdout does not panic.
macro_rules! outln {
    () => { $crate::cli::out::print(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::out::print(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that a closed stdout does not panic.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::print(format_args!($($arg)*)) };
}
