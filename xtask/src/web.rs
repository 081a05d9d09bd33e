//! `cargo xtask web`: builds the browser demo (`crates/skel-web`) with cargo for wasm32 and
//! wasm-bindgen's `--target web` glue into a folder with `index.html` that any static server
//! can serve; without `--out`, builds into `web/` of the target directory and serves it on 127.0.0.1
//! ([`crate::web_serve`]). wasm-bindgen runs as a library linked into xtask
//! (`wasm-bindgen-cli-support`, pinned to the lock's `wasm-bindgen`, which the glue must match
//! exactly), so no `wasm-bindgen-cli` is installed.

use std::path::{Path, PathBuf};
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
    let started = Instant::now();
    let bindgen_wasm = crate::wasm_build::build(root, CRATE, WASM_STEM, out, false)?;
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
    crate::wasm_build::report("web", out, started, &bindgen_wasm, None);
    Ok(())
}
