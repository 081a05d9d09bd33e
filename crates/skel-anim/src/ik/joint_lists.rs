//! The node lists of the chain, look-at and full-body jobs, in fixed-capacity arrays so that a
//! job stays `Copy` (a [`Player`](crate::Player)'s `IkJob`, a batch over many characters), and
//! checked once against a rig's hierarchy.

use glam::{Affine3A, Quat, Vec3};

use super::{
    BodyPose, BodySolution, JointLimit, JointShare, MAX_CHAIN_JOINTS, MAX_LOOK_AT_JOINTS,
    MAX_SPINE_JOINTS,
};
use crate::{AnimError, AnimationData};

/// A chain's nodes (root first, 2 to [`MAX_CHAIN_JOINTS`]) and each joint's [`JointLimit`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainJoints {
    nodes: [usize; MAX_CHAIN_JOINTS],
    limits: [JointLimit; MAX_CHAIN_JOINTS],
    len: usize,
}

impl ChainJoints {
    /// The chain `nodes`, root first, without limits.
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for fewer than 2 or more than [`MAX_CHAIN_JOINTS`] nodes.
    pub fn new(nodes: &[usize]) -> Result<Self, AnimError> {
        let len = nodes.len();
        if !(2..=MAX_CHAIN_JOINTS).contains(&len) {
            return Err(AnimError::IkJointCount {
                what: "IK chain",
                got: len,
                min: 2,
                max: MAX_CHAIN_JOINTS,
            });
        }
        let mut out = Self {
            nodes: [0; MAX_CHAIN_JOINTS],
            limits: [JointLimit::Free; MAX_CHAIN_JOINTS],
            len,
        };
        out.nodes[..len].copy_from_slice(nodes);
        Ok(out)
    }

    /// The chain with joint `joint`'s (position in the chain) limit set.
    ///
    /// # Errors
    /// [`AnimError::IkBadLimit`] for a limit [`JointLimit::validate`] refuses,
    /// [`AnimError::LengthMismatch`] for a joint past the chain's end.
    pub fn with_limit(mut self, joint: usize, limit: JointLimit) -> Result<Self, AnimError> {
        limit.validate(joint)?;
        let slot =
            self.limits[..self.len]
                .get_mut(joint)
                .ok_or_else(|| AnimError::LengthMismatch {
                    what: "IK chain limits",
                    expected: joint.saturating_add(1),
                    got: self.len,
                })?;
        *slot = limit;
        Ok(self)
    }

    /// The nodes, root first.
    #[must_use]
    pub fn nodes(&self) -> &[usize] {
        &self.nodes[..self.len]
    }

    /// One limit per node.
    #[must_use]
    pub fn limits(&self) -> &[JointLimit] {
        &self.limits[..self.len]
    }

    /// Checks the nodes against `data`: each one exists and is an ancestor of the next (a
    /// parent chain, or one with fixed joints between).
    ///
    /// # Errors
    /// [`AnimError::BadNode`], [`AnimError::IkNotAChain`] naming the first node the one
    /// before it is not an ancestor of.
    pub fn check(&self, data: &AnimationData) -> Result<(), AnimError> {
        check_ancestors(data, self.nodes(), "IK chain joint")
    }
}

/// A look-at's nodes (base first, the head last, 1 to [`MAX_LOOK_AT_JOINTS`]) and each one's
/// [`JointShare`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtJoints {
    nodes: [usize; MAX_LOOK_AT_JOINTS],
    shares: [JointShare; MAX_LOOK_AT_JOINTS],
    len: usize,
}

impl LookAtJoints {
    /// The joints `nodes` (base first), each with its share.
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for no nodes or more than [`MAX_LOOK_AT_JOINTS`],
    /// [`AnimError::LengthMismatch`] when `shares` does not have one per node.
    pub fn new(nodes: &[usize], shares: &[JointShare]) -> Result<Self, AnimError> {
        let len = nodes.len();
        if !(1..=MAX_LOOK_AT_JOINTS).contains(&len) {
            return Err(AnimError::IkJointCount {
                what: "look-at joints",
                got: len,
                min: 1,
                max: MAX_LOOK_AT_JOINTS,
            });
        }
        if shares.len() != len {
            return Err(AnimError::LengthMismatch {
                what: "look-at shares",
                expected: len,
                got: shares.len(),
            });
        }
        let mut out = Self {
            nodes: [0; MAX_LOOK_AT_JOINTS],
            shares: [JointShare::default(); MAX_LOOK_AT_JOINTS],
            len,
        };
        out.nodes[..len].copy_from_slice(nodes);
        out.shares[..len].copy_from_slice(shares);
        Ok(out)
    }

