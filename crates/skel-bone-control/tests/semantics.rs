//! The seed's bone-control rules, one test (at least) each, on a hand-built rig:
//! eager bake, deferred batches, clip wins per component, visibility after channels in every
//! pose path, visibility's own mask bit, one override map per asset. What is refused, and
//! that a refusal writes and uploads nothing, is in `errors.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{CountingSink, bone, clip, column_len, floats, mat, max_abs_diff, node, rig_arc};
use skel_anim::{
    AnimationController, AnimationData, PoseScratch, R_OFF, RecordingSink, S_OFF, T_OFF,
    TRS_STRIDE, apply_clip, compute_bone_matrices, compute_world_matrices, reset_to_rest,
};
use skel_bone_control::{BoneControlError, BoneOverrideState, enable_bone_control};

const TOL: f32 = 1e-5;

/// Bone matrices of every binding computed straight from skel-anim, with `before` / `after`
/// editing the TRS scratch around the clip: the reference the bone-control results must match.
fn expected(
    data: &AnimationData,
    clip_at: Option<(usize, f32)>,
    before: impl Fn(&mut [f32]),
    after: impl Fn(&mut [f32]),
) -> Vec<Vec<f32>> {
    let mut s = PoseScratch::new(data).unwrap();
    reset_to_rest(data, &mut s);
    before(&mut s.trs);
    if let Some((c, t)) = clip_at {
        apply_clip(data, c, t, &mut s);
    }
    after(&mut s.trs);
    compute_world_matrices(data, &mut s);
    let mut sink = RecordingSink::default();
    compute_bone_matrices(data, &mut s, &mut sink);
    sink.bone_matrices.iter().map(|b| floats(b)).collect()
}

fn write(trs: &mut [f32], node: usize, off: usize, v: &[f32]) {
    let at = node * TRS_STRIDE + off;
    trs[at..at + v.len()].copy_from_slice(v);
}

fn none(_: &mut [f32]) {}

fn assert_bones(got: &[Vec<f32>], want: &[Vec<f32>]) {
    assert_eq!(got.len(), want.len());
    for (b, (g, w)) in got.iter().zip(want).enumerate() {
        let d = max_abs_diff(g, w);
        assert!(d < TOL, "binding {b}: max difference {d}");
    }
}

// ---------------------------------------------------------------------------------------------
// Eager bake

#[test]
fn every_immediate_setter_bakes_and_uploads_every_binding_without_a_clip() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    let rot = common::quat_axis_angle([0.0, 0.0, 1.0], 0.9);

    sk.set_bone_position(bone::ARM, [1.0, 2.0, 3.0], &mut sink)
        .unwrap();
    assert_eq!(sink.take_order(), [0, 1], "one upload per binding");
    let t = |trs: &mut [f32]| write(trs, node::ARM, T_OFF, &[1.0, 2.0, 3.0]);
    assert_bones(&sink.bones, &expected(&data, None, t, none));

    sk.set_bone_rotation_quaternion(bone::ARM, rot, &mut sink)
        .unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    let tr = |trs: &mut [f32]| {
        t(trs);
        write(trs, node::ARM, R_OFF, &rot);
    };
    assert_bones(&sink.bones, &expected(&data, None, tr, none));

    sk.set_bone_scaling(bone::ARM, [2.0, 1.0, 0.5], &mut sink)
        .unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    let trs_edit = |trs: &mut [f32]| {
        tr(trs);
        write(trs, node::ARM, S_OFF, &[2.0, 1.0, 0.5]);
    };
    assert_bones(&sink.bones, &expected(&data, None, trs_edit, none));

    sk.set_bone_visible(bone::SPINE, false, &mut sink).unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    let hide = |trs: &mut [f32]| write(trs, node::SPINE, S_OFF, &[0.0; 3]);
    assert_bones(&sink.bones, &expected(&data, None, trs_edit, hide));

    sk.clear_bone_override(bone::ARM, &mut sink).unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    assert_bones(&sink.bones, &expected(&data, None, none, hide));

    assert_eq!(
        sink.morph_calls, 0,
        "a bake must not reset clip-driven weights"
    );
}

