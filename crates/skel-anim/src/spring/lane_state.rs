//! The state of the chains that step in lanes (see `chains`), kept in lanes between steps:
//! each depth's tails (now and a step ago) and rotations, so that a step reads and writes
//! them whole instead of gathering them from the per-joint arrays and scattering them back.
//! Those arrays still hold every other joint's state; a grouped joint's lives here only, and
//! what reads a joint's state (`SpringState::tail`, the rotations written into the pose, a
//! carry) reads it from here.

use glam::{Vec3A, Vec4};

use super::group::LaneState;
use super::lanes::{Q, V3, each};
use super::setup::SpringBones;
use super::step::SpringState;
use crate::data::{NONE, R_OFF, TRS_STRIDE};

impl SpringBones {
    /// Per depth, a state in lanes (filled by [`Self::lanes_from_joints`]), and per joint
    /// where its state lives in them (`depth · 4 + lane`; `NONE`: not in a group).
    pub(super) fn new_lanes(&self) -> (Vec<LaneState>, Vec<u32>) {
        let mut at = vec![NONE; self.joints.len()];
        for (d, k) in self.depths.iter().enumerate() {
            for i in 0..4 {
                if k.active[i] {
                    at[k.joint[i] as usize] = (d * 4 + i) as u32;
                }
            }
        }
        (vec![LaneState::ZERO; self.depths.len()], at)
    }

    /// The grouped joints' state from the per-joint arrays (after a reset or a carry).
    pub(super) fn lanes_from_joints(&self, state: &mut SpringState) {
        for (lane, k) in state.lanes.iter_mut().zip(&self.depths) {
            let j = |i: usize| k.joint[i] as usize;
            *lane = LaneState {
                current: V3::gather(each(|i| state.current_tail[j(i)])),
                prev: V3::gather(each(|i| state.prev_tail[j(i)])),
                rotation: Q::gather(each(|i| state.rotation[j(i)])),
            };
        }
    }

    /// The grouped joints' state written back into the per-joint arrays (before a carry).
    pub(super) fn joints_from_lanes(&self, state: &mut SpringState) {
        for (lane, k) in state.lanes.iter().zip(&self.depths) {
            let (current, prev, rotation) = (
                lane.current.scatter(),
                lane.prev.scatter(),
                lane.rotation.scatter(),
            );
            for i in 0..4 {
                if k.active[i] {
                    let j = k.joint[i] as usize;
                    state.current_tail[j] = current[i];
                    state.prev_tail[j] = prev[i];
                    state.rotation[j] = rotation[i];
                }
            }
        }
    }

    /// Adds `shift` to the grouped tails kept in world space (see `move_origin`).
    pub(super) fn shift_lanes(&self, state: &mut SpringState, shift: Vec3A) {
        let by = V3 {
            x: Vec4::splat(shift.x),
            y: Vec4::splat(shift.y),
            z: Vec4::splat(shift.z),
        };
        for g in &self.groups {
            let lanes = &mut state.lanes[g.depths.0 as usize..g.depths.1 as usize];
            for lane in lanes {
                if g.any_center {
                    lane.current = V3::select(g.has_center, lane.current, lane.current + by);
                    lane.prev = V3::select(g.has_center, lane.prev, lane.prev + by);
                } else {
                    lane.current = lane.current + by;
                    lane.prev = lane.prev + by;
                }
            }
        }
    }

    /// The grouped spring bones' rotations from the last step written into `trs` (a chain in
    /// a group is the only joint on its bones).
    pub(super) fn write_lane_rotations(&self, state: &SpringState, trs: &mut [f32]) {
        for (lane, k) in state.lanes.iter().zip(&self.depths) {
            for (i, q) in lane.rotation.scatter().iter().enumerate() {
                if k.active[i] {
                    let at = k.node[i] as usize * TRS_STRIDE + R_OFF;
                    trs[at..at + 4].copy_from_slice(&q.to_array());
                }
            }
        }
    }
}

impl SpringState {
    /// Joint `j`'s tail where it lives (in lanes for a grouped joint).
    #[inline]
    pub(super) fn current_tail_of(&self, j: usize) -> Option<Vec3A> {
        match *self.joint_lane.get(j)? {
            NONE => self.current_tail.get(j).copied(),
            at => {
                let (d, i) = (at as usize / 4, at as usize % 4);
                Some(self.lanes.get(d)?.current.scatter()[i])
            }
        }
    }
}
