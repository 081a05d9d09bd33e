//! Refusals: typed errors naming the node, never a panic; and the one place where the root
//! rule deliberately differs from Babylon.js's code.

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Interpolation, NodeRest, Sampler, SkeletonBinding,
};
use skel_retarget::{NodeMap, RetargetError, RetargetOptions, RootOffset, Side, retarget};

/// `root` (at `root_t`) → `hips` → `foot` (1 below the hips), a mesh node bound to them.
fn rig(names: [&str; 3], root_t: [f32; 3]) -> AnimationData {
    let nodes = vec![
        NodeRest {
            translation: root_t,
            ..NodeRest::new(names[0], None)
        },
        NodeRest {
            translation: [0.0, 1.0, 0.0],
            ..NodeRest::new(names[1], Some(0))
        },
        NodeRest {
            translation: [0.0, -1.0, 0.0],
            ..NodeRest::new(names[2], Some(1))
        },
        NodeRest::new("mesh", None),
    ];
    AnimationData {
        nodes,
        skeletons: vec![
            SkeletonBinding::new(0, 3, vec![0, 1, 2], vec![]).unwrap_or_else(|e| panic!("{e}")),
        ],
        ..AnimationData::default()
    }
}

/// A clip moving the hips by +1 in x over one second.
fn walk(mut data: AnimationData) -> AnimationData {
    let s = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 1.0, 0.0, 1.0, 1.0, 0.0],
        Interpolation::Linear,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    data.clips.push(Clip::new(
        "walk",
        vec![s],
        vec![Channel {
            sampler: 0,
            node: 1,
            path: ChannelPath::Translation,
        }],
    ));
    data
}

fn options() -> RetargetOptions {
    RetargetOptions {
        root: Some("hips".into()),
        ground: Some("foot".into()),
        ..RetargetOptions::default()
    }
}

fn same(source: &AnimationData, target: &AnimationData) -> NodeMap {
    NodeMap::from_names(
        source,
        target,
        [("root", "root"), ("hips", "hips"), ("foot", "foot")],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn unknown_names_are_named() {
    let (s, t) = (
        rig(["root", "hips", "foot"], [0.0; 3]),
        rig(["root", "hips", "foot"], [0.0; 3]),
    );
    let e = NodeMap::from_names(&s, &t, [("hips", "Hips")]).unwrap_err();
    assert_eq!(
        e,
        RetargetError::UnknownNode {
            side: Side::Source,
            name: "Hips".into()
        }
    );
    let e = NodeMap::from_json(r#"{"pelvis": "hips"}"#, &s, &t).unwrap_err();
    assert_eq!(
        e,
        RetargetError::UnknownNode {
            side: Side::Target,
            name: "pelvis".into()
        }
    );
    assert!(matches!(
        NodeMap::from_json("[1]", &s, &t),
        Err(RetargetError::MapJson { .. })
    ));
    let e = retarget(
        &walk(s.clone()),
        &t,
        &same(&s, &t),
        &RetargetOptions {
            ground: Some("toe".into()),
            ..options()
        },
    )
    .unwrap_err();
    assert_eq!(
        e,
        RetargetError::UnknownNode {
            side: Side::Target,
            name: "toe".into()
        }
    );
    let e = retarget(
        &s,
        &t,
        &same(&s, &t),
        &RetargetOptions {
            clips: Some(vec!["run".into()]),
            ..options()
        },
    )
    .unwrap_err();
    assert_eq!(e, RetargetError::UnknownClip { name: "run".into() });
}

#[test]
fn a_node_paired_with_its_own_ancestor_is_refused() {
    let (s, t) = (
        walk(rig(["root", "hips", "foot"], [0.0; 3])),
        rig(["root", "hips", "foot"], [0.0; 3]),
    );
    let map = NodeMap::from_names(&s, &t, [("hips", "foot"), ("foot", "hips")])
        .unwrap_or_else(|e| panic!("{e}"));
    let e = retarget(
        &s,
        &t,
        &map,
        &RetargetOptions {
            fix_root_position: false,
            ..options()
        },
    )
    .unwrap_err();
    assert_eq!(
        e,
        RetargetError::CrossedHierarchy {
            target_ancestor: "hips".into(),
            target_descendant: "foot".into(),
            source_of_ancestor: "foot".into(),
            source_of_descendant: "hips".into(),
        }
    );
}

#[test]
fn cycles_missing_skins_and_flat_rigs_are_refused() {
    let s = walk(rig(["root", "hips", "foot"], [0.0; 3]));
    let mut cyclic = rig(["root", "hips", "foot"], [0.0; 3]);
    cyclic.nodes[0].parent = Some(2);
    let map = same(&s, &rig(["root", "hips", "foot"], [0.0; 3]));
    let e = retarget(&s, &cyclic, &map, &options()).unwrap_err();
    assert!(
        matches!(
            e,
            RetargetError::InvalidRig {
                side: Side::Target,
                ..
            }
        ),
        "{e}"
    );
    let mut skinless = rig(["root", "hips", "foot"], [0.0; 3]);
    skinless.skeletons.clear();
    assert_eq!(
        retarget(&s, &skinless, &map, &options()).unwrap_err(),
        RetargetError::NoSkin
    );
    let mut flat = rig(["root", "hips", "foot"], [0.0; 3]);
    flat.nodes[2].translation = [0.0, 0.0, 0.0];
    let e = retarget(&s, &flat, &map, &options()).unwrap_err();
    assert_eq!(
        e,
        RetargetError::ZeroHeight {
            side: Side::Target,
            root: "hips".into(),
            ground: "foot".into(),
            axis: 1
        }
    );
    let mut map = map;
    map.remove(2);
    let e = retarget(
        &s,
        &rig(["root", "hips", "foot"], [0.0; 3]),
        &map,
        &options(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        RetargetError::Unmapped {
            role: "ground reference",
            name: "foot".into()
        }
    );
}

/// The root rule as stated places the scaled world offset as a point in the parent's frame;
/// Babylon.js 9 transforms it as a normal, which drops the parent's translation. With the
/// target's `root` node at (5, 0, 0), Babylon's key is off by exactly that translation.
#[test]
fn root_offset_differs_from_babylon_by_the_parents_translation() {
    let s = walk(rig(["root", "hips", "foot"], [0.0; 3]));
    let t = rig(["root", "hips", "foot"], [5.0, 0.0, 0.0]);
    let bake = |root_offset| {
        let clips = retarget(
            &s,
            &t,
            &same(&s, &t),
            &RetargetOptions {
                root_offset,
                ..options()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        clips[0].samplers[0].output().to_vec()
    };
    let (point, babylon) = (bake(RootOffset::Point), bake(RootOffset::BabylonNormal));
    // Stated rule: the hips stay at their rest local position plus the motion.
    assert_eq!(point, [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]);
    // Babylon: the parent's translation (5, 0, 0) is not taken off.
    assert_eq!(babylon, [5.0, 1.0, 0.0, 6.0, 1.0, 0.0]);
}
