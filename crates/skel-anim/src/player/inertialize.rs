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

use super::{Player, group_mix, mix};
use crate::inertial::{OFFSET_STRIDE, add_offset};
use crate::{AnimError, FadeSync, TRS_STRIDE};

use super::inertia_state::{
    LATER, PlayerInertia, VELOCITY, VELOCITY_STEP, pack_record, packed_difference, unpack_record,
};
impl Player {
    /// Makes room for inertialized switches, so that none allocates: a
    /// [`GraphPlayer`](https://docs.rs/skel-graph) with inertialized transitions calls it at
    /// setup. Layers added later may make the first switch allocate once. Floats held:
    /// `37 × node count` (27 for the blend, see [`Inertialization`](crate::inertial::Inertialization), and one pose), plus one
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
        for (packed, rec) in inertia
            .source
            .chunks_exact_mut(OFFSET_STRIDE)
            .zip(self.poser.scratch.trs.chunks_exact(TRS_STRIDE))
        {
            packed.copy_from_slice(&pack_record(rec));
        }
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
            .chunks_exact(OFFSET_STRIDE)
            .zip(earlier.chunks_exact(TRS_STRIDE))
            .enumerate()
        {
            let d = packed_difference(now, before);
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
        for (node, packed) in inertia.source.chunks_exact_mut(OFFSET_STRIDE).enumerate() {
            let step: [f32; OFFSET_STRIDE] =
                std::array::from_fn(|i| blend.get(node, VELOCITY + i) * since);
            let mut rec = unpack_record(packed);
            add_offset(&mut rec, &step);
            packed.copy_from_slice(&pack_record(&rec));
        }
        self.mix_now(-VELOCITY_STEP);
        let Some(inertia) = self.inertia.as_deref_mut() else {
            return;
        };
        let later = &self.poser.scratch.trs;
        for (node, (src, dst)) in inertia
            .source
            .chunks_exact(OFFSET_STRIDE)
            .zip(later.chunks_exact(TRS_STRIDE))
            .enumerate()
        {
            for (i, x) in packed_difference(src, dst).into_iter().enumerate() {
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
