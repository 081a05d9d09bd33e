//! `skel render` and `skel bench` run as the real binary on a real adapter (lavapipe in CI).
//!
//! GPU rules: without an adapter these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_GPU=1` (CI), where they fail. Asset rules: without `../shared` they SKIP,
//! unless `SKEL_REQUIRE_ASSETS=1`.
//!
//! The reference image is regenerated on purpose with `cargo xtask bless` (or `SKEL_BLESS=1`).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;
#[path = "render/pictures.rs"]
mod pictures;
#[path = "render/run.rs"]
mod run;

use common::shared_asset;
use pictures::*;
use run::{gpu_available, out_dir, render, skel, workspace};
use std::path::PathBuf;
use std::process::Command;

/// Reference-image tolerance over the model's pixels (those that are not background in either
/// image), set on `llvmpipe (LLVM 15.0.6, 256 bits)`, Mesa 22.3.6, Vulkan, 4× MSAA, where the
/// render reproduces the reference exactly (mean 0, p99 0). The bounds allow float rounding and
/// a few edge pixels of another rasteriser; a 5 % change of the key light, morph targets left
/// out, or a pose a few degrees off exceed them. Another GPU may need `cargo xtask bless`.
/// Mean absolute difference per channel.
const MAX_MEAN_ABS_DIFF: f64 = 1.0;
/// 99th percentile of the per-pixel maximum channel difference.
const MAX_P99_DIFF: u8 = 24;

#[test]
fn default_character_matches_the_reference_image() {
    if !gpu_available("default_character_matches_the_reference_image") {
        return;
    }
    // Walk at 10 fps: frame 3 is t = 0.3 s, mid-stride (legs apart, arms swinging).
    let dir = render(
        "reference",
        &[
            "--clip", "Walk", "--frames", "4", "--fps", "10", "--size", "256x256",
        ],
    );
    let got = frame(&dir, 3);
    let reference_path =
        workspace().join("crates/skel-cli/tests/reference/default_character_walk_t0.3.png");

    // The character is there: at least 4% of the frame, spanning most of its height.
    let pixels = model_pixels(&got);
    assert!(
        fraction(pixels, &got) > 0.04,
        "only {pixels} character pixels: the frame is (nearly) all background"
    );
    let (_, top, _, bottom) = model_box(&got);
    assert!(
        bottom - top > 256 * 6 / 10,
        "character spans rows {top}..{bottom} of 256"
    );
    // And it moves: t = 0 differs from t = 0.3 s.
    let (mean_motion, _) = compare(&frame(&dir, 0), &got);
    assert!(
        mean_motion > 0.5,
        "frames 0 and 3 are the same: nothing animates"
    );

    if std::env::var("SKEL_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(reference_path.parent().unwrap()).unwrap();
        got.save(&reference_path).unwrap();
        eprintln!("BLESSED {}", reference_path.display());
        return;
    }
    let reference = image::open(&reference_path)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run `cargo xtask bless`)",
                reference_path.display()
            )
        })
        .into_rgba8();
    let (mean, p99) = compare(&got, &reference);
    assert!(
        mean <= MAX_MEAN_ABS_DIFF && p99 <= MAX_P99_DIFF,
        "frame differs from {}: mean abs diff {mean:.3} (max {MAX_MEAN_ABS_DIFF}), p99 {p99} (max {MAX_P99_DIFF}); see {}",
        reference_path.display(),
        dir.join("frame_0003.png").display()
    );
}

#[test]
fn left_and_right_handed_modes_draw_the_same_picture() {
    if !gpu_available("left_and_right_handed_modes_draw_the_same_picture") {
        return;
    }
    let args = [
        "--clip", "Wave", "--frames", "6", "--fps", "5", "--size", "192x192",
    ];
    let lh = render("lh", &[&args[..], &["--handedness", "lh"]].concat());
    let rh = render("rh", &[&args[..], &["--handedness", "rh"]].concat());
    let (a, b) = (frame(&lh, 5), frame(&rh, 5));
    assert!(fraction(model_pixels(&a), &a) > 0.03);
    let (mean, p99) = compare(&a, &b);
    assert!(
        mean < 0.5 && p99 < 24,
        "lh and rh differ: mean {mean}, p99 {p99}"
    );
}

#[test]
fn cesium_man_writes_frames_gif_and_contact_sheet() {
    let Some(asset) = shared_asset("cesium_man", "CesiumMan/CesiumMan.glb") else {
        return;
    };
    if !gpu_available("cesium_man") {
        return;
    }
    let dir = render(
        "cesium",
        &[
            asset.to_str().unwrap(),
            "--frames",
            "10",
            "--size",
            "160x120",
            "--fps",
            "12",
        ],
    );
    for i in 0..10 {
        let f = frame(&dir, i);
        assert_eq!(f.dimensions(), (160, 120));
        assert!(fraction(model_pixels(&f), &f) > 0.03, "frame {i} is empty");
    }
    assert!(!dir.join("frame_0010.png").exists());
    // The GIF: 10 frames of 160×120, looping.
    let file = std::fs::File::open(dir.join("anim.gif")).unwrap();
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).unwrap();
    assert_eq!((decoder.width(), decoder.height()), (160, 120));
    let mut gif_frames = 0;
    while let Some(f) = decoder.read_next_frame().unwrap() {
        assert_eq!(f.delay, 8, "12 fps ≈ 8 centiseconds");
        gif_frames += 1;
    }
    assert_eq!(gif_frames, 10);
    // The contact sheet: 8 tiles, 4 × 2.
    let sheet = image::open(dir.join("contact_sheet.png")).unwrap();
    assert_eq!((sheet.width(), sheet.height()), (4 * 160, 2 * 120));
    // The walk moves: first and fifth frames differ.
    assert!(compare(&frame(&dir, 0), &frame(&dir, 5)).0 > 0.3);
}

