//! `skel render --crowd N` run as the real binary on a real adapter (lavapipe in CI): the files
//! of a one-character render, a grid that fills the picture, characters in different poses
//! (their own phases and speeds), the GPU-posed crowd drawing what the CPU-posed one draws,
//! and options the crowd does not take refused.
//!
//! GPU rules: without an adapter these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_GPU=1` (CI), where they fail.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[allow(dead_code, reason = "the helpers shared with the other render tests")]
#[path = "render/pictures.rs"]
mod pictures;
#[allow(dead_code, reason = "the helpers shared with the other render tests")]
#[path = "render/run.rs"]
mod run;

use image::RgbaImage;
use pictures::{BACKGROUND, MODEL_THRESHOLD, compare, fraction, frame, max_channel_diff};
use run::{gpu_available, out_dir, render, skel};

/// Cells of the normalised silhouette grid [`silhouette`] samples.
const CELLS: (u32, u32) = (16, 32);

fn is_model(p: &image::Rgba<u8>) -> bool {
    max_channel_diff(p, BACKGROUND) > MODEL_THRESHOLD
}

/// The model pixels of columns `x0..x1`, cropped to their bounding box and sampled on a
/// [`CELLS`] grid: a silhouette that does not depend on where the character stands or how
/// large perspective makes it.
fn silhouette(image: &RgbaImage, x0: u32, x1: u32) -> Vec<bool> {
    let (mut lo, mut hi) = ((u32::MAX, u32::MAX), (0, 0));
    for y in 0..image.height() {
        for x in x0..x1 {
            if is_model(image.get_pixel(x, y)) {
                lo = (lo.0.min(x), lo.1.min(y));
                hi = (hi.0.max(x), hi.1.max(y));
            }
        }
    }
    assert!(lo.0 <= hi.0, "no character in columns {x0}..{x1}");
    let (w, h) = (hi.0 - lo.0 + 1, hi.1 - lo.1 + 1);
    let mut cells = Vec::new();
    for cy in 0..CELLS.1 {
        for cx in 0..CELLS.0 {
            let x = lo.0 + (2 * cx + 1) * w / (2 * CELLS.0);
            let y = lo.1 + (2 * cy + 1) * h / (2 * CELLS.1);
            cells.push(is_model(image.get_pixel(x, y)));
        }
    }
    cells
}

/// The share of silhouette cells where `a` and `b` disagree.
fn silhouette_difference(a: &[bool], b: &[bool]) -> f64 {
    let differ = a.iter().zip(b).filter(|(x, y)| x != y).count();
    differ as f64 / a.len() as f64
}

#[test]
fn a_crowd_writes_the_files_and_its_characters_differ() {
    let test = "a_crowd_writes_the_files_and_its_characters_differ";
    if !gpu_available(test) {
        return;
    }
    let dir = render(
        "crowd-9",
        &["--crowd", "9", "--frames", "3", "--size", "256x192"],
    );
    for name in [
        "frame_0000.png",
        "frame_0002.png",
        "anim.gif",
        "contact_sheet.png",
    ] {
        let path = dir.join(name);
        assert!(
            std::fs::metadata(&path).is_ok_and(|m| m.len() > 100),
            "{} missing or empty",
            path.display()
        );
    }
    assert!(!dir.join("frame_0003.png").exists());
    let first = frame(&dir, 0);
    let covered = fraction(first.pixels().filter(|p| is_model(p)).count(), &first);
    assert!(
        covered > 0.08,
        "the grid covers {covered:.3} of the frame: (nearly) empty"
    );
    let (motion, _) = compare(&first, &frame(&dir, 2));
    assert!(
        motion > 0.5,
        "frames 0 and 2 are the same: nothing animates"
    );
}

