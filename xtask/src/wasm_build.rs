//! The wasm32 release build and wasm-bindgen's ES-module glue that `cargo xtask web` (the demo
//! page) and `cargo xtask npm` (the package) both make: one crate built for the browser, its
//! glue written beside the `.wasm`, and a line with the `.wasm`'s size plain and gzipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Builds `krate` (whose wasm file's stem is `stem`) for [`crate::wasm::TARGET`] in release
/// and writes wasm-bindgen's "web" glue into `out`, with TypeScript declarations when
/// `typescript`. Returns the `.wasm` wasm-bindgen wrote (`<stem>_bg.wasm` in `out`).
///
/// # Errors
/// When the target cannot be added, the build or wasm-bindgen fails, or `out` cannot be made.
pub(crate) fn build(
    root: &Path,
    krate: &str,
    stem: &str,
    out: &Path,
    typescript: bool,
) -> Result<PathBuf, String> {
    crate::wasm::ensure_target()?;
    crate::workspace::cargo(&[
        "build",
        "--target",
        crate::wasm::TARGET,
        "--release",
        "-p",
        krate,
    ])?;
    let wasm = crate::bench_count::target_dir(root)
        .join(format!("{}/release/{stem}.wasm", crate::wasm::TARGET));
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(typescript)
        // The CLI's default (the library's is to omit it): `init()` without arguments fetches
        // `<stem>_bg.wasm` beside the glue (through `import.meta.url`), which the demo page,
        // bundlers and plain pages all rely on.
        .omit_default_module_path(false)
        // The function-name section only serves debuggers and is 0.9 MB of the demo's module:
        // without it the download is 10 % smaller after gzip (more than `wasm-opt -Oz`
        // saves); panics still reach the page through the panic hook's message.
        .remove_name_section(true)
        .generate(out)
        .map_err(|e| format!("wasm-bindgen failed on {}: {e:#}", wasm.display()))?;
    Ok(out.join(format!("{stem}_bg.wasm")))
}

/// Prints `xtask <tool>: built <out> in <s> s; <wasm> is <n> bytes (<gzip> bytes gzip -9)`,
/// with `budget` after the gzipped size when there is one, and returns the `gzip -9` size of
/// `wasm` (`None` when gzip is not installed).
pub(crate) fn report(
    tool: &str,
    out: &Path,
    started: Instant,
    wasm: &Path,
    budget: Option<usize>,
) -> Option<usize> {
    let plain = std::fs::metadata(wasm).map_or(0, |m| m.len());
    let gzip = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(wasm)
        .output()
        .ok()
        .and_then(|out| out.status.success().then_some(out.stdout.len()));
    let gzip_text = match (gzip, budget) {
        (None, _) => "gzip not found".to_owned(),
        (Some(n), None) => format!("{n} bytes gzip -9"),
        (Some(n), Some(budget)) => format!("{n} bytes gzip -9, budget {budget}"),
    };
    eprintln!(
        "xtask {tool}: built {} in {:.0} s; {} is {plain} bytes ({gzip_text})",
        out.display(),
        started.elapsed().as_secs_f64(),
        wasm.display()
    );
    gzip
}
