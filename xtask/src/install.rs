//! What the GPU and window tests need on a bare Linux machine, installed when missing:
//! Mesa's software Vulkan driver (`scripts/install-vulkan.sh`), an X server without a screen
//! plus a key presser (`scripts/install-display.sh`), and a headless browser
//! (`scripts/install-browser.sh`). `xtask demo`, `xtask web --check` and `xtask ci` use it;
//! the scripts are the one place that knows the package names.

use std::path::Path;
use std::process::Command;

/// Where Vulkan loaders look for installable client drivers (ICDs).
const ICD_DIRS: [&str; 3] = [
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
];

/// Installs lavapipe when no Vulkan driver is present. Not fatal when it fails: a GL driver
/// may still work, and the tests (or `skel render`) say what is missing. `who` prefixes
/// messages (`xtask demo`).
pub(crate) fn vulkan(who: &str) {
    if cfg!(target_os = "linux") && !vulkan_driver_present() {
        eprintln!(
            "{who}: no Vulkan driver found; installing Mesa's software driver (lavapipe) with scripts/install-vulkan.sh"
        );
        script(who, "scripts/install-vulkan.sh");
    }
}

/// Installs Xvfb and xdotool when either is missing (the `skel view` tests). Not fatal: the
/// view tests then skip, and `xtask ci` lists them.
pub(crate) fn display(who: &str) {
    if cfg!(target_os = "linux") && !(on_path("Xvfb") && on_path("xdotool")) {
        eprintln!(
            "{who}: Xvfb or xdotool missing; installing them with scripts/install-display.sh"
        );
        script(who, "scripts/install-display.sh");
    }
}

/// Installs Debian's Chromium and chromedriver when either is missing (the browser check of
/// `xtask web --check`). Not fatal: the check then says what is missing.
pub(crate) fn browser(who: &str) {
    if cfg!(target_os = "linux") && !(on_path("chromium") && on_path("chromedriver")) {
        eprintln!(
            "{who}: chromium or chromedriver missing; installing them with scripts/install-browser.sh"
        );
        script(who, "scripts/install-browser.sh");
    }
}

fn script(who: &str, rel: &str) {
    let root = crate::workspace_root();
    match Command::new("bash")
        .arg(root.join(rel))
        .current_dir(&root)
        .status()
    {
        Ok(status) if status.success() => {}
        Ok(status) => eprintln!("{who}: {rel} failed ({status}); going on without it"),
        Err(e) => eprintln!("{who}: cannot run {rel}: {e}; going on without it"),
    }
}

/// Whether `tool` is an executable file in a `PATH` directory.
pub(crate) fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
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