#[test]
fn characters_of_a_crowd_stand_in_different_poses() {
    let test = "characters_of_a_crowd_stand_in_different_poses";
    if !gpu_available(test) {
        return;
    }
    // Two characters side by side: the left and right halves of the picture each hold one.
    let dir = render(
        "crowd-2",
        &["--crowd", "2", "--frames", "1", "--size", "256x192"],
    );
    let image = frame(&dir, 0);
    let middle = image.width() / 2;
    let (left, right) = (
        silhouette(&image, 0, middle),
        silhouette(&image, middle, image.width()),
    );
    let between = silhouette_difference(&left, &right);
    // The same character one frame apart in a one-character crowd moves less than two
    // characters of a crowd differ (their phases are 0.62 of a walk cycle apart).
    let solo = render(
        "crowd-1",
        &[
            "--crowd", "1", "--frames", "2", "--fps", "60", "--size", "256x192",
        ],
    );
    let (a, b) = (frame(&solo, 0), frame(&solo, 1));
    let step = silhouette_difference(&silhouette(&a, 0, a.width()), &silhouette(&b, 0, b.width()));
    eprintln!("silhouettes: two characters differ by {between:.3}, one frame of one by {step:.3}");
    assert!(
        between > 0.08 && between > 2.0 * step,
        "the two characters' silhouettes differ by {between:.3} (one character over 1/60 s: \
         {step:.3}): they stand in the same pose"
    );
}

#[test]
fn gpu_baked_and_cpu_posed_crowds_in_either_handedness_draw_the_same_picture() {
    let test = "gpu_baked_and_cpu_posed_crowds_in_either_handedness_draw_the_same_picture";
    if !gpu_available(test) {
        return;
    }
    let args = |posing, handedness| {
        [
            "--crowd",
            "4",
            "--posing",
            posing,
            "--handedness",
            handedness,
            "--frames",
            "4",
            "--fps",
            "10",
            "--size",
            "192x144",
        ]
    };
    let gpu = render("crowd-gpu", &args("gpu", "lh"));
    let cpu = render("crowd-cpu", &args("cpu", "lh"));
    // Baked clips: the lerp of two baked skinning matrices, within the clip set's budget.
    let baked = render("crowd-baked", &args("baked", "lh"));
    // The right-handed world is the mirror image of the left-handed one, grid included.
    let rh = render("crowd-gpu-rh", &args("gpu", "rh"));
    for i in [0, 3] {
        for (other, what) in [
            (&cpu, "CPU-posed"),
            (&baked, "baked"),
            (&rh, "right-handed"),
        ] {
            let (mean, p99) = compare(&frame(&gpu, i), &frame(other, i));
            assert!(
                mean < 1.0 && p99 < 40,
                "frame {i}: the GPU-posed crowd and the {what} one differ (mean {mean:.3}, p99 {p99})"
            );
        }
    }
}

#[test]
fn a_crowd_culled_on_the_gpu_draws_what_the_cpu_cull_draws() {
    let test = "a_crowd_culled_on_the_gpu_draws_what_the_cpu_cull_draws";
    if !gpu_available(test) {
        return;
    }
    let args = |posing, view| {
        [
            "--crowd",
            "16",
            "--posing",
            posing,
            "--cull-view",
            view,
            "--frames",
            "1",
            "--size",
            "192x144",
        ]
    };
    let model = |image: &RgbaImage| image.pixels().filter(|p| is_model(p)).count();
    let whole = frame(&render("crowd-gpu-whole", &args("gpu", "1")), 0);
    let gpu = frame(&render("crowd-gpu-culled", &args("gpu", "0.4")), 0);
    let cpu = frame(&render("crowd-cpu-culled", &args("cpu", "0.4")), 0);
    // Baked, posing only the characters the cull keeps.
    let seen = frame(&render("crowd-seen-culled", &args("baked-seen", "0.4")), 0);
    for (other, what) in [(&cpu, "CPU-culled"), (&seen, "baked, seen-only")] {
        let (mean, p99) = compare(&gpu, other);
        assert!(
            mean < 1.0 && p99 < 40,
            "the GPU-culled and the {what} crowds differ (mean {mean:.3}, p99 {p99})"
        );
    }
    // Narrowing the cull leaves characters out of the picture.
    eprintln!(
        "model pixels: {} whole, {} culled",
        model(&whole),
        model(&gpu)
    );
    assert!(
        model(&gpu) * 10 < model(&whole) * 9,
        "as many characters drawn with the culling narrowed to 0.4"
    );
}

