//! Without target names (no `RetargetOptions::morph_names`), morph-weight channels follow the
//! node map to a mesh with as many targets, and are dropped otherwise; the root rule's vertical
//! axis is detected as Babylon.js detects it.

use glam::Vec3;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Interpolation, MorphBinding, NodeRest, Sampler,
    SkeletonBinding,
};
use skel_retarget::{NodeMap, RetargetOptions, VerticalAxis, retarget};

/// A joint and a mesh node `face` with `targets` morph targets.
fn rig(targets: usize) -> AnimationData {
    AnimationData {
        nodes: vec![NodeRest::new("joint", None), NodeRest::new("face", None)],
        skeletons: vec![
            SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap_or_else(|e| panic!("{e}")),
        ],
        morph_bindings: vec![MorphBinding {
            node: 1,
            default_weights: vec![0.0; targets],
        }],
        ..AnimationData::default()
    }
}

fn bake(target_count: usize) -> Clip {
    let mut source = rig(2);
    let weights = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 0.0, 1.0, 0.5],
        Interpolation::Linear,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    source.clips.push(Clip::new(
        "smile",
        vec![weights],
        vec![Channel {
            sampler: 0,
            node: 1,
            path: ChannelPath::Weights,
        }],
    ));
    let target = rig(target_count);
    let map = NodeMap::from_names(&source, &target, [("face", "face"), ("joint", "joint")])
        .unwrap_or_else(|e| panic!("{e}"));
    let options = RetargetOptions {
        fix_root_position: false,
        ..RetargetOptions::default()
    };
    let clips = retarget(&source, &target, &map, &options).unwrap_or_else(|e| panic!("{e}"));
    clips
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no clip"))
}

#[test]
fn weights_follow_the_map_to_a_mesh_with_as_many_targets() {
    let kept = bake(2);
    let weights = Channel {
        sampler: 0,
        node: 1,
        path: ChannelPath::Weights,
    };
    assert_eq!(kept.channels, [weights]);
    assert_eq!(kept.samplers[0].output(), [0.0, 0.0, 1.0, 0.5]);
    assert!(bake(3).channels.is_empty());
}

#[test]
fn vertical_axis_as_babylon_detects_it() {
    assert_eq!(
        VerticalAxis::detect(Vec3::new(0.1, 0.9, 0.2)),
        VerticalAxis::Y
    );
    assert_eq!(
        VerticalAxis::detect(Vec3::new(0.1, 0.5, -0.9)),
        VerticalAxis::Z
    );
    assert_eq!(
        VerticalAxis::detect(Vec3::new(-2.0, 0.5, 0.9)),
        VerticalAxis::X
    );
    // Ties: y wins over z when equal, x wins when y only equals it.
    assert_eq!(
        VerticalAxis::detect(Vec3::new(0.0, 1.0, 1.0)),
        VerticalAxis::Y
    );
    assert_eq!(
        VerticalAxis::detect(Vec3::new(1.0, 1.0, 0.0)),
        VerticalAxis::X
    );
}
