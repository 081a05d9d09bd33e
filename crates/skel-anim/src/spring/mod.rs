//! Spring bones: hair, tails and skirts that swing with the character (VRM's
//! `VRMC_springBone`, VRM 0.x's `secondaryAnimation`), as a pose operation after the graph and
//! IK, before skinning.
//!
//! # The rule (three-vrm's, [`SpringProfile::ThreeVrm`])
//!
//! Each joint is a bone with a tail point (its child node, or 7 cm along its own offset for VRM
//! 0.x's leaves). A step of `dt` seconds moves each tail, in update order (a joint after the
//! joints above it and above its colliders):
//!
//! 1. **Inertia**: `next = cur + (cur − prev)(1 − drag)`, kept in the space of the spring's
//!    center node (so that the center's own motion does not swing the chain), then carried to
//!    world space;
//! 2. **stiffness** pulls it along the bone's rest direction under its parent's current frame,
//!    `stiffness · dt`, and **gravity** adds `gravity_dir · gravity_power · dt`;
//! 3. **length**: the tail is put back at the bone's world length from the bone;
//! 4. **colliders** (spheres, capsules, planes; `inside` variants keep the tail in) push it out
//!    by the overlap, and the length is restored after each;
//! 5. the bone turns from its rest rotation by the shortest arc that points its rest tail
//!    direction at the new tail; the nodes below it follow.
//!
//! The inertia term is not scaled by `dt`: stepped at the display rate, the same motion swings
//! differently at 30 and at 144 Hz. [`SpringBones::advance`] therefore steps at a fixed rate
//! ([`SpringOptions::step`], 1/60 s by default) with an accumulator, sampling the character's
//! pose at each step's own instant: any display rate whose frames land on the same instants
//! runs the same steps on the same poses.
//!
//! # Teleports
//!
//! A root that jumps (a respawn, a root-motion clip looping back) would drag every chain
//! across the jump. A step whose root moved farther than [`SpringOptions::teleport_distance`]
//! or turned more than [`SpringOptions::teleport_angle`] since the last step first moves the
//! whole spring state rigidly with it; a caller that knows of a jump the root transform does
//! not show (a character's root node moved by its clip) calls [`SpringBones::carry`].
//!
//! # The host loop ([`HostLoop`])
//!
//! A joint measures its bone's length to its child's world position. three-vrm reads that
//! position from the child's world matrix as it stands, which depends on the application's
//! loop: in three-vrm's examples (move, `vrm.update`, render) it is the previous frame's, so a
//! moving character's bones are measured against where their children were (tens of
//! millimetres of difference at walking speed); where world matrices are made current first (an
//! ECS's order) it is this frame's. Both are offered; [`HostLoop::WorldCurrent`] is the
//! default.
//!
//! ```
//! use glam::Affine3A;
//! use skel_anim::NodeRest;
//! use skel_anim::spring::{SpringBones, SpringBonesDesc, SpringDesc, SpringJointDesc, SpringOptions};
//!
//! // A root with a three-bone tail sticking out along +x, 10 cm a bone.
//! let mut nodes = vec![NodeRest::new("root", None)];
//! for i in 1..4 {
//!     let mut bone = NodeRest::new(format!("tail{i}"), Some(i - 1));
//!     bone.translation = [if i == 1 { 0.0 } else { 0.1 }, 0.0, 0.0];
//!     nodes.push(bone);
//! }
//! let mut end = NodeRest::new("tip", Some(3));
//! end.translation = [0.1, 0.0, 0.0];
//! nodes.push(end);
//! let joints = (1..4)
//!     .map(|i| SpringJointDesc {
//!         stiffness: Some(0.0),
//!         gravity_power: Some(1.0),
//!         ..SpringJointDesc::new(i, Some(i + 1))
//!     })
//!     .collect();
//! let desc = SpringBonesDesc {
//!     springs: vec![SpringDesc { joints, ..SpringDesc::default() }],
//!     ..SpringBonesDesc::default()
//! };
//! let springs = SpringBones::new(&desc, &nodes, SpringOptions::default())?;
//! let mut state = springs.new_state();
//! let rest = springs.rest_trs();
//! let mut pose = rest.clone();
//! // Two seconds at 144 Hz: the tail falls until it hangs straight down.
//! for _ in 0..288 {
//!     springs.advance(&mut state, &mut pose, 1.0 / 144.0, |_, trs| {
//!         trs.copy_from_slice(&rest);
//!         Affine3A::IDENTITY
//!     });
//! }
//! let tip = state.world(4).unwrap().translation;
//! assert!((tip - glam::Vec3A::new(0.0, -0.3, 0.0)).length() < 0.01, "{tip}");
//! # Ok::<(), skel_anim::AnimError>(())
//! ```

mod carry;
mod chain_step;
mod chains;
mod collide;
mod compose;
mod crowd;
mod desc;
mod group;
mod joint;
mod lane_state;
mod lanes;
mod order;
mod probe;
mod setup;
mod step;
#[cfg(test)]
mod tests;

use glam::Affine3A;

pub use crowd::SpringCharacter;
pub use desc::{ColliderDesc, ColliderShape, SpringBonesDesc, SpringDesc, SpringJointDesc};
pub use setup::SpringBones;
pub use step::SpringState;

