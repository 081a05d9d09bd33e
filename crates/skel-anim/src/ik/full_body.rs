//! Full-body IK: hands, feet and head reaching for targets at once, the pelvis moving and the
//! spine bending when a limb alone cannot reach.
//!
//! # Algorithm
//!
//! A simple, predictable scheme (not a whole-body optimiser such as Final IK's): `iterations`
//! rounds of (a) and (b), then (c) once.
//!
//! - (a) **Pelvis.** For every arm and leg effector whose target is farther from the limb's
//!   root (shoulder, hip) than the limb's length, the amount it is out of reach (a vector from
//!   the root's reach sphere, shrunk by 0.1 % so the limb ends just short of straight, to the
//!   target) is summed, weighted by the effector's weight, and
//!   divided by the larger of 1 and the sum of those weights; the pelvis moves by that much
//!   (so one foot target below the ground's reach pulls the pelvis down; two feet pulling apart
//!   share it). The pelvis's total offset is clamped to
//!   [`max_pelvis_offset`](FullBodyIk::max_pelvis_offset). It only translates.
//! - (b) **Spine.** For the hand and head effectors still out of reach, each spine joint (base
//!   first) finds the turn about itself that would bring the limbs' roots (shoulders, neck) to
//!   where their targets come just within reach (a weighted average of those turns) and takes
//!   its [`JointShare`] of it, as [`LookAtIk`](super::LookAtIk) spreads a turn; each spine
//!   joint's whole correction stays within its `max_angle`.
//! - (c) **Limbs.** Each arm and leg effector is solved by [`TwoBoneIk`] from the moved pose
//!   (its target, pole and weight; soften 1), the head effector by [`AimIk`] on the neck (the
//!   neck → head bone pointed at the target).
//!
//! The legs hang below the pelvis, the arms and neck below the last spine joint (the chest):
//! [`BodyPose`] gives each joint's model matrix and the solver keeps every joint fixed relative
//! to the one it hangs below. Everything lives in fixed arrays: nothing allocates.
//!
//! # Degenerate cases
//!
//! Effectors of weight 0, or whose limb the pose does not have, do nothing. A target on a
//! limb's root gives that limb no direction to be out of reach in (it folds, as
//! [`TwoBoneIk`] does). Limb and aim errors ([`AnimError::IkDegenerate`] for zero-length bones,
//! singular matrices) are returned; non-finite input is [`AnimError::NotFiniteValue`].

use glam::{Affine3A, DAffine3, DMat3, DQuat, DVec3, Quat, Vec3};

use super::{
    AimIk, BodyPose, BodySolution, Effector, EffectorGoal, JointShare, TwoBoneIk, finite1, finite3,
    joint_frame, weighted,
};
use crate::AnimError;

/// The fraction of a limb's length kept in hand when the pelvis and spine bring a target
/// within reach: the limb ends just short of straight, where its two-bone solve is exact
/// rather than on the edge of reach.
const REACH_MARGIN: f64 = 1e-3;

pub use super::body_pose::MAX_SPINE_JOINTS;

/// A full-body IK job (see [the module](self) for the algorithm): up to five effectors,
/// a pelvis that moves, a spine that bends.
///
/// ```
/// use glam::{Affine3A, Vec3};
/// use skel_anim::ik::{BodyPose, Effector, FullBodyIk};
///
/// // A pelvis at 1 m with two straight 0.9 m legs; ask both feet 0.2 m lower.
/// let pelvis = Affine3A::from_translation(Vec3::new(0.0, 1.0, 0.0));
/// let leg = |x: f32| {
///     let hip = pelvis * Affine3A::from_translation(Vec3::new(x, 0.0, 0.0));
///     let knee = hip * Affine3A::from_translation(Vec3::new(0.0, -0.45, 0.01));
///     [hip, knee, knee * Affine3A::from_translation(Vec3::new(0.0, -0.45, -0.01))]
/// };
/// let mut pose = BodyPose::new(pelvis);
/// pose.limbs[Effector::LeftFoot as usize] = Some(leg(0.1));
/// pose.limbs[Effector::RightFoot as usize] = Some(leg(-0.1));
/// let mut ik = FullBodyIk::default();
/// for (foot, x) in [(Effector::LeftFoot, 0.1), (Effector::RightFoot, -0.1)] {
///     let goal = ik.goal_mut(foot);
///     goal.target = Vec3::new(x, -0.1, 0.0);
///     goal.weight = 1.0;
/// }
/// let s = ik.solve(&pose)?;
/// assert!(s.reached[Effector::LeftFoot as usize] && s.reached[Effector::RightFoot as usize]);
/// assert!(s.pelvis_offset.y < -0.19); // the pelvis came down
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullBodyIk {
    /// One goal per [`Effector`] (index `effector as usize`).
    pub goals: [EffectorGoal; 5],
    /// Each spine joint's share of the bend and its limit (base first; those past the pose's
    /// spine are unused).
    pub spine: [JointShare; MAX_SPINE_JOINTS],
    /// The most the pelvis moves from where the pose has it, model-frame units.
    pub max_pelvis_offset: f32,
    /// Rounds of pelvis and spine before the limbs are solved (2 or 3 is usual).
    pub iterations: u32,
}

