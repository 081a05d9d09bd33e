//! The local matrices a step's scalar passes read, four nodes at a time: each node's
//! translation, rotation and scale in a lane, composed by glam's own operations in glam's order
//! (`lanes`), so each matrix is bit for bit the one `Affine3A::from_scale_rotation_translation`
//! makes. On a small rig these matrices are a large part of a step.

use glam::{Quat, Vec3A};

use super::lanes::{A3, Q, V3, each};
use super::setup::SpringBones;
use super::step::SpringState;
use crate::data::{NONE, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

impl SpringBones {
    /// The local matrices of `step_locals` from `trs`, each spring bone with the rotation its
    /// last step gave it.
    #[inline(always)]
    pub(super) fn step_locals_in_lanes(&self, state: &mut SpringState, trs: &[f32]) {
        for four in self.step_locals.chunks(4) {
            // A short last chunk repeats its first node in the idle lanes (not stored).
            let node = each(|i| four.get(i).copied().unwrap_or(four[0]) as usize);
            let v3 = |off: usize| {
                V3::gather(each(|i| {
                    let at = node[i] * TRS_STRIDE + off;
                    Vec3A::from_slice(&trs[at..at + 3])
                }))
            };
            let (t, s) = (v3(T_OFF), v3(S_OFF));
            let q = Q::gather(each(|i| match state.node_joint[node[i]] {
                NONE => {
                    let at = node[i] * TRS_STRIDE + R_OFF;
                    Quat::from_slice(&trs[at..at + 4])
                }
                j => state.rotation[j as usize],
            }));
            let m = A3::from_scale_rotation_translation(s, q, t).scatter();
            for (&n, m) in four.iter().zip(m) {
                state.local[n as usize] = m;
            }
        }
    }
}
