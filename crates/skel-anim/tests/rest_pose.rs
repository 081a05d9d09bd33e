//! The seed's test 4: at rest, bone matrices are the identity when each inverse bind matrix is
//! the inverse of its joint's rest world matrix (the glTF definition of a bind pose).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{I64, M64, assert_mat_close, compose_f32_in, invert_f64};
use skel_anim::{
    AnimationController, AnimationData, Handedness, NodeRest, PoseScratch, RecordingSink,
    SkeletonBinding, compute_bone_matrices, compute_world_matrices, reset_to_rest,
};

#[test]
fn one_joint_at_the_identity_without_inverse_binds_gives_the_identity() {
    // The trivial case: absent inverse binds mean identity matrices (glTF 2.0 skin).
    let data = AnimationData {
        nodes: vec![NodeRest::new("joint", None), NodeRest::new("mesh", None)],
        skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
        ..AnimationData::default()
    };
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let data = AnimationData {
            handedness,
            ..data.clone()
        };
        let mut c = AnimationController::new(Arc::new(data)).unwrap();
        let mut sink = RecordingSink::default();
        c.tick(16.0, &mut sink);
        assert_eq!(sink.bone_matrices[0], vec![skel_anim::glam::Mat4::IDENTITY]);
    }
}

#[test]
fn bones_are_identity_at_rest_on_a_generated_rig() {
    // 24 joints with random rest transforms (children stored before parents), the mesh a root
    // at the identity, inverse binds = inverse(rest world of the joint) in glTF space.
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let mut data = common::generated_rig(24, 0, 7);
        data.handedness = handedness;
        let mut c = AnimationController::new(Arc::new(data)).unwrap();
        let mut sink = RecordingSink::default();
        // No clip chosen: the rest pose, through tick and through evaluate_at.
        c.tick(100.0, &mut sink);
        for (i, bone) in sink.bone_matrices[0].iter().enumerate() {
            assert_mat_close(
                bone,
                &I64,
                1e-4,
                &format!("bone {i} at rest ({handedness:?})"),
            );
        }
        let mut sink = RecordingSink::default();
        c.evaluate_at(None, 0.0, &mut sink).unwrap();
        for (i, bone) in sink.bone_matrices[0].iter().enumerate() {
            assert_mat_close(bone, &I64, 1e-4, &format!("bone {i} via evaluate_at"));
        }
    }
}

#[test]
fn a_transformed_mesh_node_is_undone_by_the_inverse_mesh_world() {
    // With the mesh node at world M and inverse binds inverting the joints' rest worlds, every
    // rest bone is invMeshWorld · world · inverse(world) = M⁻¹ (the handedness mirror cancels),
    // so that mesh.world · bone is the identity: the skin sits where it was bound.
    let mut data = common::generated_rig(12, 0, 11);
    let (t, r, s) = ([1.0, -2.0, 0.5], [0.0, 0.6, 0.0, 0.8], [2.0, 2.0, 2.0]);
    data.nodes[0].translation = t;
    data.nodes[0].rotation = r;
    data.nodes[0].scale = s;
    // The joints did not move, so their inverse binds are still right.
    let expected: M64 = invert_f64(&compose_f32_in(t, r, s));
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        data.handedness = handedness;
        let mut c = AnimationController::new(Arc::new(data.clone())).unwrap();
        let mut sink = RecordingSink::default();
        c.tick(0.0, &mut sink);
        for (i, bone) in sink.bone_matrices[0].iter().enumerate() {
            assert_mat_close(bone, &expected, 1e-4, &format!("bone {i} ({handedness:?})"));
        }
    }
}

#[test]
fn the_pose_step_functions_give_the_same_rest_bones() {
    // The free functions that the controller, the blender and the bone-control bake share.
    let data = common::generated_rig(16, 2, 3);
    let mut scratch = PoseScratch::new(&data).unwrap();
    reset_to_rest(&data, &mut scratch);
    compute_world_matrices(&data, &mut scratch);
    let mut sink = RecordingSink::default();
    compute_bone_matrices(&data, &mut scratch, &mut sink);
    for (i, bone) in sink.bone_matrices[0].iter().enumerate() {
        assert_mat_close(bone, &I64, 1e-4, &format!("bone {i}"));
    }
    assert_eq!(sink.morph_weights[0], vec![0.0, 0.0]);
    assert_eq!(scratch.bones[0], sink.bone_matrices[0]);
}