impl Default for FullBodyIk {
    /// Every effector off, spine shares of weight 1 and up to 0.5 rad, the pelvis free to move
    /// up to 0.5 units, 3 rounds.
    fn default() -> Self {
        Self {
            goals: [EffectorGoal::default(); 5],
            spine: [JointShare {
                weight: 1.0,
                max_angle: 0.5,
            }; MAX_SPINE_JOINTS],
            max_pelvis_offset: 0.5,
            iterations: 3,
        }
    }
}

impl FullBodyIk {
    /// The goal of `effector`, to set its target, pole and weight.
    pub fn goal_mut(&mut self, effector: Effector) -> &mut EffectorGoal {
        &mut self.goals[effector as usize]
    }

    /// Solves the body from its model matrices (see [the module](self)). Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for a spine longer than [`MAX_SPINE_JOINTS`],
    /// [`AnimError::NotFiniteValue`] for non-finite goals or limits,
    /// [`AnimError::IkDegenerate`] for a singular matrix or a zero-length limb bone.
    pub fn solve(&self, pose: &BodyPose) -> Result<BodySolution, AnimError> {
        if pose.spine_count > MAX_SPINE_JOINTS {
            return Err(AnimError::IkJointCount {
                what: "full-body spine",
                got: pose.spine_count,
                min: 0,
                max: MAX_SPINE_JOINTS,
            });
        }
        for goal in &self.goals {
            finite3("full-body target", goal.target)?;
            finite3("full-body pole", goal.pole)?;
            finite1("full-body weight", goal.weight)?;
        }
        for share in &self.spine {
            finite1("full-body spine weight", share.weight)?;
            finite1("full-body spine max angle", share.max_angle)?;
        }
        finite1("full-body max pelvis offset", self.max_pelvis_offset)?;
        let mut body = Body::new(pose)?;
        for _ in 0..self.iterations {
            body.move_pelvis(self);
            body.bend_spine(self);
        }
        body.solve_limbs(self, pose)
    }
}

/// The body in f64: the pelvis offset and spine corrections being solved, the fixed parts.
struct Body {
    pelvis: DAffine3,
    spine_count: usize,
    /// Spine joint `i` relative to the joint before it (the pelvis for 0).
    spine_rel: [DAffine3; MAX_SPINE_JOINTS],
    /// Each limb's root (and the neck, index 4) relative to what it hangs below.
    root_rel: [Option<DAffine3>; 5],
    /// Limb lengths (upper + lower; the neck → head bone for the head).
    reach: [f64; 5],
    offset: DVec3,
    corr: [DQuat; MAX_SPINE_JOINTS],
    frames: [DAffine3; MAX_SPINE_JOINTS],
}

