//! `skel render --vrma FILE`: a `.vrma` clip retargeted onto a VRM avatar and played through
//! the facade's container (`fixtures/vrm/v1_hair.vrm` walking `fixtures/vrm/walk.vrma`). Real
//! binary, real adapter (lavapipe in CI).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "render/pictures.rs"]
#[allow(dead_code, reason = "shared with render.rs, which uses the rest")]
mod pictures;
#[path = "render/run.rs"]
#[allow(dead_code, reason = "shared with render.rs, which uses the rest")]
mod run;

use pictures::frame;
use run::{gpu_available, out_dir, render, skel, workspace};

#[test]
fn skel_render_plays_a_vrma_clip_on_an_avatar() {
    if !gpu_available("skel_render_plays_a_vrma_clip_on_an_avatar") {
        return;
    }
    let avatar = workspace().join("fixtures/vrm/v1_hair.vrm");
    let walk = workspace().join("fixtures/vrm/walk.vrma");
    let (avatar, walk) = (avatar.to_str().unwrap(), walk.to_str().unwrap());
    // 2 fps: frames at 0 and 0.5 s of the walk.
    let args = |clip: &'static str| {
        vec![
            avatar,
            "--vrma",
            walk,
            "--clip",
            clip,
            "--frames",
            "2",
            "--fps",
            "2",
            "--size",
            "160x200",
            "--no-springs",
        ]
    };
    let dir = render("vrma", &args("walk"));
    let (a, b) = (frame(&dir, 0), frame(&dir, 1));
    let changed = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        changed > 50,
        "the walk moved {changed} pixels between 0 and 0.5 s"
    );
    // Without the file there is no such clip; a file that is not a .vrma names the flag.
    let dir = out_dir("vrma_missing");
    let one_walk_frame = |vrma: &[&str]| {
        let mut args = vec!["render", "--out", dir.to_str().unwrap(), avatar];
        args.extend(vrma);
        args.extend(["--clip", "walk", "--frames", "1"]);
        skel(&args)
    };
    let run = one_walk_frame(&[]);
    assert!(!run.ok, "{}", run.stderr);
    let run = one_walk_frame(&["--vrma", avatar]);
    assert!(!run.ok && run.stderr.contains("--vrma"), "{}", run.stderr);
}
