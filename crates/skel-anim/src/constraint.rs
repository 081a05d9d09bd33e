//! Node constraints (VRM's `VRMC_node_constraint`): a node's rotation driven by another
//! node's, as three-vrm 3.5's `VRMNodeConstraintManager` drives it. A twist bone that follows
//! part of the forearm's roll (roll), a bone that turns to keep pointing at another (aim), a
//! bone that copies another's turn from rest (rotation), each blended from the destination's
//! rest rotation by its weight. They run after the layers, IK and foot placement and before
//! spring bones, as three-vrm's `VRM.update` orders them.
//!
//! - **Roll**: the source's turn from its rest, seen from the destination's rest frame, keeps
//!   only its twist about the roll axis (`q · arc(q·a → a)`).
//! - **Aim**: the destination's aim axis (under its rest rotation and its parent's world
//!   rotation) turned by the shortest arc onto the direction to the source, in world space.
//! - **Rotation**: the source's turn from its rest applied after the destination's rest.
//!
//! Constraints run in the order given, each after the constraints on the ancestors of its
//! source (and, for aim, of its destination's parent): three-vrm's order.
//!
//! ```
//! use glam::{Affine3A, Quat};
//! use skel_anim::NodeRest;
//! use skel_anim::constraint::{ConstraintKind, NodeConstraintDesc, NodeConstraints};
//!
//! // Node 1 copies node 0's turn at half weight.
//! let nodes = vec![NodeRest::new("source", None), NodeRest::new("copy", None)];
//! let copy = NodeConstraintDesc { node: 1, kind: ConstraintKind::Rotation { source: 0, weight: 0.5 } };
//! let constraints = NodeConstraints::new(&[copy], &nodes)?;
//! let mut trs = vec![0.0; 2 * skel_anim::TRS_STRIDE];
//! for (record, node) in trs.chunks_exact_mut(skel_anim::TRS_STRIDE).zip(&nodes) {
//!     record[skel_anim::R_OFF..skel_anim::R_OFF + 4].copy_from_slice(&node.rotation);
//!     record[skel_anim::S_OFF..skel_anim::S_OFF + 3].copy_from_slice(&node.scale);
//! }
//! let turn = Quat::from_rotation_y(1.0);
//! trs[skel_anim::R_OFF..skel_anim::R_OFF + 4].copy_from_slice(&turn.to_array());
//! constraints.apply(&mut trs, Affine3A::IDENTITY);
//! let at = skel_anim::TRS_STRIDE + skel_anim::R_OFF;
//! let copied = Quat::from_slice(&trs[at..at + 4]);
//! assert!(copied.angle_between(Quat::from_rotation_y(0.5)) < 1e-5);
//! # Ok::<(), skel_anim::AnimError>(())
//! ```

use glam::{Affine3A, Quat, Vec3};

use crate::data::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};
use crate::math::unit_arc::from_unit_vectors;
use crate::{AnimError, NodeRest};

/// The axis a roll constraint keeps the twist about, in the destination's rest frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollAxis {
    /// +x.
    X,
    /// +y.
    Y,
    /// +z.
    Z,
}

/// The destination's local axis an aim constraint points at the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AimAxis {
    /// +x.
    PositiveX,
    /// −x.
    NegativeX,
    /// +y.
    PositiveY,
    /// −y.
    NegativeY,
    /// +z.
    PositiveZ,
    /// −z.
    NegativeZ,
}

/// What drives a constrained node (see [the module](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstraintKind {
    /// The source's twist about `axis`.
    Roll {
        /// The driving node.
        source: usize,
        /// The twist axis.
        axis: RollAxis,
        /// 0: the destination's rest; 1: the full twist.
        weight: f32,
    },
    /// Point `axis` at the source.
    Aim {
        /// The node aimed at.
        source: usize,
        /// The destination's axis that points.
        axis: AimAxis,
        /// 0: the destination's rest; 1: aimed.
        weight: f32,
    },
    /// The source's whole turn from its rest.
    Rotation {
        /// The driving node.
        source: usize,
        /// 0: the destination's rest; 1: the full turn.
        weight: f32,
    },
}

/// One constraint as a file gives it: the node it drives and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeConstraintDesc {
    /// The destination: the node whose rotation is set.
    pub node: usize,
    /// What drives it.
    pub kind: ConstraintKind,
}