#[test]
fn deferred_setters_write_without_baking_and_bake_uploads_the_batch_once() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.bake_skeleton(&mut sink);
    let rest = sink.bones.clone();
    sink.take_order();
    let rest_world = sk.baked_world_matrix(bone::HEAD).unwrap();

    let r1 = common::quat_axis_angle([1.0, 0.0, 0.0], 0.5);
    let r2 = common::quat_axis_angle([0.0, 1.0, 0.0], -0.4);
    sk.set_bone_pose_deferred(bone::SPINE, [0.0, 1.0, 0.0], r1)
        .unwrap();
    sk.set_bone_pose_deferred(bone::HEAD, [0.0, 0.3, 0.3], r2)
        .unwrap();
    let world = sk.bone_world_pose(bone::HEAD).unwrap();
    sk.set_bone_world_pose_deferred(bone::ARM, world.position, world.rotation)
        .unwrap();
    // Nothing was baked: the bake scratch still holds the rest pose.
    assert_eq!(sk.baked_world_matrix(bone::HEAD).unwrap(), rest_world);
    assert!(sink.order.is_empty());
    assert_eq!(sink.bones, rest);

    sk.bake_skeleton(&mut sink);
    assert_eq!(
        sink.take_order(),
        [0, 1],
        "one upload per binding for the batch"
    );
    let arm = sk.bone_override(bone::ARM).unwrap();
    let edit = |trs: &mut [f32]| {
        write(trs, node::SPINE, T_OFF, &[0.0, 1.0, 0.0]);
        write(trs, node::SPINE, R_OFF, &r1);
        write(trs, node::HEAD, T_OFF, &[0.0, 0.3, 0.3]);
        write(trs, node::HEAD, R_OFF, &r2);
        write(trs, node::ARM, T_OFF, &arm.translation.unwrap());
        write(trs, node::ARM, R_OFF, &arm.rotation.unwrap());
    };
    assert_bones(&sink.bones, &expected(&data, None, edit, none));
    assert_ne!(sk.baked_world_matrix(bone::HEAD).unwrap(), rest_world);
}

#[test]
fn asset_bake_is_the_same_as_a_handle_bake() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    asset.skeletons()[1]
        .set_bone_pose_deferred(bone::HEAD, [0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0])
        .unwrap();
    let (mut a, mut b) = (CountingSink::default(), CountingSink::default());
    asset.bake(&mut a);
    asset.skeletons()[0].bake_skeleton(&mut b);
    assert_eq!(a.bones, b.bones);
    assert_eq!(a.order, [0, 1]);
}

// ---------------------------------------------------------------------------------------------
// While a clip plays

#[test]
fn transform_overrides_go_before_channels_so_the_clip_wins_per_component() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    let override_rot = common::quat_axis_angle([1.0, 0.0, 0.0], 1.2);
    // The clip animates head rotation and head scale, not head translation.
    sk.set_bone_position(bone::HEAD, [0.0, 0.9, 0.4], &mut sink)
        .unwrap();
    sk.set_bone_rotation_quaternion(bone::HEAD, override_rot, &mut sink)
        .unwrap();
    sk.set_bone_scaling(bone::HEAD, [3.0; 3], &mut sink)
        .unwrap();
    // The clip does not touch the arm's rotation.
    sk.set_bone_rotation_quaternion(bone::ARM, override_rot, &mut sink)
        .unwrap();

    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    asset.install(&mut controller).unwrap();
    controller.set_clip(Some(clip::MIXAMO_LIKE)).unwrap();
    controller.tick(500.0, &mut sink);

    let before = |trs: &mut [f32]| {
        write(trs, node::HEAD, T_OFF, &[0.0, 0.9, 0.4]);
        write(trs, node::HEAD, R_OFF, &override_rot);
        write(trs, node::HEAD, S_OFF, &[3.0; 3]);
        write(trs, node::ARM, R_OFF, &override_rot);
    };
    let want = expected(&data, Some((clip::MIXAMO_LIKE, 0.5)), before, none);
    assert_bones(&sink.bones, &want);
    // And concretely: the head's scale is the clip's 1 (× the armature's 0.5), not 3.
    let head = mat(&sink.bones[0], bone::HEAD);
    assert!((column_len(&head, 0) - 0.5).abs() < TOL);
}

#[test]
fn hidden_bones_stay_hidden_under_a_scale_track_on_every_bone() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.set_bone_visible(bone::SPINE, false, &mut sink).unwrap();

    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    asset.install(&mut controller).unwrap();
    controller.set_clip(Some(clip::MIXAMO_LIKE)).unwrap();
    for step in 0..5 {
        controller.tick(230.0, &mut sink);
        let t = controller.time;
        let hide = |trs: &mut [f32]| write(trs, node::SPINE, S_OFF, &[0.0; 3]);
        assert_bones(
            &sink.bones,
            &expected(&data, Some((clip::MIXAMO_LIKE, t)), none, hide),
        );
        for binding in 0..2 {
            for b in [bone::SPINE, bone::HEAD, bone::ARM] {
                let m = mat(&sink.bones[binding], b);
                for c in 0..3 {
                    assert_eq!(
                        column_len(&m, c),
                        0.0,
                        "step {step} binding {binding} bone {b}"
                    );
                }
            }
            let hips = mat(&sink.bones[binding], bone::HIPS);
            assert!(column_len(&hips, 0) > 0.4, "hips are not hidden");
        }
    }
}

