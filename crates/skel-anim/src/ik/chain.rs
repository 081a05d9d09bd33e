//! Chain IK: a chain of any length (2 to [`MAX_CHAIN_JOINTS`] joints, root → tip) turned so
//! that its tip reaches a target, by FABRIK ([`fabrik`](super::fabrik)) or CCD
//! ([`ccd`](super::ccd)), with a pole and per-joint [`JointLimit`]s.
//!
//! # Shared rules
//!
//! Both solvers work on a copy of the chain made from its model matrices (in f64; FABRIK
//! without limits in f32 where the frames allow, see [`fabrik`](super::fabrik)): the root's
//! matrix and, for every later joint, its matrix relative to the joint before it (so joints in
//! between, not in the chain, stay fixed relative to their parents). Only rotations change, so
//! bone lengths are kept exactly; each joint's rotation turns the bone to its child (FABRIK) or
//! the line to the tip (CCD) by the shortest arc, then is clamped to its limit. With a pole,
//! after every iteration the root turns about the root → tip line (which keeps the tip where
//! it is) so that the interior joints' mean offset from that line faces the pole, clamped to
//! the root's limit (FABRIK without limits turns its positions so before making rotations of
//! them: the same positions, the least twist). The tip joint's own rotation is never changed
//! (its correction is the identity).

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::fabrik::similar;
pub use super::links::MAX_CHAIN_JOINTS;
use super::links::{Goal, Links};
use super::{JointLimit, finite1, finite3, weighted};
use crate::AnimError;

/// Which algorithm a [`ChainIk`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChainSolver {
    /// FABRIK (Aristidou and Lasenby, 2011): joint positions moved back from the target and
    /// forth from the root, turned into rotations root first. Converges in few iterations and
    /// keeps the bend spread along the chain. See [`fabrik`](super::fabrik).
    #[default]
    Fabrik,
    /// Cyclic coordinate descent, tip first: each joint in turn points the line to the tip at
    /// the target, hinges about their axis exactly. See [`ccd`](super::ccd).
    Ccd,
    /// CCD as three.js's `CCDIKSolver` (0.187) runs it, to match its results: the same order,
    /// turns under 1e-5 rad skipped, a stop when no joint turned, hinges as its `limitation`
    /// (the arc's angle kept, its axis moved onto the hinge), no shortcut for targets out of
    /// reach. Limits bound the local rotation itself, as three.js's do: use
    /// [`ChainIk::solve_from_rest`] with each joint's local rotation as its "from rest".
    CcdThreeJs,
}

/// A chain IK job (FABRIK or CCD; ozz's jobs are the model): turns the joints of a chain so
/// that its tip (the last joint) reaches [`target`](Self::target), the chain bending towards
/// [`pole`](Self::pole), each joint within its [`JointLimit`].
///
/// With a target in reach, no limits in the way and enough iterations, the tip ends within
/// [`tolerance`](Self::tolerance) of the target; out of reach, the chain straightens towards
/// it (FABRIK and [`ChainSolver::Ccd`] start from the straight chain, so it is exact). Bone
/// lengths never change (rotations only). Positions and directions are in the frame of the
/// matrices given: any affine model frame works (see [the module](crate::ik)).
///
/// ```
/// use glam::{Affine3A, Quat, Vec3, Vec3A};
/// use skel_anim::ik::{ChainIk, ChainSolver};
///
/// // Four unit bones up the y axis; reach for a point to the side, bending towards +z.
/// let mut models = [Affine3A::IDENTITY; 5];
/// for i in 1..5 {
///     models[i] = models[i - 1] * Affine3A::from_translation(Vec3::Y);
/// }
/// let ik = ChainIk {
///     solver: ChainSolver::Fabrik,
///     target: Vec3::new(2.0, 2.0, 0.0),
///     pole: Some(Vec3::Z),
///     ..ChainIk::default()
/// };
/// let mut corrections = [Quat::IDENTITY; 5];
/// let s = ik.solve(&models, &[], &mut corrections)?;
/// assert!(s.reached && s.distance <= ik.tolerance);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
///
/// # Degenerate cases
///
/// - Target on the root: no direction to reach; the chain folds as the solver takes it, and
///   the pole step is skipped (no root → tip line).
/// - Straight chain with the target on its line, inside reach (FABRIK): no bend plane; the
///   interior joints are first nudged towards the pole (or any side) by 1 % of the chain.
/// - Pole parallel to the root → tip line, or no interior joint off it: the pole step is
///   skipped.
/// - Zero-length bones, singular joint matrices: [`AnimError::IkDegenerate`]. NaN or infinite
///   inputs: [`AnimError::NotFiniteValue`]. Bad limits: [`AnimError::IkBadLimit`]. Weight is
///   clamped to `0..=1`, iterations of 0 solve nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainIk {
    /// The algorithm.
    pub solver: ChainSolver,
    /// Where the tip should be, in the model frame.
    pub target: Vec3,
    /// The direction the chain's bend should face, in the model frame (`None`: keep the plane
    /// the solver leaves it in).
    pub pole: Option<Vec3>,
    /// The most iterations (one FABRIK back-and-forth pass, or one CCD sweep over the joints).
    pub iterations: u32,
    /// Stop once the tip is this close to the target (model-frame units; 0 runs every
    /// iteration).
    pub tolerance: f32,
    /// CCD only: the most a joint turns in one sweep, radians (three.js's `maxAngle`; π for
    /// no limit). Small steps damp CCD's habit of curling the joints near the tip.
    pub max_step: f32,
    /// How much of the correction to apply, `0..=1`: each joint's correction is blended from
    /// the identity (normalised lerp, as ozz does).
    pub weight: f32,
}

