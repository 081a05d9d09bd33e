//! The wasm32 build check of `cargo xtask ci`: the library crates and the demo page must keep
//! building for `wasm32-unknown-unknown` (a browser's target), clippy-clean, so that a
//! blocking call or a `Send + Sync` assert that only holds natively cannot slip back in, and
//! the browser code is linted as the native code is.

use std::process::Command;

/// The browser target.
pub(crate) const TARGET: &str = "wasm32-unknown-unknown";

/// The crates a page links (everything but the CLI, the test support and xtask, with the
/// demos' shared policy, `skel-demo`), the demo page's own (`skel-web`, whose browser code
/// no native build compiles) and the npm package's bindings (`skel-js`, whose exports only
/// wasm32 compiles).
pub(crate) const CRATES: [&str; 10] = [
    "skel-math",
    "skel-anim",
    "skel-graph",
    "skel-retarget",
    "skel-gltf",
    "skel-gpu",
    "skel",
    "skel-demo",
    "skel-web",
    "skel-js",
];

/// Adds [`TARGET`] with rustup when it is missing (a fresh machine); `xtask web` needs it too.
///
/// # Errors
/// When rustup cannot add the target.
pub(crate) fn ensure_target() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l == TARGET)
        })
        .unwrap_or(false);
    if !installed {
        eprintln!("xtask: rustup target add {TARGET}");
        let status = Command::new("rustup")
            .args(["target", "add", TARGET])
            .status()
            .map_err(|e| format!("cannot run rustup: {e}"))?;
        if !status.success() {
            return Err(format!("rustup target add {TARGET} failed ({status})"));
        }
    }
    Ok(())
}

/// Adds the target with rustup when it is missing (a fresh machine), then runs clippy with
/// `-D warnings` on [`CRATES`] for it.
///
/// # Errors
/// When rustup cannot add the target or clippy fails.
pub(crate) fn check() -> Result<(), String> {
    ensure_target()?;
    let mut args = vec!["clippy", "--target", TARGET];
    for name in CRATES {
        args.extend(["-p", name]);
    }
    args.extend(["--", "-D", "warnings"]);
    crate::workspace::cargo(&args)
}
