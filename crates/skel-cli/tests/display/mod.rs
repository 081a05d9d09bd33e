//! A real X server for the `skel view` tests: Xvfb on a display number it picks itself,
//! xdotool to find windows and press keys on it, a running viewer whose lines a test reads,
//! and a viewer's last frame. Shared by the `view*.rs` tests.
#![allow(dead_code, reason = "each test binary uses a subset of these helpers")]

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
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

/// A file under cargo's test scratch folder named for this process and `name` (none there
/// yet).
pub fn scratch(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("skel-view-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// The last of `frames` frames of `skel view ARGS` (which should include `--size`), as an
/// image, and the viewer's stdout; fails the test if the viewer fails.
pub fn screenshot(x: &Xvfb, name: &str, frames: &str, args: &[&str]) -> (image::RgbImage, String) {
    let path = scratch(&format!("{name}.png"));
    let mut all = vec!["--frames", frames, "--screenshot", path.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = view(x, &all).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "skel view {all:?}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let image = image::open(&path).unwrap().into_rgb8();
    let _ = std::fs::remove_file(&path);
    (image, stdout)
}

/// A running `skel view` whose stdout lines arrive as it prints them (it prints one a second);
/// killed when dropped, so that no viewer outlives a failing test.
pub struct Viewer {
    child: KillOnDrop,
    lines: mpsc::Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
    log: PathBuf,
}

impl Viewer {
    /// Starts `skel view ARGS`, its stderr kept in a scratch file named for `name`.
    pub fn spawn(x: &Xvfb, name: &str, args: &[&str]) -> Self {
        let log = scratch(&format!("{name}.stderr.txt"));
        let mut child = KillOnDrop(
            view(x, args)
                .stdout(Stdio::piped())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap(),
        );
        let (tx, lines) = mpsc::channel();
        let stdout = child.0.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
            log,
        }
    }

    /// Reads lines until one contains `needle` (see [`wait_for`]).
    pub fn wait_for(&mut self, needle: &str) -> bool {
        wait_for(&self.lines, &mut self.seen, needle)
    }

    /// What the viewer has written to stderr.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Finds the viewer's window and focuses it; returns its id for xdotool.
    pub fn focus(&self, x: &Xvfb) -> String {
        let window = xdotool(x, &["search", "--sync", "--name", "skel view"]);
        let window = window.lines().next().unwrap().trim().to_owned();
        xdotool(x, &["windowfocus", "--sync", &window]);
        window
    }

    /// Presses q and waits for the viewer to exit; whether it exited successfully.
    pub fn quit(&mut self, x: &Xvfb) -> bool {
        xdotool(x, &["key", "q"]);
        self.child.0.wait().is_ok_and(|status| status.success())
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.log);
    }
}
