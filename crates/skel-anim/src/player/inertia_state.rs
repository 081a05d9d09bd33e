//! What a player keeps for inertialized switches between ticks (see
//! [`inertialize`](super::inertialize) for how a switch is taken): the blend, the pose on
//! screen when the switch was asked for, the root's velocities. Nothing here knows the
//! player: the player reads and drives it.

use glam::DVec3;

use super::motion_extraction::Motion;
use crate::inertial::{Inertialization, OFFSET_STRIDE, record_difference};
use crate::{PlaybackClock, TRS_STRIDE};

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
    /// The pose on screen when the switch was asked for (TRS records).
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
            source: vec![0.0; nodes * TRS_STRIDE],
            clocks: Vec::with_capacity(layers),
            pending: None,
            root_source: (0.0, DVec3::ZERO),
            root_offset: None,
        }
    }

    /// Whether a switch pending or a blend running changes the pose (the single-clip pass,
    /// which has no place for an offset, stands aside).
    pub(crate) fn busy(&self) -> bool {
        self.pending.is_some() || self.blend.is_active()
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
        .chunks_exact(TRS_STRIDE)
        .zip(trs.chunks_exact(TRS_STRIDE))
        .enumerate()
    {
        let now = record_difference(src, dst);
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
