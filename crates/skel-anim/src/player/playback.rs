//! A player's ticks: clocks advanced (with the events their playheads pass and the root motion
//! they carry), then the pose evaluated: a single clip four nodes at a time, a layer stack
//! through the layered passes, the snapshot of an interrupted fade, IK, local → world and the
//! bone matrices into the sink.

use super::layer::{LayerMode, MAX_WEIGHT};
use super::{
    Player, events, group, group_mix, ik_pass, inertia_state, mix, motion_extraction, quad_mix,
};
use crate::{AnimError, AnimationEvent, PoseSink};

impl Player {
    /// Advances every layer's clock and fade by `dt` seconds, drops layers whose fade-out has
    /// ended, then (when [`visible`](Self::visible)) evaluates and writes the pose to `sink`.
    /// A NaN or infinite `dt` moves nothing.
    pub fn tick(&mut self, dt: f32, sink: &mut dyn PoseSink) {
        self.tick_seconds(f64::from(dt), sink);
    }

    /// [`tick`](Self::tick) with the step in f64 seconds (the millisecond adapters convert in
    /// f64, so their clocks move exactly as they always did).
    pub(crate) fn tick_seconds(&mut self, dt: f64, sink: &mut dyn PoseSink) {
        self.advance_seconds(dt);
        if self.visible {
            self.evaluate(sink);
        }
    }

    /// Moves every layer's playhead to `time` seconds (each clamped to its layer's range),
    /// keeping playing or paused as it was. A seek is not motion: it fires no event and moves no
    /// root. A NaN or infinite time is ignored.
    pub fn seek(&mut self, time: f32) {
        for layer in &mut self.layers {
            layer.clock.seek(time);
        }
    }

    /// Pauses (`false`) or plays (`true`) every layer's clock (see
    /// [`PlaybackClock::play`](crate::PlaybackClock::play)); fades keep running.
    pub fn set_playing(&mut self, playing: bool) {
        for layer in &mut self.layers {
            if playing {
                layer.clock.play();
            } else {
                layer.clock.pause();
            }
        }
    }

    /// The clock-and-fade half of [`tick`](Self::tick), without posing.
    pub fn advance(&mut self, dt: f32) {
        self.advance_seconds(f64::from(dt));
    }

    fn advance_seconds(&mut self, dt: f64) {
        self.advance_inner(dt, None);
    }

    /// [`tick`](Self::tick), calling `on_event` for every marker a layer's playhead passes
    /// (see [`AnimationEvent`]): forward over `(previous, current]`, backward over
    /// `[current, previous)`, once per loop when a tick spans several, both ways at ping-pong
    /// turns. Seeking fires nothing. Within a tick, events come layer by layer, each layer's
    /// markers in its playing direction; layers whose events are turned off
    /// ([`Layer::set_fires_events`](crate::Layer::set_fires_events)) fire none. Allocates
    /// nothing.
    pub fn tick_with_events(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        self.advance_inner(f64::from(dt), Some(on_event));
        if self.visible {
            self.evaluate(sink);
        }
    }

