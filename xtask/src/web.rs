//! `cargo xtask web`: builds the browser demo (`crates/skel-web`) with cargo for wasm32 and
//! wasm-bindgen's `--target web` glue into a folder with `index.html` that any static server
//! can serve; without `--out`, builds into `web/` of the target directory and serves it on 127.0.0.1
//! ([`crate::web_serve`]). wasm-bindgen runs as a library linked into xtask
//! (`wasm-bindgen-cli-support`, pinned to the lock's `wasm-bindgen`, which the glue must match
//! exactly), so no `wasm-bindgen-cli` is installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The demo's crate and its wasm file's stem.
const CRATE: &str = "skel-web";
const WASM_STEM: &str = "skel_web";

/// Builds the page into `out` (or `web/` of the target directory), then checks it in a headless browser
/// (`check`), or serves it unless `out` was given.
///
/// # Errors
/// When a tool cannot be installed or run, the build fails, the check fails, or the port
/// cannot be bound.
pub(crate) fn run(out: Option<PathBuf>, port: u16, check: bool) -> Result<(), String> {
    let root = crate::workspace_root();
    let serve = out.is_none();
    let out = out.unwrap_or_else(|| crate::bench_count::target_dir(&root).join("web"));
    build(&root, &out)?;
    if check {
        crate::install::browser("xtask web --check");
        crate::web_check::run(&out)
    } else if serve {
        crate::web_serve::serve(&out, port)
    } else {
        Ok(())
    }
}

/// Builds the page into `out`: wasm32 release build, wasm-bindgen's glue, `index.html`; prints the
/// `.wasm` size plain and gzipped.
///
/// # Errors
/// See [`run`].
pub(crate) fn build(root: &Path, out: &Path) -> Result<(), String> {
    crate::wasm::ensure_target()?;
    let started = Instant::now();
    crate::workspace::cargo(&[
        "build",
        "--target",
        crate::wasm::TARGET,
        "--release",
        "-p",
        CRATE,
    ])?;
    let wasm = crate::bench_count::target_dir(root)
        .join(format!("{}/release/{WASM_STEM}.wasm", crate::wasm::TARGET));
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(false)
        // The CLI's default (the library's is to omit it): `init()` without arguments fetches
        // `skel_web_bg.wasm` beside the script, which the page relies on.
        .omit_default_module_path(false)
        // The function-name section is 0.9 MB of the module: without it the download is 10 %
        // smaller after gzip (more than `wasm-opt -Oz` saves); panics still reach the page
        // through the panic hook's message.
        .remove_name_section(true)
        .generate(out)
        .map_err(|e| format!("wasm-bindgen failed on {}: {e:#}", wasm.display()))?;
    // The page and, beside it, the built-in character's animation graphs it fetches (the
    // default scene's and the slope scene's).
    for (from, to) in [
        ("crates/skel-web/web/index.html", "index.html"),
        ("graphs/default_character.json", skel_web::DEFAULT_GRAPH_URL),
        (
            "graphs/default_character_slope.json",
            skel_web::SLOPE_GRAPH_URL,
        ),
        // The pointer-animated fixture `--check` loads with `?asset=`.
        (
            "fixtures/animation_pointer.gltf",
            crate::web_check::POINTER_FIXTURE,
        ),
        // The 600-bone VRM avatar `--check` opens with `?asset=`.
        (
            "fixtures/vrm/v1_600_bones.vrm",
            crate::web_check::VRM_FIXTURE,
        ),
    ] {
        std::fs::copy(root.join(from), out.join(to))
            .map_err(|e| format!("cannot copy {from}: {e}"))?;
    }
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

/// The size of `path` compressed with `gzip -9`, when gzip is installed.
pub(crate) fn gzip_size(path: &Path) -> Option<usize> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len())
}
