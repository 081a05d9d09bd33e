//! VRM's humanoid: which node is which human bone (VRMC_vrm-1.0 `humanoid.md`). Retargeting
//! and `.vrma` clips find bones by these names, never by node names.

use std::collections::BTreeMap;

use super::json::{Object, item_path, key_path, object, req_node};
use super::{LoadCtx, VrmError};

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

/// The humanoid bone map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Humanoid {
    /// Human bone → node index.
    pub bones: BTreeMap<HumanBone, usize>,
}

impl Humanoid {
    /// The node of `bone`, if mapped.
    #[must_use]
    pub fn node(&self, bone: HumanBone) -> Option<usize> {
        self.bones.get(&bone).copied()
    }

    /// The human bone mapped to `node`, if any.
    #[must_use]
    pub fn bone_of(&self, node: usize) -> Option<HumanBone> {
        self.bones
            .iter()
            .find(|(_, n)| **n == node)
            .map(|(b, _)| *b)
    }

    fn check_required(&self, path: &str) -> Result<(), VrmError> {
        let missing: Vec<HumanBone> = REQUIRED_HUMAN_BONES
            .iter()
            .copied()
            .filter(|b| !self.bones.contains_key(b))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(VrmError::MissingHumanBones {
                path: path.to_owned(),
                missing,
            })
        }
    }
}

/// VRMC_vrm 1.0 `humanoid` at `path`: `humanBones` is an object of `{name: {node}}`. When
/// the file uses 1.0-beta's thumb names (`leftThumbIntermediate` present) the thumbs are
/// renamed as in 0.x; an unknown name is skipped with a warning.
pub(crate) fn read_humanoid_v1(
    h: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Humanoid, VrmError> {
    let at = key_path(path, "humanBones");
    let bones_json = match h.get("humanBones") {
        Some(v) => object(v, &at)?,
        None => return Err(VrmError::Missing { path: at }),
    };
    let beta_thumbs = bones_json.contains_key("leftThumbIntermediate")
        || bones_json.contains_key("rightThumbIntermediate");
    let mut humanoid = Humanoid::default();
    for (name, v) in bones_json {
        let bone_path = key_path(&at, name);
        let bone = if beta_thumbs {
            HumanBone::from_v0_name(name)
        } else {
            HumanBone::from_name(name)
        };
        let Some(bone) = bone else {
            ctx.warn(&bone_path, format!("unknown human bone {name:?}: skipped"));
            continue;
        };
        let node = req_node(object(v, &bone_path)?, "node", &bone_path, ctx.node_count)?;
        humanoid.bones.insert(bone, node);
    }
    humanoid.check_required(&at)?;
    Ok(humanoid)
}

/// VRM 0.x `humanoid` at `path`: `humanBones` is an array of `{bone, node}`. As three-vrm
/// reads it: an entry without `bone` or `node` is skipped, thumbs are renamed
/// ([`HumanBone::from_v0_name`]), a bone listed twice keeps its first entry (warned).
pub(crate) fn read_humanoid_v0(
    h: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Humanoid, VrmError> {
    let at = key_path(path, "humanBones");
    let list = super::json::array(h, "humanBones", path)?;
    let mut humanoid = Humanoid::default();
    for (i, v) in list.iter().enumerate() {
        let entry_path = item_path(&at, i);
        let entry = object(v, &entry_path)?;
        let (Some(name), true) = (
            super::json::opt_string(entry, "bone", &entry_path)?,
            entry.contains_key("node"),
        ) else {
            continue;
        };
        let Some(bone) = HumanBone::from_v0_name(&name) else {
            ctx.warn(&entry_path, format!("unknown human bone {name:?}: skipped"));
            continue;
        };
        let node = req_node(entry, "node", &entry_path, ctx.node_count)?;
        if humanoid.bones.contains_key(&bone) {
            ctx.warn(
                &entry_path,
                format!("{name} listed twice: the first entry is kept"),
            );
            continue;
        }
        humanoid.bones.insert(bone, node);
    }
    humanoid.check_required(&at)?;
    Ok(humanoid)
}
