//! The rules on real assets from `../shared/assets`, loaded with skel-gltf:
//! - CesiumMan's clip has translation + rotation + scale tracks on all 19 joints (as every
//!   Mixamo export does): a hidden bone must stay hidden, a scaling override must lose.
//! - Superhero_Male_FullBody has one skin used by three mesh nodes (eyebrows, eyes, body): one
//!   call must re-bake all three.
//! - RobotExpressive has two skins over the same 43 joint nodes (one per hand mesh): overrides
//!   are per node, asset-wide, so both re-bake.
//! - Joints out of node order (CesiumMan, Superhero), skin roots under non-joint nodes
//!   (CesiumMan's `Z_UP` / `Armature`), many roots (quad_skin).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{CountingSink, column_len, load_asset, mat, max_abs_diff, parents_first};
use skel_anim::{AnimationController, Handedness};
use skel_bone_control::enable_bone_control;
use skel_math::{IDENTITY, RH_TO_LH, compose_mat4_into, multiply_mat4_into};

fn linear_part_is_zero(m: &[f32; 16]) -> bool {
    (0..3).all(|c| column_len(m, c) == 0.0)
}

#[test]
fn cesium_man_hidden_neck_stays_hidden_under_its_scale_tracks() {
    let Some(asset) = load_asset("CesiumMan/CesiumMan.glb", Handedness::LeftHanded) else {
        return;
    };
    let data = Arc::new(asset.animation);
    // The premise: a scale track on every joint of the skin.
    for &j in &data.skeletons[0].joints {
        assert!(
            data.is_animated(j, skel_anim::ChannelPath::Scale),
            "joint node {j}"
        );
    }
    let bones = enable_bone_control(&data).unwrap();
    let sk = &bones.skeletons()[0];
    let neck = sk.bone_index_by_name("Skeleton_neck_joint_1").unwrap();
    let head = sk.bone_index_by_name("Skeleton_neck_joint_2").unwrap();
    assert_eq!(sk.bones()[head].parent, Some(neck));

    let mut sink = CountingSink::default();
    sk.set_bone_visible(neck, false, &mut sink).unwrap();
    // Eager bake, no clip: hidden at once.
    assert!(linear_part_is_zero(&mat(&sink.bones[0], neck)));

    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    bones.install(&mut controller).unwrap();
    controller.set_clip(Some(0)).unwrap();
    let frames = 24;
    let step = controller.duration() * 1000.0 / frames as f32;
    for f in 0..frames {
        controller.tick(step, &mut sink);
        for b in 0..sk.bone_count() {
            let hidden = b == neck || b == head;
            assert_eq!(
                linear_part_is_zero(&mat(&sink.bones[0], b)),
                hidden,
                "frame {f} bone {b} ({})",
                sk.bones()[b].name
            );
        }
    }

    // Showing again brings it back under the clip.
    sk.set_bone_visible(neck, true, &mut sink).unwrap();
    controller.tick(step, &mut sink);
    assert!(!linear_part_is_zero(&mat(&sink.bones[0], neck)));
}

#[test]
fn cesium_man_scaling_override_loses_to_the_scale_track() {
    // The contrast that makes visibility necessary: scale 0 as a transform override is
    // overwritten by the clip's scale track (the clip wins per component).
    let Some(asset) = load_asset("CesiumMan/CesiumMan.glb", Handedness::LeftHanded) else {
        return;
    };
    let data = Arc::new(asset.animation);
    let bones = enable_bone_control(&data).unwrap();
    let sk = &bones.skeletons()[0];
    let neck = sk.bone_index_by_name("Skeleton_neck_joint_1").unwrap();
    let mut sink = CountingSink::default();
    sk.set_bone_scaling(neck, [0.0; 3], &mut sink).unwrap();
    assert!(
        linear_part_is_zero(&mat(&sink.bones[0], neck)),
        "static: shown as set"
    );
    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    bones.install(&mut controller).unwrap();
    controller.set_clip(Some(0)).unwrap();
    controller.tick(100.0, &mut sink);
    assert!(
        !linear_part_is_zero(&mat(&sink.bones[0], neck)),
        "the clip wins"
    );
}

