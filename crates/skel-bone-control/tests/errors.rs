//! The seed's bone-control rule for bad input, on the hand-built rig of `common`: every
//! refusal is a typed `BoneControlError` carrying the values and the place (bone index,
//! binding, component), and a refused call writes no override and uploads nothing, so a
//! caller can retry without having half-applied anything. Split from `semantics.rs`, which
//! holds the rules for accepted input.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{CountingSink, bone, node, rig_arc};
use skel_bone_control::{BoneControlError, enable_bone_control};

#[test]
fn bad_bones_are_typed_errors() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let (body, eyes) = (&asset.skeletons()[0], &asset.skeletons()[1]);
    let mut sink = CountingSink::default();
    assert_eq!(
        body.set_bone_position(99, [0.0; 3], &mut sink),
        Err(BoneControlError::BoneOutOfRange {
            bone: 99,
            bone_count: 5,
            binding: 0
        })
    );
    // A bone of another handle, even of the same skin with the same name.
    let eyes_head = eyes.get_bone_by_name("head").unwrap();
    assert_eq!(
        body.set_bone_visible(eyes_head, false, &mut sink),
        Err(BoneControlError::ForeignBone {
            name: "head".into(),
            binding: 0
        })
    );
    // Its own bone is accepted.
    let head = body.get_bone_by_name("head").unwrap();
    assert_eq!(body.bone_index(head), Ok(bone::HEAD));
    assert_eq!(sink.bone_calls, 0);
    assert!(!eyes.bone_override(bone::HEAD).unwrap().hidden);
}

#[test]
fn non_finite_input_is_refused_before_anything_is_written() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.set_bone_position(bone::ARM, [1.0, 1.0, 1.0], &mut sink)
        .unwrap();
    let before = sk.bone_override(bone::ARM).unwrap();
    let calls = sink.bone_calls;

    let err = sk
        .set_bone_position(bone::ARM, [0.0, f32::NAN, 0.0], &mut sink)
        .unwrap_err();
    assert!(matches!(
        err,
        BoneControlError::NotFinite {
            what: "position",
            bone: bone::ARM,
            component: 1,
            ..
        }
    ));
    assert!(
        sk.set_bone_rotation_quaternion(bone::ARM, [0.0, 0.0, f32::INFINITY, 1.0], &mut sink)
            .is_err()
    );
    assert!(
        sk.set_bone_scaling(bone::ARM, [f32::NAN; 3], &mut sink)
            .is_err()
    );
    // A valid position with a bad rotation: the position must not land either.
    assert!(
        sk.set_bone_pose_deferred(bone::ARM, [5.0; 3], [f32::NAN, 0.0, 0.0, 1.0])
            .is_err()
    );
    assert!(
        sk.set_bone_world_pose_deferred(bone::ARM, [5.0; 3], [0.0, 0.0, 0.0, f32::NAN])
            .is_err()
    );
    assert!(
        sk.set_bone_world_pose_deferred(bone::ARM, [f32::NAN; 3], [0.0, 0.0, 0.0, 1.0])
            .is_err()
    );
    assert_eq!(
        sk.set_bone_rotation_quaternion(bone::ARM, [0.0; 4], &mut sink),
        Err(BoneControlError::ZeroRotation {
            what: "rotation",
            bone: bone::ARM,
            rotation: [0.0; 4]
        })
    );
    assert_eq!(sk.bone_override(bone::ARM).unwrap(), before);
    assert_eq!(sink.bone_calls, calls, "nothing uploaded on error");
}

#[test]
fn a_world_pose_under_a_collapsed_parent_is_refused_without_writing() {
    let asset = enable_bone_control(&rig_arc()).unwrap();
    let sk = &asset.skeletons()[0];
    let mut sink = CountingSink::default();
    sk.set_bone_scaling(bone::SPINE, [0.0; 3], &mut sink)
        .unwrap();
    assert_eq!(
        sk.set_bone_world_pose_deferred(bone::HEAD, [0.0; 3], [0.0, 0.0, 0.0, 1.0]),
        Err(BoneControlError::SingularParent {
            bone: bone::HEAD,
            node: node::HEAD,
            parent: node::SPINE
        })
    );
    assert!(sk.bone_override(bone::HEAD).unwrap().is_empty());
    assert_eq!(
        sk.bone_world_pose(bone::HEAD),
        Err(BoneControlError::SingularWorld {
            bone: bone::HEAD,
            node: node::HEAD
        })
    );
    // Hiding is not collapsing: a hidden parent still has a pose to convert through.
    sk.set_bone_scaling(bone::SPINE, [1.0; 3], &mut sink)
        .unwrap();
    sk.set_bone_visible(bone::SPINE, false, &mut sink).unwrap();
    sk.set_bone_world_pose_deferred(bone::HEAD, [0.0; 3], [0.0, 0.0, 0.0, 1.0])
        .unwrap();
}