/// One constraint ready to apply.
#[derive(Debug, Clone, Copy)]
struct Constraint {
    node: usize,
    kind: ConstraintKind,
    /// The destination's and the source's rest rotations.
    dst_rest: Quat,
    src_rest: Quat,
}

/// A character's node constraints, in the order they run (see [the module](self)).
#[derive(Debug, Clone)]
pub struct NodeConstraints {
    constraints: Vec<Constraint>,
    parent: Vec<Option<usize>>,
}

impl NodeConstraints {
    /// Constraints `descs` on the nodes `nodes`.
    ///
    /// # Errors
    /// [`AnimError::BadConstraint`] for a destination or source past the nodes, a constraint
    /// whose source is its destination, a weight that is not finite, and a circle of
    /// constraints (each waiting for another).
    pub fn new(descs: &[NodeConstraintDesc], nodes: &[NodeRest]) -> Result<Self, AnimError> {
        let n = nodes.len();
        let bad = |node: usize, reason: &'static str| AnimError::BadConstraint { node, reason };
        let mut items = Vec::with_capacity(descs.len());
        for d in descs {
            let (source, weight) = match d.kind {
                ConstraintKind::Roll { source, weight, .. }
                | ConstraintKind::Aim { source, weight, .. }
                | ConstraintKind::Rotation { source, weight } => (source, weight),
            };
            if d.node >= n || source >= n {
                return Err(bad(d.node, "a node index past the character's nodes"));
            }
            if source == d.node {
                return Err(bad(d.node, "the source is the destination"));
            }
            if !weight.is_finite() {
                return Err(bad(d.node, "a weight that is not finite"));
            }
            items.push(Constraint {
                node: d.node,
                kind: d.kind,
                dst_rest: Quat::from_array(nodes[d.node].rotation),
                src_rest: Quat::from_array(nodes[source].rotation),
            });
        }
        let parent: Vec<Option<usize>> = nodes.iter().map(|node| node.parent).collect();
        let constraints = run_order(&items, &parent)?;
        Ok(Self {
            constraints,
            parent,
        })
    }

    /// Sets each constrained node's rotation in `trs` ([`TRS_STRIDE`] floats a node, the
    /// character's local pose) under the root transform `root` (aim constraints measure in
    /// world space). Does nothing on a buffer shorter than the node count.
    pub fn apply(&self, trs: &mut [f32], root: Affine3A) {
        if trs.len() < self.parent.len() * TRS_STRIDE {
            return;
        }
        for c in &self.constraints {
            let q = match c.kind {
                ConstraintKind::Rotation { source, weight } => {
                    let delta = c.src_rest.inverse() * rotation(trs, source);
                    c.dst_rest.slerp(c.dst_rest * delta, weight)
                }
                ConstraintKind::Roll {
                    source,
                    axis,
                    weight,
                } => {
                    let a = match axis {
                        RollAxis::X => Vec3::X,
                        RollAxis::Y => Vec3::Y,
                        RollAxis::Z => Vec3::Z,
                    };
                    let delta = c.dst_rest.inverse()
                        * rotation(trs, source)
                        * (c.src_rest.inverse() * c.dst_rest);
                    let n1 = delta * a;
                    let target = c.dst_rest * from_unit_vectors(n1.into(), a.into()) * delta;
                    c.dst_rest.slerp(target, weight)
                }
                ConstraintKind::Aim {
                    source,
                    axis,
                    weight,
                } => {
                    let parent = match self.parent[c.node] {
                        Some(p) => self.world(trs, root, p),
                        None => root,
                    };
                    let parent_turn = parent_rotation(&parent);
                    let a0 = parent_turn * (c.dst_rest * aim_vector(axis));
                    let dst = (parent * local(trs, c.node)).translation;
                    let src = self.world(trs, root, source).translation;
                    let a1 = Vec3::from(src - dst).normalize_or_zero();
                    let target = parent_turn.inverse()
                        * from_unit_vectors(a0.into(), a1.into())
                        * parent_turn
                        * c.dst_rest;
                    c.dst_rest.slerp(target, weight)
                }
            };
            let at = c.node * TRS_STRIDE + R_OFF;
            if q.is_finite() {
                trs[at..at + 4].copy_from_slice(&q.to_array());
            }
        }
    }