#[test]
fn a_controller_without_the_hook_ignores_overrides() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let mut sink = CountingSink::default();
    asset.skeletons()[0]
        .set_bone_visible(bone::SPINE, false, &mut sink)
        .unwrap();
    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    assert!(
        controller.pose_hook().is_none(),
        "enabling installs nothing by itself"
    );
    controller.tick(0.0, &mut sink);
    assert_bones(&sink.bones, &expected(&data, None, none, none));
}

#[test]
fn install_refuses_a_controller_of_other_data() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let mut other = common::rig(skel_anim::Handedness::LeftHanded);
    other.nodes.pop();
    other.morph_bindings.clear();
    let mut foreign = AnimationController::new(Arc::new(other)).unwrap();
    assert_eq!(
        asset.install(&mut foreign),
        Err(BoneControlError::ForeignController {
            asset_nodes: 10,
            controller_nodes: 9
        })
    );
    assert!(foreign.pose_hook().is_none());
    // The same data behind another Arc (a copy) is fine.
    let mut copy = AnimationController::new(Arc::new((*data).clone())).unwrap();
    asset.install(&mut copy).unwrap();
    assert!(copy.pose_hook().is_some());
}

// ---------------------------------------------------------------------------------------------
// Visibility's own bit

#[test]
fn showing_a_bone_again_keeps_its_scaling_override() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.set_bone_scaling(bone::ARM, [2.0; 3], &mut sink).unwrap();
    sk.set_bone_visible(bone::ARM, false, &mut sink).unwrap();
    assert_eq!(
        sk.bone_override(bone::ARM).unwrap(),
        BoneOverrideState {
            scaling: Some([2.0; 3]),
            hidden: true,
            ..Default::default()
        }
    );
    assert_eq!(column_len(&mat(&sink.bones[0], bone::ARM), 0), 0.0);
    sk.set_bone_visible(bone::ARM, true, &mut sink).unwrap();
    assert!(sk.is_bone_visible(bone::ARM).unwrap());
    assert_eq!(sk.bone_override(bone::ARM).unwrap().scaling, Some([2.0; 3]));
    // Armature scale 0.5 × the override 2.
    assert!((column_len(&mat(&sink.bones[0], bone::ARM), 0) - 1.0).abs() < TOL);
    let s = |trs: &mut [f32]| write(trs, node::ARM, S_OFF, &[2.0; 3]);
    assert_bones(&sink.bones, &expected(&data, None, s, none));
}

#[test]
fn clearing_removes_every_override_of_the_bone_and_only_that_bone() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.set_bone_position(bone::ARM, [1.0; 3], &mut sink)
        .unwrap();
    sk.set_bone_scaling(bone::ARM, [2.0; 3], &mut sink).unwrap();
    sk.set_bone_visible(bone::ARM, false, &mut sink).unwrap();
    sk.set_bone_position(bone::HEAD, [0.0, 1.0, 0.0], &mut sink)
        .unwrap();
    sk.clear_bone_override(bone::ARM, &mut sink).unwrap();
    assert!(sk.bone_override(bone::ARM).unwrap().is_empty());
    assert_eq!(
        sk.bone_override(bone::HEAD).unwrap().translation,
        Some([0.0, 1.0, 0.0])
    );
    let t = |trs: &mut [f32]| write(trs, node::HEAD, T_OFF, &[0.0, 1.0, 0.0]);
    assert_bones(&sink.bones, &expected(&data, None, t, none));
}

#[test]
fn rotations_are_stored_normalised() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let sk = &asset.skeletons()[0];
    sk.set_bone_pose_deferred(bone::ARM, [0.0; 3], [0.0, 0.0, 0.0, 2.0])
        .unwrap();
    assert_eq!(
        sk.bone_override(bone::ARM).unwrap().rotation,
        Some([0.0, 0.0, 0.0, 1.0])
    );
}

// ---------------------------------------------------------------------------------------------
// One override map per asset

