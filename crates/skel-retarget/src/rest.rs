//! Rest transforms in `f64`: the constant matrices of the rule are products of up to four
//! rest matrices and their inverses, so they are formed in double precision and only the
//! rewritten keys are rounded to `f32`.

use glam::{DMat4, DQuat, DVec3};
use skel_anim::{AnimationData, NodeRest, compute_topo_order};

use crate::error::{RetargetError, Side};

/// A node's rest TRS in `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trs {
    pub t: DVec3,
    pub r: DQuat,
    pub s: DVec3,
}

impl Trs {
    pub(crate) fn of(rest: &NodeRest) -> Self {
        let [x, y, z] = rest.translation.map(f64::from);
        let [qx, qy, qz, qw] = rest.rotation.map(f64::from);
        let [sx, sy, sz] = rest.scale.map(f64::from);
        Self {
            t: DVec3::new(x, y, z),
            r: DQuat::from_xyzw(qx, qy, qz, qw).normalize(),
            s: DVec3::new(sx, sy, sz),
        }
    }

    pub(crate) fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.s, self.r, self.t)
    }
}

/// Every node's rest local TRS, rest world matrix and parent's rest world matrix.
#[derive(Debug, Clone)]
pub(crate) struct RestPose {
    pub local: Vec<Trs>,
    pub world: Vec<DMat4>,
    pub parents: Vec<Option<usize>>,
    pub names: Vec<String>,
}

impl RestPose {
    /// The rest pose of `data`, with `local` overriding the glTF rest (the aligned reference).
    pub(crate) fn with_locals(
        data: &AnimationData,
        side: Side,
        local: Vec<Trs>,
    ) -> Result<Self, RetargetError> {
        let order = compute_topo_order(&data.nodes)
            .map_err(|source| RetargetError::InvalidRig { side, source })?;
        let mut world = vec![DMat4::IDENTITY; data.nodes.len()];
        for &n in &order {
            let m = local[n].matrix();
            world[n] = match data.nodes[n].parent {
                Some(p) => world[p] * m,
                None => m,
            };
        }
        Ok(Self {
            local,
            world,
            parents: data.nodes.iter().map(|n| n.parent).collect(),
            names: data.nodes.iter().map(|n| n.name.clone()).collect(),
        })
    }

    /// The glTF rest pose of `data`.
    pub(crate) fn new(data: &AnimationData, side: Side) -> Result<Self, RetargetError> {
        let local = data.nodes.iter().map(Trs::of).collect();
        Self::with_locals(data, side, local)
    }

    /// The parent's rest world matrix (identity for a root).
    pub(crate) fn parent_world(&self, node: usize) -> DMat4 {
        self.parents[node].map_or(DMat4::IDENTITY, |p| self.world[p])
    }

    /// Whether `a` is `b` or one of its ancestors.
    pub(crate) fn is_ancestor_or_self(&self, a: usize, b: usize) -> bool {
        let mut cur = Some(b);
        // The hierarchy was checked acyclic when the pose was built: the walk ends.
        while let Some(n) = cur {
            if n == a {
                return true;
            }
            cur = self.parents[n];
        }
        false
    }

    /// A node's rest world position.
    pub(crate) fn position(&self, node: usize) -> DVec3 {
        self.world[node].w_axis.truncate()
    }
}

/// `m⁻¹`, refused when `m` is singular (a zero scale in the rest pose).
pub(crate) fn checked_inverse(m: DMat4, side: Side, node: &str) -> Result<DMat4, RetargetError> {
    let det = m.determinant();
    if det.abs() < 1e-300 || !det.is_finite() {
        return Err(RetargetError::Singular {
            side,
            node: node.to_owned(),
        });
    }
    Ok(m.inverse())
}
