//! `skel pose --hide-bone NAME` / `--bone-rotation NAME=x,y,z,w`, run as the real binary on
//! CesiumMan (a clip with translation, rotation and scale tracks on all 19 joints): a hidden
//! bone's joint world matrix (and its children's) has scale 0 at every time, also in a blend;
//! a rotation override shows on the rest pose and loses to the clip, which rotates the bone.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{pose, skel};
use serde_json::Value;

fn cesium_man(test: &str) -> Option<String> {
    common::shared_asset(test, "CesiumMan/CesiumMan.glb").map(|p| p.display().to_string())
}

/// Length of the x column of joint `j`'s world matrix in skin 0, frame `f`.
fn joint_scale(report: &Value, f: usize, j: usize) -> f64 {
    let m = report["frames"][f]["skins"]["0"]["jointWorld"]
        .as_array()
        .unwrap();
    let c: Vec<f64> = m[j * 16..j * 16 + 3]
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
}

fn joint_matrix(report: &Value, f: usize, j: usize) -> Vec<f64> {
    report["frames"][f]["skins"]["0"]["jointWorld"]
        .as_array()
        .unwrap()[j * 16..j * 16 + 16]
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

// Skin 0 joint order: [torso_1, torso_2, torso_3, neck_1, neck_2, …].
const NECK: usize = 3;
const HEAD: usize = 4;

#[test]
fn hide_bone_zeroes_the_sub_tree_under_the_clip_and_in_a_blend() {
    let Some(asset) = cesium_man("hide_bone") else {
        return;
    };
    let times = "0,0.5,1.1";
    for mode in [["--clip", "0"], ["--blend", "0=0.5,0=0.5"]] {
        let report = pose(&[
            "pose",
            &asset,
            mode[0],
            mode[1],
            "--times",
            times,
            "--hide-bone",
            "Skeleton_neck_joint_1",
            "--json",
        ]);
        for f in 0..3 {
            assert_eq!(joint_scale(&report, f, NECK), 0.0, "{mode:?} frame {f}");
            assert_eq!(joint_scale(&report, f, HEAD), 0.0, "{mode:?} frame {f}");
            assert!(
                joint_scale(&report, f, 0) > 0.1,
                "{mode:?} frame {f}: torso shown"
            );
        }
    }
    // Without the flag the neck is there.
    let plain = pose(&["pose", &asset, "--clip", "0", "--times", "0.5", "--json"]);
    assert!(joint_scale(&plain, 0, NECK) > 0.1);
}

#[test]
fn bone_rotation_shows_at_rest_and_the_clip_wins_where_it_rotates_the_bone() {
    let Some(asset) = cesium_man("bone_rotation") else {
        return;
    };
    let q = "Skeleton_neck_joint_1=0,0,0.38268343,0.9238795";
    let rest = pose(&["pose", &asset, "--times", "0", "--json"]);
    let rest_rotated = pose(&[
        "pose",
        &asset,
        "--times",
        "0",
        "--bone-rotation",
        q,
        "--json",
    ]);
    let diff = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    };
    assert!(
        diff(
            &joint_matrix(&rest, 0, HEAD),
            &joint_matrix(&rest_rotated, 0, HEAD)
        ) > 1e-3
    );
    let clip = pose(&["pose", &asset, "--clip", "0", "--times", "0.5", "--json"]);
    let clip_rotated = pose(&[
        "pose",
        &asset,
        "--clip",
        "0",
        "--times",
        "0.5",
        "--bone-rotation",
        q,
        "--json",
    ]);
    assert!(
        diff(
            &joint_matrix(&clip, 0, HEAD),
            &joint_matrix(&clip_rotated, 0, HEAD)
        ) < 1e-6
    );
}

#[test]
fn an_unknown_bone_is_an_error() {
    let Some(asset) = cesium_man("unknown_bone") else {
        return;
    };
    let (ok, _, stderr) = skel(&["pose", &asset, "--hide-bone", "NoSuchBone"]);
    assert!(!ok);
    assert!(stderr.contains("NoSuchBone"));
}