    /// [`advance`](Self::advance), calling `on_event` for every marker passed (see
    /// [`tick_with_events`](Self::tick_with_events)).
    pub fn advance_with_events(&mut self, dt: f32, on_event: &mut dyn FnMut(&AnimationEvent<'_>)) {
        self.advance_inner(f64::from(dt), Some(on_event));
    }

    fn advance_inner(&mut self, dt: f64, on_event: Option<&mut dyn FnMut(&AnimationEvent<'_>)>) {
        if self.springs.is_some() && dt.is_finite() && dt >= 0.0 {
            self.advance_with_springs(dt, on_event);
        } else {
            self.advance_clocks(dt, on_event);
        }
    }

    /// The clocks, fades, a running blend, events and root motion moved by `dt` seconds.
    pub(super) fn advance_clocks(
        &mut self,
        dt: f64,
        on_event: Option<&mut dyn FnMut(&AnimationEvent<'_>)>,
    ) {
        if dt.is_finite() && dt >= 0.0 {
            #[expect(clippy::cast_possible_truncation, reason = "seconds of a frame")]
            let step = dt as f32;
            self.last_dt = step;
        }
        if let Some(inertia) = &mut self.inertia {
            inertia.advance(dt);
        }
        if self.root.is_none() && on_event.is_none() {
            // Plain playback: clocks only, and the fade bookkeeping when a ramp runs.
            let mut fading = false;
            for layer in &mut self.layers {
                layer.advance(dt);
                fading |= layer.fade.is_some();
            }
            if fading {
                self.finish_fades();
            }
            return;
        }
        self.advance_tracked(dt, on_event);
    }

    /// [`advance_inner`](Self::advance_inner) with root motion or events: each layer's delta
    /// and markers taken along its advance. Kept apart so that plain playback stays small.
    #[inline(never)]
    fn advance_tracked(
        &mut self,
        dt: f64,
        mut on_event: Option<&mut dyn FnMut(&AnimationEvent<'_>)>,
    ) {
        let data = self.poser.rig.data();
        let mut motion = motion_extraction::MotionMix::default();
        for (index, layer) in self.layers.iter_mut().enumerate() {
            let before = *layer.clock();
            layer.advance(dt);
            if let Some(root) = &self.root {
                let step = dt * f64::from(before.speed_ratio());
                let clip = &data.clips[layer.clip];
                let d = root
                    .plan
                    .layer_delta(clip, layer.clip, &before, layer.clock(), step);
                let node = root.plan.config.node;
                let w = f64::from(layer.effective_weight() * layer.mask_weight(node));
                let (mix, w) = match layer.group.and_then(|g| self.groups.get_mut(g)) {
                    Some(g) if g.mode == group::GroupMode::Additive => {
                        let gain = f64::from(g.weight * g.mask_weight(node));
                        (&mut g.motion, w * gain)
                    }
                    Some(g) => (&mut g.motion, w),
                    None => (&mut motion, w),
                };
                match layer.mode {
                    LayerMode::Blend => mix.add_blend(w, d),
                    LayerMode::Additive(_) => mix.add_additive(w, d),
                }
            }
            let Some(on_event) = on_event.as_deref_mut() else {
                continue;
            };
            if !layer.fires_events {
                continue;
            }
            let markers = &data.clips[layer.clip].markers;
            if markers.is_empty() {
                continue;
            }
            let step = dt * f64::from(before.speed_ratio());
            let Some(sweep) = events::Sweep::between(&before, layer.clock(), step) else {
                continue;
            };
            // The layer's contribution: a group member's weight counts its group's.
            let group_weight = layer
                .group
                .and_then(|g| self.groups.get(g))
                .map_or(1.0, group::LayerGroup::weight);
            let weight = layer.effective_weight() * group_weight;
            let mut fire = |(marker, m): (usize, &crate::Marker)| {
                for _ in 0..sweep.crossings(m.time) {
                    on_event(&AnimationEvent {
                        layer: index,
                        clip: layer.clip,
                        marker,
                        name: &m.name,
                        time: m.time,
                        weight,
                    });
                }
            };
            if step >= 0.0 {
                markers.iter().enumerate().for_each(&mut fire);
            } else {
                markers.iter().enumerate().rev().for_each(&mut fire);
            }
        }
        if let Some(root) = &mut self.root {
            root.delta = if self.groups.is_empty() {
                motion.finish()
            } else {
                group::group_motion(motion, &mut self.groups, root.plan.config.node)
            };
            if let Some(inertia) = &mut self.inertia {
                root.delta = inertia.root_motion(root.delta, dt);
            }
            if dt.is_finite() && dt > 0.0 {
                root.delta_seconds = dt;
            }
            root.total = root.total.then(root.delta);
        }
        self.finish_fades();
    }

    /// Evaluates the layers at their current times and writes the pose to `sink`: rest reset,
    /// bone-control overrides, blend layers, additive layers, visibility, local → world, bone
    /// matrices and morph weights.
    pub fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        // A switch being taken needs the pose step by step (its offset is measured on the
        // local transforms); a running blend rides along in the fused pass.
        let switching = self.inertia.as_ref().is_some_and(|i| i.pending());
        if switching {
            self.prepare_switch();
        }
        if !self.groups.is_empty() && (switching || !self.groups_are_a_plain_stack()) {
            self.pose_groups(sink, group_mix::Capture::Nothing);
            return;
        }
        if let Some(single) = self.single_clip() {
            self.mix.trs_current = false;
            // A running blend rides the single-clip pass (`single_clip` checked its layout).
            let offset = self
                .inertia
                .as_deref()
                .map(|i| &i.blend)
                .filter(|b| b.is_active());
            self.poser.pose_offset(single.0, single.1, offset, sink);
            return;
        }
        if self.poser.hook.is_none()
            && !switching
            && self.ik.is_empty()
            && self.foot.is_none()
            && self.springs.is_none()
            && self.constraints.is_none()
            && self.root.is_none()
            && self.snapshot.weight <= 0.0
            && quad_mix::pose(
                &self.poser.rig,
                &mut self.layers,
                &mut self.poser.scratch,
                sink.wants_local_transforms(),
                self.inertia.as_deref().map(|i| &i.blend),
            )
        {
            // Nothing reads the pose between the steps: mixed, composed and placed in one
            // pass; the morph weights follow.
            let poser = &mut self.poser;
            let (rig, scratch) = (&*poser.rig, &mut poser.scratch);
            let data = &**rig.data();
            for (mb, w) in data.morph_bindings.iter().zip(&mut scratch.morph_weights) {
                w.copy_from_slice(&mb.default_weights);
            }
            mix::mix_morphs(rig, &mut self.layers, &mut self.mix, scratch);
            self.mix.trs_current = false;
            crate::pose::bones::compute_frame_bone_matrices(data, scratch, sink);
            return;
        }
        self.pose_layers(sink, true);
    }

    /// The layered pass, step by step: mix, a running blend, IK, then (for a shown `frame`)
    /// foot placement, then node constraints, then (for a shown frame) the springs' rotations.
    /// A spring step's pose is not a frame: it finishes no switch, moves no foot and shows no
    /// springs.
    pub(super) fn pose_layers(&mut self, sink: &mut dyn PoseSink, frame: bool) {
        let Self {
            poser,
            layers,
            mix,
            snapshot,
            root,
            ik,
            frame_map,
            inertia,
            foot,
            constraints,
            springs,
            last_dt,
            ..
        } = self;
        poser.pose_with(sink, |rig, scratch| {
            mix::mix_layers_with(rig, scratch, layers, mix, snapshot, root.as_ref());
            if let Some(inertia) = inertia {
                if frame {
                    inertia_state::finish_switch(inertia, &scratch.trs);
                }
                if frame || !inertia.pending() {
                    inertia.apply(&mut scratch.trs);
                }
            }
            if !ik.is_empty() {
                ik_pass::solve_all(scratch, ik, frame_map);
            }
            if let (Some(foot), true) = (foot, frame) {
                foot.run(rig.data(), scratch, *last_dt);
            }
            if let Some(c) = constraints {
                c.apply(&mut scratch.trs, glam::Affine3A::IDENTITY);
            }
            if let (Some(job), true) = (springs, frame) {
                job.bones.write_rotations(&job.state, &mut scratch.trs);
            }
        });
    }

    /// `Some((clip, time))` when the stack is plain playback of one clip (or of nothing): one
    /// contributing layer, blend mode, effective weight ≥ 1, no mask, no snapshot, and no
    /// switch pending; a running inertialization only where its four-node layout is the clip's.
    fn single_clip(&self) -> Option<(Option<usize>, f32)> {
        if self.snapshot.weight > 0.0
            || self.root.is_some()
            || !self.ik.is_empty()
            || self.foot.is_some()
            || self.springs.is_some()
            || self.constraints.is_some()
            || self.inertia.as_ref().is_some_and(|i| i.pending())
        {
            return None;
        }
        let mut found = None;
        for layer in &self.layers {
            let w = layer.effective_weight();
            if w == 0.0 {
                continue;
            }
            if found.is_some() || layer.mode != LayerMode::Blend || layer.mask.is_some() || w < 1.0
            {
                return None;
            }
            found = Some(layer);
        }
        let blending = self.inertia.as_ref().is_some_and(|i| i.blend.is_active());
        if blending {
            let rides = found.is_some_and(|l| {
                self.poser.rig.layer_quads.as_ref().is_some_and(|lq| {
                    lq.clip_ok.get(l.clip).copied().unwrap_or(false)
                        && self
                            .inertia
                            .as_ref()
                            .is_some_and(|i| i.blend.quads() == lq.shape.len())
                })
            });
            if !rides {
                return None;
            }
        }
        Some(found.map_or((None, 0.0), |l| (Some(l.clip), l.clock.time())))
    }

    /// Poses valid `clip` (or the rest pose) at `time` with the single-clip pass.
    #[inline]
    pub(crate) fn pose_clip(&mut self, clip: Option<usize>, time: f32, sink: &mut dyn PoseSink) {
        self.poser.pose(clip, time, sink);
    }

    /// Poses `clip` (or the rest pose) at `time` seconds into `sink` without touching any
    /// layer: for tools, tests and scrubbing.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn evaluate_clip_at(
        &mut self,
        clip: Option<usize>,
        time: f32,
        sink: &mut dyn PoseSink,
    ) -> Result<(), AnimError> {
        if let Some(c) = clip {
            self.poser.rig.check_clip(c)?;
        }
        self.poser.pose(clip, time, sink);
        Ok(())
    }

    /// Freezes the blended values of the last evaluation as an extra blend contributor that
    /// mixes in with [`set_snapshot_weight`](Self::set_snapshot_weight) (0 until set). Before
    /// any layered evaluation the snapshot is empty. Allocates nothing.
    pub fn capture_snapshot(&mut self) {
        if !self.groups.is_empty() {
            // The base pose (ungrouped blend layers), as the last evaluation made it.
            self.pose_groups(&mut crate::NullSink, group_mix::Capture::Base);
            return;
        }
        if !self.mix.trs_current {
            // The last pose took a pass that keeps no per-property sums: run the property by
            // property step for them, capture, and pose again as before.
            let Self {
                poser,
                layers,
                mix,
                snapshot,
                root,
                ..
            } = self;
            let frozen = std::mem::replace(&mut snapshot.weight, 0.0);
            poser.pose_with(&mut crate::NullSink, |rig, scratch| {
                mix::mix_by_property(rig, scratch, layers, mix, snapshot, root.as_ref());
            });
            snapshot.weight = frozen;
            self.snapshot.capture(&self.poser.rig, &self.mix);
            self.evaluate(&mut crate::NullSink);
            return;
        }
        self.snapshot.capture(&self.poser.rig, &self.mix);
    }

    /// Weight of the captured snapshot (0: ignored).
    #[must_use]
    pub fn snapshot_weight(&self) -> f32 {
        self.snapshot.weight
    }

    /// Sets the snapshot's weight (negative, NaN and infinite weights count as 0, weights above
    /// [`MAX_WEIGHT`] as `MAX_WEIGHT`).
    pub fn set_snapshot_weight(&mut self, weight: f32) {
        self.snapshot.weight = if weight.is_finite() && weight > 0.0 {
            weight.min(MAX_WEIGHT)
        } else {
            0.0
        };
    }

    /// Drops the snapshot (weight 0, nothing captured).
    pub fn clear_snapshot(&mut self) {
        self.snapshot.weight = 0.0;
        self.snapshot.trs_slots.clear();
        self.snapshot.morph_slots.clear();
    }
}
