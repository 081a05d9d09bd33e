//! Inverse kinematics: stateless solvers that turn a target into rotation corrections
//! (ozz-animation's `IKTwoBoneJob` and `IKAimJob`, Babylon's `BoneIKController` and
//! `BoneLookController`).
//!
//! # The solvers
//!
//! | job | joints | module |
//! |---|---|---|
//! | [`TwoBoneIk`] | start, mid, end (thigh, calf, foot) | `two_bone` |
//! | [`AimIk`] | one node (head, gun) | `aim` |
//! | [`ChainIk`] | 2 to [`MAX_CHAIN_JOINTS`], FABRIK or CCD, [`JointLimit`]s, pole | [`chain`], [`fabrik`], [`ccd`] |
//! | [`LookAtIk`] | up to [`MAX_LOOK_AT_JOINTS`] (spine, neck, head), shared by [`JointShare`] | [`look_at`] |
//! | [`FullBodyIk`] | pelvis, spine, four limbs, neck: [`BodyPose`] | [`full_body`] |
//!
//! The node lists a [`Player`](crate::Player) job keeps ([`ChainJoints`], [`LookAtJoints`],
//! [`BodyJoints`]) are fixed-capacity arrays checked once against the rig.
//!
//! # How they are used
//!
//! A solver reads the *model-space* matrices of its joints (the parent chain applied, as
//! [`compute_world_matrices`](crate::compute_world_matrices) writes them; [`model_matrix`]
//! reads one) and returns quaternions **in each joint's local space**, to be multiplied onto
//! the joint's local rotation: `local = local · correction` ([`apply_correction`],
//! [`TwoBoneSolution::apply`], [`AimSolution::apply`] do it on a TRS buffer and renormalise).
//! Nothing allocates and nothing keeps state between calls: one solver value per chain, solved
//! every tick after the layers are mixed and before local → world.
//!
//! When several IK jobs run in order and one chain sits below another's joints, recompute the
//! model matrices of the affected nodes between them: a solver reads the matrices it is given.
//!
//! # Any affine model frame
//!
//! "Model space" may be any frame related to the joints by a fixed affine map `B` (the asset's
//! world, or `inverse(B) · world` as the player poses in the first skinned mesh's rest frame),
//! mirrored or not, uniformly scaled or not, **as long as the target and pole are given in that
//! same frame** (points through `inverse(B)` as points, poles as vectors). The solvers work in
//! the joints' own local frames (`inverse(model) · x`), where `B` cancels out: the corrections
//! are the same in every such frame up to rounding. Non-uniform scale on the chain's joints
//! themselves is not supported (corrections are rotations of a scaled frame; ozz has the same
//! limit).
//!
//! # In a player
//!
//! Run the jobs on the mixed local pose, before local → world: read each job's joint matrices
//! (one hierarchy pass, or [`model_matrix_from_trs`] per joint), solve, apply, and read fresh
//! matrices for a later job whose joints sit below an earlier job's. A player that poses in
//! `inverse(B) · world` maps a world-frame target with `inverse(B)` as a point, a pole as a
//! vector, and multiplies twist angles by the sign of `det(B)` (twists are right-handed in
//! the frame they are given in).
//!
//! # Degenerate input
//!
//! Solvers never panic and never return NaN. Non-finite targets, poles, axes, angles, weights
//! or matrices are [`AnimError::NotFiniteValue`]; singular joint matrices and zero-length
//! bones or axes are [`AnimError::IkDegenerate`]; joint lists of a length a solver cannot take
//! are [`AnimError::IkJointCount`], limits that bound nothing sensible
//! [`AnimError::IkBadLimit`]. Weights and soften outside `0..=1` are
//! clamped (as ozz does). Cases with no unique answer get a documented result instead of an
//! error: see each solver's "Degenerate cases".

mod aim;
mod body_pose;
pub mod ccd;
pub mod chain;
mod chain_batch;
pub mod fabrik;
pub mod full_body;
mod joint_lists;
pub mod limits;
mod links;
pub mod look_at;
mod two_bone;
pub(crate) use two_bone::BENT;

pub use aim::{AimIk, AimSolution};
pub use body_pose::{BodyPose, BodySolution, Effector, EffectorGoal};
pub use chain::{ChainIk, ChainSolution, ChainSolver, MAX_CHAIN_JOINTS};
pub use chain_batch::ChainJob;
pub use full_body::{FullBodyIk, MAX_SPINE_JOINTS};
pub use joint_lists::{BodyJoints, ChainJoints, LookAtJoints};
pub use limits::JointLimit;
pub use look_at::{JointShare, LookAtIk, LookAtSolution, MAX_LOOK_AT_JOINTS};
pub use two_bone::{TwoBoneIk, TwoBoneSolution};

use glam::{Affine3A, DAffine3, DQuat, DVec3, Mat4, Quat, Vec3, Vec3A};

