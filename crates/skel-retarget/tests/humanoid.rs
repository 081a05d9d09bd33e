//! Humanoid auto-mapping: the detected map equals a hand-written one on the sample models,
//! the built-in character and synthetic skeletons named in each convention; Fox is refused.

mod common;

use skel_anim::{AnimationData, NodeRest, SkeletonBinding};
use skel_retarget::{HumanoidMap, RetargetError};

/// `Bone=node` pairs (the `Display` names of `HumanBone`).
fn expected(pairs: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs
        .split_whitespace()
        .map(|p| {
            let (b, n) = p.split_once('=').unwrap_or((p, ""));
            (b.to_owned(), n.to_owned())
        })
        .collect();
    v.sort();
    v
}

fn found(map: &HumanoidMap, data: &AnimationData) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = map
        .iter()
        .map(|(b, n)| (b.to_string(), data.nodes[n].name.clone()))
        .collect();
    v.sort();
    v
}

fn check(data: &AnimationData, pairs: &str) {
    let map = match HumanoidMap::detect(data) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(found(&map, data), expected(pairs));
}

/// RobotExpressive's `Foot.L`/`Foot.R` are IK targets under the armature's root, not below
/// the lower legs: named feet, but left unmatched rather than tearing the legs.
#[test]
fn robot_expressive() {
    let Some(d) = common::asset("humanoid::robot_expressive", common::ROBOT) else {
        return;
    };
    check(
        &d,
        "Hips=Hips Spine=Abdomen Chest=Torso Neck=Neck Head=Head \
        LeftShoulder=Shoulder.L LeftUpperArm=UpperArm.L LeftLowerArm=LowerArm.L \
        LeftUpperLeg=UpperLeg.L LeftLowerLeg=LowerLeg.L \
        RightShoulder=Shoulder.R RightUpperArm=UpperArm.R RightLowerArm=LowerArm.R \
        RightUpperLeg=UpperLeg.R RightLowerLeg=LowerLeg.R \
        LeftThumb1=Thumb.L LeftThumb2=Thumb2.L LeftIndex1=Index.L LeftIndex2=Index2.L \
        LeftMiddle1=Middle1.L LeftMiddle2=Middle2.L LeftRing1=Ring1.L LeftRing2=Ring2.L \
        RightThumb1=Thumb.R RightThumb2=Thumb2.R RightIndex1=Index.R RightIndex2=Index2.R \
        RightMiddle1=Middle1.R RightMiddle2=Middle2.R RightRing1=Ring1.R RightRing2=Ring2.R",
    );
    let map = HumanoidMap::detect(&d).unwrap_or_else(|e| panic!("{e}"));
    let unmatched: Vec<&str> = map
        .unmatched()
        .iter()
        .map(|&n| d.nodes[n].name.as_str())
        .collect();
    assert_eq!(
        unmatched,
        [
            "Bone",
            "Foot.L",
            "Body",
            "Palm2.L",
            "Palm1.L",
            "Palm3.L",
            "Palm2.R",
            "Palm1.R",
            "Palm3.R",
            "PoleTarget.L",
            "Foot.R",
            "PoleTarget.R"
        ]
    );
}

#[test]
fn superhero() {
    let Some(d) = common::asset("humanoid::superhero", common::SUPERHERO) else {
        return;
    };
    let mut pairs = String::from(
        "Hips=pelvis Spine=spine_01 Spine1=spine_02 Chest=spine_03 Neck=neck_01 Head=Head ",
    );
    for (side, s) in [("Left", "l"), ("Right", "r")] {
        pairs += &format!(
            "{side}Shoulder=clavicle_{s} {side}UpperArm=upperarm_{s} {side}LowerArm=lowerarm_{s} {side}Hand=hand_{s} \
             {side}UpperLeg=thigh_{s} {side}LowerLeg=calf_{s} {side}Foot=foot_{s} {side}Toes=ball_{s} "
        );
        for (finger, word) in [
            ("Thumb", "thumb"),
            ("Index", "index"),
            ("Middle", "middle"),
            ("Ring", "ring"),
            ("Little", "pinky"),
        ] {
            for k in 1..=3 {
                pairs += &format!("{side}{finger}{k}={word}_0{k}_{s} ");
            }
        }
    }
    check(&d, &pairs);
}

