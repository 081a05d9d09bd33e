//! Look-at spread over several joints (spine, neck, head): the turn that points the head's
//! forward axis at a target, shared by the joints by weight, each within its limit.
//!
//! # Algorithm
//!
//! The joints are visited base first. At joint `i`, with the joints before it already turned,
//! the solver finds the whole turn about joint `i` that would put the target on the head's
//! aiming line (the line through the eye [`offset`](LookAtIk::offset) along
//! [`forward`](LookAtIk::forward), as [`AimIk`](super::AimIk) aims: shortest arc, no roll),
//! takes the share `weight[i] / (weight[i] + … + weight[last])` of its angle, clamps it to
//! `max_angle[i]`, and turns the joint by that much. What a joint does not take, by share or
//! by limit, is left to the joints after it; the last joint (the head) takes all that is left
//! within its own limit. With no limit in the way the head ends aiming exactly at the target.
//!
//! # Degenerate cases
//!
//! A target on a joint, or inside the circle the eye's line sweeps about it (the eye offset
//! larger than the distance), gives that joint no direction: it is not turned. A joint of
//! weight 0 is not turned (the last one too). Non-finite input is
//! [`AnimError::NotFiniteValue`]; a zero forward axis or a singular joint matrix is
//! [`AnimError::IkDegenerate`]; negative weights count as 0 and limits above π as π.

use glam::{Affine3A, DAffine3, DMat3, DQuat, DVec3, Quat, Vec3};

use super::{finite1, finite3, joint_frame, weighted};
use crate::AnimError;

/// The most joints a [`LookAtIk`] spreads over.
pub const MAX_LOOK_AT_JOINTS: usize = 8;

/// One joint's part of a spread turn ([`LookAtIk`], and the spine of
/// [`FullBodyIk`](super::FullBodyIk)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointShare {
    /// The joint's share of what is left when it is reached (see [the module](self)); 0 does
    /// not turn it.
    pub weight: f32,
    /// The most the joint turns from the pose as given, radians (`0..=π`).
    pub max_angle: f32,
}

impl Default for JointShare {
    /// Weight 1, up to a quarter turn.
    fn default() -> Self {
        Self {
            weight: 1.0,
            max_angle: std::f32::consts::FRAC_PI_2,
        }
    }
}

/// A look-at job over several joints (Unity's and Final IK's look-at with body, spine and
/// head weights): turns a base → head list of joints so that the head's local
/// [`forward`](Self::forward) axis points at [`target`](Self::target), the turn spread over
/// the joints by their [`JointShare`]s (see [the module](self)).
///
/// ```
/// use glam::{Affine3A, Quat, Vec3};
/// use skel_anim::ik::{JointShare, LookAtIk};
///
/// // Spine at the origin, neck 0.5 above, head 0.2 above that, looking down +z.
/// let spine = Affine3A::IDENTITY;
/// let neck = spine * Affine3A::from_translation(Vec3::new(0.0, 0.5, 0.0));
/// let head = neck * Affine3A::from_translation(Vec3::new(0.0, 0.2, 0.0));
/// let look = LookAtIk { target: Vec3::new(5.0, 0.7, 0.0), ..LookAtIk::default() };
/// let shares = [JointShare { weight: 1.0, max_angle: 0.6 }; 3];
/// let mut corrections = [Quat::IDENTITY; 3];
/// let s = look.solve(&[spine, neck, head], &shares, &mut corrections)?;
/// assert!(s.reached); // a third of the quarter turn each, within 0.6 rad
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtIk {
    /// The point to look at, in the model frame.
    pub target: Vec3,
    /// The head's (the last joint's) local axis that should point at the target.
    pub forward: Vec3,
    /// The eyes in the head's local space: the aiming line passes through this point (zero:
    /// the head joint itself).
    pub offset: Vec3,
    /// How much of the correction to apply, `0..=1` (each joint's correction blended from the
    /// identity by normalised lerp).
    pub weight: f32,
}

impl Default for LookAtIk {
    /// Target at the origin, forward +z, no eye offset, weight 1.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            forward: Vec3::Z,
            offset: Vec3::ZERO,
            weight: 1.0,
        }
    }
}

/// What [`LookAtIk::solve`] found (the corrections go to the caller's slice).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAtSolution {
    /// Whether the head ends aiming at the target (within 1e-4 rad, weight applied; false when
    /// the target is on the eye's line's pivot and there is no direction, and when the
    /// aiming line passes through a target behind the eye).
    pub reached: bool,
    /// The angle left between the head's aiming line and the target, radians (weight
    /// applied; what the limits held back; 0 when there is no direction).
    pub angle_left: f32,
}

