//! Detection: names first, then the hierarchy (limb chains by depth, the spine as the path
//! from the hips to the joint the arms hang from, neck and head above it), then a test that
//! the body stands upright.

use std::collections::BTreeMap;

use glam::DVec3;
use skel_anim::AnimationData;

use crate::error::{RetargetError, Side};
use crate::humanoid::HumanoidMap;
use crate::humanoid::bones::{Finger, HumanBone, Limb};
use crate::humanoid::classify::{Class, classify};
use crate::humanoid::names::{BodySide, parse};
use crate::rest::RestPose;

struct Joint {
    node: usize,
    class: Class,
    side: Option<BodySide>,
    depth: usize,
}

fn not_humanoid(reason: impl Into<String>) -> RetargetError {
    RetargetError::NotHumanoid {
        reason: reason.into(),
    }
}

impl HumanoidMap {
    /// Finds the canonical humanoid joints among the joints of `data`'s skins.
    ///
    /// Names decide first (`Hips`/`pelvis`, `LeftUpLeg`/`thigh_l`/`UpperLeg.L`, …). Joints
    /// named only as a numbered chain (`leg_joint_L_1`) take the slots of their limb in
    /// depth order. The spine is the path from the hips to the lowest common ancestor of the
    /// two arms; neck and head come from names or from the chain above it. A joint without a
    /// side in its name takes the side of the body's midline it lies on at rest (+x is the
    /// left of a glTF character facing +z).
    ///
    /// # Errors
    /// [`RetargetError::NotHumanoid`] when hips, head, legs or arms are missing, or the body
    /// does not stand upright (the hips-to-head direction more than 60° from the
    /// feet-to-hips direction: a quadruped such as Fox); [`RetargetError::InvalidRig`] for a
    /// bad hierarchy.
    pub fn detect(data: &AnimationData) -> Result<Self, RetargetError> {
        let rest = RestPose::new(data, Side::Target)?;
        let mut nodes: Vec<usize> = data
            .skeletons
            .iter()
            .flat_map(|s| s.joints.iter().copied())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        if nodes.is_empty() {
            return Err(not_humanoid("the rig has no skin joints"));
        }
        let depth = |mut n: usize| {
            let mut d = 0;
            while let Some(p) = rest.parents[n] {
                d += 1;
                n = p;
            }
            d
        };
        let mut joints: Vec<Joint> = nodes
            .iter()
            .map(|&node| {
                let p = parse(&data.nodes[node].name);
                Joint {
                    node,
                    class: classify(&p),
                    side: p.side,
                    depth: depth(node),
                }
            })
            .collect();
        joints.sort_by_key(|j| (j.depth, j.node));
        let mut bones: BTreeMap<HumanBone, usize> = BTreeMap::new();
        if let Some(h) = shallowest(&joints, &|j| j.class == Class::Hips) {
            bones.insert(HumanBone::Hips, h);
        }
        // Sides from the midline for limb joints whose names carry none.
        let mid = bones.get(&HumanBone::Hips).map_or_else(
            || nodes.iter().map(|&n| rest.position(n).x).sum::<f64>() / nodes.len() as f64,
            |&h| rest.position(h).x,
        );
        for j in &mut joints {
            let limbish = matches!(
                j.class,
                Class::Limb(_) | Class::ArmChain | Class::LegChain | Class::Finger(_)
            );
            if limbish && j.side.is_none() {
                let x = rest.position(j.node).x;
                j.side = (x != mid).then_some(if x > mid {
                    BodySide::Left
                } else {
                    BodySide::Right
                });
            }
        }
        for side in [BodySide::Left, BodySide::Right] {
            for limb in [
                Limb::Shoulder,
                Limb::UpperArm,
                Limb::LowerArm,
                Limb::Hand,
                Limb::UpperLeg,
                Limb::LowerLeg,
                Limb::Foot,
                Limb::Toes,
            ] {
                if let Some(n) = joints
                    .iter()
                    .find(|j| j.side == Some(side) && j.class == Class::Limb(limb))
                {
                    bones.insert(HumanBone::Limb(side, limb), n.node);
                }
            }
            for (class, slots) in [
                (
                    Class::ArmChain,
                    &[Limb::UpperArm, Limb::LowerArm, Limb::Hand][..],
                ),
                (
                    Class::LegChain,
                    &[Limb::UpperLeg, Limb::LowerLeg, Limb::Foot, Limb::Toes][..],
                ),
            ] {
                let chain = joints
                    .iter()
                    .filter(|j| j.side == Some(side) && j.class == class);
                let free = slots
                    .iter()
                    .filter(|&&l| !bones.contains_key(&HumanBone::Limb(side, l)));
                for (j, limb) in chain.zip(free.copied().collect::<Vec<_>>()) {
                    bones.insert(HumanBone::Limb(side, limb), j.node);
                }
            }
        }
        keep_chains(&mut bones, &rest);
        let limb =
            |b: &BTreeMap<HumanBone, usize>, side, l| b.get(&HumanBone::Limb(side, l)).copied();
        let lca = |a: usize, b: usize| {
            let mut x = Some(a);
            while let Some(n) = x {
                if rest.is_ancestor_or_self(n, b) {
                    return Some(n);
                }
                x = rest.parents[n];
            }
            None
        };
        if !bones.contains_key(&HumanBone::Hips)
            && let (Some(l), Some(r)) = (
                limb(&bones, BodySide::Left, Limb::UpperLeg),
                limb(&bones, BodySide::Right, Limb::UpperLeg),
            )
            && let Some(h) =
                rest.parents[l].and_then(|pl| rest.parents[r].and_then(|pr| lca(pl, pr)))
        {
            bones.insert(HumanBone::Hips, h);
        }
        let hips = bones.get(&HumanBone::Hips).copied().ok_or_else(|| {
            not_humanoid("no hips: no joint named hips/pelvis and no pair of legs")
        })?;
        let arm_root = |side| {
            limb(&bones, side, Limb::Shoulder).or_else(|| limb(&bones, side, Limb::UpperArm))
        };
        let (Some(la), Some(ra)) = (arm_root(BodySide::Left), arm_root(BodySide::Right)) else {
            return Err(not_humanoid("no left and right arm"));
        };
        let chest = rest.parents[la]
            .and_then(|pl| rest.parents[ra].and_then(|pr| lca(pl, pr)))
            .filter(|&c| c != hips && rest.is_ancestor_or_self(hips, c));
        if let Some(chest) = chest {
            let mut path = vec![chest];
            while let Some(p) = rest.parents[path[path.len() - 1]].filter(|&p| p != hips) {
                path.push(p);
            }
            path.reverse();
            let last = path.len() - 1;
            bones.insert(HumanBone::Chest, path[last]);
            for (k, bone) in [HumanBone::Spine, HumanBone::Spine1, HumanBone::Spine2]
                .into_iter()
                .enumerate()
            {
                if k < last {
                    bones.insert(bone, path[k]);
                }
            }
            let below = |n: usize| rest.is_ancestor_or_self(chest, n) && n != chest;
            let neck = shallowest(&joints, &|j| j.class == Class::Neck && below(j.node));
            let head = shallowest(&joints, &|j| j.class == Class::Head && below(j.node));
            // The chain above the chest that holds no arm: neck first, head last.
            let up_chain = || {
                let start = neck.or_else(|| {
                    joints
                        .iter()
                        .find(|j| {
                            rest.parents[j.node] == Some(chest)
                                && !rest.is_ancestor_or_self(j.node, la)
                                && !rest.is_ancestor_or_self(j.node, ra)
                                && j.class != Class::Unknown
                        })
                        .map(|j| j.node)
                        .or_else(|| {
                            joints
                                .iter()
                                .find(|j| {
                                    rest.parents[j.node] == Some(chest)
                                        && !rest.is_ancestor_or_self(j.node, la)
                                        && !rest.is_ancestor_or_self(j.node, ra)
                                        && !parse(&data.nodes[j.node].name).end
                                })
                                .map(|j| j.node)
                        })
                })?;
                let mut chain = vec![start];
                while let Some(next) = joints.iter().find(|j| {
                    rest.parents[j.node] == Some(chain[chain.len() - 1])
                        && !parse(&data.nodes[j.node].name).end
                }) {
                    chain.push(next.node);
                }
                Some(chain)
            };
            match (neck, head) {
                (Some(n), Some(h)) => {
                    bones.insert(HumanBone::Neck, n);
                    bones.insert(HumanBone::Head, h);
                }
                (n, h) => {
                    if let Some(chain) = up_chain() {
                        let last = chain[chain.len() - 1];
                        bones.insert(HumanBone::Head, h.unwrap_or(last));
                        if chain.len() > 1 || n.is_some() {
                            bones.insert(HumanBone::Neck, n.unwrap_or(chain[0]));
                        }
                    }
                }
            }
        }
        for side in [BodySide::Left, BodySide::Right] {
            let hand =
                limb(&bones, side, Limb::Hand).or_else(|| limb(&bones, side, Limb::LowerArm));
            for finger in Finger::ALL {
                let segs = joints.iter().filter(|j| {
                    j.side == Some(side)
                        && j.class == Class::Finger(finger)
                        && hand.is_none_or(|h| rest.is_ancestor_or_self(h, j.node))
                });
                for (k, j) in segs.take(3).enumerate() {
                    bones.insert(HumanBone::Finger(side, finger, k as u8 + 1), j.node);
                }
            }
        }
        check_upright(&bones, &rest)?;
        let used: Vec<usize> = bones.values().copied().collect();
        let unmatched = nodes
            .into_iter()
            .filter(|n| !used.contains(n) && !parse(&data.nodes[*n].name).end)
            .collect();
        Ok(Self { bones, unmatched })
    }
}

