//! VRM's human bone names (VRMC_vrm-1.0 `humanoid.md`): the 55 bones a humanoid may map, the
//! 15 it must, and VRM 0.x's thumb names. At the crate's top level, with no dependencies, so
//! that the error type can name bones without depending on the VRM readers.

/// A VRM 1.0 human bone (the 55 names of the specification, in its order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum HumanBone {
    /// `hips`.
    Hips,
    /// `spine`.
    Spine,
    /// `chest`.
    Chest,
    /// `upperChest`.
    UpperChest,
    /// `neck`.
    Neck,
    /// `head`.
    Head,
    /// `leftEye`.
    LeftEye,
    /// `rightEye`.
    RightEye,
    /// `jaw`.
    Jaw,
    /// `leftUpperLeg`.
    LeftUpperLeg,
    /// `leftLowerLeg`.
    LeftLowerLeg,
    /// `leftFoot`.
    LeftFoot,
    /// `leftToes`.
    LeftToes,
    /// `rightUpperLeg`.
    RightUpperLeg,
    /// `rightLowerLeg`.
    RightLowerLeg,
    /// `rightFoot`.
    RightFoot,
    /// `rightToes`.
    RightToes,
    /// `leftShoulder`.
    LeftShoulder,
    /// `leftUpperArm`.
    LeftUpperArm,
    /// `leftLowerArm`.
    LeftLowerArm,
    /// `leftHand`.
    LeftHand,
    /// `rightShoulder`.
    RightShoulder,
    /// `rightUpperArm`.
    RightUpperArm,
    /// `rightLowerArm`.
    RightLowerArm,
    /// `rightHand`.
    RightHand,
    /// `leftThumbMetacarpal`.
    LeftThumbMetacarpal,
    /// `leftThumbProximal`.
    LeftThumbProximal,
    /// `leftThumbDistal`.
    LeftThumbDistal,
    /// `leftIndexProximal`.
    LeftIndexProximal,
    /// `leftIndexIntermediate`.
    LeftIndexIntermediate,
    /// `leftIndexDistal`.
    LeftIndexDistal,
    /// `leftMiddleProximal`.
    LeftMiddleProximal,
    /// `leftMiddleIntermediate`.
    LeftMiddleIntermediate,
    /// `leftMiddleDistal`.
    LeftMiddleDistal,
    /// `leftRingProximal`.
    LeftRingProximal,
    /// `leftRingIntermediate`.
    LeftRingIntermediate,
    /// `leftRingDistal`.
    LeftRingDistal,
    /// `leftLittleProximal`.
    LeftLittleProximal,
    /// `leftLittleIntermediate`.
    LeftLittleIntermediate,
    /// `leftLittleDistal`.
    LeftLittleDistal,
    /// `rightThumbMetacarpal`.
    RightThumbMetacarpal,
    /// `rightThumbProximal`.
    RightThumbProximal,
    /// `rightThumbDistal`.
    RightThumbDistal,
    /// `rightIndexProximal`.
    RightIndexProximal,
    /// `rightIndexIntermediate`.
    RightIndexIntermediate,
    /// `rightIndexDistal`.
    RightIndexDistal,
    /// `rightMiddleProximal`.
    RightMiddleProximal,
    /// `rightMiddleIntermediate`.
    RightMiddleIntermediate,
    /// `rightMiddleDistal`.
    RightMiddleDistal,
    /// `rightRingProximal`.
    RightRingProximal,
    /// `rightRingIntermediate`.
    RightRingIntermediate,
    /// `rightRingDistal`.
    RightRingDistal,
    /// `rightLittleProximal`.
    RightLittleProximal,
    /// `rightLittleIntermediate`.
    RightLittleIntermediate,
    /// `rightLittleDistal`.
    RightLittleDistal,
}

