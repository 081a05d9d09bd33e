//! Regressions found by the fuzz targets (`cargo xtask fuzz`; the raw inputs are under
//! `fixtures/fuzz-regressions/`), as readable tests of this crate's API.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::flat;
use skel_anim::MAX_WEIGHT;
use skel_anim::*;

/// One joint sliding along x from 0 to 2 over one second, under a mirrored (left-handed) root.
fn slide() -> Arc<AnimationData> {
    let s = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0],
        Interpolation::Linear,
    )
    .unwrap();
    Arc::new(AnimationData {
        nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
        clips: vec![Clip::new(
            "slide",
            vec![s],
            vec![Channel {
                sampler: 0,
                node: 0,
                path: ChannelPath::Translation,
            }],
        )],
        skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
        morph_bindings: vec![],
        handedness: Handedness::LeftHanded,
    })
}

/// `controller_api` crash `blend_huge_weights_nan.bin`: two layers of one clip at weights near
/// `f32::MAX` summed to infinity, and `sum / total` gave NaN bone matrices. Weights are now
/// capped at `MAX_WEIGHT`, so the blend of two equal huge weights is the clip itself.
#[test]
fn two_layers_at_huge_weights_blend_to_a_finite_pose() {
    let data = slide();
    let mut blend =
        WeightedBlend::with_weights(Arc::clone(&data), &[(0, 3.0e38), (0, f32::MAX)]).unwrap();
    assert_eq!(blend.layers()[0].weight(), MAX_WEIGHT);
    assert_eq!(blend.layers()[1].weight(), MAX_WEIGHT);
    let mut sink = RecordingSink::default();
    blend.tick(250.0, &mut sink);
    let bones = flat(&sink.bone_matrices[0]);
    assert!(bones.iter().all(|v| v.is_finite()), "{bones:?}");

    let mut reference = WeightedBlend::with_weights(data, &[(0, 1.0), (0, 1.0)]).unwrap();
    let mut expected = RecordingSink::default();
    reference.tick(250.0, &mut expected);
    for (a, b) in bones.iter().zip(flat(&expected.bone_matrices[0])) {
        assert!(
            (a - b).abs() < 1e-6,
            "{bones:?} vs {:?}",
            expected.bone_matrices[0]
        );
    }
}

/// The same cap holds for the snapshot weight a cross-fade blends in.
#[test]
fn a_huge_snapshot_weight_is_capped_too() {
    let mut blend = WeightedBlend::with_weights(slide(), &[(0, f32::MAX)]).unwrap();
    let mut sink = RecordingSink::default();
    blend.tick(500.0, &mut sink);
    blend.capture_snapshot();
    blend.set_snapshot_weight(f32::MAX);
    assert_eq!(blend.snapshot_weight(), MAX_WEIGHT);
    blend.tick(250.0, &mut sink);
    assert!(sink.bone_matrices[0].iter().all(|v| v.is_finite()));
}
