//! Inertialized switches of a player ([`Player::inertialize`], [`Player::inertialize_to`]):
//! the new layers play at once, the difference from what was on screen decays (see
//! [`crate::inertial`]).
//!
//! A switch takes three poses, all local and before IK:
//! - at the request, between ticks: what is on screen (the layers at their times, with any
//!   running blend) and the same `VELOCITY_STEP` earlier (the clocks stepped back and
//!   restored), which give the source's velocity;
//! - at the next evaluation, after the caller changed the layers and the clocks advanced: the
//!   destination, and the destination `VELOCITY_STEP` later, for its velocity (later, not
//!   earlier: a clip that starts at the switch has no past, and stepping a looping clip back
//!   from its start would measure the jump across its seam).
//!
//! The source at the switch is the pose on screen carried on by its velocity over the time
//! between the request and the evaluation (one frame), so the first frame after the switch
//! shows where the source was heading, and the blend starts from there with the source's
//! velocity. The derivatives are differences over a fixed step, not over the frame time, so
//! the blend is the same at every frame rate.

use glam::DVec3;

use super::motion_extraction::Motion;
use super::{Player, group_mix, mix};
use crate::inertial::{Inertialization, OFFSET_STRIDE, add_offset, record_difference};
use crate::{AnimError, FadeSync, PlaybackClock, TRS_STRIDE};

/// Seconds between the two poses whose difference is a velocity.
const VELOCITY_STEP: f32 = 1.0 / 120.0;
/// While a switch is pending (no blend runs), the blend's rows keep per node the source's
/// velocity from row `VELOCITY` and the offset over the destination a step later from row
/// `LATER` (nine numbers each).
const VELOCITY: usize = OFFSET_STRIDE;
const LATER: usize = 0;

/// What a player keeps for inertialized switches (allocated by
/// [`Player::reserve_inertialization`] or the first switch).
#[derive(Debug, Clone)]
pub(crate) struct PlayerInertia {
    pub(crate) blend: Inertialization,
    /// The pose on screen when the switch was asked for (TRS records).
    source: Vec<f32>,
    /// Every layer's clock, kept while the clocks are stepped back for a velocity.
    clocks: Vec<PlaybackClock>,
    /// A switch asked for and not yet taken: its blend time and the seconds since.
    pending: Option<(f32, f32)>,
    /// The root's velocity (yaw and translation per second) when the switch was asked for.
    root_source: (f64, DVec3),
    /// The root's velocity offset from the destination's, decaying over the blend.
    root_offset: Option<(f64, DVec3)>,
}

