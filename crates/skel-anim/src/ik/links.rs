//! The chain as the chain solvers share it ([`fabrik`](super::fabrik), [`ccd`](super::ccd)):
//! its joints' frames in f64, the corrections being solved and the goal, below
//! [`ChainIk`](super::ChainIk), which builds them and picks the solver.

use glam::{Affine3A, DAffine3, DMat3, DQuat, DVec3, Quat};

use super::{JointLimit, REL_EPS, angle_about, joint_frame};
use crate::AnimError;

/// The most joints a [`ChainIk`](super::ChainIk) takes (the solvers keep their scratch on the stack).
pub const MAX_CHAIN_JOINTS: usize = 16;

/// What the solvers aim for, in f64.
pub(crate) struct Goal {
    pub(crate) target: DVec3,
    pub(crate) pole: Option<DVec3>,
    pub(crate) tolerance: f64,
    pub(crate) max_step: f64,
    pub(crate) iterations: u32,
}

/// The chain in f64: fixed parts from the model matrices, the corrections being solved, and
/// the model frames they give.
pub(crate) struct Links<'a> {
    pub(crate) n: usize,
    /// The root's model matrix as given.
    base: DAffine3,
    /// `rel[i]`: joint `i`'s matrix relative to joint `i - 1`'s, as given (`rel[0]` unused).
    rel: [DAffine3; MAX_CHAIN_JOINTS],
    /// Model-frame bone lengths: `length[i]` from joint `i` to joint `i + 1`.
    pub(crate) length: [f64; MAX_CHAIN_JOINTS],
    /// Their sum.
    pub(crate) total: f64,
    /// Each joint's rotation from its reference as given (identity: the pose is the reference).
    from_rest: [DQuat; MAX_CHAIN_JOINTS],
    limits: &'a [JointLimit],
    /// The corrections so far.
    pub(crate) corr: [DQuat; MAX_CHAIN_JOINTS],
    /// Model frames with the corrections applied (after [`forward`](Self::forward)).
    pub(crate) frames: [DAffine3; MAX_CHAIN_JOINTS],
}

impl<'a> Links<'a> {
    pub(crate) fn new(
        models: &[Affine3A],
        limits: &'a [JointLimit],
        from_rest: &[Quat],
    ) -> Result<Self, AnimError> {
        let n = models.len();
        let mut links = Self {
            n,
            base: DAffine3::IDENTITY,
            rel: [DAffine3::IDENTITY; MAX_CHAIN_JOINTS],
            length: [0.0; MAX_CHAIN_JOINTS],
            total: 0.0,
            from_rest: [DQuat::IDENTITY; MAX_CHAIN_JOINTS],
            limits,
            corr: [DQuat::IDENTITY; MAX_CHAIN_JOINTS],
            frames: [DAffine3::IDENTITY; MAX_CHAIN_JOINTS],
        };
        let (mut parent, mut parent_inv) = joint_frame("IK chain joint matrix", &models[0])?;
        links.base = parent;
        links.frames[0] = parent;
        for (i, model) in models.iter().enumerate().skip(1) {
            let (model, inverse) = joint_frame("IK chain joint matrix", model)?;
            links.rel[i] = parent_inv * model;
            links.frames[i] = model;
            links.length[i - 1] = (model.translation - parent.translation).length();
            links.total += links.length[i - 1];
            (parent, parent_inv) = (model, inverse);
        }
        let shortest = links.length[..n - 1]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        if !(shortest > REL_EPS * links.total && links.total.is_finite()) {
            return Err(AnimError::IkDegenerate {
                reason: "a bone of the IK chain has zero length",
            });
        }
        for (out, q) in links.from_rest.iter_mut().zip(from_rest) {
            let q = q.as_dquat();
            let len = q.length();
            *out = if len > 0.0 { q / len } else { DQuat::IDENTITY };
        }
        Ok(links)
    }

    /// Before a solve: with limits and the textbook rules, every joint but the tip is first
    /// clamped into its limit (a pose that starts outside its limits ends inside them even
    /// when no turn is needed); frames current.
    pub(crate) fn start(&mut self, three: bool) {
        // `new` leaves the frames as given, which is what identity corrections give.
        if !three && self.limited() {
            for i in 0..self.n - 1 {
                self.corr[i] = self.clamp(i, DQuat::IDENTITY, false);
            }
            self.forward();
        }
    }

    /// Model frames from the corrections, root first.
    pub(crate) fn forward(&mut self) {
        self.frames[0] = rotated(self.base, self.corr[0]);
        for i in 1..self.n {
            self.frames[i] = rotated(self.frames[i - 1] * self.rel[i], self.corr[i]);
        }
    }