/// CesiumMan and RiggedFigure: the same skeleton under different names; no name says hips,
/// hand or foot, so the hierarchy places them.
#[test]
fn cesium_man_and_rigged_figure() {
    let Some(c) = common::asset("humanoid::cesium_man", common::CESIUM_MAN) else {
        return;
    };
    check(
        &c,
        "Hips=Skeleton_torso_joint_1 Spine=Skeleton_torso_joint_2 Chest=torso_joint_3 \
        Neck=Skeleton_neck_joint_1 Head=Skeleton_neck_joint_2 \
        LeftUpperArm=Skeleton_arm_joint_L__4_ LeftLowerArm=Skeleton_arm_joint_L__3_ LeftHand=Skeleton_arm_joint_L__2_ \
        RightUpperArm=Skeleton_arm_joint_R RightLowerArm=Skeleton_arm_joint_R__2_ RightHand=Skeleton_arm_joint_R__3_ \
        LeftUpperLeg=leg_joint_L_1 LeftLowerLeg=leg_joint_L_2 LeftFoot=leg_joint_L_3 LeftToes=leg_joint_L_5 \
        RightUpperLeg=leg_joint_R_1 RightLowerLeg=leg_joint_R_2 RightFoot=leg_joint_R_3 RightToes=leg_joint_R_5",
    );
    let Some(r) = common::asset("humanoid::rigged_figure", common::RIGGED_FIGURE) else {
        return;
    };
    check(
        &r,
        "Hips=torso_joint_1 Spine=torso_joint_2 Chest=torso_joint_3 Neck=neck_joint_1 Head=neck_joint_2 \
        LeftUpperArm=arm_joint_L_1 LeftLowerArm=arm_joint_L_2 LeftHand=arm_joint_L_3 \
        RightUpperArm=arm_joint_R_1 RightLowerArm=arm_joint_R_2 RightHand=arm_joint_R_3 \
        LeftUpperLeg=leg_joint_L_1 LeftLowerLeg=leg_joint_L_2 LeftFoot=leg_joint_L_3 LeftToes=leg_joint_L_5 \
        RightUpperLeg=leg_joint_R_1 RightLowerLeg=leg_joint_R_2 RightFoot=leg_joint_R_3 RightToes=leg_joint_R_5",
    );
}

#[test]
fn built_in_character() {
    let d = common::character();
    let mut pairs =
        String::from("Hips=Hips Spine=Spine Spine1=Chest Chest=UpperChest Neck=Neck Head=Head ");
    for side in ["Left", "Right"] {
        pairs += &format!(
            "{side}Shoulder={side}Shoulder {side}UpperArm={side}UpperArm {side}LowerArm={side}Forearm {side}Hand={side}Hand \
             {side}UpperLeg={side}UpLeg {side}LowerLeg={side}Leg {side}Foot={side}Foot {side}Toes={side}Toes "
        );
    }
    check(&d, &pairs);
}

#[test]
fn fox_is_not_humanoid() {
    let Some(d) = common::asset("humanoid::fox", common::FOX) else {
        return;
    };
    assert!(matches!(
        HumanoidMap::detect(&d),
        Err(RetargetError::NotHumanoid { .. })
    ));
}

