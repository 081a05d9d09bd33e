//! `cargo xtask bevy-window`: skel-bevy's windowed example (`--example character`, bevy's
//! renderer on Mesa's lavapipe) in an X server without a screen, walked for a number of
//! frames and saved as a screenshot: the picture in docs/bevy.md. Not in CI: the example's
//! renderer and window crates are a long build more than the headless tests.

use std::path::Path;
use std::process::Command;

/// Builds and runs the example under `xvfb-run` with `--screenshot out --frames frames`,
/// then checks the picture: a PNG of the window's size that is not one flat colour.
pub(crate) fn run(out: &Path, frames: u32) -> Result<(), String> {
    let root = crate::workspace_root();
    crate::install::vulkan("xtask bevy-window");
    crate::install::display("xtask bevy-window");
    let out = if out.is_absolute() {
        out.to_path_buf()
    } else {
        root.join(out)
    };
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["-a", "-s", "-screen 0 1280x720x24", env!("CARGO")])
        .args([
            "run",
            "-p",
            "skel-bevy",
            "--features",
            "window",
            "--example",
            "character",
            "--",
            "--screenshot",
        ])
        .arg(&out)
        .args(["--frames", &frames.to_string()])
        .env("WGPU_BACKEND", "vulkan")
        .current_dir(&root);
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        cmd.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    eprintln!(
        "xtask bevy-window: xvfb-run cargo run -p skel-bevy --features window --example character -- --screenshot {} --frames {frames}",
        out.display()
    );
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run xvfb-run: {e}"))?;
    if !status.success() {
        return Err(format!("the example failed ({status})"));
    }
    let bytes =
        std::fs::read(&out).map_err(|e| format!("no screenshot at {}: {e}", out.display()))?;
    // The PNG header's size, and more than a flat colour: the compressed picture of one
    // colour at 960×540 is a few hundred bytes.
    let size = (bytes.len() >= 24 && bytes.starts_with(b"\x89PNG"))
        .then(|| {
            let be =
                |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
            (be(16), be(20))
        })
        .ok_or_else(|| format!("{} is not a PNG", out.display()))?;
    if bytes.len() < 20_000 {
        return Err(format!(
            "{} is {} bytes for {}×{}: an empty window",
            out.display(),
            bytes.len(),
            size.0,
            size.1
        ));
    }
    eprintln!(
        "xtask bevy-window: {} ({}×{}, {} bytes)",
        out.display(),
        size.0,
        size.1,
        bytes.len()
    );
    Ok(())
}
