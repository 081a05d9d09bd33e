//! `skel render` plays `KHR_animation_pointer` material, texture-transform and visibility
//! animation: `fixtures/animation_pointer.gltf` (written by `cargo xtask fixtures`) turns its
//! tile from red to blue, slides, turns and scales the texture of its still quad, and hides that
//! quad between 1 s and 2 s. Real binary, real adapter (lavapipe in CI).
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
    // 2 fps: frames at 0, 0.5 and 1 s.
    let dir = render(
        "pointer",
        &[
            asset.to_str().unwrap(),
            "--frames",
            "3",
            "--fps",
            "2",
            "--size",
            "160x120",
        ],
    );
    let (start, half, middle) = (frame(&dir, 0), frame(&dir, 1), frame(&dir, 2));
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

    // The textured quad stands still; only its texture transform moves between 0 and 0.5 s.
    // Its pixels are those drawn at 0 s and gone at 1 s (when it is hidden).
    let quad: Vec<(u32, u32)> = start
        .enumerate_pixels()
        .filter(|(x, y, p)| {
            let later = middle.get_pixel(*x, *y);
            pictures::max_channel_diff(p, pictures::BACKGROUND) > 16
                && pictures::max_channel_diff(later, pictures::BACKGROUND) <= 16
        })
        .map(|(x, y, _)| (x, y))
        .collect();
    // The tile's vacated edge is among them too: keep the half of the picture (the two quads
    // stand either side of its centre) where most of them lie, the textured quad's.
    let mid = start.width() / 2;
    let right = quad.iter().filter(|(x, _)| *x >= mid).count() * 2 > quad.len();
    let quad: Vec<(u32, u32)> = quad
        .into_iter()
        .filter(|(x, _)| (*x >= mid) == right)
        .collect();
    assert!(
        quad.len() > 300,
        "the hidden quad covers {} pixels",
        quad.len()
    );
    let moved = quad
        .iter()
        .filter(|&&(x, y)| {
            let (a, b) = (start.get_pixel(x, y), half.get_pixel(x, y));
            (0..3).any(|c| a[c].abs_diff(b[c]) > 40)
        })
        .count();
    assert!(
        moved * 5 > quad.len(),
        "only {moved} of the quad's {} pixels changed as its texture transform moved",
        quad.len()
    );
}