    /// Joint `i`'s model frame with its own correction left out (its parent's frame times its
    /// fixed offset): frames `0..i` must be current.
    pub(crate) fn frame_before(&self, i: usize) -> DAffine3 {
        if i == 0 {
            self.base
        } else {
            self.frames[i - 1] * self.rel[i]
        }
    }

    /// The tip's position (frames current).
    pub(crate) fn tip(&self) -> DVec3 {
        self.frames[self.n - 1].translation
    }

    /// Joint `i`'s child position in the joint's own local space.
    pub(crate) fn bone(&self, i: usize) -> DVec3 {
        self.rel[i + 1].translation
    }

    /// Whether any joint has a limit.
    pub(crate) fn limited(&self) -> bool {
        self.limits.iter().any(|l| *l != JointLimit::Free)
    }

    /// Sets joint `i`'s frame from the frame before its correction.
    pub(crate) fn set_frame(&mut self, i: usize, before: DAffine3) {
        self.frames[i] = rotated(before, self.corr[i]);
    }

    fn limit(&self, i: usize) -> JointLimit {
        self.limits.get(i).copied().unwrap_or_default()
    }

    /// Sets joint `i`'s correction so that `bone` (local) points as close as its limit allows
    /// along `toward_local` (a direction in the joint's local space *before* its correction),
    /// turning from correction `from` by at most `max_step`. Returns the new correction.
    pub(crate) fn turn(
        &self,
        i: usize,
        from: DQuat,
        bone: DVec3,
        toward_local: DVec3,
        max_step: f64,
    ) -> DQuat {
        let f = self.from_rest[i];
        let relative = (f * from).normalize();
        let turned = self
            .limit(i)
            .turn(relative, bone, f * toward_local, max_step);
        (f.conjugate() * turned).normalize()
    }

    /// Correction `c` of joint `i` clamped to its limit, three.js's rules or the textbook's.
    pub(crate) fn clamp(&self, i: usize, c: DQuat, three: bool) -> DQuat {
        let f = self.from_rest[i];
        let relative = (f * c).normalize();
        let limit = self.limit(i);
        let clamped = if three {
            limit.clamp_three(relative)
        } else {
            limit.clamp_f64(relative)
        };
        (f.conjugate() * clamped).normalize()
    }

    /// The pole step: turns the root about the root → tip line so that the interior joints'
    /// mean offset from it faces `pole`, clamped to the root's limit; frames recomputed.
    pub(crate) fn face_pole(&mut self, pole: DVec3, three: bool) {
        if self.n < 3 {
            return;
        }
        let root = self.frames[0];
        let inverse = root.inverse();
        let axis = inverse.transform_point3(self.tip());
        let Some(axis) = axis.try_normalize() else {
            return;
        };
        let mut bend = DVec3::ZERO;
        for i in 1..self.n - 1 {
            let p = inverse.transform_point3(self.frames[i].translation);
            bend += p - axis * axis.dot(p);
        }
        if bend.length() <= 1e-9 * self.total / root.matrix3.x_axis.length() {
            return;
        }
        let Some(angle) = angle_about(axis, bend, inverse.transform_vector3(pole)) else {
            return;
        };
        let turned = self.corr[0] * DQuat::from_axis_angle(axis, angle);
        self.corr[0] = self.clamp(0, turned, three);
        self.forward();
    }
}

/// `a` with its linear part rotated by `q` on the right: `a · rotation(q)`.
fn rotated(a: DAffine3, q: DQuat) -> DAffine3 {
    DAffine3 {
        matrix3: a.matrix3 * DMat3::from_quat(q),
        translation: a.translation,
    }
}

/// The side a straight chain bends to, or `None` when it need not be bent first: `points` are
/// the joints after the root (root first, `n` joints in all), `line` the unit direction the
/// chain would straighten along from `root`. A chain of 3 joints or more whose points all lie
/// within 1e-6 of its length of that line has no arc to turn by itself; it bends towards the
/// pole's part across the line, else any side.
pub(crate) fn straight_bend_side(
    points: impl Iterator<Item = DVec3>,
    root: DVec3,
    line: DVec3,
    n: usize,
    total: f64,
    pole: Option<DVec3>,
) -> Option<DVec3> {
    let off_line = |v: DVec3| v - line * line.dot(v);
    let widest = points
        .map(|q| off_line(q - root).length())
        .fold(0.0, f64::max);
    if n < 3 || widest > 1e-6 * total {
        return None;
    }
    Some(
        pole.and_then(|pole| off_line(pole).try_normalize())
            .unwrap_or_else(|| line.any_orthonormal_vector()),
    )
}
