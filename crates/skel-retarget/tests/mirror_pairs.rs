//! `HumanoidMap::mirror_pairs` on the built-in character, the Superhero and CesiumMan: every
//! canonical joint of one side pairs with its counterpart, and laid over the name pairs the
//! result is a mirror map, CesiumMan's included (its arm names pair across the hierarchy on
//! their own).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use skel_anim::mirror::{merge_pairs, pairs_by_name};
use skel_anim::{AnimError, AnimationData, MirrorMap};
use skel_retarget::{BodySide, HumanBone, HumanoidMap};

/// The humanoid pairs, checked against the map's own bones, and the mirror map they make.
fn mirror_map(data: &AnimationData) -> (Vec<(usize, usize)>, Result<MirrorMap, AnimError>) {
    let human = HumanoidMap::detect(data).unwrap();
    let pairs = human.mirror_pairs();
    for &(left, right) in &pairs {
        let bone = |n: usize| human.iter().find(|&(_, m)| m == n).map(|(b, _)| b).unwrap();
        let flip = |b: HumanBone| match b {
            HumanBone::Limb(BodySide::Left, l) => HumanBone::Limb(BodySide::Right, l),
            HumanBone::Finger(BodySide::Left, f, k) => HumanBone::Finger(BodySide::Right, f, k),
            other => panic!("{other} is not a left bone"),
        };
        assert_eq!(flip(bone(left)), bone(right));
    }
    let all = merge_pairs(&pairs, &pairs_by_name(&data.nodes).unwrap());
    (pairs, MirrorMap::from_pairs(data, &all))
}

#[test]
fn built_in_character() {
    let data = common::character();
    let (pairs, map) = mirror_map(&data);
    // Shoulder, upper arm, forearm, hand, upper leg, leg, foot, toes.
    assert_eq!(pairs.len(), 8);
    let map = map.unwrap();
    for (left, right) in pairs {
        assert_eq!(map.partner(left), Some(right));
        assert_eq!(
            data.nodes[left].name.replacen("Left", "Right", 1),
            data.nodes[right].name
        );
    }
}

#[test]
fn superhero() {
    let Some(data) = common::asset("mirror_pairs::superhero", common::SUPERHERO) else {
        return;
    };
    let (pairs, map) = mirror_map(&data);
    // 8 limb joints and 15 finger joints a side.
    assert_eq!(pairs.len(), 23);
    let map = map.unwrap();
    // The leaf joints the humanoid map leaves out pair by name.
    let by = |name: &str| data.nodes.iter().position(|n| n.name == name).unwrap();
    assert_eq!(
        map.partner(by("index_04_leaf_l")),
        Some(by("index_04_leaf_r"))
    );
}

#[test]
fn cesium_man() {
    let Some(data) = common::asset("mirror_pairs::cesium_man", common::CESIUM_MAN) else {
        return;
    };
    assert!(matches!(
        MirrorMap::from_names(&data),
        Err(AnimError::MirrorPairBreaksHierarchy { .. })
    ));
    let (pairs, map) = mirror_map(&data);
    assert_eq!(pairs.len(), 7);
    let map = map.unwrap();
    let by = |name: &str| data.nodes.iter().position(|n| n.name == name).unwrap();
    assert_eq!(
        map.partner(by("Skeleton_arm_joint_R")),
        Some(by("Skeleton_arm_joint_L__4_"))
    );
}
