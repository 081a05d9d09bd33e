//! [`SpringBones`] made from a [`SpringBonesDesc`] and the character's nodes: the settings
//! resolved by the profile, each joint's rest frame, and the order joints are updated in
//! (three-vrm's: a joint after every joint on its parents' and its colliders' ancestors).

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::desc::{ColliderShape, SpringBonesDesc, SpringJointDesc};
use super::group::{Depth, Group};
use super::joint::{Collider, Joint};
use super::order::update_order;
use super::{SpringOptions, SpringProfile};
use crate::data::NONE;
use crate::{AnimError, NodeRest};

/// The spring bones of one character (see [the module](super)): made once, stepped with a
/// [`SpringState`](super::SpringState) per character.
#[derive(Debug, Clone)]
pub struct SpringBones {
    pub(super) options: SpringOptions,
    /// Per node: its parent (`NONE` for roots) and rest transform.
    pub(super) parent: Vec<u32>,
    pub(super) rest: Vec<(Vec3, Quat, Vec3)>,
    /// Nodes, parents first.
    pub(super) order: Vec<u32>,
    /// Per node: whether it is a spring bone or lies below one (three-vrm leaves those
    /// nodes' world matrices as the last frame left them until a joint above them turns).
    pub(super) below_spring: Vec<bool>,
    /// Joints in update order.
    pub(super) joints: Vec<Joint>,
    pub(super) colliders: Vec<Collider>,
    /// Per collider: whether its node lies at or below a spring bone (its frame then changes
    /// within a step; the others' frames are placed once a step).
    pub(super) collider_moves: Vec<bool>,
    pub(super) joint_colliders: Vec<u32>,
    pub(super) follow: Vec<u32>,
    /// The chains stepped four at a time (see `chains`), their depths, and the joints and
    /// nodes they cover.
    pub(super) groups: Vec<Group>,
    pub(super) depths: Vec<Depth>,
    pub(super) grouped_joint: Vec<bool>,
    pub(super) grouped_node: Vec<bool>,
    /// Per node: whether a step places it: at or above a spring bone, a collider or a center,
    /// or below a spring bone. The rest of the skeleton (legs, arms without springs) is not
    /// read by any joint, and a step skips it.
    pub(super) placed: Vec<bool>,
    /// The nodes the scalar passes of a step place, parents first (placed and not in a chain
    /// group), and those whose local matrices they make (also the nodes below a group's
    /// chains, which its last joints bring up to date).
    pub(super) step_order: Vec<u32>,
    pub(super) step_locals: Vec<u32>,
    /// The joints not in a chain group, in update order: those the scalar passes of a step
    /// visit (a grouped joint's state lives in lanes, see `lane_state`).
    pub(super) loose_joints: Vec<u32>,
    /// Whether this CPU runs AVX2 and FMA: the step is then the same code compiled for them
    /// (see `SpringBones::step`), chosen once here, never per step.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(dead_code, reason = "read by the x86_64 step only")
    )]
    pub(super) wide: bool,
}