/// Share of pixels that are model in one image and background in the other.
#[test]
fn morph_only_and_rigid_animated_assets_render_and_animate() {
    // (asset, frames at 2 fps): the silhouette must change, not only the shading — with morph
    // positions (or node transforms) lost, the outline would stay put.
    for (rel, frames) in [
        ("AnimatedMorphCube/AnimatedMorphCube.glb", 8),
        ("AnimatedMorphSphere/AnimatedMorphSphere.glb", 8),
        ("BoxAnimated/BoxAnimated.glb", 6),
        ("AnimatedTriangle/AnimatedTriangle.gltf", 4),
        ("RiggedSimple/RiggedSimple.glb", 6),
    ] {
        let Some(asset) = shared_asset("morph_rigid", rel) else {
            return;
        };
        if !gpu_available("morph_rigid") {
            return;
        }
        let name = rel.split('/').next().unwrap();
        let frames_arg = frames.to_string();
        let dir = render(
            name,
            &[
                asset.to_str().unwrap(),
                "--frames",
                &frames_arg,
                "--fps",
                "2",
                "--size",
                "128x128",
            ],
        );
        let first = frame(&dir, 0);
        assert!(
            fraction(model_pixels(&first), &first) > 0.02,
            "{name}: empty frame"
        );
        let change = (1..frames)
            .map(|i| silhouette_change(&first, &frame(&dir, i)))
            .fold(0.0, f64::max);
        assert!(
            change > 0.02,
            "{name}: the silhouette never changes ({change})"
        );
    }
}

#[test]
fn every_shared_asset_renders() {
    let Some(first) = shared_asset("every_asset", "CesiumMan/CesiumMan.glb") else {
        return;
    };
    if !gpu_available("every_asset") {
        return;
    }
    let assets = first.parent().unwrap().parent().unwrap().to_path_buf();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&assets)
        .unwrap()
        .filter_map(Result::ok)
        .flat_map(|d| {
            std::fs::read_dir(d.path())
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
        })
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "glb" || x == "gltf"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "{} assets", files.len());
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = render(
            &format!("all-{name}"),
            &[file.to_str().unwrap(), "--frames", "2", "--size", "96x96"],
        );
        let f = frame(&dir, 1);
        assert!(
            fraction(model_pixels(&f), &f) > 0.01,
            "{name}: the model is not visible"
        );
    }
}

#[test]
fn hiding_a_bone_removes_its_subtree_from_the_picture() {
    if !gpu_available("hide_bone") {
        return;
    }
    let args = ["--clip", "Walk", "--frames", "1", "--size", "160x160"];
    let shown = frame(&render("shown", &args), 0);
    let hidden = frame(
        &render("hidden", &[&args[..], &["--hide-bone", "Head"]].concat()),
        0,
    );
    let (_, top_shown, _, _) = model_box(&shown);
    let (_, top_hidden, _, _) = model_box(&hidden);
    assert!(
        model_pixels(&hidden) + 200 < model_pixels(&shown) && top_hidden > top_shown + 5,
        "hiding Head changed nothing: {} vs {} pixels, top row {top_hidden} vs {top_shown}",
        model_pixels(&hidden),
        model_pixels(&shown)
    );
}

#[test]
fn bone_rotation_shows_unless_the_clip_animates_that_rotation() {
    if !gpu_available("bone_rotation") {
        return;
    }
    let args = ["--clip", "Walk", "--frames", "1", "--size", "160x160"];
    let plain = frame(&render("rot-plain", &args), 0);
    // Walk does not animate the Spine's rotation: bending it 45° forward shows.
    let bent = frame(
        &render(
            "rot-spine",
            &[
                &args[..],
                &["--bone-rotation", "Spine=0.3826834,0,0,0.9238795"],
            ]
            .concat(),
        ),
        0,
    );
    let change = silhouette_change(&plain, &bent);
    assert!(
        change > 0.01,
        "bending the spine changed {change} of the frame"
    );
    // Walk animates the Head's rotation: the clip wins, the override does not show.
    let head = frame(
        &render(
            "rot-head",
            &[
                &args[..],
                &["--bone-rotation", "Head=0,0.7071068,0,0.7071068"],
            ]
            .concat(),
        ),
        0,
    );
    let (mean, p99) = compare(&plain, &head);
    assert!(
        mean < 0.01 && p99 == 0,
        "the clip should win on Head: mean {mean}, p99 {p99}"
    );
}

