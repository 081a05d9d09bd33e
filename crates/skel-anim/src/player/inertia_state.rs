//! What a player keeps for inertialized switches between ticks (see
//! [`inertialize`](super::inertialize) for how a switch is taken): the blend, the pose on
//! screen when the switch was asked for, the root's velocities. Nothing here knows the
//! player: the player reads and drives it.

use glam::DVec3;

use super::motion_extraction::Motion;
use glam::{Quat, Vec3};

use crate::inertial::{Inertialization, OFFSET_STRIDE, record_difference, rotation_vector};
use crate::{PlaybackClock, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// Seconds between the two poses whose difference is a velocity.
pub(super) const VELOCITY_STEP: f32 = 1.0 / 120.0;
/// While a switch is pending (no blend runs), the blend's rows keep per node the source's
/// velocity from row `VELOCITY` and the offset over the destination a step later from row
/// `LATER` (nine numbers each).
pub(super) const VELOCITY: usize = OFFSET_STRIDE;
pub(super) const LATER: usize = 0;

/// What a player keeps for inertialized switches (allocated by
/// [`Player::reserve_inertialization`] or the first switch).
#[derive(Debug, Clone)]
pub(crate) struct PlayerInertia {
    pub(crate) blend: Inertialization,
    /// The pose on screen when the switch was asked for: nine numbers per node (see
    /// [`pack_record`]), so that the blend and this pose together keep 36 floats per node.
    pub(super) source: Vec<f32>,
    /// Every layer's clock, kept while the clocks are stepped back for a velocity.
    pub(super) clocks: Vec<PlaybackClock>,
    /// A switch asked for and not yet taken: its blend time and the seconds since.
    pub(super) pending: Option<(f32, f32)>,
    /// The root's velocity (yaw and translation per second) when the switch was asked for.
    pub(super) root_source: (f64, DVec3),
    /// The root's velocity offset from the destination's, decaying over the blend.
    root_offset: Option<(f64, DVec3)>,
}

impl PlayerInertia {
    pub(super) fn new(rig: &crate::Rig, layers: usize) -> Self {
        let nodes = rig.data().nodes.len();
        // Four nodes side by side as the rig's four-node pass reads them.
        let quads: Vec<([u32; 4], usize)> = rig
            .layer_quads
            .as_ref()
            .map(|lq| lq.shape.iter().map(|q| (q.nodes, q.lanes)).collect())
            .unwrap_or_default();
        Self {
            blend: Inertialization::with_quads(nodes, &quads),
            source: vec![0.0; nodes * OFFSET_STRIDE],
            clocks: Vec::with_capacity(layers),
            pending: None,
            root_source: (0.0, DVec3::ZERO),
            root_offset: None,
        }
    }

    /// Whether a switch waits for the next evaluation (which runs step by step).
    pub(crate) fn pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Moves the pending switch's clock or the running blend `dt` seconds on.
    pub(crate) fn advance(&mut self, dt: f64) {
        #[expect(clippy::cast_possible_truncation, reason = "seconds of a frame")]
        let dt = dt as f32;
        if let Some((_, since)) = &mut self.pending {
            if dt.is_finite() && dt > 0.0 {
                *since += dt;
            }
        } else {
            self.blend.advance(dt);
        }
    }

    /// Keeps the root's velocity continuous through a switch: `delta` is this advance's root
    /// motion of `dt` seconds from the layers as they are (the destination's once a switch is
    /// asked for). On the first advance after the request, the difference between the source's
    /// velocity and this one is taken; until the blend ends it is added back, fading on the
    /// quintic's value curve (1 to 0, flat at both ends), so the root keeps the source's
    /// velocity at the switch and the destination's afterwards. Positions never jump: only
    /// velocities are blended.
    pub(crate) fn root_motion(&mut self, delta: Motion, dt: f64) -> Motion {
        if !(dt.is_finite() && dt > 0.0) {
            return delta;
        }
        if self.pending.is_some() {
            let (yaw, t) = delta.rates(dt);
            self.root_offset = Some((self.root_source.0 - yaw, self.root_source.1 - t));
            // The blend starts with this advance: the offset at full weight.
            let (yaw, t) = self.root_offset.unwrap_or_default();
            return delta.plus(Motion::new(yaw * dt, t * dt));
        }
        let Some((elapsed, duration)) = self.blend.progress() else {
            self.root_offset = None;
            return delta;
        };
        let Some((yaw, t)) = self.root_offset else {
            return delta;
        };
        // The weight at the middle of this step.
        let tau = ((f64::from(elapsed) - 0.5 * dt) / f64::from(duration)).clamp(0.0, 1.0);
        let w = 1.0 + tau * tau * tau * (-10.0 + tau * (15.0 - 6.0 * tau));
        delta.plus(Motion::new(yaw * w * dt, t * (w * dt)))
    }

    /// The blend's contribution to a pose being evaluated (after the layers, before IK).
    pub(crate) fn apply(&self, trs: &mut [f32]) {
        if self.pending.is_none() {
            self.blend.apply(trs);
        }
    }
}

/// Ends a pending switch inside the evaluation that shows it, `trs` holding the destination's
/// mixed pose: the offset from the source and the velocities are set and the blend starts.
pub(super) fn finish_switch(inertia: &mut PlayerInertia, trs: &[f32]) {
    let Some((duration, _)) = inertia.pending.take() else {
        return;
    };
    let blend = &mut inertia.blend;
    for (node, (src, dst)) in inertia
        .source
        .chunks_exact(OFFSET_STRIDE)
        .zip(trs.chunks_exact(TRS_STRIDE))
        .enumerate()
    {
        let now = packed_difference(src, dst);
        // The offset over the destination a step later: their difference is the
        // destination's motion over the step.
        let velocity: [f32; OFFSET_STRIDE] = std::array::from_fn(|i| {
            let destination = (now[i] - blend.get(node, LATER + i)) / VELOCITY_STEP;
            blend.get(node, VELOCITY + i) - destination
        });
        blend.set_node(node, &now, &velocity, duration);
    }
    blend.begin(duration);
}

/// A TRS record ([`TRS_STRIDE`] floats) as nine numbers: translation, rotation as a rotation
/// vector (the short way round: the same rotation), scale.
pub(super) fn pack_record(rec: &[f32]) -> [f32; OFFSET_STRIDE] {
    let r = rotation_vector(Quat::from_slice(&rec[R_OFF..R_OFF + 4]));
    let (t, s) = (&rec[T_OFF..T_OFF + 3], &rec[S_OFF..S_OFF + 3]);
    [t[0], t[1], t[2], r.x, r.y, r.z, s[0], s[1], s[2]]
}

/// The difference ([`record_difference`]) between a packed source and a TRS record, the record
/// taken through the same packing: a node that did not move gives exactly 0, not the
/// packing's rounding (which a velocity would divide by its step, and a long blend multiply
/// back up).
pub(super) fn packed_difference(packed: &[f32], rec: &[f32]) -> [f32; OFFSET_STRIDE] {
    record_difference(&unpack_record(packed), &unpack_record(&pack_record(rec)))
}

/// The TRS record of nine numbers from [`pack_record`] (its rotation unit length).
pub(super) fn unpack_record(packed: &[f32]) -> [f32; TRS_STRIDE] {
    let mut rec = [0.0; TRS_STRIDE];
    rec[T_OFF..T_OFF + 3].copy_from_slice(&packed[0..3]);
    let q = Quat::from_scaled_axis(Vec3::from_slice(&packed[3..6]));
    rec[R_OFF..R_OFF + 4].copy_from_slice(&q.to_array());
    rec[S_OFF..S_OFF + 3].copy_from_slice(&packed[6..9]);
    rec
}

#[cfg(test)]
mod tests {
    use super::{pack_record, unpack_record};
    use crate::{R_OFF, S_OFF, TRS_STRIDE};
    use glam::Quat;

    proptest::proptest! {
        #[test]
        fn a_packed_record_comes_back(
            t in proptest::array::uniform3(-10.0_f32..10.0),
            axis in proptest::array::uniform3(-1.0_f32..1.0),
            angle in 0.0_f32..6.2,
            s in proptest::array::uniform3(0.1_f32..3.0),
        ) {
            let axis = glam::Vec3::from(axis);
            proptest::prop_assume!(axis.length() > 1e-3);
            let q = Quat::from_axis_angle(axis.normalize(), angle);
            let mut rec = [0.0_f32; TRS_STRIDE];
            rec[..3].copy_from_slice(&t);
            rec[R_OFF..R_OFF + 4].copy_from_slice(&q.to_array());
            rec[S_OFF..S_OFF + 3].copy_from_slice(&s);
            let back = unpack_record(&pack_record(&rec));
            proptest::prop_assert_eq!(super::packed_difference(&pack_record(&rec), &rec), [0.0; 9]);
            for i in (0..3).chain(S_OFF..S_OFF + 3) {
                proptest::prop_assert_eq!(back[i], rec[i]);
            }
            let got = Quat::from_slice(&back[R_OFF..R_OFF + 4]);
            // The same rotation (either sign), within f32 rounding of the trigonometry.
            proptest::prop_assert!(got.dot(q).abs() > 1.0 - 1e-6, "{got} vs {q}");
        }
    }
}
