//! What a [`FullBodyIk`](super::FullBodyIk) reads and writes: the effectors and their goals,
//! the body's model matrices by part ([`BodyPose`]) and the solution ([`BodySolution`]), which
//! applies itself to a TRS buffer.

use glam::{Affine3A, Quat, Vec3};

use super::MAX_SPINE_JOINTS;
use crate::AnimError;

/// The body parts a [`FullBodyIk`](super::FullBodyIk) can reach with; `as usize` indexes
/// [`FullBodyIk::goals`](super::FullBodyIk::goals) and [`BodySolution::reached`], and the first four index
/// [`BodyPose::limbs`] and [`BodySolution::limbs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effector {
    /// The left arm's wrist (shoulder → elbow → wrist).
    LeftHand,
    /// The right arm's wrist.
    RightHand,
    /// The left leg's ankle (hip → knee → ankle).
    LeftFoot,
    /// The right leg's ankle.
    RightFoot,
    /// The head (the neck turned to point its head bone at the target).
    Head,
}

impl Effector {
    /// Every effector, in index order.
    pub const ALL: [Self; 5] = [
        Self::LeftHand,
        Self::RightHand,
        Self::LeftFoot,
        Self::RightFoot,
        Self::Head,
    ];

    /// Whether the effector's limb hangs below the spine's top (hands, head) rather than the
    /// pelvis (feet).
    #[must_use]
    pub fn on_chest(self) -> bool {
        !matches!(self, Self::LeftFoot | Self::RightFoot)
    }
}

/// One effector's goal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectorGoal {
    /// Where the wrist, ankle or head should be, in the model frame.
    pub target: Vec3,
    /// Where the elbow or knee should point, in the model frame (unused for the head).
    pub pole: Vec3,
    /// How much the effector counts, `0..=1` (0: off).
    pub weight: f32,
}

impl Default for EffectorGoal {
    /// Off: weight 0, target at the origin, pole +z.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            pole: Vec3::Z,
            weight: 0.0,
        }
    }
}

/// The model matrices a [`FullBodyIk`](super::FullBodyIk) reads, by body part (in any one affine model frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyPose {
    /// The pelvis (what moves).
    pub pelvis: Affine3A,
    /// The spine joints, base first: the first `spine_count` are used.
    pub spine: [Affine3A; MAX_SPINE_JOINTS],
    /// How many spine joints there are (0: the arms and neck hang below the pelvis).
    pub spine_count: usize,
    /// Per limb effector (`Effector as usize`, 0..4): shoulder, elbow, wrist or hip, knee,
    /// ankle; `None` when the body has no such limb.
    pub limbs: [Option<[Affine3A; 3]>; 4],
    /// Neck and head, `None` when not used.
    pub neck: Option<[Affine3A; 2]>,
}

impl BodyPose {
    /// A pose with only a pelvis (add the spine, limbs and neck it has).
    #[must_use]
    pub fn new(pelvis: Affine3A) -> Self {
        Self {
            pelvis,
            spine: [Affine3A::IDENTITY; MAX_SPINE_JOINTS],
            spine_count: 0,
            limbs: [None; 4],
            neck: None,
        }
    }
}

/// What [`FullBodyIk::solve`](super::FullBodyIk::solve) found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodySolution {
    /// The pelvis's move in its own local space, applied as `local = local · translation`
    /// (its local translation grows by `rotation · (scale ∘ offset)`;
    /// [`apply`](Self::apply) does it).
    pub pelvis_offset: Vec3,
    /// Local corrections of the spine joints (`local = local · correction`).
    pub spine: [Quat; MAX_SPINE_JOINTS],
    /// Per limb: the corrections of its first and middle joints.
    pub limbs: [[Quat; 2]; 4],
    /// The neck's correction.
    pub neck: Quat,
    /// Per effector: whether it lands on its target (off effectors: false).
    pub reached: [bool; 5],
}

impl BodySolution {
    /// Writes the solution into a TRS buffer: the pelvis's translation and the spine, limb and
    /// neck rotations of the nodes `joints` names (see
    /// [`apply_correction`](crate::apply_correction)). Limbs and a neck that `joints` does not
    /// have are skipped. Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when the buffer has no record for one of the nodes.
    pub fn apply(&self, trs: &mut [f32], joints: &super::BodyJoints) -> Result<(), AnimError> {
        use crate::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};
        let at = joints.pelvis.saturating_mul(TRS_STRIDE);
        let len = trs.len();
        let rec =
            trs.get_mut(at..at.saturating_add(TRS_STRIDE))
                .ok_or(AnimError::LengthMismatch {
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
