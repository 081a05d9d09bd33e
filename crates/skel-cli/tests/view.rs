//! `skel view` as a person would use it: a real X server (Xvfb), a real window on a real wgpu
//! adapter (lavapipe in CI), a key press sent with xdotool.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1` (`.ci/run` installs both and sets it); without a GPU adapter they
//! SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The viewer's clear colour as the sRGB surface shows it (#262a34).
const BACKGROUND: [u8; 3] = [38, 42, 52];

/// An Xvfb server on a display number it picks itself; killed on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts Xvfb, or `None` (after the SKIP line) when Xvfb, xdotool or an adapter is missing.
fn xvfb(test: &str) -> Option<Xvfb> {
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

fn view(x: &Xvfb, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_skel"));
    cmd.arg("view")
        .args(args)
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir());
    cmd
}

fn xdotool(x: &Xvfb, args: &[&str]) -> String {
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

fn screenshot_path(test: &str) -> PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("skel-view-{}-{test}.png", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Fraction of pixels that are clearly not background.
fn coverage(path: &PathBuf) -> f64 {
    let image = image::open(path).unwrap().into_rgba8();
    let model = image
        .pixels()
        .filter(|p| {
            (0..3)
                .map(|c| p[c].abs_diff(BACKGROUND[c]))
                .max()
                .unwrap_or(0)
                > 16
        })
        .count();
    model as f64 / f64::from(image.width() * image.height())
}

#[test]
fn view_draws_the_character_into_a_real_window() {
    let Some(x) = xvfb("view_draws_the_character_into_a_real_window") else {
        return;
    };
    let shot = screenshot_path("frames");
    let out = view(
        &x,
        &[
            "--frames",
            "60",
            "--screenshot",
            shot.to_str().unwrap(),
            "--size",
            "320x240",
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "skel view failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("clip 0 \"Walk\""), "{stdout}");
    let covered = coverage(&shot);
    // The built-in character fills about a tenth of the window; a blank or all-model frame
    // fails.
    assert!(
        (0.02..0.6).contains(&covered),
        "model covers {covered:.3} of the window"
    );
}

/// A child process killed when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads viewer lines into `seen` until one contains `needle` (`false` after two minutes
/// without a line, or when the viewer exits).
fn wait_for(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, needle: &str) -> bool {
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(120)) {
        let found = line.contains(needle);
        seen.push(line);
        if found {
            return true;
        }
    }
    false
}

#[test]
fn a_key_press_changes_the_clip() {
    let Some(x) = xvfb("a_key_press_changes_the_clip") else {
        return;
    };
    let shot = screenshot_path("keys");
    let log = shot.with_extension("stderr.txt");
    let child = view(
        &x,
        &["--screenshot", shot.to_str().unwrap(), "--size", "320x240"],
    )
    .stdout(Stdio::piped())
    .stderr(std::fs::File::create(&log).unwrap())
    .spawn()
    .unwrap();
    // Killed if an assertion below fails first: no viewer outlives the test.
    let mut child = KillOnDrop(child);
    let (tx, rx) = mpsc::channel();
    let stdout = child.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    assert!(
        wait_for(&rx, &mut seen, "clip 0 \"Walk\""),
        "the viewer never showed clip 0: {seen:?}"
    );
    let window = xdotool(&x, &["search", "--sync", "--name", "skel view"]);
    let window = window.lines().next().unwrap().trim().to_owned();
    xdotool(&x, &["windowfocus", "--sync", &window]);
    xdotool(&x, &["key", "n"]);
    let changed = wait_for(&rx, &mut seen, "clip 1 \"Wave\"");
    xdotool(&x, &["key", "q"]);
    let status = child.0.wait().unwrap();
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        changed,
        "the N key did not change the clip: {seen:?}\n{stderr}"
    );
    assert!(status.success(), "skel view failed after q: {stderr}");
    assert!(coverage(&shot) > 0.02, "the last frame is blank");
}