    /// The nodes, base first.
    #[must_use]
    pub fn nodes(&self) -> &[usize] {
        &self.nodes[..self.len]
    }

    /// One share per node.
    #[must_use]
    pub fn shares(&self) -> &[JointShare] {
        &self.shares[..self.len]
    }

    /// Checks the nodes against `data` as [`ChainJoints::check`] does.
    ///
    /// # Errors
    /// [`AnimError::BadNode`], [`AnimError::IkNotAChain`].
    pub fn check(&self, data: &AnimationData) -> Result<(), AnimError> {
        check_ancestors(data, self.nodes(), "look-at joint")
    }
}

/// The nodes of a full-body job, by body part (the layout of
/// [`BodyPose`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyJoints {
    /// The pelvis (hips) node.
    pub pelvis: usize,
    /// The spine nodes, base first; the first `spine_count` are used.
    pub spine: [usize; MAX_SPINE_JOINTS],
    /// How many spine nodes there are.
    pub spine_count: usize,
    /// Per limb effector ([`Effector`](super::Effector) `as usize`, 0..4): shoulder (or upper
    /// arm), elbow, wrist; hip (upper leg), knee, ankle.
    pub limbs: [Option<[usize; 3]>; 4],
    /// Neck and head.
    pub neck: Option<[usize; 2]>,
}

impl BodyJoints {
    /// The spine nodes in use.
    #[must_use]
    pub fn spine(&self) -> &[usize] {
        &self.spine[..self.spine_count.min(MAX_SPINE_JOINTS)]
    }

    /// Checks the nodes against `data`: each exists, and each hangs below the joint the
    /// layout needs, with none of the job's other joints between (the first spine node and
    /// the hips below the pelvis, each spine node below the one before, the shoulders and the
    /// neck below the last spine node, each limb joint below the one before it, the head
    /// below the neck).
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for a spine longer than [`MAX_SPINE_JOINTS`],
    /// [`AnimError::BadNode`], [`AnimError::IkBodyLayout`] naming the first misplaced node.
    pub fn check(&self, data: &AnimationData) -> Result<(), AnimError> {
        if self.spine_count > MAX_SPINE_JOINTS {
            return Err(AnimError::IkJointCount {
                what: "full-body spine",
                got: self.spine_count,
                min: 0,
                max: MAX_SPINE_JOINTS,
            });
        }
        let mut all = [0usize; 1 + MAX_SPINE_JOINTS + 12 + 2];
        let mut count = 0;
        let mut push = |n: usize| {
            all[count] = n;
            count += 1;
        };
        push(self.pelvis);
        self.spine().iter().for_each(|&n| push(n));
        self.limbs.iter().flatten().flatten().for_each(|&n| push(n));
        self.neck.iter().flatten().for_each(|&n| push(n));
        let all = &all[..count];
        let node_count = data.nodes.len();
        if let Some(&node) = all.iter().find(|&&n| n >= node_count) {
            return Err(AnimError::BadNode {
                what: "full-body IK joint".to_owned(),
                node,
                node_count,
            });
        }
        let chest = self.spine().last().copied().unwrap_or(self.pelvis);
        let below = |node: usize, expected: usize| {
            let found = nearest_in(data, node, all);
            if found == Some(expected) {
                Ok(())
            } else {
                Err(AnimError::IkBodyLayout {
                    node,
                    expected,
                    found,
                })
            }
        };
        let mut above = self.pelvis;
        for &n in self.spine() {
            below(n, above)?;
            above = n;
        }
        for (e, limb) in self.limbs.iter().enumerate() {
            if let Some([a, b, c]) = *limb {
                below(a, if e < 2 { chest } else { self.pelvis })?;
                below(b, a)?;
                below(c, b)?;
            }
        }
        if let Some([neck, head]) = self.neck {
            below(neck, chest)?;
            below(head, neck)?;
        }
        Ok(())
    }

