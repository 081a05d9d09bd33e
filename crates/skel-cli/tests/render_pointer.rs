//! `skel render` plays `KHR_animation_pointer` material and visibility animation:
//! `fixtures/animation_pointer.gltf` (written by `cargo xtask fixtures`) turns its tile from red
//! to blue and hides its textured quad between 1 s and 2 s. Real binary, real adapter
//! (lavapipe in CI).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "render/pictures.rs"]
#[allow(dead_code, reason = "shared with render.rs, which uses the rest")]
mod pictures;
#[path = "render/run.rs"]
#[allow(dead_code, reason = "shared with render.rs, which uses the rest")]
mod run;

use image::RgbaImage;
use pictures::{frame, model_pixels};
use run::{gpu_available, render, workspace};

/// Pixels where channel `c` is clearly above the other two.
fn dominated_by(image: &RgbaImage, c: usize) -> usize {
    image
        .pixels()
        .filter(|p| (0..3).all(|k| k == c || i32::from(p[c]) > i32::from(p[k]) + 60))
        .count()
}

#[test]
fn skel_render_plays_pointer_animated_colour_and_visibility() {
    if !gpu_available("skel_render_plays_pointer_animated_colour_and_visibility") {
        return;
    }
    let asset = workspace().join("fixtures/animation_pointer.gltf");
    // 1 fps: frame 0 at 0 s, frame 1 at 1 s.
    let dir = render(
        "pointer",
        &[
            asset.to_str().unwrap(),
            "--frames",
            "2",
            "--fps",
            "1",
            "--size",
            "160x120",
        ],
    );
    let (start, middle) = (frame(&dir, 0), frame(&dir, 1));
    let (n0, n1) = (model_pixels(&start), model_pixels(&middle));
    // At 0 s: a red tile (the cells quad has red cells too, so only a lower bound).
    assert!(
        dominated_by(&start, 0) > 200,
        "red pixels at 0 s: {}",
        dominated_by(&start, 0)
    );
    // At 1 s: the group is hidden, only the (smaller, blue) tile is left.
    assert!(
        n1 * 4 < n0 * 3,
        "model pixels: {n0} at 0 s, {n1} at 1 s (the hidden quad still drawn?)"
    );
    let blue = dominated_by(&middle, 2);
    assert!(
        blue * 10 >= n1 * 9 && dominated_by(&middle, 0) == 0,
        "at 1 s, {blue} of {n1} model pixels are blue, {} red",
        dominated_by(&middle, 0)
    );
}
