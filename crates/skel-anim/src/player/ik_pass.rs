//! The IK pass of a player: its jobs solved in order after the layers (and bone control's
//! overrides), on the local pose, before local → world; targets and poles in the asset's
//! world frame.

use glam::{Affine3A, Mat4, Quat, Vec3};

use crate::ik::{
    AimIk, BodyJoints, ChainIk, ChainJoints, FullBodyIk, LookAtIk, LookAtJoints, MAX_CHAIN_JOINTS,
    MAX_LOOK_AT_JOINTS, TwoBoneIk,
};
use crate::{AnimError, PoseScratch, R_OFF, Rig, TRS_STRIDE};

/// One inverse-kinematics job of a [`Player`](crate::Player). Targets, poles and offsets are in
/// the asset's world frame, as [`Player::world_matrices`](crate::Player::world_matrices) and
/// `skel pose` report it (after the handedness chosen at load).
///
/// Every job is `Copy`: the chain, look-at and full-body jobs keep their nodes in
/// fixed-capacity lists ([`ChainJoints`] up to 16 joints, [`LookAtJoints`] up to 8,
/// [`BodyJoints`]), so moving a target every frame through
/// [`Player::ik_target_mut`](crate::Player::ik_target_mut) and running a job over many
/// characters allocate nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "jobs stay Copy with fixed-capacity joint lists; a player holds a handful"
)]
pub enum IkJob {
    /// A start → mid → end chain (thigh, calf, foot) reaching for a target.
    TwoBone {
        /// The chain's first joint.
        start: usize,
        /// Its child.
        mid: usize,
        /// The mid joint's child: what reaches the target.
        end: usize,
        /// Target, pole, twist, soften, weight.
        ik: TwoBoneIk,
    },
    /// One node (a head, a gun) turned to aim at a target.
    Aim {
        /// The node turned.
        node: usize,
        /// Target, axes, pole, offset, weight.
        ik: AimIk,
    },
    /// A chain of any length (a tail, a spine, fingers) reaching for a target by FABRIK or CCD.
    /// Its limits are measured from the rig's rest pose (each joint's local rotation relative
    /// to its rest rotation).
    Chain {
        /// The chain's nodes, root first, and their limits.
        joints: ChainJoints,
        /// Solver, target, pole, iterations, tolerance, weight.
        ik: ChainIk,
    },
    /// A look-at spread over several joints (spine, neck, head).
    LookAt {
        /// The joints, base first, with their shares.
        joints: LookAtJoints,
        /// Target, the head's forward axis and eye offset, weight.
        ik: LookAtIk,
    },
    /// Hands, feet and head reaching at once, the pelvis moving and the spine bending.
    FullBody {
        /// The body's nodes by part.
        joints: BodyJoints,
        /// The effectors' goals, spine shares, pelvis limit, rounds.
        ik: FullBodyIk,
    },
}

/// The world → pose-frame map of a rig: the player poses in `inverse(B) · world` (the first
/// skinned mesh's rest frame), so world targets go through `inverse(B)`, and twists flip with
/// the sign of `det(B)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrameMap {
    to_frame: Affine3A,
    twist_sign: f32,
}

impl FrameMap {
    pub(crate) fn of(rig: &Rig) -> Self {
        let b = match &rig.plan.frame.to_world {
            None => Affine3A::IDENTITY,
            Some(t) => {
                let cols = t.apply(&[glam::Vec4::X, glam::Vec4::Y, glam::Vec4::Z, glam::Vec4::W]);
                Affine3A::from_mat4(Mat4::from_cols(cols[0], cols[1], cols[2], cols[3]))
            }
        };
        let det = b.matrix3.determinant();
        Self {
            to_frame: if det != 0.0 && det.is_finite() {
                b.inverse()
            } else {
                Affine3A::IDENTITY
            },
            twist_sign: if det < 0.0 { -1.0 } else { 1.0 },
        }
    }

    fn point(&self, p: Vec3) -> Vec3 {
        self.to_frame.transform_point3(p)
    }

    fn vector(&self, v: Vec3) -> Vec3 {
        self.to_frame.transform_vector3(v)
    }
}

/// Solves `jobs` in order on `scratch.trs`, reading model matrices from a fresh hierarchy pass
/// before each job (a job may move the joints of the next). A job whose solver reports a
/// degenerate input this tick (zero-length bones, a singular joint matrix, a non-finite
/// target: see the solvers) leaves the pose as it was, and the next job runs. Allocates
/// nothing.
pub(crate) fn solve_all(scratch: &mut PoseScratch, jobs: &[IkJob], map: &FrameMap) {
    for job in jobs {
        crate::pose::steps::compute_frame_matrices(scratch);
        // Degenerate input skips the job (documented on `Player::add_ik`).
        let _ = solve_one(job, scratch, map);
    }
}

