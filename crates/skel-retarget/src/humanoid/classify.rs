//! What a joint's name says it is, before the hierarchy is consulted.

use crate::humanoid::bones::{Finger, Limb};
use crate::humanoid::names::NameParts;

/// A joint's class from its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Hips,
    Spine,
    Neck,
    Head,
    Limb(Limb),
    /// `arm` with a number: a joint of the arm chain, placed by its depth.
    ArmChain,
    /// `leg` with a number: a joint of the leg chain, placed by its depth.
    LegChain,
    Finger(Finger),
    Unknown,
}

fn has(key: &str, words: &[&str]) -> bool {
    words.iter().any(|w| key.contains(w))
}

/// The class of a parsed name (end joints are [`Class::Unknown`]).
pub(crate) fn classify(p: &NameParts) -> Class {
    let key = p.key.as_str();
    if p.end || key.is_empty() {
        return Class::Unknown;
    }
    if let Some(f) = Finger::ALL.into_iter().find(|f| has(key, f.words())) {
        return Class::Finger(f);
    }
    let limb = |l| Class::Limb(l);
    match key {
        "hips" | "pelvis" | "hip" if p.side.is_none() => return Class::Hips,
        "arm" => {
            return if p.number.is_some() {
                Class::ArmChain
            } else {
                limb(Limb::UpperArm)
            };
        }
        "leg" => {
            return if p.number.is_some() {
                Class::LegChain
            } else {
                limb(Limb::LowerLeg)
            };
        }
        _ => {}
    }
    if has(key, &["neck"]) {
        Class::Neck
    } else if has(key, &["head"]) {
        Class::Head
    } else if has(key, &["clavicle", "shoulder", "collar"]) {
        limb(Limb::Shoulder)
    } else if has(key, &["upperarm", "uparm"]) {
        limb(Limb::UpperArm)
    } else if has(key, &["forearm", "lowerarm", "elbow"]) {
        limb(Limb::LowerArm)
    } else if has(key, &["hand", "wrist"]) {
        limb(Limb::Hand)
    } else if has(key, &["upleg", "upperleg", "thigh"]) {
        limb(Limb::UpperLeg)
    } else if has(key, &["lowerleg", "calf", "shin", "knee"]) {
        limb(Limb::LowerLeg)
    } else if has(key, &["foot", "ankle"]) {
        limb(Limb::Foot)
    } else if has(key, &["toe", "ball"]) {
        limb(Limb::Toes)
    } else if has(key, &["spine", "chest", "torso", "abdomen", "waist"]) {
        Class::Spine
    } else {
        Class::Unknown
    }
}
