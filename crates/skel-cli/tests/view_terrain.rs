//! `skel view --terrain` without a graph, in a real window (Xvfb) on a real adapter: the
//! ground is drawn and the built-in character's feet stand on it. Without Xvfb and xdotool
//! these tests SKIP unless `SKEL_REQUIRE_DISPLAY=1`; without an adapter, unless
//! `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;
#[path = "terrain/pixels.rs"]
mod pixels;

use display::{screenshot, xvfb};
use pixels::{ground_pixels, shoe_rows};

/// The last of 30 frames of `skel view ARGS` at 320×240, and its stdout.
fn shot(x: &display::Xvfb, name: &str, args: &[&str]) -> (image::RgbImage, String) {
    let mut all = vec!["--size", "320x240"];
    all.extend_from_slice(args);
    screenshot(x, &format!("terrain-{name}"), "30", &all)
}

#[test]
fn view_stands_the_feet_on_the_terrain_and_draws_it() {
    let Some(x) = xvfb("view_stands_the_feet_on_the_terrain_and_draws_it") else {
        return;
    };
    let (plain, _) = shot(&x, "plain", &[]);
    let (placed, stdout) = shot(&x, "raised", &["--terrain", "plane:0,1,0,-0.3"]);
    assert!(stdout.contains("feet on plane:0,1,0,-0.3"), "{stdout}");
    let area = f64::from(placed.width() * placed.height());
    let ground = ground_pixels(&placed) as f64 / area;
    assert!(ground > 0.05, "the ground covers {ground:.3} of the window");
    assert!(ground_pixels(&plain) as f64 / area < 0.005);
    // The orbit camera is the same in both (it frames the rest pose): the shoes stand 30 cm
    // higher, about 30 pixels at this size; a shoe left under the floor would be hidden.
    let lowest = |image: &image::RgbImage| shoe_rows(image).into_iter().max();
    let (was, now) = (lowest(&plain).unwrap(), lowest(&placed));
    assert!(
        now.is_some_and(|now| now + 15 < was),
        "the lowest shoe pixel is on row {now:?}, {was} without --terrain"
    );
}
