//! Mirroring on real assets: the built-in character (`fixtures/default_character.glb`),
//! RobotExpressive and the Fox (`../shared/assets`), paired by their node names, and CesiumMan
//! with its arm pairs given (its names number one arm from the hand). Every clip is
//! posed at five times, mirrored both ways (the baked clip, and `mirror_pose` on the sampled
//! pose); every node's world position is the reflection of its partner's within 1e-5 of the
//! rest's bounding-box diagonal, its world matrix `R · W_partner · A_j`, and mirroring twice
//! gives the pose back. The rest's own asymmetry (how far each node is from the reflection of
//! its partner at rest) is measured and printed: the built-in character is symmetric,
//! RobotExpressive is not (its right arm is longer), which the rule does not need.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use glam::{Mat3, Mat4, Vec3};
use skel_anim::{
    AnimError, AnimationData, Handedness, MirrorMap, PoseScratch, TRS_STRIDE, apply_clip,
    compute_world_matrices, mirror_clip, reset_to_rest,
};
use skel_gltf::{LoadOptions, load_path};

const RH: LoadOptions = LoadOptions {
    handedness: Handedness::RightHanded,
    decode_images: false,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

fn position(world: &[Mat4], node: usize) -> Vec3 {
    world[node].w_axis.truncate()
}

/// World matrices of `trs` (asset frame).
fn worlds(data: &AnimationData, scratch: &mut PoseScratch, trs: &[f32]) -> Vec<Mat4> {
    scratch.trs.copy_from_slice(trs);
    compute_world_matrices(data, scratch);
    scratch.world.clone()
}

fn sample(data: &AnimationData, scratch: &mut PoseScratch, clip: usize, t: f32) -> Vec<f32> {
    reset_to_rest(data, scratch);
    apply_clip(data, clip, t, scratch);
    scratch.trs.clone()
}

/// What one asset measured, relative to its rest's bounding-box diagonal.
#[derive(Debug, Default)]
struct Measured {
    diagonal: f32,
    /// The largest distance of a node from its partner's reflection at rest.
    rest_asymmetry: f32,
    /// The same over skin joints, and the joint.
    joint_asymmetry: f32,
    worst_joint: String,
    position: f32,
    matrix: f32,
    twice: f32,
    poses: usize,
}

fn check(name: &str, path: &Path) -> Measured {
    let data = load_path(path, &RH).unwrap().animation;
    let map = MirrorMap::from_names(&data).unwrap();
    check_with(name, data, &map)
}

fn check_with(name: &str, mut data: AnimationData, map: &MirrorMap) -> Measured {
    let n = data.nodes.len();
    let clips = data.clips.len();
    let mut scratch = PoseScratch::new(&data).unwrap();
    reset_to_rest(&data, &mut scratch);
    let rest_trs = scratch.trs.clone();
    let rest = worlds(&data, &mut scratch, &rest_trs);
    let (lo, hi) = rest.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), m| {
        let p = m.w_axis.truncate();
        (lo.min(p), hi.max(p))
    });
    let mut m = Measured {
        diagonal: (hi - lo).length(),
        ..Measured::default()
    };
    let plane = map.plane();
    let r = Mat4::from(plane.matrix());
    let asymmetry = |j: usize| {
        let p = map.partner(j).unwrap();
        (position(&rest, j) - plane.reflect_point(position(&rest, p))).length() / m.diagonal
    };
    m.rest_asymmetry = (0..n).map(asymmetry).fold(0.0, f32::max);
    let joints = data.skeletons.iter().flat_map(|s| s.joints.iter().copied());
    if let Some(worst) = joints.max_by(|&a, &b| asymmetry(a).total_cmp(&asymmetry(b))) {
        m.joint_asymmetry = asymmetry(worst);
        m.worst_joint = data.nodes[worst].name.clone();
    }
    let baked = data
        .append_mirrored_clips(map, &(0..clips).collect::<Vec<_>>())
        .unwrap();
    let mut scratch = PoseScratch::new(&data).unwrap();
    let mut mirrored = vec![0.0; n * TRS_STRIDE];
    let mut twice = vec![0.0; n * TRS_STRIDE];
    for (clip, &mirror) in baked.iter().enumerate() {
        let duration = data.clips[clip].duration();
        for f in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let t = f * duration;
            let source = sample(&data, &mut scratch, clip, t);
            let w = worlds(&data, &mut scratch, &source);
            map.mirror_pose(&source, &mut mirrored).unwrap();
            let from_pose = worlds(&data, &mut scratch, &mirrored);
            let from_clip = {
                let trs = sample(&data, &mut scratch, mirror, t);
                worlds(&data, &mut scratch, &trs)
            };
            for got in [&from_pose, &from_clip] {
                for j in 0..n {
                    let p = map.partner(j).unwrap();
                    let want = plane.reflect_point(position(&w, p));
                    let off = (position(got, j) - want).length() / m.diagonal;
                    assert!(
                        off < 1e-5,
                        "{name} clip {clip} t {t}: node {j} {:?} is {off:e} diagonals from its partner's reflection",
                        data.nodes[j].name
                    );
                    m.position = m.position.max(off);
                    // The linear parts (the positions are checked above), relative to
                    // their largest entry (RobotExpressive's armature is scaled by 100).
                    let a = Mat4::from_mat3(map.reflection(j).unwrap());
                    let want = Mat3::from_mat4(r * w[p] * a);
                    let largest = |m: Mat3| m.abs().to_cols_array().into_iter().fold(0.0, f32::max);
                    let off = largest(Mat3::from_mat4(got[j]) - want) / largest(want);
                    m.matrix = m.matrix.max(off);
                }
            }
            map.mirror_pose(&mirrored, &mut twice).unwrap();
            let back = worlds(&data, &mut scratch, &twice);
            for j in 0..n {
                let off = (position(&back, j) - position(&w, j)).length() / m.diagonal;
                assert!(
                    off < 1e-5,
                    "{name} clip {clip} t {t}: mirrored twice, node {j} off by {off:e}"
                );
                m.twice = m.twice.max(off);
            }
            m.poses += 1;
        }
    }
    assert!(
        m.matrix < 1e-5,
        "{name}: world matrices off by {:e}",
        m.matrix
    );
    eprintln!("{name}: {m:?}");
    m
}