impl SpringBones {
    /// Springs `desc` on the nodes `nodes` (a character's rest hierarchy, as
    /// [`AnimationData::nodes`](crate::AnimationData) holds it).
    ///
    /// # Errors
    ///
    /// [`AnimError::BadNode`] for a joint, child, center or collider node out of range,
    /// [`AnimError::BadSpring`] for a collider or group index out of range or a joint whose
    /// child is not below it, [`AnimError::NotFiniteValue`] for a setting that is not finite.
    pub fn new(
        desc: &SpringBonesDesc,
        nodes: &[NodeRest],
        options: SpringOptions,
    ) -> Result<Self, AnimError> {
        let n = nodes.len();
        let node_ok = |node: usize, what: &'static str| {
            if node < n {
                Ok(node)
            } else {
                Err(AnimError::BadSpring {
                    reason: format!("{what} node {node}: the character has {n} nodes"),
                })
            }
        };
        let parent: Vec<u32> = nodes
            .iter()
            .map(|node| node.parent.map_or(NONE, |p| p as u32))
            .collect();
        let order: Vec<u32> = crate::compute_topo_order(nodes)?
            .into_iter()
            .map(|i| i as u32)
            .collect();
        let rest: Vec<(Vec3, Quat, Vec3)> = nodes
            .iter()
            .map(|node| {
                (
                    Vec3::from(node.translation),
                    Quat::from_array(node.rotation),
                    Vec3::from(node.scale),
                )
            })
            .collect();
        let mut colliders = Vec::with_capacity(desc.colliders.len());
        for (i, c) in desc.colliders.iter().enumerate() {
            node_ok(c.node, "collider")?;
            check_shape(i, &c.shape)?;
            colliders.push(Collider {
                node: c.node as u32,
                shape: c.shape,
            });
        }
        for (g, group) in desc.collider_groups.iter().enumerate() {
            if let Some(&c) = group.iter().find(|&&c| c >= colliders.len()) {
                return Err(AnimError::BadSpring {
                    reason: format!(
                        "collider group {g} names collider {c} of {}",
                        colliders.len()
                    ),
                });
            }
        }
        // Joints in the order they are added (springs, then joints, as the file lists them).
        let mut added = Vec::new();
        let mut joint_colliders = Vec::new();
        for (s, spring) in desc.springs.iter().enumerate() {
            let center = match spring.center {
                Some(c) => node_ok(c, "center")? as u32,
                None => NONE,
            };
            // The spring's colliders in group order; a collider in two groups is tested twice,
            // as three-vrm tests it.
            let first = joint_colliders.len() as u32;
            for &g in &spring.collider_groups {
                let group = desc
                    .collider_groups
                    .get(g)
                    .ok_or_else(|| AnimError::BadSpring {
                        reason: format!(
                            "spring {s} names collider group {g} of {}",
                            desc.collider_groups.len()
                        ),
                    })?;
                joint_colliders.extend(group.iter().map(|&c| c as u32));
            }
            let range = (first, joint_colliders.len() as u32);
            for joint in &spring.joints {
                added.push(make_joint(
                    joint, nodes, &parent, &rest, center, range, options,
                )?);
            }
        }
        let mut joints = update_order(added, &parent, &colliders, &joint_colliders);
        // UniVRM's fixed lengths: the tail's offset times its node's world scale at rest.
        let mut world = vec![Affine3A::IDENTITY; n];
        for &i in &order {
            let (t, r, s) = rest[i as usize];
            let local = Affine3A::from_scale_rotation_translation(s, r, t);
            let p = parent[i as usize];
            world[i as usize] = if p == NONE {
                local
            } else {
                world[p as usize] * local
            };
        }
        let scale = |m: &Affine3A| {
            Vec3A::new(
                m.matrix3.x_axis.length(),
                m.matrix3.y_axis.length(),
                m.matrix3.z_axis.length(),
            )
        };
        for joint in &mut joints {
            let tail_scale = if joint.child == NONE {
                scale(&world[joint.node as usize])
            } else {
                scale(&world[joint.child as usize])
            };
            joint.rest_length = (joint.initial_child * tail_scale).length();
        }
        let mut spring_node = vec![false; n];
        for j in &joints {
            spring_node[j.node as usize] = true;
        }
        let mut below_spring = vec![false; n];
        for &i in &order {
            let p = parent[i as usize];
            below_spring[i as usize] =
                spring_node[i as usize] || (p != NONE && below_spring[p as usize]);
        }
        let collider_moves = colliders
            .iter()
            .map(|c| below_spring[c.node as usize])
            .collect();
        let mut bones = Self {
            options,
            parent,
            rest,
            order,
            below_spring,
            joints,
            colliders,
            collider_moves,
            joint_colliders,
            follow: Vec::new(),
            groups: Vec::new(),
            depths: Vec::new(),
            grouped_joint: Vec::new(),
            grouped_node: Vec::new(),
            placed: Vec::new(),
            step_order: Vec::new(),
            step_locals: Vec::new(),
            loose_joints: Vec::new(),
            wide: wide_cpu(),
        };
        bones.placed = bones.placed_nodes();
        bones.follow_lists(&spring_node);
        bones.set_lanes(true);
        Ok(bones)
    }

    /// See [`Self::placed`].
    fn placed_nodes(&self) -> Vec<bool> {
        let mut placed = self.below_spring.clone();
        let mut mark = |mut at: u32| {
            while at != NONE && !placed[at as usize] {
                placed[at as usize] = true;
                at = self.parent[at as usize];
            }
        };
        for joint in &self.joints {
            mark(joint.parent);
            mark(joint.center);
        }
        for collider in &self.colliders {
            mark(collider.node);
        }
        // Ancestors of the spring bones themselves (marking stopped at them above).
        for (i, &below) in self.below_spring.iter().enumerate() {
            if below {
                mark(self.parent[i]);
            }
        }
        placed
    }

    /// Each joint's nodes to bring up to date after it turns: its descendants, parents first,
    /// not entering spring bones (three-vrm's `traverseChildrenUntilConditionMet`).
    fn follow_lists(&mut self, spring_node: &[bool]) {
        let n = self.parent.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &i in &self.order {
            let p = self.parent[i as usize];
            if p != NONE {
                children[p as usize].push(i);
            }
        }
        let mut follow = Vec::new();
        let mut stack = Vec::new();
        for joint in &mut self.joints {
            let first = follow.len() as u32;
            stack.clear();
            stack.extend(children[joint.node as usize].iter().rev());
            while let Some(c) = stack.pop() {
                if spring_node[c as usize] {
                    continue;
                }
                follow.push(c);
                stack.extend(children[c as usize].iter().rev());
            }
            joint.follow = (first, follow.len() as u32);
        }
        self.follow = follow;
    }

    /// The joints' nodes in update order.
    pub fn joint_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.joints.iter().map(|j| j.node as usize)
    }

    /// How many nodes the character has.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.parent.len()
    }

    /// The options it was made with.
    #[must_use]
    pub fn options(&self) -> &SpringOptions {
        &self.options
    }
}

