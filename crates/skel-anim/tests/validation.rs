//! Validation: bad data is refused when a controller (or scratch) is built, with an error that
//! names the place and the numbers, so that nothing in `tick` can go out of bounds.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::{
    AnimError, AnimationController, AnimationData, Channel, ChannelPath, Clip, Interpolation,
    MorphBinding, NodeRest, PoseScratch, Sampler, SkeletonBinding,
};

fn lin(times: Vec<f32>, values: Vec<f32>) -> Sampler {
    Sampler::new(times, values, Interpolation::Linear).unwrap()
}

/// Three nodes (0 root, 1 child of 0, 2 mesh with 2 morph targets), one valid clip "walk"
/// (translation of node 1 by sampler 0, weights of node 2 by sampler 1), one skeleton binding.
fn valid() -> AnimationData {
    AnimationData {
        nodes: vec![
            NodeRest::new("root", None),
            NodeRest::new("arm", Some(0)),
            NodeRest::new("mesh", None),
        ],
        clips: vec![Clip::new(
            "walk",
            vec![
                lin(vec![0.0, 1.0], vec![0.0; 6]),
                lin(vec![0.0, 1.0], vec![0.0, 0.0, 1.0, 1.0]),
            ],
            vec![
                Channel {
                    sampler: 0,
                    node: 1,
                    path: ChannelPath::Translation,
                },
                Channel {
                    sampler: 1,
                    node: 2,
                    path: ChannelPath::Weights,
                },
            ],
        )],
        skeletons: vec![SkeletonBinding::new(0, 2, vec![0, 1], vec![]).unwrap()],
        morph_bindings: vec![MorphBinding {
            node: 2,
            default_weights: vec![0.0, 0.0],
        }],
        ..AnimationData::default()
    }
}

/// The error building a controller over `data` gives (and that the scratch gives the same).
fn error_of(data: AnimationData) -> AnimError {
    let scratch = PoseScratch::new(&data).unwrap_err();
    let e = AnimationController::new(Arc::new(data)).unwrap_err();
    assert_eq!(scratch, e);
    e
}

#[test]
fn valid_data_is_accepted() {
    valid().validate().unwrap();
    AnimationController::new(Arc::new(valid())).unwrap();
}

#[test]
fn a_channel_naming_a_missing_node() {
    let mut d = valid();
    d.clips[0].channels[1].node = 9;
    let e = error_of(d);
    assert_eq!(
        e,
        AnimError::BadNode {
            what: "clip \"walk\" channel 1".into(),
            node: 9,
            node_count: 3
        }
    );
    assert_eq!(
        e.to_string(),
        "clip \"walk\" channel 1 names node 9, but there are only 3 nodes"
    );
}

#[test]
fn a_channel_naming_a_missing_sampler() {
    let mut d = valid();
    d.clips[0].channels[0].sampler = 2;
    let e = error_of(d);
    assert_eq!(
        e,
        AnimError::BadSampler {
            clip: "walk".into(),
            channel: 0,
            sampler: 2,
            sampler_count: 2
        }
    );
    assert!(
        e.to_string()
            .contains("names sampler 2, but the clip has 2")
    );
}

#[test]
fn wrong_component_counts() {
    // Translation fed by a 4-component sampler.
    let mut d = valid();
    d.clips[0].samplers[0] = lin(vec![0.0, 1.0], vec![0.0; 8]);
    assert_eq!(
        error_of(d),
        AnimError::ChannelComponentMismatch {
            clip: "walk".into(),
            channel: 0,
            path: ChannelPath::Translation,
            components: 3,
            got: 8,
            keys: 2
        }
    );
    // Rotation fed by a 3-component sampler.
    let mut d = valid();
    d.clips[0].channels[0].path = ChannelPath::Rotation;
    assert_eq!(
        error_of(d),
        AnimError::ChannelComponentMismatch {
            clip: "walk".into(),
            channel: 0,
            path: ChannelPath::Rotation,
            components: 4,
            got: 6,
            keys: 2
        }
    );
    // Weights with 3 components for a mesh of 2 targets (CUBICSPLINE: 3 elements per key).
    let mut d = valid();
    d.clips[0].samplers[1] =
        Sampler::new(vec![0.0, 1.0], vec![0.0; 18], Interpolation::CubicSpline).unwrap();
    let e = error_of(d);
    assert_eq!(
        e,
        AnimError::ChannelComponentMismatch {
            clip: "walk".into(),
            channel: 1,
            path: ChannelPath::Weights,
            components: 2,
            got: 18,
            keys: 2
        }
    );
    assert!(e.to_string().contains("needs 2 components per key"));
    // A second binding on the same node with another target count is caught too.
    let mut d = valid();
    d.morph_bindings.push(MorphBinding {
        node: 2,
        default_weights: vec![0.0; 3],
    });
    assert!(matches!(
        error_of(d),
        AnimError::ChannelComponentMismatch { components: 3, .. }
    ));
}

