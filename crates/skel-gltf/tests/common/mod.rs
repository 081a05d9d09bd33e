//! Shared by the integration tests: where the shared assets and golden files are (and the
//! SKEL_REQUIRE_ASSETS rule), and a small glTF writer.
#![allow(dead_code, reason = "each test file uses a different part")]

pub mod builder;

use std::path::PathBuf;

/// `../shared` beside the repository, or `None` (after a loud SKIP line) when it is missing
/// and `SKEL_REQUIRE_ASSETS` is not `1`.
///
/// # Panics
/// When the folder is missing and `SKEL_REQUIRE_ASSETS=1`.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
    if dir.join("assets").is_dir() && dir.join("golden").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("SKEL_REQUIRE_ASSETS").as_deref() != Ok("1"),
        "{test}: {} is missing and SKEL_REQUIRE_ASSETS=1",
        dir.display()
    );
    eprintln!(
        "SKIP {test}: {} not found (set SKEL_REQUIRE_ASSETS=1 to make this a failure)",
        dir.display()
    );
    None
}