impl Default for ChainIk {
    /// FABRIK, target at the origin, no pole, 16 iterations, tolerance 1e-5, no step limit,
    /// weight 1.
    fn default() -> Self {
        Self {
            solver: ChainSolver::Fabrik,
            target: Vec3::ZERO,
            pole: None,
            iterations: 16,
            tolerance: 1e-5,
            max_step: std::f32::consts::PI,
            weight: 1.0,
        }
    }
}

/// What [`ChainIk::solve`] found (the corrections themselves go to the caller's slice).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainSolution {
    /// Whether the tip ends within the tolerance of the target (weight applied), give or take
    /// 1e-6 of the chain's length (the f32 joint frames' rounding, which turning them brings
    /// out).
    pub reached: bool,
    /// Iterations run (fewer than asked when the tolerance was met, or CCD stopped turning).
    pub iterations: u32,
    /// The tip's final distance from the target, model-frame units (weight applied).
    pub distance: f32,
}

impl Default for ChainSolution {
    /// Nothing solved yet: not reached, no iterations, an infinite distance (what a
    /// [`ChainIk::solve_batch`]'s solutions can start as).
    fn default() -> Self {
        Self {
            reached: false,
            iterations: 0,
            distance: f32::INFINITY,
        }
    }
}

impl ChainIk {
    /// Solves the chain from its joints' model matrices (root first; each joint an ancestor of
    /// the next), writing one local-space correction per joint into `corrections`
    /// (`local = local · correction`; the tip's is the identity). `limits` is empty (no limits)
    /// or one per joint, each bounding the joint's correction (the pose as given is the
    /// reference: see [`JointLimit`]). Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::IkJointCount`] for fewer than 2 or more than [`MAX_CHAIN_JOINTS`] joints,
    /// [`AnimError::LengthMismatch`] when `limits` or `corrections` does not fit the chain,
    /// [`AnimError::IkBadLimit`], [`AnimError::NotFiniteValue`], [`AnimError::IkDegenerate`]
    /// (see "Degenerate cases" on [`ChainIk`]). On error `corrections` is left as it was.
    pub fn solve(
        &self,
        models: &[Affine3A],
        limits: &[JointLimit],
        corrections: &mut [Quat],
    ) -> Result<ChainSolution, AnimError> {
        self.solve_from_rest(models, limits, &[], corrections)
    }

    /// [`solve`](Self::solve) with limits measured from each joint's rest (reference)
    /// orientation: `from_rest[i]` is joint `i`'s local rotation relative to it,
    /// `rest⁻¹ · local` (empty: the pose as given is the reference). The
    /// [`Player`](crate::Player) passes this from the rig's rest pose.
    ///
    /// # Errors
    /// As [`solve`](Self::solve), and [`AnimError::LengthMismatch`] when `from_rest` is
    /// neither empty nor one per joint.
    pub fn solve_from_rest(
        &self,
        models: &[Affine3A],
        limits: &[JointLimit],
        from_rest: &[Quat],
        corrections: &mut [Quat],
    ) -> Result<ChainSolution, AnimError> {
        self.check(models.len(), limits, from_rest, corrections.len())?;
        self.solve_checked(models, limits, from_rest, corrections, true)
    }

