//! `cargo xtask npm`: builds the npm package `skel-anim` from `crates/skel-js` into a folder
//! ready for `npm pack`: the wasm32 release build, wasm-bindgen's ES-module glue (the "web"
//! target) with its TypeScript declarations, and beside them the hand-written files of
//! `crates/skel-js/npm/` (the entry module with `init` and URL loading, the three.js and
//! Babylon.js adapters and the base class they share, their `.d.ts`, the README) and the
//! `package.json` with the workspace's version. Prints the `.wasm` size plain and gzipped
//! against the package budget. See docs/npm.md.

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The bindings crate and its wasm file's stem.
const CRATE: &str = "skel-js";
const WASM_STEM: &str = "skel_js";
/// The package's name on npm.
const PACKAGE: &str = "skel-anim";
/// The largest gzipped `.wasm` the package may ship (issue 43: 1.5 MB with every decoder in).
const GZIP_BUDGET: usize = 1_500_000;
/// The hand-written files copied into the package, from `crates/skel-js/npm/`.
const FILES: [&str; 9] = [
    "index.js",
    "index.d.ts",
    "three.js",
    "three.d.ts",
    "babylon.js",
    "babylon.d.ts",
    "character.js",
    "character.d.ts",
    "README.md",
];

/// `cargo xtask npm`'s options.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Build into this folder (default: `npm/skel-anim` in the target directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}

/// Builds the package into `args.out`.
///
/// # Errors
/// When the wasm32 target cannot be added, the build or wasm-bindgen fails, a file cannot be
/// copied or written, or the gzipped module is over [`GZIP_BUDGET`].
pub(crate) fn run(args: Args) -> Result<(), String> {
    let root = crate::workspace_root();
    let out = args.out.unwrap_or_else(|| {
        crate::bench_count::target_dir(&root)
            .join("npm")
            .join(PACKAGE)
    });
    build(&root, &out)
}

/// See [`run`].
fn build(root: &Path, out: &Path) -> Result<(), String> {
    let started = Instant::now();
    let bindgen_wasm = crate::wasm_build::build(root, CRATE, WASM_STEM, out, true)?;
    let from = root.join("crates/skel-js/npm");
    for file in FILES {
        std::fs::copy(from.join(file), out.join(file))
            .map_err(|e| format!("cannot copy crates/skel-js/npm/{file}: {e}"))?;
    }
    let package = package_json(root)?;
    std::fs::write(out.join("package.json"), package)
        .map_err(|e| format!("cannot write package.json: {e}"))?;

    let gzip = crate::wasm_build::report("npm", out, started, &bindgen_wasm, Some(GZIP_BUDGET));
    match gzip {
        Some(n) if n > GZIP_BUDGET => Err(format!(
            "{} is {n} bytes gzipped, over the package budget of {GZIP_BUDGET}",
            bindgen_wasm.display()
        )),
        _ => Ok(()),
    }
}

/// The package's `package.json`: `crates/skel-js/npm/package.json` (an ES module whose entry
/// re-exports the bindings, one subpath per adapter, `types` first in each so TypeScript and
/// bundlers resolve them) with the workspace's version written in.
///
/// # Errors
/// When the template cannot be read or has no `{version}` to fill.
fn package_json(root: &Path) -> Result<String, String> {
    let template = std::fs::read_to_string(root.join("crates/skel-js/npm/package.json"))
        .map_err(|e| format!("cannot read crates/skel-js/npm/package.json: {e}"))?;
    if !template.contains("{version}") {
        return Err("crates/skel-js/npm/package.json has no \"{version}\" to fill".to_owned());
    }
    Ok(template.replace("{version}", env!("CARGO_PKG_VERSION")))
}
