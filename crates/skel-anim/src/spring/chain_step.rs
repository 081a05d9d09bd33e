//! The step of the chains that run in lanes (see `chains`): three-vrm's joint update
//! (`VRMSpringBoneJoint.update`), four chains a batch, one depth after another, with every
//! operation the scalar step's in the same order (see `lanes`).

use glam::{Affine3A, BVec4A, Vec3, Vec3A, Vec4};

use super::HostLoop;
use super::desc::ColliderShape;
use super::group::{Depth, Group, LaneState};
use super::lanes::{A3, Q, V3, each};
use super::probe::{Probe, collide};
use super::setup::SpringBones;
use super::step::SpringState;
use crate::data::{NONE, S_OFF, T_OFF, TRS_STRIDE};

/// A depth's bones as the pose and the last step leave them: translation, scale, the last
/// step's rotation, and the local matrix they make.
#[derive(Clone, Copy)]
struct Local {
    t: V3,
    s: V3,
    matrix: A3,
}

impl SpringBones {
    /// Steps every group of chains (before the joints stepped one by one; see `chains`).
    #[inline(always)]
    pub(super) fn step_groups(
        &self,
        state: &mut SpringState,
        trs: &[f32],
        root: Affine3A,
        dt: f32,
    ) {
        for g in &self.groups {
            self.step_group(g, state, trs, root, dt);
        }
    }

    #[inline(always)]
    fn step_group(&self, g: &Group, state: &mut SpringState, trs: &[f32], root: Affine3A, dt: f32) {
        let live_or_root = |p: u32| {
            if p == NONE {
                root
            } else {
                state.live[p as usize]
            }
        };
        let mut parent = A3::gather(each(|i| live_or_root(g.root_parent[i])));
        let centers = g.any_center.then(|| {
            let c = each(|i| {
                let c = g.center[i];
                if c == NONE {
                    Affine3A::IDENTITY
                } else {
                    state.live[c as usize]
                }
            });
            (A3::gather(c), A3::gather(each(|i| c[i].inverse())))
        });
        let colliders = g.max_colliders as usize;
        for k in 0..colliders {
            state.probes[k] = self.probe(g, k, &state.collider_frames);
        }
        let world_current = self.options.host_loop == HostLoop::WorldCurrent;
        let dt = Vec4::splat(dt);
        let (first, end) = (g.depths.0 as usize, g.depths.1 as usize);
        let mut here = local(&self.depths[first], trs, &state.lanes[first].rotation);
        // The bone's world matrix as the step starts (what its tail node's position is read
        // from, see HostLoop).
        let mut start = parent.mul(&here.matrix);
        for d in first..end {
            let k = &self.depths[d];
            let next = if d + 1 < end {
                Some(local(
                    &self.depths[d + 1],
                    trs,
                    &state.lanes[d + 1].rotation,
                ))
            } else {
                None
            };
            let start_next = next.as_ref().map(|n| start.mul(&n.matrix));
            let pos = parent.transform_point(here.t);
            let mut child = if world_current {
                // A tail node below the bone (the next depth's bone, or past the chain's end
                // a node the chain does not turn), where the step starts.
                let below = || {
                    let t = V3::gather4(each(|i| {
                        let c = if k.child[i] == NONE {
                            k.node[i]
                        } else {
                            k.child[i]
                        };
                        four(trs, c as usize * TRS_STRIDE + T_OFF)
                    }));
                    start.transform_point(t)
                };
                match start_next {
                    Some(s) if k.all_next => s.t,
                    Some(s) => V3::select(k.has_next, s.t, below()),
                    None => below(),
                }
            } else {
                V3::gather(each(|i| {
                    let c = if k.child[i] == NONE {
                        k.node[i]
                    } else {
                        k.child[i]
                    };
                    state.last_world[c as usize].translation
                }))
            };
            if g.any_childless {
                let bone = parent.mul(&here.matrix);
                child = V3::select(k.has_child, child, bone.transform_point(k.initial_child));
            }
            let length = (pos - child).length();
            let axis = parent.m.mul_vec(k.rest_axis).normalize_or_zero();
            let LaneState { current, prev, .. } = state.lanes[d];
            let mut inertia = current + (current - prev) * (Vec4::ONE - k.drag);
            if let Some((center, _)) = &centers {
                inertia = V3::select(g.has_center, center.transform_point(inertia), inertia);
            }
            let mut tail = inertia + axis * (k.stiffness * dt) + k.gravity * dt;
            tail = pos + (tail - pos).normalize_or_zero() * length;
            for probe in &state.probes[..colliders] {
                tail = collide(probe, pos, tail, length, k.hit_radius);
            }
            let kept = match &centers {
                Some((_, inverse)) => V3::select(g.has_center, inverse.transform_point(tail), tail),
                None => tail,
            };
            // The turn from the rest direction to the new tail, in the bone's rest frame.
            let in_parent = parent.m.inverse().mul_vec(tail - parent.t);
            let to = k
                .inverse_local
                .transform_point(in_parent)
                .normalize_or_zero();
            let q = k
                .initial_rotation
                .mul(Q::from_unit_vectors(k.bone_axis, to));
            let world = parent.mul(&A3::from_scale_rotation_translation(here.s, q, here.t));
            state.lanes[d] = LaneState {
                current: kept,
                prev: current,
                rotation: q,
            };
            for (i, &bone) in world.scatter().iter().enumerate() {
                if !k.active[i] {
                    continue;
                }
                let j = k.joint[i] as usize;
                state.live[k.node[i] as usize] = bone;
                if !k.has_next.test(i) {
                    let (a, b) = self.joints[j].follow;
                    for &f in &self.follow[a as usize..b as usize] {
                        let f = f as usize;
                        state.live[f] = state.live[self.parent[f] as usize] * state.local[f];
                    }
                }
            }
            parent = world;
            if let (Some(n), Some(s)) = (next, start_next) {
                here = n;
                start = s;
            }
        }
    }

