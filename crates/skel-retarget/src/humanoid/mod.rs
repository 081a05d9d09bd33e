//! Humanoid auto-mapping: the canonical joints of a humanoid found from the naming
//! conventions in the wild (Mixamo, Unreal's mannequin, Blender and Rigify, VRM, plain
//! English), with the hierarchy resolving what names leave open.

mod bones;
mod classify;
mod detect;
mod mirror;
mod names;

use std::collections::BTreeMap;

pub use bones::{Finger, HumanBone, Limb};
pub use names::BodySide;

use skel_anim::AnimationData;

use crate::map::NodeMap;

/// The canonical joints found in a rig, and the joints left unmatched.
///
/// ```no_run
/// use skel_retarget::{HumanBone, HumanoidMap};
/// # let data = skel_anim::AnimationData::default();
/// let human = HumanoidMap::detect(&data)?;
/// let hips = human.get(HumanBone::Hips);
/// # Ok::<(), skel_retarget::RetargetError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HumanoidMap {
    bones: BTreeMap<HumanBone, usize>,
    unmatched: Vec<usize>,
}

impl HumanoidMap {
    /// The node of `bone`.
    #[must_use]
    pub fn get(&self, bone: HumanBone) -> Option<usize> {
        self.bones.get(&bone).copied()
    }

    /// Every canonical joint found, with its node.
    pub fn iter(&self) -> impl Iterator<Item = (HumanBone, usize)> + '_ {
        self.bones.iter().map(|(&b, &n)| (b, n))
    }

    /// Skin joints that are no canonical joint (end joints excluded): listed so that nothing
    /// is guessed silently.
    #[must_use]
    pub fn unmatched(&self) -> &[usize] {
        &self.unmatched
    }

    /// Sets (or overrides) the node of `bone`.
    pub fn set(&mut self, bone: HumanBone, node: usize) {
        self.bones.insert(bone, node);
        self.unmatched.retain(|&n| n != node);
    }

    /// The node map pairing each canonical joint both rigs have (target → source).
    #[must_use]
    pub fn pair(source: &Self, target: &Self) -> NodeMap {
        let mut map = NodeMap::new();
        for (bone, t) in target.iter() {
            if let Some(s) = source.get(bone) {
                map.insert(t, s);
            }
        }
        map
    }

    /// The default root and ground-reference nodes of the root-position rule: the hips, and
    /// of the two feet (lower legs when there is no foot) the one farther from the hips along
    /// the axis of their largest difference.
    #[must_use]
    pub fn root_and_ground(&self, data: &AnimationData) -> Option<(usize, usize)> {
        self.root_and_ground_where(data, &|_| true)
    }

    /// [`HumanoidMap::root_and_ground`] among the nodes `map` drives (a foot the source has
    /// no counterpart for gives way to the lower leg above it).
    #[must_use]
    pub fn root_and_ground_mapped(
        &self,
        data: &AnimationData,
        map: &NodeMap,
    ) -> Option<(usize, usize)> {
        self.root_and_ground_where(data, &|n| map.source_of(n).is_some())
    }

    fn root_and_ground_where(
        &self,
        data: &AnimationData,
        accept: &dyn Fn(usize) -> bool,
    ) -> Option<(usize, usize)> {
        let hips = self.get(HumanBone::Hips).filter(|&h| accept(h))?;
        let rest = crate::rest::RestPose::new(data, crate::error::Side::Target).ok()?;
        let foot = |side| {
            [Limb::Foot, Limb::LowerLeg]
                .into_iter()
                .find_map(|l| self.get(HumanBone::Limb(side, l)).filter(|&n| accept(n)))
        };
        let feet: Vec<usize> = [BodySide::Left, BodySide::Right]
            .into_iter()
            .filter_map(foot)
            .collect();
        let hips_at = rest.position(hips);
        let drop = |f: usize| hips_at - rest.position(f);
        let first = *feet.first()?;
        let d = drop(first).abs();
        let axis = if d.y >= d.x && d.y >= d.z {
            1
        } else if d.z >= d.x {
            2
        } else {
            0
        };
        let ground = feet
            .into_iter()
            .max_by(|&a, &b| drop(a)[axis].abs().total_cmp(&drop(b)[axis].abs()))?;
        Some((hips, ground))
    }

    /// The map as text, one `Bone: node` line per joint, then the unmatched joints.
    #[must_use]
    pub fn describe(&self, data: &AnimationData) -> String {
        let mut out = String::new();
        for (bone, n) in self.iter() {
            out.push_str(&format!("{bone}: {}\n", data.nodes[n].name));
        }
        let unmatched: Vec<&str> = self
            .unmatched
            .iter()
            .map(|&n| data.nodes[n].name.as_str())
            .collect();
        out.push_str(&format!("unmatched: {}\n", unmatched.join(", ")));
        out
    }
}