/// Whose rule the springs follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SpringProfile {
    /// three-vrm 3.5 (`@pixiv/three-vrm`): the reference. A drag a file leaves out is 0.4.
    #[default]
    ThreeVrm,
    /// UniVRM 0.13x's jobs (`UpdateFastSpringBoneJob`), where it differs from three-vrm:
    /// - a drag a file leaves out is 0.5 (the specification's default);
    /// - each bone's length is fixed at rest (the tail's offset times the tail node's world
    ///   scale), not measured every step;
    /// - an outside sphere's or capsule's radius grows with its node's largest scale;
    /// - a capsule tests the tail against the axis point nearest the bone's **head** (three-vrm:
    ///   nearest the tail);
    /// - inside shapes and planes push the tail out by the overlap without restoring the bone
    ///   length (outside shapes put it on the surface and restore it, as three-vrm does);
    /// - a plane's normal is carried as a direction by the node's matrix (three-vrm: by its
    ///   inverse transpose; the same for rotations and uniform scale).
    ///
    /// Not modelled: UniVRM's runtime-scaling option (stiffness and gravity times the head's
    /// scale, off by default) and its external force.
    UniVrm,
}

/// Which world matrices a joint measures its bone against (see [the module](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostLoop {
    /// World matrices current before the springs step (an ECS's order: transforms propagated,
    /// then springs): each bone is measured against where its child is now.
    #[default]
    WorldCurrent,
    /// three-vrm's examples' loop (move, `vrm.update`, render): nodes at and below spring bones
    /// keep the previous step's world matrices until a joint above them turns.
    PreviousChild,
}

/// How spring bones step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringOptions {
    /// Whose rule.
    pub profile: SpringProfile,
    /// Which world matrices a joint reads.
    pub host_loop: HostLoop,
    /// The fixed step of [`SpringBones::advance`], seconds (default 1/60).
    pub step: f32,
    /// The most steps one [`SpringBones::advance`] runs (default 8): a longer hitch drops the
    /// time past them instead of stalling the frame.
    pub max_steps: u32,
    /// A root that moves farther than this in one step (world units; default 1) is taken
    /// as a teleport: the spring state moves with it ([`SpringBones::carry`]) instead of the
    /// chains swinging across the distance.
    pub teleport_distance: f32,
    /// Likewise for a root that turns by more than this in one step (radians; default π/2).
    pub teleport_angle: f32,
}

impl Default for SpringOptions {
    fn default() -> Self {
        Self {
            profile: SpringProfile::ThreeVrm,
            host_loop: HostLoop::WorldCurrent,
            step: 1.0 / 60.0,
            max_steps: 8,
            teleport_distance: 1.0,
            teleport_angle: std::f32::consts::FRAC_PI_2,
        }
    }
}

impl SpringBones {
    /// Advances `dt` seconds of display time: runs each fixed step
    /// ([`SpringOptions::step`]) that falls due, on the pose `pose_at` writes for that step's
    /// instant (seconds since the state started, `k · step` exactly; it returns the root's
    /// world transform there), then writes the last step's spring rotations into `trs`, the
    /// frame's pose. Returns the steps run. A state not yet started is started from
    /// `pose_at(0)`.
    ///
    /// A frame between two steps shows the earlier one's rotations.
    pub fn advance(
        &self,
        state: &mut SpringState,
        trs: &mut [f32],
        dt: f32,
        mut pose_at: impl FnMut(f64, &mut [f32]) -> Affine3A,
    ) -> u32 {
        let h = f64::from(self.options.step);
        if !dt.is_finite() || dt < 0.0 || h.is_nan() || h <= 0.0 {
            return 0;
        }
        let mut scratch = std::mem::take(&mut state.step_trs);
        if !state.ready {
            let root = pose_at(0.0, &mut scratch);
            self.reset(state, &scratch, root);
        }
        state.elapsed += f64::from(dt);
        let mut run = 0;
        // A step is due once the display time reaches its instant (a microsecond's slack, so
        // that frames landing on the same instants by different sums run the same steps).
        while (state.steps + 1) as f64 * h <= state.elapsed + 1e-6 {
            if run == self.options.max_steps {
                // A hitch: skip the steps past the limit, keeping the phase.
                let behind = ((state.elapsed + 1e-6) / h).floor() as u64 - state.steps;
                state.steps += behind;
                break;
            }
            state.steps += 1;
            let root = pose_at(state.steps as f64 * h, &mut scratch);
            #[expect(clippy::cast_possible_truncation, reason = "the step, an f32 setting")]
            self.step(state, &mut scratch, root, h as f32);
            run += 1;
        }
        state.step_trs = scratch;
        self.write_rotations(state, trs);
        run
    }

    /// Display seconds from the state's time to its next fixed step (0 when it is due, or
    /// when the state has not started).
    pub(crate) fn until_next_step(&self, state: &SpringState) -> f64 {
        if !state.ready {
            return 0.0;
        }
        let h = f64::from(self.options.step);
        ((state.steps + 1) as f64 * h - state.elapsed).max(0.0)
    }

    /// The state's display time moves on by `dt` seconds without a step.
    pub(crate) fn pass_time(&self, state: &mut SpringState, dt: f64) {
        state.elapsed += dt;
    }

    /// Skips the steps already due (a hitch past [`SpringOptions::max_steps`](super::SpringOptions::max_steps)), keeping
    /// the phase.
    pub(crate) fn skip_due(&self, state: &mut SpringState) {
        let h = f64::from(self.options.step);
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a step count"
        )]
        let due = ((state.elapsed + 1e-6) / h).floor().max(0.0) as u64;
        state.steps = state.steps.max(due);
    }

    /// Runs the next fixed step on the pose `trs` (its instant's) under `root`.
    pub(crate) fn step_due(&self, state: &mut SpringState, trs: &mut [f32], root: Affine3A) {
        let h = self.options.step;
        self.step(state, trs, root, h);
        state.steps += 1;
        state.elapsed = state.elapsed.max(state.steps as f64 * f64::from(h));
    }
}
