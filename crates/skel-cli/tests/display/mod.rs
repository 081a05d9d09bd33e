//! A real X server for the `skel view` tests: Xvfb on a display number it picks itself, and
//! xdotool to find windows and press keys on it. Shared by `view.rs` and `view_graph.rs`.
#![allow(dead_code, reason = "each test binary uses a subset of these helpers")]

use std::io::Read as _;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An Xvfb server on a display number it picks itself; killed on drop.
pub struct Xvfb {
    child: Child,
    /// The display to point `DISPLAY` at (`:N`).
    pub display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts Xvfb, or `None` (after the SKIP line) when Xvfb, xdotool or an adapter is missing;
/// a failure instead when `SKEL_REQUIRE_DISPLAY=1`.
pub fn xvfb(test: &str) -> Option<Xvfb> {
    let required = skel_test_support::required("SKEL_REQUIRE_DISPLAY");
    let have = |tool: &str| {
        Command::new("which")
            .arg(tool)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("Xvfb") && have("xdotool")) {
        assert!(
            !required,
            "{test}: Xvfb or xdotool missing and SKEL_REQUIRE_DISPLAY=1"
        );
        skel_test_support::skip(
            test,
            "Xvfb or xdotool missing (bash scripts/install-display.sh) to test skel view",
        );
        return None;
    }
    skel_test_support::gpu(test, skel::gpu::GpuContext::new_headless())?;
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb");
    let mut number = String::new();
    let mut out = child.stdout.take().unwrap();
    let mut byte = [0_u8; 1];
    while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
        number.push(char::from(byte[0]));
    }
    assert!(!number.is_empty(), "Xvfb did not report its display");
    Some(Xvfb {
        child,
        display: format!(":{}", number.trim()),
    })
}

/// `skel view ARGS` on the server's display (X11 only: no Wayland socket is offered).
pub fn view(x: &Xvfb, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_skel"));
    cmd.arg("view")
        .args(args)
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir());
    cmd
}

/// Runs xdotool on the server's display and returns its output; fails the test if it fails.
pub fn xdotool(x: &Xvfb, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", &x.display)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A child process (the viewer) killed when dropped: nothing outlives the test.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads viewer lines into `seen` until one contains `needle` (`false` after two minutes,
/// or when the viewer exits: it prints a line a second, so a missing line cannot hang).
pub fn wait_for(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, needle: &str) -> bool {
    let end = Instant::now() + Duration::from_secs(120);
    while let Ok(line) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
        let found = line.contains(needle);
        seen.push(line);
        if found {
            return true;
        }
    }
    false
}