#[test]
fn a_skin_split_across_meshes_is_rebaked_on_every_mesh_by_one_call() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let (body, eyes) = (&asset.skeletons()[0], &asset.skeletons()[1]);
    let mut sink = CountingSink::default();
    body.bake_skeleton(&mut sink);
    let rest = sink.bones.clone();
    sink.take_order();
    // Through the eyes' handle…
    eyes.set_bone_visible(bone::HEAD, false, &mut sink).unwrap();
    assert_eq!(sink.take_order(), [0, 1]);
    // …the body's bone texture changes too, identically (same joints, identity bind matrices).
    assert_ne!(sink.bones[0], rest[0]);
    assert_eq!(sink.bones[0], sink.bones[1]);
    assert!(body.bone_override(bone::HEAD).unwrap().hidden);
    // And a controller (which has one hook for the asset) sees it on both.
    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    asset.install(&mut controller).unwrap();
    controller.tick(0.0, &mut sink);
    for binding in 0..2 {
        assert_eq!(column_len(&mat(&sink.bones[binding], bone::HEAD), 1), 0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// The other pose paths: weighted blend, cross-fade, animation group

fn assert_hidden_subtree(sink: &CountingSink, what: &str) {
    for binding in 0..2 {
        for b in [bone::SPINE, bone::HEAD, bone::ARM] {
            let m = mat(&sink.bones[binding], b);
            assert!(
                (0..3).all(|c| column_len(&m, c) == 0.0),
                "{what}: binding {binding} bone {b} is visible"
            );
        }
        assert!(column_len(&mat(&sink.bones[binding], bone::HIPS), 0) > 0.4);
    }
}

#[test]
fn a_weighted_blend_applies_overrides_before_and_visibility_after_blending() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    let arm_rot = common::quat_axis_angle([0.0, 0.0, 1.0], 0.8);
    sk.set_bone_rotation_quaternion(bone::ARM, arm_rot, &mut sink)
        .unwrap();
    sk.set_bone_visible(bone::SPINE, false, &mut sink).unwrap();

    // Two layers of the clip (scale tracks on every bone) at different times.
    let mut blend =
        skel_anim::WeightedBlend::with_weights(Arc::clone(&data), &[(0, 0.6), (0, 0.4)]).unwrap();
    asset.install(&mut blend).unwrap();
    blend.layers_mut()[1].clock_mut().seek(0.5);
    for step in 0..4 {
        blend.tick(130.0, &mut sink);
        assert_hidden_subtree(&sink, &format!("blend step {step}"));
    }

    // The arm's rotation override (no clip animates it) is the "rest" the blend keeps: the same
    // blend without bone control over data whose rest pose *is* the override gives the same
    // matrices once the spine is shown.
    sk.set_bone_visible(bone::SPINE, true, &mut sink).unwrap();
    blend.evaluate(&mut sink);
    let mut moved = (*data).clone();
    moved.nodes[node::ARM].rotation = arm_rot;
    let mut reference =
        skel_anim::WeightedBlend::with_weights(Arc::new(moved), &[(0, 0.6), (0, 0.4)]).unwrap();
    for (mine, theirs) in blend.layers().iter().zip(reference.layers_mut()) {
        theirs.clock_mut().seek(mine.clock().time());
    }
    let mut want = RecordingSink::default();
    reference.evaluate(&mut want);
    let want: Vec<Vec<f32>> = want.bone_matrices.iter().map(|b| floats(b)).collect();
    assert_bones(&sink.bones, &want);
}

#[test]
fn a_cross_fade_and_an_animation_group_keep_hidden_bones_hidden() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let mut sink = CountingSink::default();
    asset.skeletons()[1]
        .set_bone_visible(bone::SPINE, false, &mut sink)
        .unwrap();

    let mut fade = skel_anim::CrossFade::new(Arc::clone(&data)).unwrap();
    asset.install(&mut fade).unwrap();
    fade.play(0).unwrap();
    fade.tick(100.0, &mut sink);
    fade.fade_to(0, 1.0).unwrap();
    for step in 0..3 {
        fade.tick(200.0, &mut sink);
        assert_hidden_subtree(&sink, &format!("cross-fade step {step}"));
    }

    let mut group = skel_anim::AnimationGroup::new(Arc::clone(&data), 0).unwrap();
    asset.install(&mut group).unwrap();
    group.play();
    for step in 0..3 {
        group.tick(300.0, &mut sink);
        assert_hidden_subtree(&sink, &format!("group step {step}"));
    }
}