use crate::{AnimError, AnimationData, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// Lengths (in the joint's own units) below this, relative to the chain, count as zero.
pub(crate) const REL_EPS: f64 = 1e-9;

/// Node `node`'s model matrix from a pose's world matrices ([`PoseScratch::world`](crate::PoseScratch::world),
/// [`Player::world_matrices`](crate::Player::world_matrices)), as the solvers take it.
///
/// # Errors
/// [`AnimError::LengthMismatch`] when `world` holds no matrix `node`.
pub fn model_matrix(world: &[Mat4], node: usize) -> Result<Affine3A, AnimError> {
    let m = world.get(node).ok_or_else(|| AnimError::LengthMismatch {
        what: "IK model matrices",
        expected: node.saturating_add(1),
        got: world.len(),
    })?;
    Ok(Affine3A::from_mat4(*m))
}

/// Node `node`'s model matrix computed from a TRS buffer by walking its parents:
/// `root · local(top ancestor) · … · local(node)`. Costs one product per ancestor and allocates
/// nothing: use it between IK jobs instead of a full hierarchy pass when an earlier job changed
/// an ancestor of a later one's joints.
///
/// `root` is what the hierarchy pass puts in front of root nodes: the identity for a
/// right-handed asset in its world frame, [`skel_math::RH_TO_LH`] (x mirrored) for a
/// left-handed one, or any frame change `inverse(B) · that` a caller poses in. Rotations are
/// used as stored (the pose pipeline keeps them unit length).
///
/// # Errors
/// [`AnimError::BadNode`] when `node` is past `data`'s nodes, [`AnimError::LengthMismatch`]
/// when the buffer does not hold every node's record, [`AnimError::Cycle`] when the parents
/// loop (data that [`AnimationData::validate`] would refuse).
pub fn model_matrix_from_trs(
    data: &AnimationData,
    trs: &[f32],
    node: usize,
    root: &Affine3A,
) -> Result<Affine3A, AnimError> {
    let node_count = data.nodes.len();
    if node >= node_count {
        return Err(AnimError::BadNode {
            what: "IK node".to_owned(),
            node,
            node_count,
        });
    }
    if trs.len() < node_count * TRS_STRIDE {
        return Err(AnimError::LengthMismatch {
            what: "IK TRS records",
            expected: node_count * TRS_STRIDE,
            got: trs.len(),
        });
    }
    let local = |n: usize| {
        let rec = &trs[n * TRS_STRIDE..(n + 1) * TRS_STRIDE];
        Affine3A::from_scale_rotation_translation(
            Vec3::from_slice(&rec[S_OFF..S_OFF + 3]),
            Quat::from_slice(&rec[R_OFF..R_OFF + 4]),
            Vec3::from_slice(&rec[T_OFF..T_OFF + 3]),
        )
    };
    let mut model = local(node);
    let mut at = node;
    for _ in 0..node_count {
        match data.nodes[at].parent {
            Some(parent) if parent < node_count => {
                model = local(parent) * model;
                at = parent;
            }
            Some(parent) => {
                return Err(AnimError::BadParent {
                    node: at,
                    parent,
                    node_count,
                });
            }
            None => return Ok(*root * model),
        }
    }
    Err(AnimError::Cycle { node })
}

/// Multiplies `correction` onto node `node`'s local rotation in a TRS buffer
/// ([`TRS_STRIDE`] floats per node, rotation `[x, y, z, w]` at [`R_OFF`]):
/// `local = normalize(local · correction)`. A stored rotation that is not a usable quaternion
/// (zero or not finite) is replaced by the normalised correction, so the buffer never holds
/// NaN afterwards.
///
/// # Errors
/// [`AnimError::LengthMismatch`] when the buffer has no record `node`.
///
/// ```
/// use glam::Quat;
/// use skel_anim::{R_OFF, TRS_STRIDE, apply_correction};
/// let mut trs = [0.0_f32; TRS_STRIDE];
/// trs[R_OFF + 3] = 1.0; // identity rotation
/// let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
/// apply_correction(&mut trs, 0, quarter)?;
/// assert!((trs[R_OFF + 2] - quarter.z).abs() < 1e-7);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
pub fn apply_correction(trs: &mut [f32], node: usize, correction: Quat) -> Result<(), AnimError> {
    apply_correction_inline(trs, node, correction)
}

/// [`apply_correction`] inlined into its caller (foot placement's AVX2 build).
#[inline(always)]
pub(crate) fn apply_correction_inline(
    trs: &mut [f32],
    node: usize,
    correction: Quat,
) -> Result<(), AnimError> {
    let len = trs.len();
    let rec = node
        .checked_mul(TRS_STRIDE)
        .and_then(|at| trs.get_mut(at + R_OFF..at + R_OFF + 4))
        .ok_or_else(|| AnimError::LengthMismatch {
            what: "IK TRS records",
            expected: node.saturating_add(1).saturating_mul(TRS_STRIDE),
            got: len,
        })?;
    let local = Quat::from_slice(rec);
    let product = local * correction;
    let norm = product.length();
    let out = if norm.is_finite() && norm > 0.0 {
        product / norm
    } else {
        let c = correction.length();
        if c.is_finite() && c > 0.0 {
            correction / c
        } else {
            Quat::IDENTITY
        }
    };
    out.write_to_slice(rec);
    Ok(())
}

/// Checks that `start`, `mid`, `end` are a parent/child chain of `data`'s nodes (`mid`'s
/// parent is `start`, `end`'s parent is `mid`), the shape a two-bone solve on a layer-stack
/// file's names expects. Call it once when the chain is set up, not every tick.
///
/// (The solver itself accepts joints with fixed joints in between, as ozz's does; this is the
/// check for callers that want a direct chain.)
///
/// # Errors
/// [`AnimError::BadNode`] when an index is past the node list, [`AnimError::IkNotAChain`]
/// naming the first node whose parent is not the one expected.
pub fn check_chain(
    data: &AnimationData,
    start: usize,
    mid: usize,
    end: usize,
) -> Result<(), AnimError> {
    let node_count = data.nodes.len();
    for (what, node) in [
        ("IK start joint", start),
        ("IK mid joint", mid),
        ("IK end joint", end),
    ] {
        if node >= node_count {
            return Err(AnimError::BadNode {
                what: what.to_owned(),
                node,
                node_count,
            });
        }
    }
    for (node, expected) in [(mid, start), (end, mid)] {
        let parent = data.nodes[node].parent;
        if parent != Some(expected) {
            return Err(AnimError::IkNotAChain {
                node,
                expected,
                parent,
            });
        }
    }
    Ok(())
}

/// The first component of `v` that is not finite, as an error naming `what`.
pub(crate) fn finite3(what: &'static str, v: Vec3) -> Result<(), AnimError> {
    match v.to_array().into_iter().find(|x| !x.is_finite()) {
        Some(value) => Err(AnimError::NotFiniteValue { what, value }),
        None => Ok(()),
    }
}

/// A scalar that must be finite.
pub(crate) fn finite1(what: &'static str, value: f32) -> Result<(), AnimError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(AnimError::NotFiniteValue { what, value })
    }
}