#[test]
fn a_blend_renders_and_a_full_weight_blend_is_the_clip() {
    if !gpu_available("blend") {
        return;
    }
    let base = ["--frames", "4", "--fps", "5", "--size", "128x128"];
    let walk = frame(
        &render("blend-walk", &[&base[..], &["--clip", "Walk"]].concat()),
        3,
    );
    let wave = frame(
        &render("blend-wave", &[&base[..], &["--clip", "Wave"]].concat()),
        3,
    );
    let only_walk = frame(
        &render(
            "blend-1-0",
            &[&base[..], &["--blend", "Walk=1,Wave=0"]].concat(),
        ),
        3,
    );
    let half = frame(
        &render(
            "blend-half",
            &[&base[..], &["--blend", "Walk=0.5,1=0.5"]].concat(),
        ),
        3,
    );
    let (mean, _) = compare(&walk, &only_walk);
    assert!(
        mean < 0.05,
        "Walk=1,Wave=0 differs from --clip Walk by {mean}"
    );
    assert!(compare(&half, &walk).0 > 1.0 && compare(&half, &wave).0 > 1.0);
    let run = skel(&[
        "render",
        "--blend",
        "Walk=0.5,Dance=0.5",
        "--out",
        "/tmp/skel-unused",
    ]);
    assert!(!run.ok && run.stderr.contains("Dance"), "{}", run.stderr);
}

#[test]
fn clear_errors_for_bad_input() {
    // Missing file: no GPU needed to say so.
    let run = skel(&[
        "render",
        "/nonexistent/character.glb",
        "--out",
        "/tmp/skel-unused",
    ]);
    assert!(!run.ok);
    assert!(
        run.stderr
            .contains("no such file: /nonexistent/character.glb"),
        "{}",
        run.stderr
    );

    // A file with no mesh.
    let dir = out_dir("no-mesh");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.gltf");
    std::fs::write(
        &empty,
        r#"{"asset":{"version":"2.0"},"nodes":[{"name":"root"}],"scenes":[{"nodes":[0]}]}"#,
    )
    .unwrap();
    if gpu_available("clear_errors") {
        let run = skel(&[
            "render",
            empty.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(!run.ok);
        assert!(
            run.stderr.contains("has no mesh to render"),
            "{}",
            run.stderr
        );

        // An unknown clip names the clips there are.
        let run = skel(&["render", "--clip", "Dance", "--out", dir.to_str().unwrap()]);
        assert!(!run.ok);
        assert!(
            run.stderr.contains("has no clip \"Dance\"")
                && run.stderr.contains("0: \"Walk\"")
                && run.stderr.contains("1: \"Wave\""),
            "{}",
            run.stderr
        );
        let run = skel(&["render", "--clip", "7", "--out", dir.to_str().unwrap()]);
        assert!(
            !run.ok && run.stderr.contains("has no clip \"7\""),
            "{}",
            run.stderr
        );
    }
    // Bad sizes are refused by the argument parser.
    let run = skel(&["render", "--size", "0x10"]);
    assert!(
        !run.ok && run.stderr.contains("1 to 16384"),
        "{}",
        run.stderr
    );
}

#[test]
fn no_adapter_error_says_what_to_install() {
    // Ask for a backend that does not exist on this OS: wgpu finds no adapter.
    let dir = out_dir("no-adapter");
    let out = Command::new(env!("CARGO_BIN_EXE_skel"))
        .args(["render", "--out", dir.to_str().unwrap()])
        .env(
            "WGPU_BACKEND",
            if cfg!(target_os = "macos") {
                "dx12"
            } else {
                "metal"
            },
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success());
    assert!(
        stderr.contains("mesa-vulkan-drivers libvulkan1") && stderr.contains("cargo xtask demo"),
        "{stderr}"
    );
}

#[test]
fn bench_json_has_the_documented_fields() {
    let run = skel(&["bench", "--characters", "3", "--frames", "20", "--json"]);
    assert!(run.ok, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for key in [
        "asset",
        "clip",
        "characters",
        "frames",
        "joints_per_character",
        "ns_per_joint_frame",
        "us_per_character_frame",
        "allocations_per_frame",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["characters"], 3);
    assert_eq!(v["frames"], 20);
    assert_eq!(v["clip"], "Walk");
    assert_eq!(v["joints_per_character"], 22);
    assert!(v["ns_per_joint_frame"].as_f64().unwrap() > 0.0);
    // The pose pipeline allocates nothing per frame.
    assert_eq!(v["allocations_per_frame"].as_f64(), Some(0.0), "{v}");
    if skel::gpu::GpuContext::new_headless().is_ok() {
        let upload = &v["upload"];
        assert!(
            upload["us_per_character_frame"].as_f64().unwrap() > 0.0,
            "{v}"
        );
        assert_eq!(upload["bytes_per_frame"], 3 * (22 * 64 + 4 * 4));
    }
}