/// The canonical slots of the synthetic skeletons: (bone, parent slot, translation, y up,
/// the character's left at +x).
const SLOTS: [(&str, Option<usize>, [f32; 3]); 24] = [
    ("Hips", None, [0.0, 1.0, 0.0]),
    ("Spine", Some(0), [0.0, 0.1, 0.0]),
    ("Spine1", Some(1), [0.0, 0.1, 0.0]),
    ("Chest", Some(2), [0.0, 0.1, 0.0]),
    ("Neck", Some(3), [0.0, 0.2, 0.0]),
    ("Head", Some(4), [0.0, 0.1, 0.0]),
    ("LeftShoulder", Some(3), [0.05, 0.15, 0.0]),
    ("LeftUpperArm", Some(6), [0.1, 0.0, 0.0]),
    ("LeftLowerArm", Some(7), [0.25, 0.0, 0.0]),
    ("LeftHand", Some(8), [0.25, 0.0, 0.0]),
    ("RightShoulder", Some(3), [-0.05, 0.15, 0.0]),
    ("RightUpperArm", Some(10), [-0.1, 0.0, 0.0]),
    ("RightLowerArm", Some(11), [-0.25, 0.0, 0.0]),
    ("RightHand", Some(12), [-0.25, 0.0, 0.0]),
    ("LeftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
    ("LeftLowerLeg", Some(14), [0.0, -0.45, 0.0]),
    ("LeftFoot", Some(15), [0.0, -0.45, 0.0]),
    ("LeftToes", Some(16), [0.0, -0.05, 0.12]),
    ("RightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
    ("RightLowerLeg", Some(18), [0.0, -0.45, 0.0]),
    ("RightFoot", Some(19), [0.0, -0.45, 0.0]),
    ("RightToes", Some(20), [0.0, -0.05, 0.12]),
    ("", Some(5), [0.0, 0.2, 0.0]),
    ("", Some(17), [0.0, 0.0, 0.05]),
];

/// A skeleton with the slots named `names` (an empty name: the slot is left out), and
/// the two last slots end joints.
fn synthetic(names: [&str; 24]) -> AnimationData {
    let nodes: Vec<NodeRest> = SLOTS
        .iter()
        .zip(names)
        .map(|(&(_, parent, t), name)| NodeRest {
            translation: t,
            ..NodeRest::new(name, parent)
        })
        .collect();
    let joints: Vec<usize> = (0..nodes.len()).collect();
    let mut nodes = nodes;
    nodes.push(NodeRest::new("mesh", None));
    let mesh = nodes.len() - 1;
    AnimationData {
        nodes,
        skeletons: vec![
            SkeletonBinding::new(0, mesh, joints, vec![]).unwrap_or_else(|e| panic!("{e}")),
        ],
        ..AnimationData::default()
    }
}

fn check_synthetic(names: [&str; 24], spine_slots: &str) {
    let d = synthetic(names);
    let mut pairs = String::from(spine_slots);
    for (k, (bone, _, _)) in SLOTS.iter().enumerate().skip(6).take(16) {
        pairs += &format!(" {bone}={}", names[k]);
    }
    check(&d, &pairs);
}

#[test]
fn mixamo() {
    let n = |s: &str| s.to_owned();
    let names: Vec<String> = [
        "Hips",
        "Spine",
        "Spine1",
        "Spine2",
        "Neck",
        "Head",
        "LeftShoulder",
        "LeftArm",
        "LeftForeArm",
        "LeftHand",
        "RightShoulder",
        "RightArm",
        "RightForeArm",
        "RightHand",
        "LeftUpLeg",
        "LeftLeg",
        "LeftFoot",
        "LeftToeBase",
        "RightUpLeg",
        "RightLeg",
        "RightFoot",
        "RightToeBase",
        "HeadTop_End",
        "LeftToe_End",
    ]
    .iter()
    .map(|s| n(&format!("mixamorig:{s}")))
    .collect();
    let names: [&str; 24] = std::array::from_fn(|i| names[i].as_str());
    check_synthetic(
        names,
        "Hips=mixamorig:Hips Spine=mixamorig:Spine Spine1=mixamorig:Spine1 Chest=mixamorig:Spine2 Neck=mixamorig:Neck Head=mixamorig:Head",
    );
}

#[test]
fn unreal_mannequin() {
    check_synthetic(
        [
            "pelvis",
            "spine_01",
            "spine_02",
            "spine_03",
            "neck_01",
            "head",
            "clavicle_l",
            "upperarm_l",
            "lowerarm_l",
            "hand_l",
            "clavicle_r",
            "upperarm_r",
            "lowerarm_r",
            "hand_r",
            "thigh_l",
            "calf_l",
            "foot_l",
            "ball_l",
            "thigh_r",
            "calf_r",
            "foot_r",
            "ball_r",
            "head_end",
            "ball_leaf_l",
        ],
        "Hips=pelvis Spine=spine_01 Spine1=spine_02 Chest=spine_03 Neck=neck_01 Head=head",
    );
}

/// Rigify's deform bones: the hips are `DEF-spine` and the neck and head are further
/// `DEF-spine.00n`: the hierarchy places them.
#[test]
fn rigify() {
    check_synthetic(
        [
            "DEF-spine",
            "DEF-spine.001",
            "DEF-spine.002",
            "DEF-spine.003",
            "DEF-spine.004",
            "DEF-spine.006",
            "DEF-shoulder.L",
            "DEF-upper_arm.L",
            "DEF-forearm.L",
            "DEF-hand.L",
            "DEF-shoulder.R",
            "DEF-upper_arm.R",
            "DEF-forearm.R",
            "DEF-hand.R",
            "DEF-thigh.L",
            "DEF-shin.L",
            "DEF-foot.L",
            "DEF-toe.L",
            "DEF-thigh.R",
            "DEF-shin.R",
            "DEF-foot.R",
            "DEF-toe.R",
            "DEF-spine.006_end",
            "DEF-toe.L_end",
        ],
        "Hips=DEF-spine Spine=DEF-spine.001 Spine1=DEF-spine.002 Chest=DEF-spine.003 Neck=DEF-spine.004 Head=DEF-spine.006",
    );
}

/// VRoid's VRM bone names (`J_Bip_C_Hips`, `J_Bip_L_UpperArm`).
#[test]
fn vrm() {
    check_synthetic(
        [
            "J_Bip_C_Hips",
            "J_Bip_C_Spine",
            "J_Bip_C_Chest",
            "J_Bip_C_UpperChest",
            "J_Bip_C_Neck",
            "J_Bip_C_Head",
            "J_Bip_L_Shoulder",
            "J_Bip_L_UpperArm",
            "J_Bip_L_LowerArm",
            "J_Bip_L_Hand",
            "J_Bip_R_Shoulder",
            "J_Bip_R_UpperArm",
            "J_Bip_R_LowerArm",
            "J_Bip_R_Hand",
            "J_Bip_L_UpperLeg",
            "J_Bip_L_LowerLeg",
            "J_Bip_L_Foot",
            "J_Bip_L_ToeBase",
            "J_Bip_R_UpperLeg",
            "J_Bip_R_LowerLeg",
            "J_Bip_R_Foot",
            "J_Bip_R_ToeBase",
            "J_Adj_C_HeadTop_end",
            "J_Bip_L_Toe_end",
        ],
        "Hips=J_Bip_C_Hips Spine=J_Bip_C_Spine Spine1=J_Bip_C_Chest Chest=J_Bip_C_UpperChest Neck=J_Bip_C_Neck Head=J_Bip_C_Head",
    );
}

/// Plain English without sides in the names: left and right come from the midline (+x is
/// the left).
#[test]
fn sides_from_the_midline() {
    let d = synthetic([
        "Hips", "Spine", "Spine1", "Chest", "Neck", "Head", "Shoulder", "UpperArm", "LowerArm",
        "Hand", "Shoulder", "UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot", "Toes",
        "UpperLeg", "LowerLeg", "Foot", "Toes", "Head_end", "Toes_end",
    ]);
    let map = HumanoidMap::detect(&d).unwrap_or_else(|e| panic!("{e}"));
    let left_hand = map.get(skel_retarget::HumanBone::Limb(
        skel_retarget::BodySide::Left,
        skel_retarget::Limb::Hand,
    ));
    assert_eq!(left_hand, Some(9));
    let right_foot = map.get(skel_retarget::HumanBone::Limb(
        skel_retarget::BodySide::Right,
        skel_retarget::Limb::Foot,
    ));
    assert_eq!(right_foot, Some(20));
}
