//! Helpers shared by the binary tests: locating the shared sample assets (skip or fail by
//! `SKEL_REQUIRE_ASSETS`, from `skel-test-support`), running the real `skel` binary,
//! comparing number lists.
#![allow(dead_code, reason = "each test binary uses a subset of these helpers")]

use std::process::Command;

use serde_json::Value;

/// `../shared` beside the workspace, and `../shared/assets/<rel>` or `None` after a skip
/// (a failure when `SKEL_REQUIRE_ASSETS=1`).
#[allow(
    unused_imports,
    reason = "each test binary uses a subset of these helpers"
)]
pub use skel_test_support::{shared_asset, shared_root};

/// Runs `skel` with `args`: (success, stdout, stderr).
pub fn skel(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_skel"))
        .args(args)
        .output()
        .expect("run skel");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs `skel pose … --json` (the caller passes the flags) and parses its output.
pub fn pose(args: &[&str]) -> Value {
    let (ok, stdout, stderr) = skel(args);
    assert!(ok, "skel {args:?} failed: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Largest absolute difference between two equally long lists.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}
