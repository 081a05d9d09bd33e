//! One simulation step of every joint (three-vrm's `VRMSpringBoneManager.update`), and the
//! state a character carries between steps.

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::HostLoop;
use super::SpringProfile;
use super::collide::{distance, univrm};
use super::group::LaneState;
use super::joint::Joint;
use super::probe::Probe;
use super::setup::SpringBones;
use crate::data::{NONE, R_OFF, S_OFF, T_OFF, TRS_STRIDE};
use crate::math::unit_arc::from_unit_vectors;

/// One character's spring state: each joint's tail now and a step ago (in its center's space),
/// the rotations the last step gave, and scratch matrices, all sized once by
/// [`SpringBones::new_state`] (a step allocates nothing).
#[derive(Debug, Clone)]
pub struct SpringState {
    pub(super) current_tail: Vec<Vec3A>,
    pub(super) prev_tail: Vec<Vec3A>,
    /// Per joint, the rotation the last step gave its bone.
    pub(super) rotation: Vec<Quat>,
    /// Per node: local matrices, world matrices as the step sees them, and world matrices at
    /// the end of the last step.
    pub(super) local: Vec<Affine3A>,
    pub(super) live: Vec<Affine3A>,
    pub(super) last_world: Vec<Affine3A>,
    /// Per collider, its frame this step (see `collider_frame`).
    pub(super) collider_frames: Vec<Affine3A>,
    /// Per node, the joint (in update order) whose rotation its bone keeps (`NONE`: not a
    /// spring bone); the last joint on a node wins, as in three-vrm.
    pub(super) node_joint: Vec<u32>,
    /// Per joint, whether its tail is kept in world space (relative to `origin`) rather than
    /// in a center's space.
    pub(super) world_tail: Vec<bool>,
    /// Display seconds since the state started, and the fixed steps run
    /// ([`SpringBones::advance`]).
    pub(super) elapsed: f64,
    pub(super) steps: u64,
    /// The pose of the step being taken ([`SpringBones::advance`]).
    pub(super) step_trs: Vec<f32>,
    /// The root transform of the last step.
    pub(super) last_root: Affine3A,
    /// Every world position the state keeps (tails in world space, world matrices) is kept
    /// relative to this point, the root's position at the last step: f32 then rounds at the
    /// character's scale, not the world's (a character 10 m out rounds to 1 µm, at its
    /// origin to 0.06 µm).
    pub(super) origin: Vec3A,
    pub(super) ready: bool,
    /// The colliders of the chain group being stepped (see `chain_step`).
    pub(super) probes: Vec<Probe>,
    /// Per node, whether a step places it (`SpringBones::placed`).
    placed: Vec<bool>,
    /// Per depth of the chain groups, its joints' state in lanes (see `lane_state`), and per
    /// joint where in them its state lives (`NONE`: in `current_tail`, `prev_tail` and
    /// `rotation`).
    pub(super) lanes: Vec<LaneState>,
    pub(super) joint_lane: Vec<u32>,
}

impl SpringState {
    /// The world position of the tail of joint `joint` (in update order, as
    /// [`SpringBones::joint_nodes`] lists them), in the space of its center node as the last
    /// step left it; world space for a spring without one.
    #[must_use]
    pub fn tail(&self, joint: usize) -> Option<Vec3> {
        let t = self.current_tail_of(joint)?;
        Some(
            if self.world_tail.get(joint).copied().unwrap_or(false) {
                t + self.origin
            } else {
                t
            }
            .into(),
        )
    }

    /// Node `node`'s world matrix at the end of the last step (its spring rotation applied),
    /// for the nodes a step places: those at or above a spring bone, a collider or a center,
    /// and those below a spring bone. `None` for the rest of the skeleton, which the springs
    /// never read and a step skips.
    #[must_use]
    pub fn world(&self, node: usize) -> Option<Affine3A> {
        if !*self.placed.get(node)? {
            return None;
        }
        let mut m = *self.last_world.get(node)?;
        m.translation += self.origin;
        Some(m)
    }

    /// Whether the state has been started from a pose ([`SpringBones::reset`]); a step on a
    /// state that has not starts it from the pose it is given.
    #[must_use]
    pub fn is_started(&self) -> bool {
        self.ready
    }
}