/// Every bone with its JSON name, in the specification's order.
const NAMES: [(HumanBone, &str); 55] = [
    (HumanBone::Hips, "hips"),
    (HumanBone::Spine, "spine"),
    (HumanBone::Chest, "chest"),
    (HumanBone::UpperChest, "upperChest"),
    (HumanBone::Neck, "neck"),
    (HumanBone::Head, "head"),
    (HumanBone::LeftEye, "leftEye"),
    (HumanBone::RightEye, "rightEye"),
    (HumanBone::Jaw, "jaw"),
    (HumanBone::LeftUpperLeg, "leftUpperLeg"),
    (HumanBone::LeftLowerLeg, "leftLowerLeg"),
    (HumanBone::LeftFoot, "leftFoot"),
    (HumanBone::LeftToes, "leftToes"),
    (HumanBone::RightUpperLeg, "rightUpperLeg"),
    (HumanBone::RightLowerLeg, "rightLowerLeg"),
    (HumanBone::RightFoot, "rightFoot"),
    (HumanBone::RightToes, "rightToes"),
    (HumanBone::LeftShoulder, "leftShoulder"),
    (HumanBone::LeftUpperArm, "leftUpperArm"),
    (HumanBone::LeftLowerArm, "leftLowerArm"),
    (HumanBone::LeftHand, "leftHand"),
    (HumanBone::RightShoulder, "rightShoulder"),
    (HumanBone::RightUpperArm, "rightUpperArm"),
    (HumanBone::RightLowerArm, "rightLowerArm"),
    (HumanBone::RightHand, "rightHand"),
    (HumanBone::LeftThumbMetacarpal, "leftThumbMetacarpal"),
    (HumanBone::LeftThumbProximal, "leftThumbProximal"),
    (HumanBone::LeftThumbDistal, "leftThumbDistal"),
    (HumanBone::LeftIndexProximal, "leftIndexProximal"),
    (HumanBone::LeftIndexIntermediate, "leftIndexIntermediate"),
    (HumanBone::LeftIndexDistal, "leftIndexDistal"),
    (HumanBone::LeftMiddleProximal, "leftMiddleProximal"),
    (HumanBone::LeftMiddleIntermediate, "leftMiddleIntermediate"),
    (HumanBone::LeftMiddleDistal, "leftMiddleDistal"),
    (HumanBone::LeftRingProximal, "leftRingProximal"),
    (HumanBone::LeftRingIntermediate, "leftRingIntermediate"),
    (HumanBone::LeftRingDistal, "leftRingDistal"),
    (HumanBone::LeftLittleProximal, "leftLittleProximal"),
    (HumanBone::LeftLittleIntermediate, "leftLittleIntermediate"),
    (HumanBone::LeftLittleDistal, "leftLittleDistal"),
    (HumanBone::RightThumbMetacarpal, "rightThumbMetacarpal"),
    (HumanBone::RightThumbProximal, "rightThumbProximal"),
    (HumanBone::RightThumbDistal, "rightThumbDistal"),
    (HumanBone::RightIndexProximal, "rightIndexProximal"),
    (HumanBone::RightIndexIntermediate, "rightIndexIntermediate"),
    (HumanBone::RightIndexDistal, "rightIndexDistal"),
    (HumanBone::RightMiddleProximal, "rightMiddleProximal"),
    (
        HumanBone::RightMiddleIntermediate,
        "rightMiddleIntermediate",
    ),
    (HumanBone::RightMiddleDistal, "rightMiddleDistal"),
    (HumanBone::RightRingProximal, "rightRingProximal"),
    (HumanBone::RightRingIntermediate, "rightRingIntermediate"),
    (HumanBone::RightRingDistal, "rightRingDistal"),
    (HumanBone::RightLittleProximal, "rightLittleProximal"),
    (
        HumanBone::RightLittleIntermediate,
        "rightLittleIntermediate",
    ),
    (HumanBone::RightLittleDistal, "rightLittleDistal"),
];

/// The bones a VRM 1.0 humanoid must map (three-vrm refuses a file without any of them).
pub const REQUIRED_HUMAN_BONES: [HumanBone; 15] = [
    HumanBone::Hips,
    HumanBone::Spine,
    HumanBone::Head,
    HumanBone::LeftUpperLeg,
    HumanBone::LeftLowerLeg,
    HumanBone::LeftFoot,
    HumanBone::RightUpperLeg,
    HumanBone::RightLowerLeg,
    HumanBone::RightFoot,
    HumanBone::LeftUpperArm,
    HumanBone::LeftLowerArm,
    HumanBone::LeftHand,
    HumanBone::RightUpperArm,
    HumanBone::RightLowerArm,
    HumanBone::RightHand,
];

impl HumanBone {
    /// Every bone, in the specification's order.
    pub fn all() -> impl Iterator<Item = HumanBone> {
        NAMES.iter().map(|&(b, _)| b)
    }

    /// The bone's JSON name (`leftUpperArm`).
    #[must_use]
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(b, _)| *b == self)
            .map_or("", |&(_, n)| n)
    }

    /// The bone a VRM 1.0 name stands for.
    #[must_use]
    pub fn from_name(name: &str) -> Option<HumanBone> {
        NAMES.iter().find(|(_, n)| *n == name).map(|&(b, _)| b)
    }

    /// The bone a VRM 0.x (or 1.0-beta) name stands for: the thumb was renamed in 1.0
    /// (`thumbProximal` → `thumbMetacarpal`, `thumbIntermediate` → `thumbProximal`), as
    /// three-vrm's `thumbBoneNameMap` maps it; every other name is the same.
    #[must_use]
    pub fn from_v0_name(name: &str) -> Option<HumanBone> {
        match name {
            "leftThumbProximal" => Some(HumanBone::LeftThumbMetacarpal),
            "leftThumbIntermediate" => Some(HumanBone::LeftThumbProximal),
            "rightThumbProximal" => Some(HumanBone::RightThumbMetacarpal),
            "rightThumbIntermediate" => Some(HumanBone::RightThumbProximal),
            other => Self::from_name(other),
        }
    }
}
