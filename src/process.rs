//! This process's CPU time and memory, read from `/proc` (Linux; zeros elsewhere): a leaf
//! that `/metrics`, `/api/stats` and `loadtest` all read.

/// This process's CPU seconds (user + system) and resident bytes now.
pub fn now() -> (f64, u64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are in clock ticks, 100 a second on Linux.
    let cpu = (field(11) + field(12)) / 100.0;
    (cpu, status_kb("VmRSS:") * 1024)
}

/// Resident memory high-water mark, in MiB.
pub fn memory_mb() -> f64 {
    (status_kb("VmHWM:") as f64 / 1024.0 * 10.0).round() / 10.0
}

/// One `kB` line of /proc/self/status (`VmRSS:`, `VmHWM:`), 0 when unreadable.
fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
}