#[test]
fn cesium_man_discovery_out_of_order_joints_and_a_root_under_non_joints() {
    let Some(asset) = load_asset("CesiumMan/CesiumMan.glb", Handedness::LeftHanded) else {
        return;
    };
    let data = Arc::new(asset.animation);
    let bones = enable_bone_control(&data).unwrap();
    let sk = &bones.skeletons()[0];
    assert_eq!(sk.bone_count(), 19);
    // Joint order, not node order: joints = [3, 12, 13, 20, 21, 17, …].
    let names: Vec<&str> = sk.bones().iter().take(4).map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Skeleton_torso_joint_1",
            "Skeleton_torso_joint_2",
            "torso_joint_3",
            "Skeleton_neck_joint_1"
        ]
    );
    // The root joint hangs under Z_UP → Armature (non-joints) and has no parent bone.
    let roots: Vec<usize> = (0..19)
        .filter(|&b| sk.bones()[b].parent.is_none())
        .collect();
    assert_eq!(roots, [0]);
    // Every parent is a strict ancestor node of its child.
    for (b, bone) in sk.bones().iter().enumerate() {
        if let Some(p) = bone.parent {
            let parent_node = sk.joint_node(p).unwrap();
            let mut n = data.nodes[sk.joint_node(b).unwrap()].parent;
            while n != Some(parent_node) {
                n = data.nodes[n.unwrap()].parent;
            }
        }
    }
    // "leg_joint_L_1" (bone 11) has parent "Skeleton_torso_joint_1" (bone 0).
    let leg = sk.bone_index_by_name("leg_joint_L_1").unwrap();
    assert_eq!(sk.bones()[leg].parent, Some(0));
}

#[test]
fn quad_skin_every_joint_is_a_root() {
    let Some(asset) = load_asset("quad_skin/quad_skin.glb", Handedness::LeftHanded) else {
        return;
    };
    let bones = enable_bone_control(&Arc::new(asset.animation)).unwrap();
    let sk = &bones.skeletons()[0];
    assert_eq!(sk.bone_count(), 10);
    assert!(sk.bones().iter().all(|b| b.parent.is_none()));
}

#[test]
fn superhero_one_skin_on_three_meshes_is_rebaked_on_all_by_one_call() {
    let Some(asset) = load_asset(
        "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
        Handedness::LeftHanded,
    ) else {
        return;
    };
    let data = Arc::new(asset.animation);
    assert_eq!(data.skeletons.len(), 3, "eyebrows, eyes, body");
    assert!(data.skeletons.iter().all(|s| s.skin == 0));
    let bones = enable_bone_control(&data).unwrap();
    let handles = bones.skeletons();
    assert!(handles.iter().all(|h| h.shares_overrides_with(&handles[0])));
    let body = bones
        .skeleton_for_mesh_node(
            asset
                .nodes
                .iter()
                .position(|n| n.name == "SuperHero_Male")
                .unwrap(),
        )
        .unwrap();
    let head = body.get_bone_by_name("Head").unwrap();
    let head_index = body.bone_index(head).unwrap();
    assert_eq!(
        body.bones()[body.bones()[head_index].parent.unwrap()].name,
        "neck_01"
    );

    let mut sink = CountingSink::default();
    bones.bake(&mut sink);
    let rest = sink.bones.clone();
    sink.take_order();
    body.set_bone_visible(head, false, &mut sink).unwrap();
    assert_eq!(
        sink.take_order(),
        [0, 1, 2],
        "every mesh of the skin is re-baked"
    );
    for (binding, (now, before)) in sink.bones.iter().zip(&rest).enumerate() {
        assert!(
            linear_part_is_zero(&mat(now, head_index)),
            "binding {binding}"
        );
        assert_ne!(now, before);
    }
    // Through another mesh's handle, the same state.
    assert!(!handles[1].is_bone_visible(head_index).unwrap());
}