/// Node `node`'s matrix in the pose's frame (`PoseScratch::frame_world`, 16 floats a node).
fn frame_matrix(world: &[f32], node: usize) -> Result<Affine3A, AnimError> {
    let m = world
        .get(node * 16..node * 16 + 16)
        .ok_or_else(|| AnimError::LengthMismatch {
            what: "IK model matrices",
            expected: node.saturating_add(1),
            got: world.len() / 16,
        })?;
    Ok(Affine3A::from_mat4(Mat4::from_cols_slice(m)))
}

fn solve_one(job: &IkJob, scratch: &mut PoseScratch, map: &FrameMap) -> Result<(), AnimError> {
    let world = &scratch.frame_world;
    match *job {
        IkJob::TwoBone {
            start,
            mid,
            end,
            ik,
        } => {
            let framed = TwoBoneIk {
                target: map.point(ik.target),
                pole: map.vector(ik.pole),
                twist: ik.twist * map.twist_sign,
                ..ik
            };
            let solution = framed.solve(
                &frame_matrix(world, start)?,
                &frame_matrix(world, mid)?,
                &frame_matrix(world, end)?,
            )?;
            solution.apply(&mut scratch.trs, start, mid)
        }
        IkJob::Aim { node, ik } => {
            let framed = AimIk {
                target: map.point(ik.target),
                pole: map.vector(ik.pole),
                twist: ik.twist * map.twist_sign,
                ..ik
            };
            let solution = framed.solve(&frame_matrix(world, node)?)?;
            solution.apply(&mut scratch.trs, node)
        }
        IkJob::Chain { joints, ik } => {
            let nodes = joints.nodes();
            let k = nodes.len();
            let mut models = [Affine3A::IDENTITY; MAX_CHAIN_JOINTS];
            let mut from_rest = [Quat::IDENTITY; MAX_CHAIN_JOINTS];
            for (i, &node) in nodes.iter().enumerate() {
                models[i] = frame_matrix(world, node)?;
                from_rest[i] = rotation(&scratch.plan.rest_trs, node)?.inverse()
                    * rotation(&scratch.trs, node)?;
            }
            let framed = ChainIk {
                target: map.point(ik.target),
                pole: ik.pole.map(|pole| map.vector(pole)),
                ..ik
            };
            let mut corrections = [Quat::IDENTITY; MAX_CHAIN_JOINTS];
            framed.solve_from_rest(
                &models[..k],
                joints.limits(),
                &from_rest[..k],
                &mut corrections[..k],
            )?;
            apply_all(&mut scratch.trs, nodes, &corrections[..k])
        }
        IkJob::LookAt { joints, ik } => {
            let nodes = joints.nodes();
            let k = nodes.len();
            let mut models = [Affine3A::IDENTITY; MAX_LOOK_AT_JOINTS];
            for (model, &node) in models.iter_mut().zip(nodes) {
                *model = frame_matrix(world, node)?;
            }
            let framed = LookAtIk {
                target: map.point(ik.target),
                ..ik
            };
            let mut corrections = [Quat::IDENTITY; MAX_LOOK_AT_JOINTS];
            framed.solve(&models[..k], joints.shares(), &mut corrections[..k])?;
            apply_all(&mut scratch.trs, nodes, &corrections[..k])
        }
        IkJob::FullBody { joints, ik } => {
            let pose = joints.pose(|node| frame_matrix(world, node))?;
            let mut framed = ik;
            for goal in &mut framed.goals {
                goal.target = map.point(goal.target);
                goal.pole = map.vector(goal.pole);
            }
            framed.solve(&pose)?.apply(&mut scratch.trs, &joints)
        }
    }
}

/// Node `node`'s rotation in a TRS buffer.
fn rotation(trs: &[f32], node: usize) -> Result<Quat, AnimError> {
    let at = node.saturating_mul(TRS_STRIDE) + R_OFF;
    trs.get(at..at + 4)
        .map(Quat::from_slice)
        .ok_or_else(|| AnimError::LengthMismatch {
            what: "IK TRS records",
            expected: node.saturating_add(1).saturating_mul(TRS_STRIDE),
            got: trs.len(),
        })
}

/// Each correction multiplied onto its node's local rotation.
fn apply_all(trs: &mut [f32], nodes: &[usize], corrections: &[Quat]) -> Result<(), AnimError> {
    for (&node, &q) in nodes.iter().zip(corrections) {
        crate::apply_correction(trs, node, q)?;
    }
    Ok(())
}
