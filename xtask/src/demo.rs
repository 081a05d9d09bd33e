//! `cargo xtask demo`: the README's first command. Makes sure a Vulkan driver is there (Mesa's
//! software lavapipe when the machine has none), then renders the built-in character to
//! `out/`: `frame_0000.png …`, `anim.gif` and `contact_sheet.png`.

use std::process::Command;

/// Installs lavapipe when no Vulkan driver is present, then runs
/// `cargo run --release -p skel-cli -- render --out out/` plus `extra` arguments.
pub(crate) fn run(extra: &[String]) -> Result<(), String> {
    let root = crate::workspace_root();
    crate::install::vulkan("xtask demo");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args([
        "run",
        "--release",
        "-p",
        "skel-cli",
        "--",
        "render",
        "--out",
        "out/",
    ])
    .args(extra)
    .current_dir(&root);
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        // Mesa complains on every Vulkan instance without it; a temp dir is enough.
        cmd.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    eprintln!(
        "xtask demo: cargo run --release -p skel-cli -- render --out out/ {}",
        extra.join(" ")
    );
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("skel render failed ({status})"));
    }
    eprintln!(
        "xtask demo: done. Open out/anim.gif (animated), out/contact_sheet.png, or out/frame_*.png"
    );
    Ok(())
}