/// Drops a limb joint that does not hang below the one before it in its chain (RobotExpressive's
/// `Foot.L` is an IK target under the armature's root, not below `LowerLeg.L`): the key rule
/// assumes parents map to parents, and such a pairing would tear the limb. It is listed as
/// unmatched instead.
fn keep_chains(bones: &mut BTreeMap<HumanBone, usize>, rest: &RestPose) {
    const CHAINS: [[Limb; 4]; 2] = [
        [Limb::Shoulder, Limb::UpperArm, Limb::LowerArm, Limb::Hand],
        [Limb::UpperLeg, Limb::LowerLeg, Limb::Foot, Limb::Toes],
    ];
    for side in [BodySide::Left, BodySide::Right] {
        for chain in CHAINS {
            let mut above: Option<usize> = None;
            for limb in chain {
                let key = HumanBone::Limb(side, limb);
                let Some(&node) = bones.get(&key) else {
                    continue;
                };
                if above.is_some_and(|a| a == node || !rest.is_ancestor_or_self(a, node)) {
                    bones.remove(&key);
                } else {
                    above = Some(node);
                }
            }
        }
    }
}

/// The first joint (joints are sorted shallowest first) that `pred` accepts.
fn shallowest(joints: &[Joint], pred: &dyn Fn(&Joint) -> bool) -> Option<usize> {
    joints.iter().find(|j| pred(j)).map(|j| j.node)
}

