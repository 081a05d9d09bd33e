//! `Mapping`: the one place a node map is made from names, for skel's command line and
//! skel-bevy. Each kind pairs what it says on the built-in character against itself; a
//! mapping that pairs nothing is refused.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use skel_retarget::{Mapping, NodeMap, RetargetError};

fn node(data: &skel_anim::AnimationData, name: &str) -> usize {
    data.nodes.iter().position(|n| n.name == name).unwrap()
}

#[test]
fn each_mapping_pairs_what_it_names() {
    let rig = common::character();
    let (hips, left, right) = (
        node(&rig, "Hips"),
        node(&rig, "LeftHand"),
        node(&rig, "RightHand"),
    );

    let same = Mapping::SameNames.node_map(&rig, &rig).unwrap();
    assert_eq!(same, NodeMap::same_names(&rig, &rig));
    assert_eq!(same.source_of(left), Some(left));

    let humanoid = Mapping::Humanoid.node_map(&rig, &rig).unwrap();
    assert_eq!(humanoid.source_of(hips), Some(hips));
    assert_eq!(humanoid.source_of(left), Some(left));

    // Pairs over the detected ones replace them; the rest stays detected.
    let swapped = vec![("LeftHand".to_owned(), "RightHand".to_owned())];
    let over = Mapping::HumanoidWith(swapped.clone())
        .node_map(&rig, &rig)
        .unwrap();
    assert_eq!(over.source_of(left), Some(right));
    assert_eq!(over.source_of(hips), Some(hips));
    assert_eq!(over.len(), humanoid.len());

    // Pairs alone pair nothing else.
    let only = Mapping::Pairs(swapped).node_map(&rig, &rig).unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only.source_of(left), Some(right));
}

#[test]
fn bad_mappings_are_typed_errors() {
    let rig = common::character();
    let unknown = Mapping::Pairs(vec![("NoSuchBone".into(), "Hips".into())]).node_map(&rig, &rig);
    assert!(
        matches!(unknown, Err(RetargetError::UnknownNode { ref name, .. }) if name == "NoSuchBone"),
        "{unknown:?}"
    );
    assert_eq!(
        Mapping::Pairs(Vec::new()).node_map(&rig, &rig),
        Err(RetargetError::EmptyMap)
    );
    let bare = skel_anim::AnimationData::default();
    assert_eq!(
        Mapping::SameNames.node_map(&bare, &bare),
        Err(RetargetError::EmptyMap)
    );
    assert!(matches!(
        Mapping::pairs_from_json("[1, 2]"),
        Err(RetargetError::MapJson { .. })
    ));
    assert_eq!(
        Mapping::pairs_from_json(r#"{"pelvis": "Hips"}"#).unwrap(),
        vec![("pelvis".to_owned(), "Hips".to_owned())]
    );
}
