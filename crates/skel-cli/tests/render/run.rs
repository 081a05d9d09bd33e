//! Running the real `skel` binary for the render tests: the workspace, the GPU rule, output
//! folders.

use std::path::PathBuf;
use std::process::Command;

pub(crate) fn workspace() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Whether there is an adapter; `false` after a skip (a failure when `SKEL_REQUIRE_GPU=1`).
pub(crate) fn gpu_available(test: &str) -> bool {
    skel_test_support::gpu(test, skel::gpu::GpuContext::new_headless()).is_some()
}

pub(crate) struct Run {
    pub(crate) ok: bool,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

pub(crate) fn skel(args: &[&str]) -> Run {
    let xdg = std::env::temp_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_skel"))
        .args(args)
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var_os("XDG_RUNTIME_DIR").unwrap_or(xdg.into()),
        )
        .output()
        .expect("run skel");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A fresh output directory for one test.
pub(crate) fn out_dir(test: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("skel-render-test-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub(crate) fn render(test: &str, args: &[&str]) -> PathBuf {
    let dir = out_dir(test);
    let mut all = vec!["render", "--out", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let run = skel(&all);
    assert!(
        run.ok,
        "{test}: skel {all:?} failed:\n{}\n{}",
        run.stdout, run.stderr
    );
    dir
}
