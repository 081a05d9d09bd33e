//! The left/right pairs of a humanoid map, for mirroring (`skel_anim::MirrorMap`).

use crate::humanoid::HumanoidMap;
use crate::humanoid::bones::HumanBone;
use crate::humanoid::names::BodySide;

impl HumanoidMap {
    /// The canonical joints found on both sides, as `(left node, right node)` mirror pairs in
    /// bone order (shoulders, arms, legs, then fingers): what
    /// `skel_anim::MirrorMap::from_pairs` takes when the names of a rig do not pair its sides.
    ///
    /// Only canonical joints pair here; the joints below them that the map leaves out (end
    /// joints, twist bones) must pair too for a mirror map to accept them, so lay these over
    /// the name pairs: `skel_anim::mirror::merge_pairs(&human.mirror_pairs(),
    /// &skel_anim::mirror::pairs_by_name(&data.nodes)?)`.
    ///
    /// ```no_run
    /// use skel_retarget::HumanoidMap;
    /// # let data = skel_anim::AnimationData::default();
    /// let human = HumanoidMap::detect(&data)?;
    /// for (left, right) in human.mirror_pairs() {
    ///     println!("{} ↔ {}", data.nodes[left].name, data.nodes[right].name);
    /// }
    /// # Ok::<(), skel_retarget::RetargetError>(())
    /// ```
    #[must_use]
    pub fn mirror_pairs(&self) -> Vec<(usize, usize)> {
        self.iter()
            .filter_map(|(bone, left)| {
                let right = match bone {
                    HumanBone::Limb(BodySide::Left, limb) => HumanBone::Limb(BodySide::Right, limb),
                    HumanBone::Finger(BodySide::Left, finger, k) => {
                        HumanBone::Finger(BodySide::Right, finger, k)
                    }
                    _ => return None,
                };
                self.get(right).filter(|&r| r != left).map(|r| (left, r))
            })
            .collect()
    }
}