#[test]
fn the_built_in_character_mirrors_onto_itself() {
    let m = check("default_character", &fixture("default_character.glb"));
    assert!(m.rest_asymmetry < 1e-6, "{m:?}");
    assert_eq!(m.poses, 4 * 5);
    // Its left arm waves: the mirrored Wave waves the right arm, every key mirrored.
    let mut data = load_path(&fixture("default_character.glb"), &RH)
        .unwrap()
        .animation;
    let map = MirrorMap::from_names(&data).unwrap();
    let wave = data.clip_index("Wave").unwrap();
    let mirrored = mirror_clip(&data, &map, wave).unwrap();
    let node = |name: &str| data.nodes.iter().position(|n| n.name == name).unwrap();
    let animates = |clip: &skel_anim::Clip, n: usize| clip.channels.iter().any(|c| c.node == n);
    for (left, right) in [
        ("LeftUpperArm", "RightUpperArm"),
        ("LeftForearm", "RightForearm"),
    ] {
        assert_eq!(
            animates(&data.clips[wave], node(left)),
            animates(&mirrored, node(right))
        );
    }
    data.clips.push(mirrored);
    data.validate().unwrap();
}

#[test]
fn robot_expressive_and_the_fox_mirror_every_clip() {
    let test = "mirror::robot_expressive_and_the_fox";
    for file in ["RobotExpressive/RobotExpressive.glb", "Fox/Fox.glb"] {
        let Some(path) = skel_test_support::shared_asset(test, file) else {
            return;
        };
        let m = check(file, &path);
        assert!(m.poses >= 3 * 5, "{file}: {m:?}");
    }
}

#[test]
fn cesium_man_needs_its_pairs_given() {
    let test = "mirror::cesium_man_needs_its_pairs_given";
    let Some(path) = skel_test_support::shared_asset(test, "CesiumMan/CesiumMan.glb") else {
        return;
    };
    let data = load_path(&path, &RH).unwrap().animation;
    // Its right arm is numbered from the shoulder, its left from the hand.
    let e = MirrorMap::from_names(&data).unwrap_err();
    let AnimError::MirrorPairBreaksHierarchy { node, .. } = e else {
        panic!("{e}");
    };
    assert!(data.nodes[node].name.contains("arm_joint"), "{e}");
    let by = |name: &str| data.nodes.iter().position(|n| n.name == name).unwrap();
    let mut pairs = skel_anim::mirror::pairs_by_name(&data.nodes).unwrap();
    pairs.retain(|&(a, _)| !data.nodes[a].name.contains("arm_joint"));
    pairs.extend([
        (by("Skeleton_arm_joint_L__4_"), by("Skeleton_arm_joint_R")),
        (
            by("Skeleton_arm_joint_L__3_"),
            by("Skeleton_arm_joint_R__2_"),
        ),
        (
            by("Skeleton_arm_joint_L__2_"),
            by("Skeleton_arm_joint_R__3_"),
        ),
    ]);
    let map = MirrorMap::from_pairs(&data, &pairs).unwrap();
    assert_eq!(map.pairs().count(), pairs.len());
    let m = check_with("CesiumMan", data, &map);
    assert_eq!(m.poses, 5);
}
