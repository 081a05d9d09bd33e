//! Morph-weight channels map by mesh name (the mesh node's name) and target name, target by
//! target, as Babylon.js maps them: reordered and partial target lists get the right weights,
//! targets the source does not animate keep their default weight, and where names are missing
//! the node map and target count decide.

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Interpolation, MorphBinding, NodeRest, Sampler,
    SkeletonBinding,
};
use skel_retarget::{MorphTargetNames, NodeMap, RetargetError, RetargetOptions, Side, retarget};

/// A joint and a mesh node `mesh` whose targets have these default weights.
fn rig(mesh: &str, defaults: &[f32]) -> AnimationData {
    AnimationData {
        nodes: vec![NodeRest::new("joint", None), NodeRest::new(mesh, None)],
        skeletons: vec![
            SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap_or_else(|e| panic!("{e}")),
        ],
        morph_bindings: vec![MorphBinding {
            node: 1,
            default_weights: defaults.to_vec(),
        }],
        ..AnimationData::default()
    }
}

fn names(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|s| (*s).to_owned()).collect())
}

/// Retargets a source `face` with targets smile, blink, frown whose weights go from
/// [0.1, 0.2, 0.3] to [0.4, 0.5, 0.6] (as `interpolation` lays them out) onto `target`; the
/// map pairs only the joints unless `map_meshes`.
fn bake(
    target: &AnimationData,
    target_names: Option<Vec<String>>,
    interpolation: Interpolation,
    map_meshes: bool,
) -> Result<Clip, RetargetError> {
    let mut source = rig("face", &[0.0; 3]);
    let output = match interpolation {
        Interpolation::CubicSpline => vec![
            9.0, 9.0, 9.0, 0.1, 0.2, 0.3, 7.0, 7.0, 7.0, // key 0: in, value, out
            8.0, 8.0, 8.0, 0.4, 0.5, 0.6, 6.0, 6.0, 6.0, // key 1
        ],
        _ => vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    };
    let weights =
        Sampler::new(vec![0.0, 1.0], output, interpolation).unwrap_or_else(|e| panic!("{e}"));
    source.clips.push(Clip::new(
        "face",
        vec![weights],
        vec![Channel {
            sampler: 0,
            node: 1,
            path: ChannelPath::Weights,
        }],
    ));
    let mut pairs = vec![("joint", "joint")];
    if map_meshes {
        pairs.push((target.nodes[1].name.as_str(), "face"));
    }
    let map = NodeMap::from_names(&source, target, pairs)?;
    let options = RetargetOptions {
        fix_root_position: false,
        morph_names: Some(MorphTargetNames {
            source: vec![names(&["smile", "blink", "frown"])],
            target: vec![target_names],
        }),
        ..RetargetOptions::default()
    };
    let clips = retarget(&source, target, &map, &options)?;
    Ok(clips
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no clip")))
}

fn weights_of(clip: &Clip) -> Option<&[f32]> {
    let ch = clip
        .channels
        .iter()
        .find(|c| c.path == ChannelPath::Weights)?;
    assert_eq!(ch.node, 1);
    Some(clip.samplers[ch.sampler].output())
}

#[test]
fn reordered_and_partial_targets_take_their_own_weights() {
    // frown, wink (not in the source: keeps 0.25), smile.
    let target = rig("face", &[0.0, 0.25, 0.0]);
    let clip = bake(
        &target,
        names(&["frown", "wink", "smile"]),
        Interpolation::Linear,
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        weights_of(&clip),
        Some(&[0.3, 0.25, 0.1, 0.6, 0.25, 0.4][..])
    );
    // A subset of the source's targets, and a superset.
    let two = rig("face", &[0.0, 0.0]);
    let clip = bake(&two, names(&["blink", "smile"]), Interpolation::Step, false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(weights_of(&clip), Some(&[0.2, 0.1, 0.5, 0.4][..]));
    let four = rig("face", &[0.5, 0.0, 0.0, 0.0]);
    let clip = bake(
        &four,
        names(&["other", "smile", "blink", "frown"]),
        Interpolation::Linear,
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        weights_of(&clip),
        Some(&[0.5, 0.1, 0.2, 0.3, 0.5, 0.4, 0.5, 0.6][..])
    );
}

#[test]
fn cubic_tangents_follow_their_target_and_are_zero_elsewhere() {
    let target = rig("face", &[0.0, 0.25]);
    let clip = bake(
        &target,
        names(&["frown", "wink"]),
        Interpolation::CubicSpline,
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        weights_of(&clip),
        Some(&[9.0, 0.0, 0.3, 0.25, 7.0, 0.0, 8.0, 0.0, 0.6, 0.25, 6.0, 0.0][..])
    );
}

#[test]
fn other_meshes_and_unmatched_targets_are_left_alone() {
    // Another mesh name: not driven, unless the map pairs the two mesh nodes.
    let body = rig("body", &[0.0, 0.0]);
    let unmapped = bake(&body, names(&["smile", "x"]), Interpolation::Linear, false);
    assert_eq!(
        weights_of(&unmapped.unwrap_or_else(|e| panic!("{e}"))),
        None
    );
    let mapped = bake(&body, names(&["x", "smile"]), Interpolation::Linear, true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(weights_of(&mapped), Some(&[0.0, 0.1, 0.0, 0.4][..]));
    // The same mesh, but no target in common: the channel is dropped (Babylon.js removes the
    // animation of every target it does not find).
    let target = rig("face", &[0.0, 0.0, 0.0]);
    let none = bake(
        &target,
        names(&["a", "b", "c"]),
        Interpolation::Linear,
        true,
    );
    assert_eq!(weights_of(&none.unwrap_or_else(|e| panic!("{e}"))), None);
}

#[test]
fn without_names_the_map_and_the_target_count_decide() {
    // Target names missing: copied unchanged when the map pairs the meshes and the counts
    // agree (the same mesh name alone is not enough), dropped otherwise.
    let target = rig("face", &[0.0; 3]);
    let copied = bake(&target, None, Interpolation::Linear, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        weights_of(&copied),
        Some(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6][..])
    );
    let unmapped = bake(&target, None, Interpolation::Linear, false);
    assert_eq!(
        weights_of(&unmapped.unwrap_or_else(|e| panic!("{e}"))),
        None
    );
    let two = rig("face", &[0.0; 2]);
    let fewer = bake(&two, None, Interpolation::Linear, true);
    assert_eq!(weights_of(&fewer.unwrap_or_else(|e| panic!("{e}"))), None);
    // An unnamed mesh node counts as missing names too.
    let unnamed = rig("", &[0.0; 3]);
    let map = bake(
        &unnamed,
        names(&["frown", "blink", "smile"]),
        Interpolation::Linear,
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(weights_of(&map), Some(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6][..]));
}

#[test]
fn name_tables_that_do_not_fit_are_refused() {
    let target = rig("face", &[0.0; 2]);
    let e = bake(&target, names(&["smile"]), Interpolation::Linear, false).unwrap_err();
    assert_eq!(
        e,
        RetargetError::MorphNameCount {
            side: Side::Target,
            binding: Some(0),
            expected: 2,
            got: 1,
        }
    );
    assert_eq!(
        e.to_string(),
        "target morph target names: 1 given for 2 targets of morph binding 0"
    );
    let source = rig("face", &[0.0; 3]);
    let map = NodeMap::from_names(&source, &target, [("joint", "joint")])
        .unwrap_or_else(|e| panic!("{e}"));
    let options = RetargetOptions {
        fix_root_position: false,
        morph_names: Some(MorphTargetNames {
            source: Vec::new(),
            target: vec![None],
        }),
        ..RetargetOptions::default()
    };
    let e = retarget(&source, &target, &map, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "source morph target names: 0 given for 1 morph bindings"
    );
}
