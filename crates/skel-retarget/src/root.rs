//! The root-position rule (Babylon.js's `fixRootPosition`): root translation keys follow the
//! source root's world motion, scaled by the ratio of the two rigs' heights.

use glam::{DMat4, DVec3};
use skel_anim::{ChannelPath, Clip, Interpolation, Sampler, evaluate_sampler};

use crate::error::{RetargetError, Side};
use crate::map::NodeMap;
use crate::rest::{RestPose, Trs, checked_inverse};

/// The world axis along which heights are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerticalAxis {
    /// x.
    X,
    /// y (glTF's up).
    Y,
    /// z.
    Z,
}

impl VerticalAxis {
    /// 0, 1 or 2.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Self::X => 0,
            Self::Y => 1,
            Self::Z => 2,
        }
    }

    /// Babylon.js's detection from a root-minus-ground difference: y when its magnitude beats
    /// x and is at least z's, z when it beats both, otherwise x.
    #[must_use]
    pub fn detect(diff: glam::Vec3) -> Self {
        let (x, y, z) = (diff.x.abs(), diff.y.abs(), diff.z.abs());
        if y > x && y >= z {
            Self::Y
        } else if z > x && z > y {
            Self::Z
        } else {
            Self::X
        }
    }
}

/// How the scaled world offset of the root becomes a local translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RootOffset {
    /// As a point: `P_T⁻¹ · (rest world position + r · offset)`, the full inverse of the
    /// target root's parent (its translation included). The default.
    #[default]
    Point,
    /// As Babylon.js 9 computes it: the same sum transformed as a normal (the parent's
    /// rotation and scale only). It differs from [`RootOffset::Point`] exactly when the target
    /// root's parent world matrix has a translation.
    BabylonNormal,
}

/// The constants of the rule for one pair of rigs.
#[derive(Debug, Clone)]
pub(crate) struct RootRule {
    /// The target root node.
    pub target: usize,
    /// The source node mapped to it.
    pub source: usize,
    /// Target height over source height along the vertical axis.
    pub ratio: f64,
    source_rest: DVec3,
    target_rest: DVec3,
    inv_parent: DMat4,
    /// The source root's ancestors, root first, then the source root itself.
    chain: Vec<usize>,
    offset: RootOffset,
}

/// What the rule needs to know about the two rigs.
pub(crate) struct RootNodes {
    pub root: usize,
    pub ground: usize,
    pub axis: Option<VerticalAxis>,
    pub offset: RootOffset,
}

impl RootRule {
    pub(crate) fn new(
        source: &RestPose,
        target: &RestPose,
        map: &NodeMap,
        nodes: &RootNodes,
    ) -> Result<Self, RetargetError> {
        let unmapped = |role, node: usize| RetargetError::Unmapped {
            role,
            name: target.names[node].clone(),
        };
        let s_root = map
            .source_of(nodes.root)
            .ok_or_else(|| unmapped("root", nodes.root))?;
        let s_ground = map
            .source_of(nodes.ground)
            .ok_or_else(|| unmapped("ground reference", nodes.ground))?;
        let s_diff = source.position(s_root) - source.position(s_ground);
        let axis = nodes
            .axis
            .unwrap_or_else(|| VerticalAxis::detect(s_diff.as_vec3()))
            .index();
        let t_diff = target.position(nodes.root) - target.position(nodes.ground);
        let zero = |side, pose: &RestPose, root: usize, ground: usize| RetargetError::ZeroHeight {
            side,
            root: pose.names[root].clone(),
            ground: pose.names[ground].clone(),
            axis,
        };
        if s_diff[axis].abs() < 1e-9 {
            return Err(zero(Side::Source, source, s_root, s_ground));
        }
        if t_diff[axis].abs() < 1e-9 {
            return Err(zero(Side::Target, target, nodes.root, nodes.ground));
        }
        let mut chain = vec![s_root];
        while let Some(p) = source.parents[chain[chain.len() - 1]] {
            chain.push(p);
        }
        chain.reverse();
        Ok(Self {
            target: nodes.root,
            source: s_root,
            ratio: t_diff[axis] / s_diff[axis],
            source_rest: source.position(s_root),
            target_rest: target.position(nodes.root),
            inv_parent: checked_inverse(
                target.parent_world(nodes.root),
                Side::Target,
                &target.names[nodes.root],
            )?,
            chain,
            offset: nodes.offset,
        })
    }

    /// The source root's world position at time `t` of `clip`: its ancestors and itself at
    /// rest where the clip does not animate them.
    fn source_position(&self, source: &RestPose, clip: &Clip, t: f32) -> DVec3 {
        let mut world = DMat4::IDENTITY;
        for &node in &self.chain {
            let mut local = source.local[node];
            for ch in clip.channels.iter().filter(|c| c.node == node) {
                let sampler = &clip.samplers[ch.sampler];
                let mut v = [0.0f32; 4];
                match ch.path {
                    ChannelPath::Translation => {
                        evaluate_sampler(sampler, t, 3, false, &mut v, 0);
                        local.t = glam::Vec3::from_slice(&v).as_dvec3();
                    }
                    ChannelPath::Rotation => {
                        evaluate_sampler(sampler, t, 4, true, &mut v, 0);
                        local.r = glam::Quat::from_array(v).as_dquat().normalize();
                    }
                    ChannelPath::Scale => {
                        evaluate_sampler(sampler, t, 3, false, &mut v, 0);
                        local.s = glam::Vec3::from_slice(&v).as_dvec3();
                    }
                    ChannelPath::Weights => {}
                }
            }
            world *= Trs::matrix(&local);
        }
        world.w_axis.truncate()
    }

    fn place(&self, world: DVec3) -> DVec3 {
        match self.offset {
            RootOffset::Point => self.inv_parent.transform_point3(world),
            RootOffset::BabylonNormal => self.inv_parent.transform_vector3(world),
        }
    }

    /// The root translation sampler of a retargeted clip: one key per key of the source
    /// root's translation channel, at the same times.
    pub(crate) fn rewrite(&self, source: &RestPose, clip: &Clip, sampler: &Sampler) -> Sampler {
        let cubic = sampler.interpolation() == Interpolation::CubicSpline;
        let mut out = Vec::with_capacity(sampler.output().len());
        // Tangents: d/dt of P_T⁻¹ · (r · world(t)) with the root's ancestors at rest.
        let parent_of_source =
            source.parents[self.source].map_or(DMat4::IDENTITY, |p| source.world[p]);
        for (key, &t) in sampler.input().iter().enumerate() {
            let offset = self.source_position(source, clip, t) - self.source_rest;
            let value = self.place(self.target_rest + self.ratio * offset);
            let tangent = |slot: usize| {
                let o = &sampler.output()[slot * 3..slot * 3 + 3];
                let d = glam::Vec3::from_slice(o).as_dvec3();
                self.ratio
                    * self
                        .inv_parent
                        .transform_vector3(parent_of_source.transform_vector3(d))
            };
            let slots = if cubic {
                vec![tangent(key * 3), value, tangent(key * 3 + 2)]
            } else {
                vec![value]
            };
            for s in slots {
                out.extend(s.to_array().map(|x| x as f32));
            }
        }
        Sampler::new(sampler.input().to_vec(), out, sampler.interpolation())
            .unwrap_or_else(|_| sampler.clone())
    }
}
