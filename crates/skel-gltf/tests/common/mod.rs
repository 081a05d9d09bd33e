//! Shared by the integration tests: where the shared assets and golden files are (and the
//! SKEL_REQUIRE_ASSETS rule), and a small glTF writer.
#![allow(dead_code, reason = "each test file uses a different part")]

pub mod builder;

use std::path::PathBuf;

/// `../shared` beside the repository when it holds `assets/` and `golden/`; otherwise
/// `None` after a skip (`skel_test_support::shared`).
///
/// # Panics
/// When a folder is missing and `SKEL_REQUIRE_ASSETS=1`.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    skel_test_support::shared(test, "assets")?;
    skel_test_support::shared(test, "golden")?;
    Some(skel_test_support::shared_root())
}
