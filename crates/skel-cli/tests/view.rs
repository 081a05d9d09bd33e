//! `skel view` as a person would use it: a real X server (Xvfb), a real window on a real wgpu
//! adapter (lavapipe in CI), a key press sent with xdotool.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1` (`.ci/run` installs both and sets it); without a GPU adapter they
//! SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;

use display::{KillOnDrop, view, wait_for, xdotool, xvfb};

/// The viewer's clear colour as the sRGB surface shows it (#262a34).
const BACKGROUND: [u8; 3] = [38, 42, 52];

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
