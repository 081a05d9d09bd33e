//! Helpers shared by the binary tests: locating the shared sample assets (skip or fail by
//! `SKEL_REQUIRE_ASSETS`), running the real `skel` binary, comparing number lists.
#![allow(dead_code, reason = "each test binary uses a subset of these helpers")]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// `../shared` beside the workspace.
pub fn shared_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"))
}

/// `../shared/assets/<rel>` when it exists. When it does not: panics if
/// `SKEL_REQUIRE_ASSETS=1`, else prints a loud SKIP line for `test` and returns `None`.
pub fn shared_asset(test: &str, rel: &str) -> Option<PathBuf> {
    let path = shared_root().join("assets").join(rel);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("SKEL_REQUIRE_ASSETS").as_deref() != Ok("1"),
        "{test}: {} is missing and SKEL_REQUIRE_ASSETS=1",
        path.display()
    );
    eprintln!("SKIP {test}: {} not found", path.display());
    None
}

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