    /// Node `node`'s world matrix from the local pose `trs` under `root`.
    fn world(&self, trs: &[f32], root: Affine3A, node: usize) -> Affine3A {
        let mut m = local(trs, node);
        let mut at = self.parent[node];
        // Parents are checked acyclic when the rig is made; the count bounds a bad list.
        let mut left = self.parent.len();
        while let (Some(p), true) = (at, left > 0) {
            m = local(trs, p) * m;
            at = self.parent[p];
            left -= 1;
        }
        root * m
    }

    /// How many nodes the character they were made for has.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.parent.len()
    }

    /// How many constraints there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.constraints.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }
}

fn rotation(trs: &[f32], node: usize) -> Quat {
    let at = node * TRS_STRIDE + R_OFF;
    Quat::from_slice(&trs[at..at + 4])
}

fn local(trs: &[f32], node: usize) -> Affine3A {
    let at = node * TRS_STRIDE;
    Affine3A::from_scale_rotation_translation(
        Vec3::from_slice(&trs[at + S_OFF..at + S_OFF + 3]),
        Quat::from_slice(&trs[at + R_OFF..at + R_OFF + 4]),
        Vec3::from_slice(&trs[at + T_OFF..at + T_OFF + 3]),
    )
}

fn aim_vector(axis: AimAxis) -> Vec3 {
    match axis {
        AimAxis::PositiveX => Vec3::X,
        AimAxis::NegativeX => Vec3::NEG_X,
        AimAxis::PositiveY => Vec3::Y,
        AimAxis::NegativeY => Vec3::NEG_Y,
        AimAxis::PositiveZ => Vec3::Z,
        AimAxis::NegativeZ => Vec3::NEG_Z,
    }
}

/// The rotation of a world matrix with its scale divided out (three.js's `decompose`: a
/// mirrored matrix takes its reflection on x).
fn parent_rotation(m: &Affine3A) -> Quat {
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let sx = if m.matrix3.determinant() < 0.0 {
        -x.length()
    } else {
        x.length()
    };
    let (sy, sz) = (y.length(), z.length());
    if sx == 0.0 || sy == 0.0 || sz == 0.0 {
        return Quat::IDENTITY;
    }
    Quat::from_mat3a(&glam::Mat3A::from_cols(x / sx, y / sy, z / sz)).normalize()
}

/// three-vrm's order: in the order given, each constraint after the constraints on the
/// ancestors (root first) of its dependencies; a circle is an error (three-vrm throws).
fn run_order(items: &[Constraint], parent: &[Option<usize>]) -> Result<Vec<Constraint>, AnimError> {
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); parent.len()];
    for (i, c) in items.iter().enumerate() {
        on_node[c.node].push(i);
    }
    let mut state = vec![0_u8; items.len()];
    let mut order = Vec::with_capacity(items.len());
    fn visit(
        i: usize,
        items: &[Constraint],
        parent: &[Option<usize>],
        on_node: &[Vec<usize>],
        state: &mut [u8],
        order: &mut Vec<usize>,
    ) -> Result<(), AnimError> {
        match state[i] {
            2 => return Ok(()),
            1 => {
                return Err(AnimError::BadConstraint {
                    node: items[i].node,
                    reason: "a circle of constraints",
                });
            }
            _ => {}
        }
        state[i] = 1;
        let c = &items[i];
        let mut deps = Vec::with_capacity(2);
        match c.kind {
            ConstraintKind::Aim { source, .. } => {
                deps.push(source);
                if let Some(p) = parent[c.node] {
                    deps.push(p);
                }
            }
            ConstraintKind::Roll { source, .. } | ConstraintKind::Rotation { source, .. } => {
                deps.push(source);
            }
        }
        for dep in deps {
            let mut chain = vec![dep];
            let mut at = parent[dep];
            while let Some(p) = at {
                if chain.len() > parent.len() {
                    break;
                }
                chain.push(p);
                at = parent[p];
            }
            for &ancestor in chain.iter().rev() {
                for &k in &on_node[ancestor] {
                    visit(k, items, parent, on_node, state, order)?;
                }
            }
        }
        state[i] = 2;
        order.push(i);
        Ok(())
    }
    for i in 0..items.len() {
        visit(i, items, parent, &on_node, &mut state, &mut order)?;
    }
    Ok(order.into_iter().map(|i| items[i]).collect())
}
