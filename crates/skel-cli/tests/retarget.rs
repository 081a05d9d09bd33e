//! `skel retarget` and `skel pose --retarget-from`, run as the real binary: the written `.glb`
//! loads (our loader, `skel info`) and poses as the retargeted clips do in memory (load →
//! write → load gives the same poses); refusals write nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::skel;
use skel::anim::{AnimationData, Handedness, PoseScratch, apply_clip, compute_world_matrices};
use skel::gltf::{LoadOptions, load_path};
use skel::retarget::{HumanoidMap, RetargetOptions, retarget, with_clips};

const ROBOT: &str = "RobotExpressive/RobotExpressive.glb";
const HERO: &str = "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf";

fn rig(path: &std::path::Path) -> AnimationData {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(path, &opts).unwrap().animation
}

fn worlds(data: &AnimationData, clip: usize, t: f32) -> Vec<glam::Mat4> {
    let mut scratch = PoseScratch::new(data).unwrap();
    apply_clip(data, clip, t, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    scratch.world.clone()
}

#[test]
fn writes_a_glb_that_poses_as_the_clips_in_memory() {
    let test = "retarget::writes_a_glb";
    let (Some(robot), Some(hero)) = (
        skel_test_support::shared_asset(test, ROBOT),
        skel_test_support::shared_asset(test, HERO),
    ) else {
        return;
    };
    let out = std::env::temp_dir().join(format!("skel-retarget-{}.glb", std::process::id()));
    let (ok, _, stderr) = skel(&[
        "retarget",
        robot.to_str().unwrap(),
        hero.to_str().unwrap(),
        "--auto",
        "--clips",
        "Walking,Wave",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let (ok, info, stderr) = skel(&["info", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(
        info.contains("\"Walking\"") && info.contains("\"Wave\""),
        "{info}"
    );
    let written = rig(&out);
    let _ = std::fs::remove_file(&out);
    // The same retargeting in memory.
    let (source, target) = (rig(&robot), rig(&hero));
    let map = HumanoidMap::pair(
        &HumanoidMap::detect(&source).unwrap(),
        &HumanoidMap::detect(&target).unwrap(),
    );
    let options = RetargetOptions {
        clips: Some(vec!["Walking".into(), "Wave".into()]),
        ..RetargetOptions::default()
    };
    let expected = with_clips(&target, retarget(&source, &target, &map, &options).unwrap());
    assert_eq!(written.nodes, expected.nodes);
    for name in ["Walking", "Wave"] {
        let (a, b) = (
            expected.clip_index(name).unwrap(),
            written.clip_index(name).unwrap(),
        );
        for t in [0.0, 0.3, 0.77] {
            for (x, y) in worlds(&expected, a, t).iter().zip(worlds(&written, b, t)) {
                assert!(x.abs_diff_eq(y, 1e-5), "{name} t={t}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn pose_retarget_from_gives_the_retargeted_pose() {
    let test = "retarget::pose_retarget_from";
    let (Some(robot), Some(hero)) = (
        skel_test_support::shared_asset(test, ROBOT),
        skel_test_support::shared_asset(test, HERO),
    ) else {
        return;
    };
    let posed = common::pose(&[
        "pose",
        hero.to_str().unwrap(),
        "--retarget-from",
        robot.to_str().unwrap(),
        "--auto",
        "--clip",
        "Walking",
        "--times",
        "0,0.5",
        "--json",
    ]);
    let rest = common::pose(&["pose", hero.to_str().unwrap(), "--times", "0", "--json"]);
    // The walking pose is not the rest pose.
    assert_ne!(posed["frames"][1]["nodes"], rest["frames"][0]["nodes"]);
}

#[test]
fn refusals_write_nothing() {
    let test = "retarget::refusals_write_nothing";
    let (Some(robot), Some(hero)) = (
        skel_test_support::shared_asset(test, ROBOT),
        skel_test_support::shared_asset(test, HERO),
    ) else {
        return;
    };
    let map = skel_test_support::TempFile::new("map.json", r#"{"pelvis": "NoSuchBone"}"#);
    let out = std::env::temp_dir().join(format!("skel-retarget-bad-{}.glb", std::process::id()));
    let (ok, _, stderr) = skel(&[
        "retarget",
        robot.to_str().unwrap(),
        hero.to_str().unwrap(),
        "--map",
        map.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("NoSuchBone"), "{stderr}");
    assert!(!out.exists());
    let fox = skel_test_support::shared_asset(test, "Fox/Fox.glb").unwrap();
    let (ok, _, stderr) = skel(&[
        "retarget",
        robot.to_str().unwrap(),
        fox.to_str().unwrap(),
        "--auto",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("not a humanoid"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn print_map_prints_the_map_json() {
    let test = "retarget::print_map";
    let (Some(robot), Some(hero)) = (
        skel_test_support::shared_asset(test, ROBOT),
        skel_test_support::shared_asset(test, HERO),
    ) else {
        return;
    };
    let (ok, stdout, stderr) = skel(&[
        "retarget",
        robot.to_str().unwrap(),
        hero.to_str().unwrap(),
        "--auto",
        "--print-map",
    ]);
    assert!(ok, "{stderr}");
    let map: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(map["pelvis"], "Hips");
    assert_eq!(map["thigh_l"], "UpperLeg.L");
    assert!(stderr.contains("unmapped target joints"), "{stderr}");
}
