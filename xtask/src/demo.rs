//! `cargo xtask demo`: the README's first command. Makes sure a Vulkan driver is there (Mesa's
//! software lavapipe when the machine has none), then renders the built-in character to
//! `out/`: `frame_0000.png …`, `anim.gif` and `contact_sheet.png`.

use std::path::Path;
use std::process::Command;

/// Where Vulkan loaders look for installable client drivers (ICDs).
const ICD_DIRS: [&str; 3] = [
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
];

/// Installs lavapipe when no Vulkan driver is present, then runs
/// `cargo run --release -p skel-cli -- render --out out/` plus `extra` arguments.
pub(crate) fn run(extra: &[String]) -> Result<(), String> {
    let root = crate::workspace_root();
    if cfg!(target_os = "linux") && !vulkan_driver_present() {
        eprintln!(
            "xtask demo: no Vulkan driver found; installing Mesa's software driver (lavapipe) with scripts/install-vulkan.sh"
        );
        let status = Command::new("bash")
            .arg(root.join("scripts/install-vulkan.sh"))
            .current_dir(&root)
            .status()
            .map_err(|e| format!("cannot run scripts/install-vulkan.sh: {e}"))?;
        if !status.success() {
            // Not fatal: a GL driver may still work, and `skel render` says what to install.
            eprintln!(
                "xtask demo: scripts/install-vulkan.sh failed ({status}); trying to render anyway"
            );
        }
    }
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

/// Whether a Vulkan loader and at least one driver manifest are installed.
fn vulkan_driver_present() -> bool {
    let has_icd = ICD_DIRS.iter().any(|dir| {
        std::fs::read_dir(Path::new(dir)).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
    });
    let has_loader = Command::new("ldconfig")
        .arg("-p")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("libvulkan.so.1"));
    has_icd && has_loader
}