impl SpringBones {
    /// A state for one character, not yet started.
    #[must_use]
    pub fn new_state(&self) -> SpringState {
        let n = self.parent.len();
        let mut node_joint = vec![NONE; n];
        for (j, joint) in self.joints.iter().enumerate() {
            node_joint[joint.node as usize] = j as u32;
        }
        let (lanes, joint_lane) = self.new_lanes();
        SpringState {
            lanes,
            joint_lane,
            world_tail: self.joints.iter().map(|j| j.center == NONE).collect(),
            current_tail: vec![Vec3A::ZERO; self.joints.len()],
            prev_tail: vec![Vec3A::ZERO; self.joints.len()],
            rotation: self.joints.iter().map(|j| j.initial_rotation).collect(),
            local: vec![Affine3A::IDENTITY; n],
            live: vec![Affine3A::IDENTITY; n],
            last_world: vec![Affine3A::IDENTITY; n],
            collider_frames: vec![Affine3A::IDENTITY; self.colliders.len()],
            node_joint,
            elapsed: 0.0,
            steps: 0,
            step_trs: vec![0.0; n * TRS_STRIDE],
            last_root: Affine3A::IDENTITY,
            origin: Vec3A::ZERO,
            ready: false,
            placed: self.placed.clone(),
            probes: vec![
                Probe::EMPTY;
                self.groups
                    .iter()
                    .map(|g| g.max_colliders as usize)
                    .max()
                    .unwrap_or(0)
            ],
        }
    }

    /// Starts `state` at rest in the pose `trs` ([`TRS_STRIDE`] floats a node) under the root
    /// transform `root` (three-vrm's `setInitState`): every spring bone at its rest rotation,
    /// each tail where that puts it, at rest (no velocity).
    pub fn reset(&self, state: &mut SpringState, trs: &[f32], root: Affine3A) {
        for (r, joint) in state.rotation.iter_mut().zip(&self.joints) {
            *r = joint.initial_rotation;
        }
        self.locals(state, trs, false);
        state.origin = root.translation;
        let root = relative(root, state.origin);
        self.world_from_locals(&state.local, root, &mut state.last_world);
        state.live.copy_from_slice(&state.last_world);
        for (j, joint) in self.joints.iter().enumerate() {
            let bone = state.live[joint.node as usize];
            let tail = bone.transform_point3a(joint.initial_child);
            let tail = to_center(&state.live, joint.center, tail);
            state.current_tail[j] = tail;
            state.prev_tail[j] = tail;
        }
        self.lanes_from_joints(state);
        state.elapsed = 0.0;
        state.steps = 0;
        state.last_root = Affine3A {
            translation: state.origin,
            ..root
        };
        state.ready = true;
    }