    /// Collider `k` of each lane's chain (inactive past a chain's colliders).
    #[inline(always)]
    fn probe(&self, g: &Group, k: usize, frames: &[Affine3A]) -> Probe {
        let mut head = [Vec3A::ZERO; 4];
        let mut axis = [Vec3A::ZERO; 4];
        let (mut radius, mut inside, mut active) = ([0.0; 4], [false; 4], [false; 4]);
        let mut capsule = [false; 4];
        for i in 0..4 {
            let (a, b) = g.colliders[i];
            if a as usize + k >= b as usize {
                continue;
            }
            let c = self.joint_colliders[a as usize + k] as usize;
            let m = frames[c];
            head[i] = m.translation;
            active[i] = true;
            match self.colliders[c].shape {
                ColliderShape::Sphere {
                    radius: r,
                    inside: n,
                    ..
                } => (radius[i], inside[i]) = (r, n),
                ColliderShape::Capsule {
                    offset,
                    tail,
                    radius: r,
                    inside: n,
                } => {
                    axis[i] = m.matrix3 * Vec3A::from(tail - offset);
                    (radius[i], inside[i], capsule[i]) = (r, n, true);
                }
                // Chains with planes are not batched (see `chains`).
                ColliderShape::Plane { .. } => active[i] = false,
            }
        }
        let axis = V3::gather(axis);
        Probe {
            head: V3::gather(head),
            axis,
            along: axis.dot(axis),
            capsule: capsule.iter().any(|&c| c),
            radius: Vec4::from_array(radius),
            inside: BVec4A::from_array(inside),
            active: BVec4A::from_array(active),
        }
    }
}

/// A depth's local matrices from the pose and the last step's rotations.
#[inline(always)]
fn local(k: &Depth, trs: &[f32], rotation: &Q) -> Local {
    let t = V3::gather4(each(|i| four(trs, k.node[i] as usize * TRS_STRIDE + T_OFF)));
    let s = V3::gather4(each(|i| four(trs, k.node[i] as usize * TRS_STRIDE + S_OFF)));
    let q = *rotation;
    Local {
        t,
        s,
        matrix: A3::from_scale_rotation_translation(s, q, t),
    }
}

/// The three floats at `at` and whatever follows them (zero past the end).
#[inline(always)]
fn four(trs: &[f32], at: usize) -> Vec4 {
    match trs.get(at..at + 4) {
        Some(f) => Vec4::from_slice(f),
        None => Vec3::from_slice(&trs[at..at + 3]).extend(0.0),
    }
}
