//! `skel view` as a person would use it: a real X server (Xvfb), a real window on a real wgpu
//! adapter (lavapipe in CI), a key press sent with xdotool.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1` (`.ci/run` installs both and sets it); without a GPU adapter they
//! SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use display::{Viewer, scratch, screenshot, xdotool, xvfb};

/// The viewer's clear colour as the sRGB surface shows it (#262a34).
const BACKGROUND: [u8; 3] = [38, 42, 52];

/// Fraction of pixels that are clearly not background.
fn coverage(image: &image::RgbImage) -> f64 {
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
    let (image, stdout) = screenshot(&x, "frames", "60", &["--size", "320x240"]);
    assert!(stdout.contains("clip 0 \"Walk\""), "{stdout}");
    let covered = coverage(&image);
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
    let shot = scratch("keys.png");
    let mut viewer = Viewer::spawn(
        &x,
        "keys",
        &["--screenshot", shot.to_str().unwrap(), "--size", "320x240"],
    );
    assert!(
        viewer.wait_for("clip 0 \"Walk\""),
        "the viewer never showed clip 0: {:?}",
        viewer.seen
    );
    viewer.focus(&x);
    xdotool(&x, &["key", "n"]);
    let changed = viewer.wait_for("clip 1 \"Wave\"");
    let quit = viewer.quit(&x);
    assert!(
        changed,
        "the N key did not change the clip: {:?}\n{}",
        viewer.seen,
        viewer.stderr()
    );
    assert!(quit, "skel view failed after q: {}", viewer.stderr());
    let last = image::open(&shot).unwrap().into_rgb8();
    let _ = std::fs::remove_file(&shot);
    assert!(coverage(&last) > 0.02, "the last frame is blank");
}
