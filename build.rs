// The migrations are embedded by `sqlx::migrate!`: a migration added or changed must
// rebuild the crate (sqlx's own advice, `sqlx migrate build-script`).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
