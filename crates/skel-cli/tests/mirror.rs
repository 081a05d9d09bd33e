//! `skel mirror` run as the real binary on the built-in character: the written `.glb` loads,
//! and its Wave puts the left hand where the source's Wave puts the reflection of the right
//! hand; `--append` keeps the clips and adds `<name>.mirror`; `--humanoid` pairs the same
//! joints; refusals (an unknown node in `--pairs`, a bad `--plane`) write nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::{Path, PathBuf};

use common::skel;
use skel::anim::{
    AnimationData, Handedness, MirrorMap, PoseScratch, apply_clip, compute_world_matrices,
};
use skel::gltf::{LoadOptions, load_path};

fn character() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/default_character.glb")
}

fn out_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("skel-mirror-{tag}-{}.glb", std::process::id()))
}

fn rig(path: &Path) -> AnimationData {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(path, &opts).unwrap().animation
}

fn position(data: &AnimationData, clip: &str, t: f32, node: &str) -> glam::Vec3 {
    let mut scratch = PoseScratch::new(data).unwrap();
    apply_clip(data, data.clip_index(clip).unwrap(), t, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    let n = data.nodes.iter().position(|n| n.name == node).unwrap();
    scratch.world[n].w_axis.truncate()
}

/// Runs `skel mirror CHARACTER OUT extra…` and loads OUT.
fn mirrored(tag: &str, extra: &[&str]) -> AnimationData {
    let out = out_path(tag);
    let input = character();
    let mut args = vec!["mirror", input.to_str().unwrap(), out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (ok, _, stderr) = skel(&args);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("4 clips mirrored"), "{stderr}");
    let data = rig(&out);
    let _ = std::fs::remove_file(&out);
    data
}

#[test]
fn the_mirrored_wave_waves_the_other_hand() {
    let source = rig(&character());
    let plane = MirrorMap::from_names(&source).unwrap().plane();
    for (tag, extra) in [("names", &[][..]), ("humanoid", &["--humanoid"][..])] {
        let written = mirrored(tag, extra);
        assert_eq!(written.nodes, source.nodes);
        let names: Vec<&str> = written.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Walk", "Wave", "Idle", "Run"]);
        for t in [0.0, 0.4, 0.9] {
            for (left, right) in [("LeftHand", "RightHand"), ("RightForearm", "LeftForearm")] {
                let got = position(&written, "Wave", t, left);
                let want = plane.reflect_point(position(&source, "Wave", t, right));
                assert!(
                    (got - want).length() < 1e-5,
                    "{tag} t={t} {left}: {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn append_keeps_the_clips_and_adds_their_mirrors() {
    let source = rig(&character());
    let written = mirrored("append", &["--append"]);
    let names: Vec<&str> = written.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Walk",
            "Wave",
            "Idle",
            "Run",
            "Walk.mirror",
            "Wave.mirror",
            "Idle.mirror",
            "Run.mirror"
        ]
    );
    for clip in ["Walk", "Wave", "Idle", "Run"] {
        for node in ["LeftHand", "RightToes", "Head"] {
            let (a, b) = (
                position(&source, clip, 0.6, node),
                position(&written, clip, 0.6, node),
            );
            assert!(
                (a - b).length() < 1e-6,
                "{clip} kept as it was: {node} {a} vs {b}"
            );
        }
    }
    let hand = position(&written, "Walk.mirror", 0.5, "LeftHand");
    let want = position(&source, "Walk", 0.5, "RightHand") * glam::Vec3::new(-1.0, 1.0, 1.0);
    assert!((hand - want).length() < 1e-5, "{hand} vs {want}");
}

#[test]
fn refusals_write_nothing() {
    let input = character();
    let out = out_path("refused");
    let pairs = skel_test_support::TempFile::new("pairs.json", r#"{"LeftHand": "NoSuchHand"}"#);
    for (extra, says) in [
        (vec!["--pairs", pairs.to_str().unwrap()], "NoSuchHand"),
        (vec!["--plane", "1,0,0"], "--plane"),
        (vec!["--plane", "0,0,0,1"], "mirror plane"),
        (vec!["--clips", "Swim"], "Swim"),
    ] {
        let mut args = vec!["mirror", input.to_str().unwrap(), out.to_str().unwrap()];
        args.extend_from_slice(&extra);
        let (ok, _, stderr) = skel(&args);
        assert!(!ok, "{extra:?}");
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
        assert!(!out.exists());
    }
    // Pairs across the hierarchy are named.
    let crossed = skel_test_support::TempFile::new("pairs.json", r#"{"LeftHand": "RightForearm"}"#);
    let (ok, _, stderr) = skel(&[
        "mirror",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--pairs",
        crossed.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("the parents of a pair must be a pair"),
        "{stderr}"
    );
    assert!(!out.exists());
}
