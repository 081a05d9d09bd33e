//! Moving a character's spring state with its root: a teleport (or a jump the caller
//! reports) carries the whole state rigidly, and every step moves the point the state's
//! positions are kept relative to (see `SpringState::origin`).

use glam::{Affine3A, Vec3A};

use super::setup::SpringBones;
use super::step::SpringState;
use crate::data::NONE;

impl SpringBones {
    /// Moves the whole spring state rigidly by `motion` (a world transform applied after the
    /// state's): the tails of springs kept in world space and the last step's world matrices.
    /// For a jump the next step's root transform does not show by itself (see
    /// [the module](super)); a step's own root jumps past the teleport thresholds are carried
    /// already. Tails kept in a center's space move with that center.
    pub fn carry(&self, state: &mut SpringState, motion: Affine3A) {
        // The same motion on positions kept relative to the origin.
        let origin = state.origin;
        let motion_here = Affine3A {
            translation: motion.transform_point3a(origin) - origin,
            ..motion
        };
        let world_motion = motion;
        let motion = motion_here;
        self.joints_from_lanes(state);
        for (j, joint) in self.joints.iter().enumerate() {
            if joint.center == NONE {
                state.current_tail[j] = motion.transform_point3a(state.current_tail[j]);
                state.prev_tail[j] = motion.transform_point3a(state.prev_tail[j]);
            }
        }
        self.lanes_from_joints(state);
        for m in &mut state.last_world {
            *m = motion * *m;
        }
        state.last_root = world_motion * state.last_root;
    }

    /// Moves the point the state's positions are kept relative to (see `SpringState::origin`).
    pub(super) fn move_origin(&self, state: &mut SpringState, to: Vec3A) {
        let shift = state.origin - to;
        if shift == Vec3A::ZERO {
            return;
        }
        for &j in &self.loose_joints {
            let j = j as usize;
            if self.joints[j].center == NONE {
                state.current_tail[j] += shift;
                state.prev_tail[j] += shift;
            }
        }
        self.shift_lanes(state, shift);
        for m in &mut state.last_world {
            m.translation += shift;
        }
        state.origin = to;
    }

    /// Whether the root moved past the teleport thresholds between two steps.
    pub(super) fn is_teleport(&self, before: Affine3A, now: Affine3A) -> bool {
        let o = &self.options;
        if (now.translation - before.translation).length() > o.teleport_distance {
            return true;
        }
        if o.teleport_angle.is_nan() || o.teleport_angle >= std::f32::consts::PI {
            return false;
        }
        // The turn between the two frames' rotations (their scale divided out): the cosine
        // of its angle is (trace(Ra^T Rb) - 1) / 2.
        let (a, b) = (before.matrix3, now.matrix3);
        let scale = a.x_axis.length() * b.x_axis.length();
        let trace =
            (a.x_axis.dot(b.x_axis) + a.y_axis.dot(b.y_axis) + a.z_axis.dot(b.z_axis)) / scale;
        (trace - 1.0) * 0.5 < o.teleport_angle.cos()
    }
}
