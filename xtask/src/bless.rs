//! `cargo xtask bless`: regenerates the reference images the render tests compare against, on
//! purpose (after a deliberate change to the renderer or the default character).

use std::process::Command;

/// Runs skel-cli's reference-image test with `SKEL_BLESS=1`, which rewrites
/// `crates/skel-cli/tests/reference/*.png` from this machine's adapter instead of comparing.
pub(crate) fn run() -> Result<(), String> {
    let root = crate::workspace_root();
    let status = Command::new(env!("CARGO"))
        .args([
            "test",
            "-p",
            "skel-cli",
            "--test",
            "render",
            "--",
            "reference",
        ])
        .env("SKEL_BLESS", "1")
        .env("SKEL_REQUIRE_GPU", "1")
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("blessing the reference images failed ({status})"));
    }
    eprintln!(
        "xtask bless: rewrote crates/skel-cli/tests/reference/; review the images and commit them"
    );
    Ok(())
}