/// A joint's model matrix in f64 with its inverse, or why it cannot be used.
pub(crate) fn joint_frame(
    what: &'static str,
    m: &Affine3A,
) -> Result<(DAffine3, DAffine3), AnimError> {
    for col in m.to_cols_array() {
        finite1(what, col)?;
    }
    let d = m.as_daffine3();
    let det = d.matrix3.determinant();
    // A joint scaled to (nearly) nothing has no usable local frame.
    let scale = d.matrix3.x_axis.length() * d.matrix3.y_axis.length() * d.matrix3.z_axis.length();
    if det.is_nan() || det.abs() <= 1e-12 * scale || scale == 0.0 {
        return Err(AnimError::IkDegenerate {
            reason: "a joint's model matrix is singular (scaled to zero)",
        });
    }
    Ok((d, d.inverse()))
}

/// `q` with a non-negative w (the shorter way round from the identity), blended from the
/// identity by `weight` in `0..=1` (normalised lerp, ozz's), as f32.
pub(crate) fn weighted(q: DQuat, weight: f64) -> Quat {
    let q = if q.w < 0.0 { -q } else { q };
    let q = if weight >= 1.0 {
        q
    } else {
        DQuat::IDENTITY.lerp(q, weight)
    };
    let q = q.normalize();
    if q.is_finite() {
        q.as_quat()
    } else {
        Quat::IDENTITY
    }
}

/// Signed angle about unit `axis` turning `from`'s part perpendicular to the axis onto `to`'s,
/// or `None` when either part is (relative to its vector) too short to have a direction.
pub(crate) fn angle_about(axis: DVec3, from: DVec3, to: DVec3) -> Option<f64> {
    let f = from - axis * axis.dot(from);
    let t = to - axis * axis.dot(to);
    let tiny = 1e-9;
    if f.length() <= tiny * from.length() || t.length() <= tiny * to.length() {
        return None;
    }
    if f.length() == 0.0 || t.length() == 0.0 {
        return None;
    }
    Some(axis.dot(f.cross(t)).atan2(f.dot(t)))
}

/// The turn about unit `axis` from the angle whose cosine and sine are `from` to the one
/// whose cosine and sine are `to` (as the f64 two-bone solve's, in f32): no
/// trigonometric call.
#[inline(always)]
pub(crate) fn turn_between(axis: Vec3A, from: (f32, f32), to: (f32, f32)) -> Quat {
    let c = to.0 * from.0 + to.1 * from.1;
    let s = to.1 * from.0 - to.0 * from.1;
    // (axis · s, 1 + c) is twice the half-angle's; past a quarter turn (c < 0) the same
    // rotation is (axis · (1 − c), s), which does not cancel.
    let (v, w) = if c >= 0.0 {
        (axis * s, 1.0 + c)
    } else {
        (axis * (1.0 - c), s)
    };
    let q = Quat::from_xyzw(v.x, v.y, v.z, w);
    let len = q.length();
    if len > 1e-12 {
        q / len
    } else {
        Quat::from_xyzw(axis.x, axis.y, axis.z, 0.0)
    }
}
