//! Which node of the `.vrma`'s rig drives which node of the avatar: VRM's humanoid on both
//! sides, or, on a character without one, skel's humanoid auto-map.

use skel_anim::AnimationData;
use skel_gltf::vrm::{HumanBone as VrmBone, Vrm};

use crate::error::RetargetError;
use crate::humanoid::{BodySide, Finger, HumanBone, HumanoidMap, Limb};

/// One driven bone: the VRM bone it is, the `.vrma` node and the avatar node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VrmaPair {
    /// The human bone (VRM's name for it).
    pub bone: VrmBone,
    /// Its node in the `.vrma`.
    pub source: usize,
    /// Its node in the avatar.
    pub target: usize,
}

/// Pairs by VRM bone name: the avatar's `VRMC_vrm` (or converted 0.x) humanoid.
pub(crate) fn pair_vrm(
    source: &std::collections::BTreeMap<VrmBone, usize>,
    target: &Vrm,
) -> Vec<VrmaPair> {
    source
        .iter()
        .filter_map(|(&bone, &s)| {
            target.humanoid.node(bone).map(|t| VrmaPair {
                bone,
                source: s,
                target: t,
            })
        })
        .collect()
}

const SPINE: [&str; 3] = ["spine", "chest", "upperChest"];

/// The auto-map's joint for a VRM limb, finger, neck or head bone (the spine is paired
/// apart: the two rigs may count its joints differently).
fn canonical(bone: VrmBone) -> Option<HumanBone> {
    let name = bone.name();
    match name {
        "hips" => return Some(HumanBone::Hips),
        "neck" => return Some(HumanBone::Neck),
        "head" => return Some(HumanBone::Head),
        _ => {}
    }
    let (side, part) = if let Some(p) = name.strip_prefix("left") {
        (BodySide::Left, p)
    } else {
        (BodySide::Right, name.strip_prefix("right")?)
    };
    let limb = match part {
        "Shoulder" => Some(Limb::Shoulder),
        "UpperArm" => Some(Limb::UpperArm),
        "LowerArm" => Some(Limb::LowerArm),
        "Hand" => Some(Limb::Hand),
        "UpperLeg" => Some(Limb::UpperLeg),
        "LowerLeg" => Some(Limb::LowerLeg),
        "Foot" => Some(Limb::Foot),
        "Toes" => Some(Limb::Toes),
        _ => None,
    };
    if let Some(limb) = limb {
        return Some(HumanBone::Limb(side, limb));
    }
    let (finger, segments): (Finger, [&str; 3]) = match part {
        p if p.starts_with("Thumb") => (Finger::Thumb, ["Metacarpal", "Proximal", "Distal"]),
        p if p.starts_with("Index") => (Finger::Index, ["Proximal", "Intermediate", "Distal"]),
        p if p.starts_with("Middle") => (Finger::Middle, ["Proximal", "Intermediate", "Distal"]),
        p if p.starts_with("Ring") => (Finger::Ring, ["Proximal", "Intermediate", "Distal"]),
        p if p.starts_with("Little") => (Finger::Little, ["Proximal", "Intermediate", "Distal"]),
        _ => return None,
    };
    let k = segments.iter().position(|s| part.ends_with(s))?;
    Some(HumanBone::Finger(side, finger, u8::try_from(k + 1).ok()?))
}

/// Pairs with the auto-map of a character that has no VRM humanoid. The spines are paired
/// end to end: the first spine joints, the last ones (chest or upperChest with the joint the
/// neck hangs from), then the joints between in order.
pub(crate) fn pair_auto(
    source: &std::collections::BTreeMap<VrmBone, usize>,
    target: &AnimationData,
) -> Result<Vec<VrmaPair>, RetargetError> {
    let human = HumanoidMap::detect(target)?;
    let mut out: Vec<VrmaPair> = source
        .iter()
        .filter_map(|(&bone, &s)| {
            let t = human.get(canonical(bone)?)?;
            Some(VrmaPair {
                bone,
                source: s,
                target: t,
            })
        })
        .collect();
    let spine_s: Vec<(VrmBone, usize)> = SPINE
        .iter()
        .filter_map(|n| VrmBone::from_name(n))
        .filter_map(|b| source.get(&b).map(|&s| (b, s)))
        .collect();
    let spine_t: Vec<usize> = [
        HumanBone::Spine,
        HumanBone::Spine1,
        HumanBone::Spine2,
        HumanBone::Chest,
    ]
    .into_iter()
    .filter_map(|b| human.get(b))
    .collect();
    let (ns, nt) = (spine_s.len(), spine_t.len());
    if ns > 0 && nt > 0 {
        let mut push = |i: usize, j: usize| {
            out.push(VrmaPair {
                bone: spine_s[i].0,
                source: spine_s[i].1,
                target: spine_t[j],
            });
        };
        push(0, 0);
        if ns > 1 && nt > 1 {
            push(ns - 1, nt - 1);
            for k in 1..(ns - 1).min(nt - 1) {
                push(k, k);
            }
        }
    }
    Ok(out)
}