impl LookAtIk {
    /// Solves from the joints' model matrices (base first, the head last, each an ancestor of
    /// the next) and one [`JointShare`] per joint, writing one local-space correction per joint
    /// into `corrections` (`local = local · correction`). Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for no joints or more than [`MAX_LOOK_AT_JOINTS`],
    /// [`AnimError::LengthMismatch`] when `shares` or `corrections` does not have one per
    /// joint, [`AnimError::NotFiniteValue`], [`AnimError::IkDegenerate`] (see
    /// [the module](self)). On error `corrections` is left as it was.
    pub fn solve(
        &self,
        models: &[Affine3A],
        shares: &[JointShare],
        corrections: &mut [Quat],
    ) -> Result<LookAtSolution, AnimError> {
        let n = models.len();
        if !(1..=MAX_LOOK_AT_JOINTS).contains(&n) {
            return Err(AnimError::IkJointCount {
                what: "look-at joints",
                got: n,
                min: 1,
                max: MAX_LOOK_AT_JOINTS,
            });
        }
        for (what, got) in [
            ("look-at shares", shares.len()),
            ("look-at corrections", corrections.len()),
        ] {
            if got != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    got,
                });
            }
        }
        finite3("look-at target", self.target)?;
        finite3("look-at forward axis", self.forward)?;
        finite3("look-at eye offset", self.offset)?;
        finite1("look-at weight", self.weight)?;
        for share in shares {
            finite1("look-at joint weight", share.weight)?;
            finite1("look-at joint max angle", share.max_angle)?;
        }
        if self.forward == Vec3::ZERO {
            return Err(AnimError::IkDegenerate {
                reason: "the look-at forward axis is zero",
            });
        }
        let mut chain = Fk::new(models)?;
        let weight = f64::from(self.weight.clamp(0.0, 1.0));
        let (forward, offset) = (self.forward.as_dvec3().normalize(), self.offset.as_dvec3());
        let target = self.target.as_dvec3();
        if weight > 0.0 {
            let mut left: f64 = shares.iter().map(|s| f64::from(s.weight.max(0.0))).sum();
            for (i, share) in shares.iter().enumerate() {
                let w = f64::from(share.weight.max(0.0));
                let part = if left > 0.0 { w / left } else { 0.0 };
                left -= w;
                let max = f64::from(share.max_angle.clamp(0.0, std::f32::consts::PI));
                if let Some((axis, angle)) = chain.aim_turn(i, forward, offset, target) {
                    let angle = (angle * part).min(max);
                    chain.corr[i] = DQuat::from_axis_angle(axis, angle);
                    chain.forward();
                }
            }
            for c in &mut chain.corr[..n] {
                *c = weighted(*c, weight).as_dquat();
            }
            chain.forward();
        }
        let last = chain.aim_turn(n - 1, forward, offset, target);
        let left = last.map_or(0.0, |(_, angle)| angle);
        for (out, c) in corrections.iter_mut().zip(&chain.corr[..n]) {
            *out = weighted(*c, 1.0);
        }
        // The aiming line can pass through a target behind the eye (a target between the
        // pivot and the eye): that line is no look at it.
        let head = chain.frames[n - 1];
        let ahead = head
            .transform_vector3(forward)
            .dot(target - head.transform_point3(offset))
            > 0.0;
        Ok(LookAtSolution {
            reached: last.is_some() && left <= 1e-4 && weight >= 1.0 && ahead,
            angle_left: left as f32,
        })
    }
}

/// Forward kinematics over a base → head list: the base's matrix, each later joint's relative
/// to the one before, the corrections, the frames.
pub(crate) struct Fk {
    n: usize,
    base: DAffine3,
    rel: [DAffine3; MAX_LOOK_AT_JOINTS],
    pub(crate) corr: [DQuat; MAX_LOOK_AT_JOINTS],
    pub(crate) frames: [DAffine3; MAX_LOOK_AT_JOINTS],
}

impl Fk {
    fn new(models: &[Affine3A]) -> Result<Self, AnimError> {
        let mut fk = Self {
            n: models.len(),
            base: DAffine3::IDENTITY,
            rel: [DAffine3::IDENTITY; MAX_LOOK_AT_JOINTS],
            corr: [DQuat::IDENTITY; MAX_LOOK_AT_JOINTS],
            frames: [DAffine3::IDENTITY; MAX_LOOK_AT_JOINTS],
        };
        let mut parent_inv = DAffine3::IDENTITY;
        for (i, model) in models.iter().enumerate() {
            let (model, inverse) = joint_frame("look-at joint matrix", model)?;
            if i == 0 {
                fk.base = model;
            } else {
                fk.rel[i] = parent_inv * model;
            }
            fk.frames[i] = model;
            parent_inv = inverse;
        }
        Ok(fk)
    }

    fn forward(&mut self) {
        let rot = |a: DAffine3, q: DQuat| DAffine3 {
            matrix3: a.matrix3 * DMat3::from_quat(q),
            translation: a.translation,
        };
        self.frames[0] = rot(self.base, self.corr[0]);
        for i in 1..self.n {
            self.frames[i] = rot(self.frames[i - 1] * self.rel[i], self.corr[i]);
        }
    }

    /// The whole turn of joint `i` (axis in its local space, angle in `0..=π`) that puts the
    /// target on the head's aiming line; `None` when there is no direction.
    fn aim_turn(
        &self,
        i: usize,
        forward: DVec3,
        offset: DVec3,
        target: DVec3,
    ) -> Option<(DVec3, f64)> {
        let head = self.frames[self.n - 1];
        let inverse = self.frames[i].inverse();
        let eye = inverse.transform_point3(head.transform_point3(offset));
        let along = inverse
            .transform_vector3(head.transform_vector3(forward))
            .try_normalize()?;
        let to = inverse.transform_point3(target);
        let from = super::aim::aim_point(along, eye, to)?;
        let turn = DQuat::from_rotation_arc(from.try_normalize()?, to.try_normalize()?);
        let (axis, angle) = turn.to_axis_angle();
        Some(if angle > std::f64::consts::PI {
            (-axis, std::f64::consts::TAU - angle)
        } else {
            (axis, angle)
        })
    }
}
