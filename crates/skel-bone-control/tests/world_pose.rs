//! `set_bone_world_pose_deferred`: absolute poses in the loader's world space, the handedness
//! reflection applied internally, world → local through the parent's current world matrix.
//! The rule checked: after the bake, the joint node's world matrix is the given pose (times the
//! reflection and the world scale the chain gives).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{CountingSink, bone, column_len, max_abs_diff, quat_axis_angle, rig};
use skel_anim::Handedness;
use skel_bone_control::enable_bone_control;
use skel_math::{IDENTITY, RH_TO_LH, compose_mat4_into, multiply_mat4_into};

/// Bones of the rig in an order where parents come first.
const PARENTS_FIRST: [usize; 5] = [bone::HIPS, bone::SPINE, bone::HEAD, bone::ARM, bone::PROP];

fn h(handedness: Handedness) -> [f32; 16] {
    match handedness {
        Handedness::LeftHanded => RH_TO_LH,
        Handedness::RightHanded => IDENTITY,
    }
}

/// `T(p) · R(q) · S(s) · H`: the world matrix a pose must produce.
fn pose_matrix(p: [f32; 3], q: [f32; 4], s: f32, handedness: Handedness) -> [f32; 16] {
    let mut trs = [0.0; 16];
    compose_mat4_into(&mut trs, 0, p, q, [s; 3]);
    let mut out = [0.0; 16];
    multiply_mat4_into(&mut out, 0, &trs, 0, &h(handedness), 0);
    out
}

fn poses() -> [([f32; 3], [f32; 4]); 5] {
    [
        ([0.3, 1.0, -0.2], quat_axis_angle([0.2, 1.0, 0.1], 0.8)),
        ([0.1, 1.6, 0.4], quat_axis_angle([1.0, 0.0, 0.3], -1.1)),
        ([-0.5, 2.0, 0.0], quat_axis_angle([0.0, 0.0, 1.0], 2.5)),
        ([1.2, 1.4, 0.9], quat_axis_angle([0.5, -0.5, 0.7], 0.4)),
        ([-3.0, 0.5, 1.0], quat_axis_angle([0.0, 1.0, 0.0], 1.3)),
    ]
}

#[test]
fn after_bake_each_joint_world_matrix_is_the_given_pose() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let asset = enable_bone_control(&Arc::new(rig(handedness))).unwrap();
        let sk = &asset.skeletons()[0];
        for (&b, (p, q)) in PARENTS_FIRST.iter().zip(poses()) {
            sk.set_bone_world_pose_deferred(b, p, q).unwrap();
        }
        sk.bake_skeleton(&mut CountingSink::default());
        for (&b, (p, q)) in PARENTS_FIRST.iter().zip(poses()) {
            let world = sk.baked_world_matrix(b).unwrap().to_cols_array();
            // The bone keeps its local scale: 0.5 from the armature for the body, 1 for the prop.
            let s = if b == bone::PROP { 1.0 } else { 0.5 };
            assert!((column_len(&world, 0) - s).abs() < 1e-5);
            let d = max_abs_diff(&world, &pose_matrix(p, q, s, handedness));
            assert!(d < 2e-5, "{handedness:?} bone {b}: max difference {d}");
            // And the reported pose reads back what was set (q and -q are one rotation).
            let got = sk.bone_world_pose(b).unwrap();
            assert!(max_abs_diff(&got.position, &p) < 2e-5);
            let dot: f32 = got.rotation.iter().zip(&q).map(|(a, b)| a * b).sum();
            assert!(
                dot.abs() > 1.0 - 1e-5,
                "{handedness:?} bone {b}: rotation {got:?}"
            );
        }
    }
}

#[test]
fn reading_a_pose_and_setting_it_back_changes_nothing() {
    let data = Arc::new(rig(Handedness::LeftHanded));
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    // Start from a non-trivial pose with overrides on the chain.
    sk.set_bone_rotation_quaternion(
        bone::SPINE,
        quat_axis_angle([0.0, 0.0, 1.0], 0.6),
        &mut sink,
    )
    .unwrap();
    sk.set_bone_scaling(bone::HEAD, [1.5; 3], &mut sink)
        .unwrap();
    let before = sink.bones.clone();
    for b in PARENTS_FIRST {
        let pose = sk.bone_world_pose(b).unwrap();
        sk.set_bone_world_pose_deferred(b, pose.position, pose.rotation)
            .unwrap();
    }
    sk.bake_skeleton(&mut sink);
    for (binding, (a, b)) in sink.bones.iter().zip(&before).enumerate() {
        let d = max_abs_diff(a, b);
        assert!(d < 1e-5, "binding {binding}: max difference {d}");
    }
}

#[test]
fn the_left_handed_reflection_is_applied_internally() {
    // The prop is a root joint at glTF x = +2, no rotation.
    let asset = enable_bone_control(&Arc::new(rig(Handedness::LeftHanded))).unwrap();
    let sk = &asset.skeletons()[0];
    let rest = sk.bone_world_pose(bone::PROP).unwrap();
    assert!(
        max_abs_diff(&rest.position, &[-2.0, 0.0, 0.0]) < 1e-6,
        "{rest:?}"
    );
    // A left-handed world pose at x = -3, turned by 0.5 rad about y…
    let q = quat_axis_angle([0.0, 1.0, 0.0], 0.5);
    sk.set_bone_world_pose_deferred(bone::PROP, [-3.0, 0.0, 0.0], q)
        .unwrap();
    // …is the glTF-space local pose at x = +3 turned by -0.5 rad: (x, -y, -z, w).
    let local = sk.bone_override(bone::PROP).unwrap();
    assert!(max_abs_diff(&local.translation.unwrap(), &[3.0, 0.0, 0.0]) < 1e-6);
    assert!(max_abs_diff(&local.rotation.unwrap(), &[q[0], -q[1], -q[2], q[3]]) < 1e-6);

    // In the right-handed mode there is nothing to reflect.
    let asset = enable_bone_control(&Arc::new(rig(Handedness::RightHanded))).unwrap();
    let sk = &asset.skeletons()[0];
    sk.set_bone_world_pose_deferred(bone::PROP, [-3.0, 0.0, 0.0], q)
        .unwrap();
    let local = sk.bone_override(bone::PROP).unwrap();
    assert!(max_abs_diff(&local.translation.unwrap(), &[-3.0, 0.0, 0.0]) < 1e-6);
    assert!(max_abs_diff(&local.rotation.unwrap(), &q) < 1e-6);
}

#[test]
fn the_parent_world_includes_overrides_written_earlier_in_the_batch() {
    // Move the hips (deferred, not baked), then place the spine in world space: the spine must
    // land where asked under the *moved* hips.
    let asset = enable_bone_control(&Arc::new(rig(Handedness::LeftHanded))).unwrap();
    let sk = &asset.skeletons()[0];
    sk.set_bone_pose_deferred(
        bone::HIPS,
        [1.0, -2.0, 3.0],
        quat_axis_angle([1.0, 1.0, 0.0], 0.7),
    )
    .unwrap();
    let (p, q) = ([0.0, 1.0, 0.0], quat_axis_angle([0.0, 0.0, 1.0], 0.2));
    sk.set_bone_world_pose_deferred(bone::SPINE, p, q).unwrap();
    sk.bake_skeleton(&mut CountingSink::default());
    let world = sk.baked_world_matrix(bone::SPINE).unwrap().to_cols_array();
    let d = max_abs_diff(&world, &pose_matrix(p, q, 0.5, Handedness::LeftHanded));
    assert!(d < 2e-5, "max difference {d}");
}