    /// The [`BodyPose`] of these nodes, reading each node's model matrix with `model` (from a
    /// pose's world matrices, [`model_matrix`](crate::model_matrix)). Allocates nothing.
    ///
    /// # Errors
    /// What `model` returns.
    pub fn pose(
        &self,
        mut model: impl FnMut(usize) -> Result<Affine3A, AnimError>,
    ) -> Result<BodyPose, AnimError> {
        let mut pose = BodyPose::new(model(self.pelvis)?);
        pose.spine_count = self.spine().len();
        for (out, &n) in pose.spine.iter_mut().zip(self.spine()) {
            *out = model(n)?;
        }
        for (out, limb) in pose.limbs.iter_mut().zip(&self.limbs) {
            if let Some([a, b, c]) = *limb {
                *out = Some([model(a)?, model(b)?, model(c)?]);
            }
        }
        if let Some([a, b]) = self.neck {
            pose.neck = Some([model(a)?, model(b)?]);
        }
        Ok(pose)
    }
}

/// Each node exists and is an ancestor of the next.
fn check_ancestors(data: &AnimationData, nodes: &[usize], what: &str) -> Result<(), AnimError> {
    let node_count = data.nodes.len();
    if let Some(&node) = nodes.iter().find(|&&n| n >= node_count) {
        return Err(AnimError::BadNode {
            what: what.to_owned(),
            node,
            node_count,
        });
    }
    for pair in nodes.windows(2) {
        let (above, node) = (pair[0], pair[1]);
        if nearest_in(data, node, nodes) != Some(above) {
            return Err(AnimError::IkNotAChain {
                node,
                expected: above,
                parent: data.nodes[node].parent,
            });
        }
    }
    Ok(())
}

/// The nearest strict ancestor of `node` among `set` (`None`: none, or a parent loop).
fn nearest_in(data: &AnimationData, node: usize, set: &[usize]) -> Option<usize> {
    let mut at = node;
    for _ in 0..data.nodes.len() {
        at = data.nodes.get(at)?.parent?;
        if set.contains(&at) {
            return Some(at);
        }
    }
    None
}

// The solution written back through the layout that names its nodes (kept beside the
// layout, which the pose module below it does not know).
impl BodySolution {
    /// Writes the solution into a TRS buffer: the pelvis's translation and the spine, limb and
    /// neck rotations of the nodes `joints` names (see
    /// [`apply_correction`](crate::apply_correction)). Limbs and a neck that `joints` does not
    /// have are skipped. Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when the buffer has no record for one of the nodes.
    pub fn apply(&self, trs: &mut [f32], joints: &BodyJoints) -> Result<(), AnimError> {
        use crate::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};
        let at = joints.pelvis.saturating_mul(TRS_STRIDE);
        let len = trs.len();
        let rec = trs
            .get_mut(at..at.saturating_add(TRS_STRIDE))
            .ok_or_else(|| AnimError::LengthMismatch {
                what: "IK TRS records",
                expected: joints.pelvis.saturating_add(1).saturating_mul(TRS_STRIDE),
                got: len,
            })?;
        let r = Quat::from_slice(&rec[R_OFF..R_OFF + 4]);
        let s = Vec3::from_slice(&rec[S_OFF..S_OFF + 3]);
        let r = if r.is_finite() && r.length() > 0.0 {
            r.normalize()
        } else {
            Quat::IDENTITY
        };
        let t = Vec3::from_slice(&rec[T_OFF..T_OFF + 3]) + r * (s * self.pelvis_offset);
        if t.is_finite() {
            rec[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array());
        }
        for (node, q) in joints.spine().iter().zip(&self.spine) {
            crate::apply_correction(trs, *node, *q)?;
        }
        for (limb, q) in joints.limbs.iter().zip(&self.limbs) {
            if let Some([start, mid, _]) = limb {
                crate::apply_correction(trs, *start, q[0])?;
                crate::apply_correction(trs, *mid, q[1])?;
            }
        }
        if let Some([neck, _]) = joints.neck {
            crate::apply_correction(trs, neck, self.neck)?;
        }
        Ok(())
    }
}