#[test]
fn bad_inverse_bind_lengths() {
    assert_eq!(
        SkeletonBinding::new(0, 2, vec![0, 1], vec![0.0; 31]),
        Err(AnimError::InverseBindCount {
            joints: 2,
            floats: 31
        })
    );
    // Fields are public: a binding edited after construction is caught at validation.
    let mut d = valid();
    d.skeletons[0].inverse_bind_matrices.truncate(16);
    let e = error_of(d);
    assert_eq!(
        e,
        AnimError::InverseBindCount {
            joints: 2,
            floats: 16
        }
    );
    assert!(
        e.to_string()
            .contains("2 joints but 16 inverse-bind floats")
    );
}

#[test]
fn bindings_naming_missing_nodes() {
    let mut d = valid();
    d.skeletons[0].joints[1] = 3;
    assert_eq!(
        error_of(d),
        AnimError::BadNode {
            what: "skeleton binding 0 joint 1".into(),
            node: 3,
            node_count: 3
        }
    );
    let mut d = valid();
    d.skeletons[0].mesh_node = 4;
    assert!(matches!(error_of(d), AnimError::BadNode { node: 4, .. }));
    let mut d = valid();
    d.morph_bindings[0].node = 5;
    assert_eq!(
        error_of(d),
        AnimError::BadNode {
            what: "morph binding 0".into(),
            node: 5,
            node_count: 3
        }
    );
}

#[test]
fn bad_hierarchies() {
    let mut d = valid();
    d.nodes[1].parent = Some(3);
    assert_eq!(
        error_of(d),
        AnimError::BadParent {
            node: 1,
            parent: 3,
            node_count: 3
        }
    );
    let mut d = valid();
    d.nodes[0].parent = Some(1);
    assert!(matches!(error_of(d), AnimError::Cycle { node: 0 | 1 }));
}

#[test]
fn non_finite_rest_pose() {
    let mut d = valid();
    d.nodes[2].scale[1] = f32::NAN;
    assert_eq!(
        error_of(d),
        AnimError::NotFinite {
            what: "rest pose of node 2".into()
        }
    );
}

#[test]
fn sampler_construction_errors() {
    use Interpolation::{CubicSpline, Linear, Step};
    assert_eq!(
        Sampler::new(vec![], vec![], Linear),
        Err(AnimError::EmptySampler)
    );
    assert_eq!(
        Sampler::new(vec![0.0, 1.0, 1.0], vec![0.0; 3], Step),
        Err(AnimError::KeyTimesNotIncreasing { key: 2, time: 1.0 })
    );
    assert_eq!(
        Sampler::new(vec![0.0, 2.0, 1.0], vec![0.0; 3], Linear),
        Err(AnimError::KeyTimesNotIncreasing { key: 2, time: 1.0 })
    );
    assert!(matches!(
        Sampler::new(vec![f32::NAN, 1.0], vec![0.0; 2], Linear),
        Err(AnimError::KeyTimesNotIncreasing { key: 0, .. })
    ));
    assert_eq!(
        Sampler::new(vec![0.0, f32::INFINITY], vec![0.0; 2], Linear),
        Err(AnimError::KeyTimesNotIncreasing {
            key: 1,
            time: f32::INFINITY
        })
    );
    assert_eq!(
        Sampler::new(vec![0.0, 1.0], vec![0.0; 4], CubicSpline),
        Err(AnimError::OutputCountMismatch {
            got: 4,
            keys: 2,
            per_key: 3,
            interpolation: CubicSpline
        })
    );
    assert!(matches!(
        Sampler::new(vec![0.0, 1.0], vec![], Linear),
        Err(AnimError::OutputCountMismatch { got: 0, .. })
    ));
    assert_eq!(
        Sampler::new(vec![0.0, 1.0], vec![0.0, f32::NAN], Linear),
        Err(AnimError::NotFinite {
            what: "sampler output".into()
        })
    );
    // Components come from the output length: 2 keys × 3 elements × 4 = 24 floats.
    let s = Sampler::new(vec![0.0, 1.0], vec![0.0; 24], CubicSpline).unwrap();
    assert_eq!(s.components(), 4);
    assert_eq!((s.start_time(), s.end_time()), (0.0, 1.0));
}

#[test]
fn weights_channels_on_nodes_without_morph_targets_are_ignored() {
    // Allowed (glTF permits it), and harmless: nothing is written anywhere.
    let mut d = valid();
    d.clips[0].channels[1].node = 0;
    let mut c = AnimationController::new(Arc::new(d)).unwrap();
    c.set_clip(Some(0)).unwrap();
    let mut sink = skel_anim::RecordingSink::default();
    c.tick(500.0, &mut sink);
    assert_eq!(sink.morph_weights[0], vec![0.0, 0.0]);
}
