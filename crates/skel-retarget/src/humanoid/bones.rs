//! The canonical humanoid joints.

use crate::humanoid::names::BodySide;

/// A part of a limb, one per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Limb {
    /// Clavicle.
    Shoulder,
    /// Upper arm.
    UpperArm,
    /// Forearm.
    LowerArm,
    /// Hand (wrist).
    Hand,
    /// Thigh.
    UpperLeg,
    /// Shin (knee).
    LowerLeg,
    /// Foot (ankle).
    Foot,
    /// Toes (ball of the foot).
    Toes,
}

/// A finger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Finger {
    /// Thumb.
    Thumb,
    /// Index finger.
    Index,
    /// Middle finger.
    Middle,
    /// Ring finger.
    Ring,
    /// Little finger (pinky).
    Little,
}

impl Finger {
    pub(crate) const ALL: [Self; 5] = [
        Self::Thumb,
        Self::Index,
        Self::Middle,
        Self::Ring,
        Self::Little,
    ];

    /// The words that name it.
    pub(crate) fn words(self) -> &'static [&'static str] {
        match self {
            Self::Thumb => &["thumb"],
            Self::Index => &["index", "pointer"],
            Self::Middle => &["middle"],
            Self::Ring => &["ring"],
            Self::Little => &["pinky", "little", "small"],
        }
    }
}

/// A canonical humanoid joint (Unity's and VRM's humanoid set, with a spine of up to four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HumanBone {
    /// The pelvis: parent of the legs and the spine.
    Hips,
    /// First spine joint above the hips.
    Spine,
    /// Second spine joint (when the spine has more than two).
    Spine1,
    /// Third spine joint (when the spine has four).
    Spine2,
    /// Last spine joint: the one the neck and the shoulders hang from.
    Chest,
    /// Neck.
    Neck,
    /// Head.
    Head,
    /// A limb joint of one side.
    Limb(BodySide, Limb),
    /// Segment 1 to 3 of a finger of one side (1 at the hand).
    Finger(BodySide, Finger, u8),
}

impl std::fmt::Display for HumanBone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Limb(side, limb) => write!(f, "{side:?}{limb:?}"),
            Self::Finger(side, finger, k) => write!(f, "{side:?}{finger:?}{k}"),
            other => write!(f, "{other:?}"),
        }
    }
}