impl Body {
    fn new(pose: &BodyPose) -> Result<Self, AnimError> {
        let what = "full-body joint matrix";
        let (pelvis, pelvis_inv) = joint_frame(what, &pose.pelvis)?;
        let mut body = Self {
            pelvis,
            spine_count: pose.spine_count,
            spine_rel: [DAffine3::IDENTITY; MAX_SPINE_JOINTS],
            root_rel: [None; 5],
            reach: [0.0; 5],
            offset: DVec3::ZERO,
            corr: [DQuat::IDENTITY; MAX_SPINE_JOINTS],
            frames: [DAffine3::IDENTITY; MAX_SPINE_JOINTS],
        };
        let mut chest_inv = pelvis_inv;
        for i in 0..pose.spine_count {
            let (m, inverse) = joint_frame(what, &pose.spine[i])?;
            body.spine_rel[i] = chest_inv * m;
            chest_inv = inverse;
        }
        let mut roots: [Option<(Affine3A, Affine3A, Option<Affine3A>)>; 5] = [None; 5];
        for (slot, limb) in roots.iter_mut().zip(&pose.limbs) {
            *slot = limb.map(|[a, b, c]| (a, b, Some(c)));
        }
        roots[4] = pose.neck.map(|[a, b]| (a, b, None));
        for (e, joints) in roots.iter().enumerate() {
            let Some((root, mid, end)) = joints else {
                continue;
            };
            let (m, _) = joint_frame(what, root)?;
            let anchor = if Effector::ALL[e].on_chest() {
                chest_inv
            } else {
                pelvis_inv
            };
            body.root_rel[e] = Some(anchor * m);
            let upper = (Vec3::from(mid.translation) - Vec3::from(root.translation)).length();
            let lower = end.map_or(0.0, |end| {
                (Vec3::from(end.translation) - Vec3::from(mid.translation)).length()
            });
            body.reach[e] = f64::from(upper + lower);
        }
        body.forward();
        Ok(body)
    }

    fn forward(&mut self) {
        let mut at = DAffine3 {
            translation: self.pelvis.translation + self.offset,
            ..self.pelvis
        };
        for i in 0..self.spine_count {
            at *= self.spine_rel[i];
            at.matrix3 *= DMat3::from_quat(self.corr[i]);
            self.frames[i] = at;
        }
    }

    /// The moved pelvis and chest frames.
    fn anchors(&self) -> (DAffine3, DAffine3) {
        let pelvis = DAffine3 {
            translation: self.pelvis.translation + self.offset,
            ..self.pelvis
        };
        let chest = match self.spine_count {
            0 => pelvis,
            n => self.frames[n - 1],
        };
        (pelvis, chest)
    }

    /// Effector `e`'s root frame (shoulder, hip, neck) as the body now stands.
    fn root(&self, e: usize) -> Option<DAffine3> {
        let (pelvis, chest) = self.anchors();
        let anchor = if Effector::ALL[e].on_chest() {
            chest
        } else {
            pelvis
        };
        self.root_rel[e].map(|rel| anchor * rel)
    }

    /// Effector `e`'s root position and the vector by which its target is out of reach
    /// (`None`: off, no limb, or in reach).
    fn out_of_reach(&self, goal: &EffectorGoal, e: usize) -> Option<(DVec3, DVec3, f64)> {
        let w = f64::from(goal.weight.clamp(0.0, 1.0));
        let root = self.root(e)?.translation;
        let to = goal.target.as_dvec3() - root;
        let over = to.length() - self.reach[e] * (1.0 - REACH_MARGIN);
        (w > 0.0 && over > 0.0).then(|| (root, to.normalize() * over, w))
    }

    /// Step (a).
    fn move_pelvis(&mut self, ik: &FullBodyIk) {
        let (mut sum, mut weights) = (DVec3::ZERO, 0.0);
        for e in 0..4 {
            if let Some((_, out, w)) = self.out_of_reach(&ik.goals[e], e) {
                sum += out * w;
                weights += w;
            }
        }
        let offset = self.offset + sum / f64::max(weights, 1.0);
        let max = f64::from(ik.max_pelvis_offset.max(0.0));
        self.offset = if offset.length() > max {
            offset.normalize_or_zero() * max
        } else {
            offset
        };
        self.forward();
    }