#[test]
fn robot_two_skins_over_the_same_joints_share_the_overrides() {
    let Some(asset) = load_asset(
        "RobotExpressive/RobotExpressive.glb",
        Handedness::LeftHanded,
    ) else {
        return;
    };
    let data = Arc::new(asset.animation);
    assert_eq!(data.skeletons.len(), 2);
    assert_ne!(data.skeletons[0].skin, data.skeletons[1].skin);
    assert_eq!(data.skeletons[0].joints, data.skeletons[1].joints);
    let bones = enable_bone_control(&data).unwrap();
    let (right, left) = (&bones.skeletons()[0], &bones.skeletons()[1]);
    let palm = right.bone_index_by_name("Palm2.R").unwrap();
    let mut sink = CountingSink::default();
    bones.bake(&mut sink);
    let rest_left = sink.bones[1].clone();
    sink.take_order();
    right
        .set_bone_rotation_quaternion(palm, [0.0, 0.0, 0.38268343, 0.9238795], &mut sink)
        .unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    // The left hand's mesh (the other skin) moves too: its palm and everything below it.
    assert!(max_abs_diff(&mat(&sink.bones[1], palm), &mat(&rest_left, palm)) > 1e-3);
    let through_left = left.bone_override(palm).unwrap().rotation.unwrap();
    assert!(max_abs_diff(&through_left, &[0.0, 0.0, 0.38268343, 0.9238795]) < 1e-6);
}

/// `T(p) · R(q) · S(s) · H`.
fn pose_matrix(p: [f32; 3], q: [f32; 4], s: [f32; 3], h: &[f32; 16]) -> [f32; 16] {
    let mut trs = [0.0; 16];
    compose_mat4_into(&mut trs, 0, p, q, s);
    let mut out = [0.0; 16];
    multiply_mat4_into(&mut out, 0, &trs, 0, h, 0);
    out
}

fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

#[test]
fn cesium_man_world_poses_round_trip_through_the_bake() {
    // A ragdoll-style batch on every bone, parents first, under CesiumMan's rotated non-joint
    // ancestors (Z_UP): after one bake each joint's world matrix is the pose asked for.
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let Some(asset) = load_asset("CesiumMan/CesiumMan.glb", handedness) else {
            return;
        };
        let data = Arc::new(asset.animation);
        let bones = enable_bone_control(&data).unwrap();
        let sk = &bones.skeletons()[0];
        let tilt = common::quat_axis_angle([0.3, 1.0, -0.2], 0.35);
        let mut wanted = Vec::new();
        for b in parents_first(sk.bones()) {
            let rest = sk.bone_world_pose(b).unwrap();
            let p = [
                rest.position[0] + 0.05 * b as f32,
                rest.position[1] - 0.02,
                rest.position[2] + 0.1,
            ];
            let q = quat_mul(tilt, rest.rotation);
            sk.set_bone_world_pose_deferred(b, p, q).unwrap();
            wanted.push((b, p, q));
        }
        sk.bake_skeleton(&mut CountingSink::default());
        let h = match handedness {
            Handedness::LeftHanded => RH_TO_LH,
            Handedness::RightHanded => IDENTITY,
        };
        for (b, p, q) in wanted {
            let world = sk.baked_world_matrix(b).unwrap().to_cols_array();
            let s = [
                column_len(&world, 0),
                column_len(&world, 1),
                column_len(&world, 2),
            ];
            let d = max_abs_diff(&world, &pose_matrix(p, q, s, &h));
            // CesiumMan is ~1.5 units tall.
            assert!(d < 1e-4, "{handedness:?} bone {b}: max difference {d}");
        }
    }
}