#[test]
fn a_crowd_refuses_what_it_cannot_play() {
    let dir = out_dir("crowd-refused");
    let out = dir.to_str().unwrap();
    for (args, says) in [
        (vec!["--crowd", "0"], "--crowd must be from 1 to 10000"),
        (vec!["--crowd", "4", "--blend", "0=0.5,1=0.5"], "--blend"),
        (vec!["--crowd", "4", "--hide-bone", "Head"], "--hide-bone"),
        (
            vec!["--crowd", "4", "--clip", "Nope"],
            "has no clip \"Nope\"",
        ),
    ] {
        let mut all = vec!["render", "--out", out];
        all.extend(args.iter().copied());
        let run = skel(&all);
        // Without an adapter, an unknown clip is never reached: the device comes first.
        if args.contains(&"Nope") && run.stderr.contains("GPU adapter") {
            continue;
        }
        assert!(!run.ok, "skel {all:?} succeeded");
        assert!(run.stderr.contains(says), "skel {all:?}: {}", run.stderr);
    }
    let run = skel(&["render", "--out", out, "--posing", "cpu"]);
    assert!(!run.ok && run.stderr.contains("--crowd"), "{}", run.stderr);
}

#[test]
fn boxes_show_kept_characters_in_green_and_culled_ones_in_red() {
    let test = "boxes_show_kept_characters_in_green_and_culled_ones_in_red";
    if !gpu_available(test) {
        return;
    }
    let args = |view: &'static str| {
        [
            "--crowd",
            "16",
            "--posing",
            "cpu",
            "--boxes",
            "--cull-view",
            view,
            "--frames",
            "1",
            "--size",
            "256x192",
        ]
    };
    // Share of pixels that are mostly red, and mostly green.
    let colours = |image: &RgbaImage| {
        let count = |f: &dyn Fn(i32, i32, i32) -> bool| {
            image
                .pixels()
                .filter(|p| f(i32::from(p[0]), i32::from(p[1]), i32::from(p[2])))
                .count() as f64
                / f64::from(image.width() * image.height())
        };
        (
            count(&|r, g, b| r > 90 && r > 3 * g && r > 3 * b),
            count(&|r, g, b| g > 90 && g > 2 * r && g > 2 * b),
        )
    };
    let whole = frame(&render("crowd-boxes-whole", &args("1")), 0);
    let narrowed = frame(&render("crowd-boxes-narrowed", &args("0.4")), 0);
    let (whole_red, whole_green) = colours(&whole);
    let (red, green) = colours(&narrowed);
    eprintln!("red {whole_red:.4} / {red:.4}, green {whole_green:.4} / {green:.4}");
    assert!(whole_green > 0.005, "no green box edges in the picture");
    // The built-in character's shoes are red too: the culled boxes add to them.
    assert!(
        red > 2.0 * whole_red && red > whole_red + 0.005,
        "no red (culled) box with the culling narrowed to 0.4"
    );
    assert!(
        green < whole_green,
        "as many green boxes after narrowing the culling"
    );
}

#[test]
fn boxes_need_a_cpu_posed_crowd_and_a_cull_view_in_0_1() {
    let dir = out_dir("crowd-boxes-refused");
    let out = dir.to_str().unwrap();
    for (args, says) in [
        (vec!["--crowd", "4", "--boxes"], "--posing cpu"),
        (vec!["--crowd", "4", "--cull-view", "0"], "--cull-view"),
        (
            vec!["--crowd", "4", "--posing", "cpu", "--cull-view", "0"],
            "--cull-view",
        ),
        (
            vec!["--crowd", "4", "--posing", "cpu", "--cull-view", "1.5"],
            "--cull-view",
        ),
    ] {
        let mut all = vec!["render", "--out", out];
        all.extend(args.iter().copied());
        let run = skel(&all);
        assert!(!run.ok, "skel {all:?} succeeded");
        assert!(run.stderr.contains(says), "skel {all:?}: {}", run.stderr);
    }
}