    /// One step of `dt` seconds on the pose `trs` under `root` (three-vrm's
    /// `VRMSpringBoneManager.update(dt)` for one frame): every joint in update order, then the
    /// spring bones' rotations written into `trs`. `dt <= 0` changes nothing.
    pub fn step(&self, state: &mut SpringState, trs: &mut [f32], root: Affine3A, dt: f32) {
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            #[expect(
                unsafe_code,
                reason = "calls a #[target_feature] function after detection"
            )]
            // SAFETY: `wide` is true only where `SpringBones::new` found AVX2 and FMA on this
            // CPU (`is_x86_feature_detected!`); nothing else sets it (a test may clear it).
            unsafe {
                self.step_avx2(state, trs, root, dt);
            }
            return;
        }
        self.step_with(state, trs, root, dt);
    }

    /// [`Self::step_with`] compiled for AVX2 and FMA: the same operations in the same order in
    /// their three-operand (VEX) form, about an eighth fewer instructions (fewer register
    /// copies); Rust never fuses a multiply and an add unless asked, so the bits are the same
    /// (`spring::tests::lanes` compares the two builds).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[expect(
        unsafe_code,
        reason = "a #[target_feature] function: called only after run-time detection"
    )]
    unsafe fn step_avx2(&self, state: &mut SpringState, trs: &mut [f32], root: Affine3A, dt: f32) {
        self.step_with(state, trs, root, dt);
    }

    #[inline(always)]
    fn step_with(&self, state: &mut SpringState, trs: &mut [f32], root: Affine3A, dt: f32) {
        if trs.len() < self.parent.len() * TRS_STRIDE || dt.is_nan() || dt <= 0.0 {
            return;
        }
        if !state.ready {
            self.reset(state, trs, root);
        }
        if self.is_teleport(state.last_root, root) {
            self.carry(state, root * state.last_root.inverse());
        }
        state.last_root = root;
        self.move_origin(state, root.translation);
        let root = relative(root, state.origin);
        self.locals(state, trs, true);
        // The world matrices the step starts from (see HostLoop); the nodes the chain groups
        // place are theirs.
        let SpringState {
            local,
            live,
            last_world,
            ..
        } = state;
        for &i in &self.step_order {
            let i = i as usize;
            let p = self.parent[i];
            let parent = if p == NONE { root } else { live[p as usize] };
            let now = parent * local[i];
            live[i] = match self.options.host_loop {
                HostLoop::WorldCurrent => now,
                HostLoop::PreviousChild if self.below_spring[i] => last_world[i],
                HostLoop::PreviousChild => now,
            };
        }
        // The frames of colliders no joint moves, once for the step.
        for ((frame, c), &moves) in state
            .collider_frames
            .iter_mut()
            .zip(&self.colliders)
            .zip(&self.collider_moves)
        {
            if !moves {
                *frame = collider_frame(&state.live, c);
            }
        }
        self.step_groups(state, trs, root, dt);
        for &j in &self.loose_joints {
            let j = j as usize;
            self.step_joint(state, trs, j, &self.joints[j], root, dt);
        }
        self.write_rotations(state, trs);
        // Every node at or below a spring bone was brought up to date by its joint (its own
        // or the one above whose followers it is), parents first: what the step leaves is
        // the final pose's world matrices.
        state.last_world.copy_from_slice(&state.live);
    }

    /// The spring bones' rotations from the last step written into `trs`.
    pub(crate) fn write_rotations(&self, state: &SpringState, trs: &mut [f32]) {
        if trs.len() < self.parent.len() * TRS_STRIDE {
            return;
        }
        for &j in &self.loose_joints {
            let node = self.joints[j as usize].node as usize;
            if state.node_joint[node] == j {
                let j = j as usize;
                let at = node * TRS_STRIDE + R_OFF;
                trs[at..at + 4].copy_from_slice(&state.rotation[j].to_array());
            }
        }
        self.write_lane_rotations(state, trs);
    }

    /// The character's rest pose, [`TRS_STRIDE`] floats a node (what [`step`](Self::step)
    /// and [`advance`](Self::advance) take).
    #[must_use]
    pub fn rest_trs(&self) -> Vec<f32> {
        let mut trs = vec![0.0; self.rest.len() * TRS_STRIDE];
        for (record, (t, r, s)) in trs.chunks_exact_mut(TRS_STRIDE).zip(&self.rest) {
            record[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array());
            record[R_OFF..R_OFF + 4].copy_from_slice(&r.to_array());
            record[S_OFF..S_OFF + 3].copy_from_slice(&s.to_array());
        }
        trs
    }

    /// Local matrices from `trs`, each spring bone with the rotation its last step gave it:
    /// of every node, or with `step` of those a step's scalar passes read (see
    /// `SpringBones::step_locals`).
    fn locals(&self, state: &mut SpringState, trs: &[f32], step: bool) {
        if step {
            self.step_locals_in_lanes(state, trs);
        } else {
            for i in 0..state.local.len() {
                self.local(state, trs, i);
            }
        }
    }

    #[inline]
    fn local(&self, state: &mut SpringState, trs: &[f32], i: usize) {
        let at = i * TRS_STRIDE;
        let j = state.node_joint[i];
        let r = if j == NONE {
            Quat::from_slice(&trs[at + R_OFF..at + R_OFF + 4])
        } else {
            state.rotation[j as usize]
        };
        state.local[i] = Affine3A::from_scale_rotation_translation(
            Vec3::from_slice(&trs[at + S_OFF..at + S_OFF + 3]),
            r,
            Vec3::from_slice(&trs[at + T_OFF..at + T_OFF + 3]),
        );
    }

    fn world_from_locals(&self, local: &[Affine3A], root: Affine3A, world: &mut [Affine3A]) {
        for &i in &self.order {
            let i = i as usize;
            let p = self.parent[i];
            world[i] = if p == NONE { root } else { world[p as usize] } * local[i];
        }
    }

    /// three-vrm's `VRMSpringBoneJoint.update` for joint `j`, then the nodes below it.
    #[inline(always)]
    fn step_joint(
        &self,
        state: &mut SpringState,
        trs: &[f32],
        j: usize,
        joint: &Joint,
        root: Affine3A,
        dt: f32,
    ) {
        let b = joint.node as usize;
        let parent = if joint.parent == NONE {
            root
        } else {
            state.live[joint.parent as usize]
        };
        let bone = parent * state.local[b];
        state.live[b] = bone;
        let pos = bone.translation;
        let child = if joint.child == NONE {
            bone.transform_point3a(joint.initial_child)
        } else {
            state.live[joint.child as usize].translation
        };
        let length = match self.options.profile {
            SpringProfile::ThreeVrm => (pos - child).length(),
            SpringProfile::UniVrm => joint.rest_length,
        };
        let axis = (parent.matrix3 * joint.rest_axis).normalize_or_zero();
        let (current, prev) = (state.current_tail[j], state.prev_tail[j]);
        let inertia = current + (current - prev) * (1.0 - joint.drag);
        let mut next = from_center(&state.live, joint.center, inertia)
            + axis * (joint.stiffness * dt)
            + joint.gravity * dt;
        next = pos + (next - pos).normalize_or_zero() * length;
        for &c in &self.joint_colliders[joint.colliders.0 as usize..joint.colliders.1 as usize] {
            let collider = &self.colliders[c as usize];
            let m = if self.collider_moves[c as usize] {
                collider_frame(&state.live, collider)
            } else {
                state.collider_frames[c as usize]
            };
            if self.options.profile == SpringProfile::UniVrm {
                if let Some((moved, restore)) =
                    univrm(&collider.shape, &m, pos, next, joint.hit_radius)
                {
                    next = moved;
                    if restore {
                        next = pos + (next - pos).normalize_or_zero() * length;
                    }
                }
                continue;
            }
            let (d, push) = distance(&collider.shape, &m, next, joint.hit_radius);
            if d < 0.0 {
                next += push * -d;
                let out = next - pos;
                let l = out.length();
                if l > 0.0 {
                    next = pos + out * (length / l);
                }
            }
        }
        state.prev_tail[j] = current;
        state.current_tail[j] = to_center(&state.live, joint.center, next);
        // The turn from the rest direction to the new tail, in the bone's rest frame.
        let in_parent = parent.matrix3.inverse() * (next - parent.translation);
        let to = joint
            .inverse_local
            .transform_point3a(in_parent)
            .normalize_or_zero();
        let q = joint.initial_rotation * from_unit_vectors(joint.bone_axis, to);
        state.rotation[j] = q;
        let at = b * TRS_STRIDE;
        state.local[b] = Affine3A::from_scale_rotation_translation(
            Vec3::from_slice(&trs[at + S_OFF..at + S_OFF + 3]),
            q,
            Vec3::from_slice(&trs[at + T_OFF..at + T_OFF + 3]),
        );
        state.live[b] = parent * state.local[b];
        for &f in &self.follow[joint.follow.0 as usize..joint.follow.1 as usize] {
            let f = f as usize;
            state.live[f] = state.live[self.parent[f] as usize] * state.local[f];
        }
    }
}

/// A collider's frame: its node's world matrix with the translation at the shape's offset
/// (three-vrm's `colliderMatrix`).
#[inline]
fn collider_frame(live: &[Affine3A], collider: &super::joint::Collider) -> Affine3A {
    let mut m = live[collider.node as usize];
    m.translation = m.transform_point3a(Vec3A::from(collider.shape.offset()));
    m
}

/// `root` with `origin` taken off its translation.
#[inline]
fn relative(root: Affine3A, origin: Vec3A) -> Affine3A {
    Affine3A {
        translation: root.translation - origin,
        ..root
    }
}

/// A point from `center`'s space to world space (`NONE`: world space already).
#[inline]
fn from_center(live: &[Affine3A], center: u32, p: Vec3A) -> Vec3A {
    if center == NONE {
        p
    } else {
        live[center as usize].transform_point3a(p)
    }
}

/// A world point into `center`'s space.
#[inline]
fn to_center(live: &[Affine3A], center: u32, p: Vec3A) -> Vec3A {
    if center == NONE {
        p
    } else {
        live[center as usize].inverse().transform_point3a(p)
    }
}