    /// Step (b).
    fn bend_spine(&mut self, ik: &FullBodyIk) {
        let mut left: f64 = ik.spine[..self.spine_count]
            .iter()
            .map(|s| f64::from(s.weight.max(0.0)))
            .sum();
        for i in 0..self.spine_count {
            let share = ik.spine[i];
            let w = f64::from(share.weight.max(0.0));
            let part = if left > 0.0 { w / left } else { 0.0 };
            left -= w;
            let joint = self.frames[i].translation;
            let mut turn = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
            for e in [0, 1, 4] {
                let Some((root, out, weight)) = self.out_of_reach(&ik.goals[e], e) else {
                    continue;
                };
                let (Some(from), Some(to)) = (
                    (root - joint).try_normalize(),
                    (root + out - joint).try_normalize(),
                ) else {
                    continue;
                };
                turn += DQuat::from_rotation_arc(from, to) * weight;
            }
            let Some(turn) = (turn.length() > 0.0).then(|| turn.normalize()) else {
                continue;
            };
            let (axis, angle) = turn.to_axis_angle();
            let inverse = self.frames[i].matrix3.inverse();
            let Some(local) = (inverse * axis).try_normalize() else {
                continue;
            };
            let handed = self.frames[i].matrix3.determinant().signum();
            let step = DQuat::from_axis_angle(local, angle * part * handed);
            let max = f64::from(share.max_angle.clamp(0.0, std::f32::consts::PI));
            let (axis, angle) = (self.corr[i] * step).normalize().to_axis_angle();
            let angle = if angle > std::f64::consts::PI {
                angle - std::f64::consts::TAU
            } else {
                angle
            };
            self.corr[i] = DQuat::from_axis_angle(axis, angle.clamp(-max, max));
            self.forward();
        }
    }

    /// Step (c), and the solution.
    fn solve_limbs(&self, ik: &FullBodyIk, pose: &BodyPose) -> Result<BodySolution, AnimError> {
        let mut out = BodySolution {
            pelvis_offset: (self.pelvis.matrix3.inverse() * self.offset).as_vec3(),
            spine: [Quat::IDENTITY; MAX_SPINE_JOINTS],
            limbs: [[Quat::IDENTITY; 2]; 4],
            neck: Quat::IDENTITY,
            reached: [false; 5],
        };
        for (q, c) in out.spine.iter_mut().zip(&self.corr[..self.spine_count]) {
            *q = weighted(*c, 1.0);
        }
        let moved = |e: usize, given: &Affine3A, root: &Affine3A| -> Option<Affine3A> {
            let now = self.root(e)?;
            let rel = root.as_daffine3().inverse() * given.as_daffine3();
            let m = now * rel;
            Some(Affine3A::from_mat3_translation(
                m.matrix3.as_mat3(),
                m.translation.as_vec3(),
            ))
        };
        for e in 0..4 {
            let (Some([root, mid, end]), goal) = (&pose.limbs[e], &ik.goals[e]) else {
                continue;
            };
            if goal.weight <= 0.0 {
                continue;
            }
            let (Some(r), Some(m), Some(x)) = (
                moved(e, root, root),
                moved(e, mid, root),
                moved(e, end, root),
            ) else {
                continue;
            };
            let two = TwoBoneIk {
                target: goal.target,
                pole: goal.pole,
                weight: goal.weight,
                ..TwoBoneIk::default()
            };
            let s = two.solve(&r, &m, &x)?;
            out.limbs[e] = [s.start_correction, s.mid_correction];
            out.reached[e] = s.reached;
        }
        let goal = &ik.goals[4];
        if let (Some([neck, head]), true) = (&pose.neck, goal.weight > 0.0)
            && let (Some(n), Some(h)) = (moved(4, neck, neck), moved(4, head, neck))
        {
            let forward = n.inverse().transform_point3(h.translation.into());
            let aim = AimIk {
                target: goal.target,
                forward,
                up: forward.any_orthonormal_vector(),
                pole: Vec3::ZERO,
                weight: goal.weight,
                ..AimIk::default()
            };
            let s = aim.solve(&n)?;
            out.neck = s.correction;
            let to = (goal.target.as_dvec3() - n.translation.as_dvec3()).length();
            out.reached[4] = s.reached && (to - self.reach[4]).abs() <= 1e-4 * self.reach[4];
        }
        Ok(out)
    }
}
