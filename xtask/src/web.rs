//! `cargo xtask web`: builds the browser demo (`crates/skel-web`) with cargo for wasm32 and
//! `wasm-bindgen --target web` into a folder with `index.html` that any static server can
//! serve; without `--out`, builds into `target/web` and serves it on 127.0.0.1
//! ([`crate::web_serve`]). Installs `wasm-bindgen-cli` of the lock's `wasm-bindgen` version
//! when the one on `PATH` differs (the CLI and the library must match exactly).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The demo's crate and its wasm file's stem.
const CRATE: &str = "skel-web";
const WASM_STEM: &str = "skel_web";

/// Builds the page into `out` (or `target/web`), then serves it unless `out` was given.
///
/// # Errors
/// When a tool cannot be installed or run, the build fails, or the port cannot be bound.
pub(crate) fn run(out: Option<PathBuf>, port: u16) -> Result<(), String> {
    let root = crate::workspace_root();
    let serve = out.is_none();
    let out = out.unwrap_or_else(|| root.join("target/web"));
    build(&root, &out)?;
    if serve {
        crate::web_serve::serve(&out, port)
    } else {
        Ok(())
    }
}

/// Builds the page into `out`: wasm32 release build, wasm-bindgen, `index.html`; prints the
/// `.wasm` size plain and gzipped.
///
/// # Errors
/// See [`run`].
pub(crate) fn build(root: &Path, out: &Path) -> Result<(), String> {
    crate::wasm::ensure_target()?;
    let version = lock_version(root, "wasm-bindgen")?;
    ensure_cli(&version)?;
    let started = Instant::now();
    crate::workspace::cargo(&[
        "build",
        "--target",
        crate::wasm::TARGET,
        "--release",
        "-p",
        CRATE,
    ])?;
    let wasm = root.join(format!(
        "target/{}/release/{WASM_STEM}.wasm",
        crate::wasm::TARGET
    ));
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let status = Command::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(out)
        .arg(&wasm)
        .status()
        .map_err(|e| format!("cannot run wasm-bindgen: {e}"))?;
    if !status.success() {
        return Err(format!("wasm-bindgen failed ({status})"));
    }
    let page = root.join("crates/skel-web/web/index.html");
    std::fs::copy(&page, out.join("index.html"))
        .map_err(|e| format!("cannot copy {}: {e}", page.display()))?;
    let bindgen_wasm = out.join(format!("{WASM_STEM}_bg.wasm"));
    let plain = std::fs::metadata(&bindgen_wasm).map_or(0, |m| m.len());
    let gzip = gzip_size(&bindgen_wasm).map_or_else(
        || "gzip not found".to_owned(),
        |n| format!("{n} bytes gzip -9"),
    );
    eprintln!(
        "xtask web: built {} in {:.0} s; {} is {plain} bytes ({gzip})",
        out.display(),
        started.elapsed().as_secs_f64(),
        bindgen_wasm.display()
    );
    Ok(())
}

/// The version of package `name` in `Cargo.lock`.
fn lock_version(root: &Path, name: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"")
            && let Some(version) = lines
                .next()
                .and_then(|l| l.strip_prefix("version = \""))
                .and_then(|l| l.strip_suffix('"'))
        {
            return Ok(version.to_owned());
        }
    }
    Err(format!("Cargo.lock has no package {name}"))
}

/// Installs `wasm-bindgen-cli` `version` unless `wasm-bindgen --version` already says it.
fn ensure_cli(version: &str) -> Result<(), String> {
    let have = Command::new("wasm-bindgen")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if have == format!("wasm-bindgen {version}") {
        return Ok(());
    }
    eprintln!(
        "xtask web: installing wasm-bindgen-cli {version} (found {:?}); a few minutes",
        if have.is_empty() { "none" } else { &have }
    );
    let started = Instant::now();
    // `--locked` first (the CLI's own lock file); when a crate it locks is no longer in the
    // index (webpki-roots 1.0.11 for 0.2.130 on 2026-12-03), resolve afresh.
    for locked in [true, false] {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["install", "wasm-bindgen-cli", "--version", version]);
        if locked {
            cmd.arg("--locked");
        }
        let status = cmd
            .status()
            .map_err(|e| format!("cannot run cargo install: {e}"))?;
        if status.success() {
            eprintln!(
                "xtask web: installed wasm-bindgen-cli {version} in {:.0} s",
                started.elapsed().as_secs_f64()
            );
            return Ok(());
        }
        if locked {
            eprintln!("xtask web: the locked install failed; trying without --locked");
        }
    }
    Err(format!("cannot install wasm-bindgen-cli {version}"))
}

/// The size of `path` compressed with `gzip -9`, when gzip is installed.
fn gzip_size(path: &Path) -> Option<usize> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len())
}