fn check_shape(i: usize, shape: &ColliderShape) -> Result<(), AnimError> {
    let (points, radius): ([Vec3; 2], f32) = match *shape {
        ColliderShape::Sphere { offset, radius, .. } => ([offset, offset], radius),
        ColliderShape::Capsule {
            offset,
            tail,
            radius,
            ..
        } => ([offset, tail], radius),
        ColliderShape::Plane { offset, normal } => ([offset, normal], 0.0),
    };
    if points.iter().all(|p| p.is_finite()) && radius.is_finite() {
        Ok(())
    } else {
        Err(AnimError::BadSpring {
            reason: format!("collider {i} has a value that is not finite"),
        })
    }
}

/// One joint with its settings resolved and its rest frame.
fn make_joint(
    desc: &SpringJointDesc,
    nodes: &[NodeRest],
    parent: &[u32],
    rest: &[(Vec3, Quat, Vec3)],
    center: u32,
    colliders: (u32, u32),
    options: SpringOptions,
) -> Result<Joint, AnimError> {
    let n = nodes.len();
    if desc.node >= n {
        return Err(AnimError::BadSpring {
            reason: format!("joint node {}: the character has {n} nodes", desc.node),
        });
    }
    let defaults = options.profile.defaults();
    let hit_radius = desc.hit_radius.unwrap_or(defaults.hit_radius);
    let stiffness = desc.stiffness.unwrap_or(defaults.stiffness);
    let gravity_power = desc.gravity_power.unwrap_or(defaults.gravity_power);
    let gravity_dir = desc.gravity_dir.unwrap_or(defaults.gravity_dir);
    let drag = desc.drag_force.unwrap_or(defaults.drag_force);
    for (what, v) in [
        ("spring hit radius", hit_radius),
        ("spring stiffness", stiffness),
        ("spring gravity power", gravity_power),
        ("spring drag force", drag),
    ] {
        crate::ik::finite1(what, v)?;
    }
    crate::ik::finite3("spring gravity direction", gravity_dir)?;
    let (t, r, s) = rest[desc.node];
    let initial_local = Affine3A::from_scale_rotation_translation(s, r, t);
    let initial_child = match desc.child {
        Some(c) if c >= n => {
            return Err(AnimError::BadSpring {
                reason: format!("joint child node {c}: the character has {n} nodes"),
            });
        }
        Some(c) if parent[c] != desc.node as u32 => {
            return Err(AnimError::BadSpring {
                reason: format!("joint node {}: node {c} is not its child", desc.node),
            });
        }
        Some(c) => Vec3A::from(rest[c].0),
        // 7 cm along the bone's own offset from its parent (three-vrm's VRM 0.x leaves).
        None => Vec3A::from(t).normalize_or_zero() * 0.07,
    };
    Ok(Joint {
        node: desc.node as u32,
        parent: parent[desc.node],
        child: desc.child.map_or(NONE, |c| c as u32),
        center,
        hit_radius,
        stiffness,
        gravity: Vec3A::from(gravity_dir) * gravity_power,
        drag,
        initial_child,
        rest_length: 0.0,
        bone_axis: initial_child.normalize_or_zero(),
        rest_axis: (initial_local.matrix3 * initial_child.normalize_or_zero()).normalize_or_zero(),
        inverse_local: initial_local.inverse(),
        initial_rotation: r,
        colliders,
        follow: (0, 0),
    })
}

impl SpringProfile {
    /// What a setting a file leaves out is.
    pub(super) fn defaults(self) -> Defaults {
        match self {
            // VRMSpringBoneJoint's constructor (three-vrm 3.5).
            Self::ThreeVrm => Defaults {
                hit_radius: 0.0,
                stiffness: 1.0,
                gravity_power: 0.0,
                gravity_dir: Vec3::NEG_Y,
                drag_force: 0.4,
            },
            // The specification's defaults, which UniVRM's importer applies (drag 0.5).
            Self::UniVrm => Defaults {
                hit_radius: 0.0,
                stiffness: 1.0,
                gravity_power: 0.0,
                gravity_dir: Vec3::NEG_Y,
                drag_force: 0.5,
            },
        }
    }
}

/// The settings a profile gives where a file is silent.
pub(super) struct Defaults {
    hit_radius: f32,
    stiffness: f32,
    gravity_power: f32,
    gravity_dir: Vec3,
    drag_force: f32,
}

/// Whether the step's AVX2 build runs on this CPU (x86-64 with AVX2 and FMA).
fn wide_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