/// Refuses a rig without head, legs and arms, or one that does not stand upright.
fn check_upright(bones: &BTreeMap<HumanBone, usize>, rest: &RestPose) -> Result<(), RetargetError> {
    let need = |b: HumanBone| {
        bones
            .get(&b)
            .copied()
            .ok_or_else(|| not_humanoid(format!("no {b}")))
    };
    let hips = need(HumanBone::Hips)?;
    let head = need(HumanBone::Head)?;
    let mut feet = DVec3::ZERO;
    let mut hands = DVec3::ZERO;
    for side in [BodySide::Left, BodySide::Right] {
        let arm = need(HumanBone::Limb(side, Limb::UpperArm))?;
        let hand = [Limb::Hand, Limb::LowerArm]
            .iter()
            .find_map(|&l| bones.get(&HumanBone::Limb(side, l)).copied())
            .unwrap_or(arm);
        hands += rest.position(hand) * 0.5;
        need(HumanBone::Limb(side, Limb::UpperLeg))?;
        let low = bones
            .get(&HumanBone::Limb(side, Limb::Foot))
            .or_else(|| bones.get(&HumanBone::Limb(side, Limb::LowerLeg)))
            .copied()
            .ok_or_else(|| not_humanoid(format!("no {side:?} foot or lower leg")))?;
        feet += rest.position(low) * 0.5;
    }
    let up = rest.position(head) - rest.position(hips);
    let legs = rest.position(hips) - feet;
    let cos = up.normalize_or_zero().dot(legs.normalize_or_zero());
    if cos < 0.5 {
        return Err(not_humanoid(format!(
            "the body does not stand upright at rest: hips-to-head is {:.0}° from feet-to-hips",
            cos.clamp(-1.0, 1.0).acos().to_degrees()
        )));
    }
    // A quadruped's front paws stand as low as its feet; a humanoid's hands hang at least
    // half way up to the hips, even with the arms down.
    let up_dir = legs.normalize_or_zero();
    let hand_height = (hands - feet).dot(up_dir) / legs.length().max(f64::MIN_POSITIVE);
    if hand_height < 0.5 {
        return Err(not_humanoid(format!(
            "the hands stand as low as the feet at rest ({:.0}% of the hips' height): a quadruped",
            hand_height * 100.0
        )));
    }
    Ok(())
}
