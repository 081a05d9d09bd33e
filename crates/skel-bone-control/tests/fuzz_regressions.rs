//! Regressions found by the fuzz targets (`cargo xtask fuzz`; the raw inputs are under
//! `fixtures/fuzz-regressions/`), as readable tests of this crate's API.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::{AnimationData, Handedness, NodeRest, RecordingSink, SkeletonBinding};
use skel_bone_control::{BoneControlError, enable_bone_control};

/// A two-joint chain (`root` → `child`) skinning a mesh on node 2.
fn chain(handedness: Handedness) -> Arc<AnimationData> {
    let mut child = NodeRest::new("child", Some(0));
    child.translation = [0.0, 1.0, 0.0];
    Arc::new(AnimationData {
        nodes: vec![
            NodeRest::new("root", None),
            child,
            NodeRest::new("mesh", None),
        ],
        skeletons: vec![SkeletonBinding::new(0, 2, vec![0, 1], vec![]).unwrap()],
        handedness,
        ..Default::default()
    })
}

/// `controller_api` crash `world_pose_overflow.bin`: a finite world position near `f32::MAX`
/// under a parent scaled to 0.25 became the local translation 4 × 3e38 = ∞ (and a NaN
/// rotation), which was stored and turned every later bone matrix into NaN. Now refused with
/// `NotFinite`, leaving the override state and the bone matrices as they were.
#[test]
fn a_world_pose_out_of_local_range_is_refused_and_stores_nothing() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let bones = enable_bone_control(&chain(handedness)).unwrap();
        let skeleton = &bones.skeletons()[0];
        let mut sink = RecordingSink::default();
        skeleton.set_bone_scaling(0, [0.25; 3], &mut sink).unwrap();
        let before = skeleton.bone_override(1).unwrap();

        let err = skeleton
            .set_bone_world_pose_deferred(1, [3.0e38, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])
            .unwrap_err();
        assert!(
            matches!(err, BoneControlError::NotFinite { bone: 1, .. }),
            "{err:?}"
        );
        assert_eq!(skeleton.bone_override(1).unwrap(), before);

        skeleton.bake_skeleton(&mut sink);
        let matrices = &sink.bone_matrices[0];
        assert!(matrices.iter().all(|v| v.is_finite()), "{matrices:?}");

        // A position the parent's scale keeps in range is still accepted.
        skeleton
            .set_bone_world_pose_deferred(1, [1.0e30, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])
            .unwrap();
        let stored = skeleton.bone_override(1).unwrap().translation.unwrap();
        assert!(stored.iter().all(|v| v.is_finite()), "{stored:?}");
    }
}