    /// [`solve_from_rest`](Self::solve_from_rest) after its [`check`](Self::check) passed;
    /// `try_f32`: whether to try the f32 FABRIK path first (a batch that saw it refuse the
    /// chain says no).
    pub(super) fn solve_checked(
        &self,
        models: &[Affine3A],
        limits: &[JointLimit],
        from_rest: &[Quat],
        corrections: &mut [Quat],
        try_f32: bool,
    ) -> Result<ChainSolution, AnimError> {
        let n = models.len();
        let weight32 = self.weight.clamp(0.0, 1.0);
        if try_f32
            && let Some(request) = self.similar_request(limits)
            && let Some(out) = similar::solve(models, &request, corrections)
        {
            return Ok(solution(&out, request.tolerance));
        }
        let mut links = Links::new(models, limits, from_rest)?;
        let weight = f64::from(weight32);
        let target = self.target.as_dvec3();
        let goal = Goal {
            target,
            pole: self.pole.map(|pole| pole.as_dvec3()),
            tolerance: f64::from(self.tolerance.max(0.0)),
            max_step: f64::from(self.max_step.clamp(0.0, std::f32::consts::PI)),
            iterations: if weight == 0.0 { 0 } else { self.iterations },
        };
        let used = match self.solver {
            ChainSolver::Fabrik => super::fabrik::solve(&mut links, &goal),
            ChainSolver::Ccd => super::ccd::solve(&mut links, &goal, false),
            ChainSolver::CcdThreeJs => super::ccd::solve(&mut links, &goal, true),
        };
        // Every solver leaves the frames current; only a weight changes them afterwards.
        if weight < 1.0 {
            for c in &mut links.corr[..n] {
                *c = weighted(*c, weight).as_dquat();
            }
            links.forward();
        }
        for (out, c) in corrections.iter_mut().zip(&links.corr[..n]) {
            *out = weighted(*c, 1.0);
        }
        let distance = (links.tip() - target).length();
        Ok(ChainSolution {
            // The loops stop on the positions they move; turning those into rotations of f32
            // frames (orthogonal to about 1e-7) moves the tip by up to that much of the chain.
            reached: distance <= goal.tolerance + 1e-6 * links.total,
            iterations: used,
            distance: distance as f32,
        })
    }
}

impl ChainIk {
    /// The checks [`solve_from_rest`](Self::solve_from_rest) makes before solving a chain of
    /// `n` joints.
    pub(super) fn check(
        &self,
        n: usize,
        limits: &[JointLimit],
        from_rest: &[Quat],
        corrections: usize,
    ) -> Result<(), AnimError> {
        if !(2..=MAX_CHAIN_JOINTS).contains(&n) {
            return Err(AnimError::IkJointCount {
                what: "IK chain",
                got: n,
                min: 2,
                max: MAX_CHAIN_JOINTS,
            });
        }
        for (what, got) in [
            ("IK chain limits", limits.len()),
            ("IK chain rotations from rest", from_rest.len()),
        ] {
            if got != 0 && got != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    got,
                });
            }
        }
        if corrections != n {
            return Err(AnimError::LengthMismatch {
                what: "IK chain corrections",
                expected: n,
                got: corrections,
            });
        }
        finite3("IK chain target", self.target)?;
        if let Some(pole) = self.pole {
            finite3("IK chain pole", pole)?;
        }
        finite1("IK chain tolerance", self.tolerance)?;
        finite1("IK chain max step", self.max_step)?;
        finite1("IK chain weight", self.weight)?;
        for (joint, limit) in limits.iter().enumerate() {
            limit.validate(joint)?;
        }
        for q in from_rest {
            finite3("IK chain rotation from rest", q.xyz())?;
            finite1("IK chain rotation from rest", q.w)?;
        }
        Ok(())
    }

    /// What the f32 FABRIK path ([`similar`]) is asked, when this job may take it (FABRIK
    /// with no limits; the path itself may still refuse the chain's frames).
    pub(super) fn similar_request(&self, limits: &[JointLimit]) -> Option<similar::Request> {
        if self.solver != ChainSolver::Fabrik || limits.iter().any(|l| *l != JointLimit::Free) {
            return None;
        }
        let weight = self.weight.clamp(0.0, 1.0);
        Some(similar::Request {
            target: self.target.into(),
            pole: self.pole.map(Vec3A::from),
            tolerance: self.tolerance.max(0.0),
            iterations: if weight == 0.0 { 0 } else { self.iterations },
            weight,
        })
    }
}

/// The solution the f32 FABRIK path's outcome is.
pub(super) fn solution(out: &similar::Outcome, tolerance: f32) -> ChainSolution {
    ChainSolution {
        reached: out.distance <= tolerance + 1e-6 * out.total,
        iterations: out.iterations,
        distance: out.distance,
    }
}