impl PlayerInertia {
    fn new(rig: &crate::Rig, layers: usize) -> Self {
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

impl Player {
    /// Makes room for inertialized switches, so that none allocates: a
    /// [`GraphPlayer`](https://docs.rs/skel-graph) with inertialized transitions calls it at
    /// setup. Layers added later may make the first switch allocate once. Floats held:
    /// `37 × node count` (27 for the blend, see [`Inertialization`], and one pose), plus one
    /// clock per layer.
    pub fn reserve_inertialization(&mut self) {
        let layers = self.layers.len();
        match &mut self.inertia {
            Some(inertia) => {
                // `reserve` counts from the length: room for every layer, not more.
                inertia.clocks.clear();
                inertia.clocks.reserve(layers);
            }
            None => {
                self.inertia = Some(Box::new(PlayerInertia::new(&self.poser.rig, layers)));
            }
        }
    }

    /// Inertializes the next change of layers: what is on screen now is taken as the source,
    /// and at the next evaluation (after the caller changes layers, weights or clocks and the
    /// player advances) the new pose plays at once while the difference from the source, and
    /// its velocity, decay to zero over `duration` seconds (see [`crate::inertial`]). Called
    /// while a blend runs, the source is what that blend shows: an interrupted switch
    /// continues without a jump. `duration` 0 (or less) ends any blend: the next pose is the
    /// new one, a cut.
    ///
    /// Evaluates the current pose twice (for its velocity), without IK and without touching
    /// the sink; allocates only the first time (see
    /// [`reserve_inertialization`](Self::reserve_inertialization)).
    ///
    /// # Errors
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite duration; nothing changes then.
    pub fn inertialize(&mut self, duration: f32) -> Result<(), AnimError> {
        if !duration.is_finite() {
            return Err(AnimError::NotFiniteValue {
                what: "inertialization duration",
                value: duration,
            });
        }
        if duration <= 0.0 {
            if let Some(inertia) = &mut self.inertia {
                inertia.pending = None;
                inertia.blend.begin(0.0);
            }
            return Ok(());
        }
        self.reserve_inertialization();
        if let Some(inertia) = self.inertia.as_deref_mut()
            && let Some((d, _)) = &mut inertia.pending
        {
            // Asked twice before a tick: the first source stands, the last duration counts.
            *d = duration;
            return Ok(());
        }
        // The root's velocity on screen: the last advance's motion (with any running blend's).
        if let (Some(root), Some(inertia)) = (&self.root, self.inertia.as_deref_mut()) {
            inertia.root_source = root.delta.rates(root.delta_seconds);
        }
        // What is on screen, with any running blend.
        self.mix_now(0.0);
        let Some(inertia) = self.inertia.as_deref_mut() else {
            return Ok(());
        };
        inertia.source.copy_from_slice(&self.poser.scratch.trs);
        // The same a step earlier, for the velocity.
        self.mix_now(VELOCITY_STEP);
        let Some(inertia) = self.inertia.as_deref_mut() else {
            return Ok(());
        };
        // No blend runs from here to the switch: its rows keep the source's velocity (rows
        // `VELOCITY`) and then the offset over the destination a step later (rows `LATER`).
        inertia.blend.begin(0.0);
        let earlier = &self.poser.scratch.trs;
        for (node, (now, before)) in inertia
            .source
            .chunks_exact(TRS_STRIDE)
            .zip(earlier.chunks_exact(TRS_STRIDE))
            .enumerate()
        {
            let d = record_difference(now, before);
            for (i, d) in d.into_iter().enumerate() {
                inertia.blend.put(node, VELOCITY + i, d / VELOCITY_STEP);
            }
        }
        inertia.pending = Some((duration, 0.0));
        Ok(())
    }

    /// Switches every ungrouped blend layer to a new layer playing `clip` from its start,
    /// inertialized over `duration` seconds ([`inertialize`](Self::inertialize), then
    /// [`crossfade_to`](Self::crossfade_to) with duration 0), and returns the new layer's
    /// index. No fade to author: the clip shows at once and the difference decays.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for a clip past the end, [`AnimError::NotFiniteValue`] for a
    /// NaN or infinite duration. Nothing changes on error.
    pub fn inertialize_to(&mut self, clip: usize, duration: f32) -> Result<usize, AnimError> {
        self.poser.rig.check_clip(clip)?;
        self.inertialize(duration)?;
        self.crossfade_to(clip, 0.0, FadeSync::Restart)
    }

    /// The running inertialization: seconds since the switch and its blend time (`None` when
    /// none runs; a switch asked for and not yet evaluated counts as running from 0).
    #[must_use]
    pub fn inertialization(&self) -> Option<(f32, f32)> {
        let inertia = self.inertia.as_deref()?;
        match inertia.pending {
            Some((duration, _)) => Some((0.0, duration)),
            None => inertia.blend.progress(),
        }
    }

    /// Takes a pending switch, before the evaluation that shows it: the destination a step
    /// later is mixed now, its offset from the source kept; the evaluation's own mix then
    /// gives the destination and [`finish_switch`] the offset and velocities.
    pub(super) fn prepare_switch(&mut self) {
        let Some(inertia) = self.inertia.as_deref_mut() else {
            return;
        };
        let Some((_, since)) = inertia.pending else {
            return;
        };
        // The source carried on by its velocity to now.
        let blend = &inertia.blend;
        for (node, rec) in inertia.source.chunks_exact_mut(TRS_STRIDE).enumerate() {
            let step: [f32; OFFSET_STRIDE] =
                std::array::from_fn(|i| blend.get(node, VELOCITY + i) * since);
            add_offset(rec, &step);
        }
        self.mix_now(-VELOCITY_STEP);
        let Some(inertia) = self.inertia.as_deref_mut() else {
            return;
        };
        let later = &self.poser.scratch.trs;
        for (node, (src, dst)) in inertia
            .source
            .chunks_exact(TRS_STRIDE)
            .zip(later.chunks_exact(TRS_STRIDE))
            .enumerate()
        {
            for (i, x) in record_difference(src, dst).into_iter().enumerate() {
                inertia.blend.put(node, LATER + i, x);
            }
        }
    }

    /// Poses the layers (rest, overrides, layers, any running blend: what the pose passes do
    /// before IK) with every clock `back` seconds earlier (later when negative), into the
    /// scratch's local pose, and puts the clocks back.
    fn mix_now(&mut self, back: f32) {
        let Self {
            poser,
            layers,
            groups,
            mix,
            snapshot,
            root,
            inertia,
            ..
        } = self;
        let Some(inertia) = inertia.as_deref_mut() else {
            return;
        };
        inertia.clocks.clear();
        inertia.clocks.extend(layers.iter().map(|l| l.clock));
        if back != 0.0 {
            for layer in layers.iter_mut() {
                layer.clock.advance_seconds(-f64::from(back));
            }
        }
        let rig = &*poser.rig;
        let scratch = &mut poser.scratch;
        crate::reset_to_rest(rig.data(), scratch);
        if let Some(hook) = &poser.hook {
            hook.before_channels(&mut scratch.trs);
        }
        if groups.is_empty() {
            mix::mix_layers_with(rig, scratch, layers, mix, snapshot, root.as_ref());
        } else {
            group_mix::mix_stack(rig, scratch, layers, groups, snapshot, mix, root.as_ref());
        }
        // A running blend as it was `back` seconds ago (a pending switch shows nothing yet).
        if inertia.pending.is_none() {
            inertia.blend.apply_earlier(&mut scratch.trs, back);
        }
        for (layer, clock) in layers.iter_mut().zip(&inertia.clocks) {
            layer.clock = *clock;
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
