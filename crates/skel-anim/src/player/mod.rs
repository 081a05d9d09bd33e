//! The player of layers (see [`Player`]) and its parts.
mod additive;
mod events;
mod fade;
mod ik_jobs;
mod lane_rules;
mod layer;
mod mask;
pub(crate) mod mix;
mod quad_mix;
mod root_motion;

use std::sync::Arc;

pub use events::AnimationEvent;
pub use fade::FadeSync;
pub use ik_jobs::IkJob;
pub use layer::{Layer, LayerDesc, LayerMode, MAX_WEIGHT, Reference};
pub use mask::Mask;
pub use mix::{LayerMix, mix_layers};
pub use root_motion::{RootDelta, RootMotion};

use crate::{AnimError, AnimationData, PoseHook, PoseScratch, PoseSink, Rig};
use mix::{Mix, Snapshot};

/// One player per character: an ordered list of layers over a compiled [`Rig`], turned into
/// bone matrices and morph weights every tick (bevy's `AnimationPlayer`, three.js's
/// `AnimationMixer`).
///
/// # What you see
///
/// Each [`Layer`] plays one clip on its own [`PlaybackClock`](crate::PlaybackClock) with a
/// weight, a [`LayerMode`] and an optional [`Mask`]. Every tick, property by property (a node's
/// translation, rotation or scale, a mesh's morph weights):
///
/// 1. **Blend layers** that animate the property with a non-zero effective weight
///    (`weight × fade × mask(node)`) are averaged: normalised by their total when it is 1 or
///    more; below 1 the rest value (with any bone-control overrides) fills the remainder, so a
///    layer fading in starts from where the bone was. Rotations are weighted quaternion sums,
///    each contributor flipped into the first one's hemisphere, normalised at the end (not
///    three.js's running slerp; the two agree within the golden tolerance, and exactly for one
///    contributor). A single contributor at weight ≥ 1 is copied as sampled.
/// 2. **Additive layers** are then applied in layer order, each as its difference from a
///    reference pose ([`Reference`]: by default its own clip at time 0; the rest value where
///    the reference clip does not animate a property): rotation `q ← q · (conj(ref) · v)^w`,
///    translation, scale and morph weights `x ← x + w · (v − ref)`. Negative weights subtract.
///    A property only additive layers animate starts from its rest value.
/// 3. A property no layer animates keeps its rest value.
///
/// One blend layer at effective weight ≥ 1 with no mask (plain playback) takes the fused
/// single-clip pass: it costs what a single clip always cost. Other stacks over clips whose
/// keys come in four-node blocks ([`Rig::layers_four_nodes_at_a_time`]; exporters' usual
/// output) apply these rules four nodes at a time and compose and place in the same pass; a
/// stack with a [snapshot](Player::capture_snapshot) or [root motion](Player::set_root_motion),
/// or over other clips, runs them property by property. Both give the same pose within f32
/// rounding.
///
/// Cross-fades are weight ramps owned by the player: [`Player::crossfade_to`] ramps every blend
/// layer down to 0 and the new clip's layer up to 1 over the same time, so weights that summed to
/// 1 keep summing to 1 and an interrupted fade continues from the weights on screen.
///
/// Building layers allocates (their cursors, masks, reference poses); ticking never does.
///
/// ```
/// use std::sync::Arc;
/// use skel_anim::*;
///
/// // One joint moving along x: "left" to -1, "right" to +1 over one second.
/// let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
///     let s = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
///     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
/// };
/// let rig = Rig::new(Arc::new(AnimationData {
///     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
///     clips: vec![clip("left", -1.0)?, clip("right", 1.0)?],
///     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
///     morph_bindings: vec![],
///     handedness: Handedness::RightHanded,
/// }))?;
/// let mut player = Player::new(&rig);
/// player.add_layer(LayerDesc::new(0).weight(0.25))?;
/// player.add_layer(LayerDesc::new(1).weight(0.75))?;
/// let mut sink = RecordingSink::default();
/// player.tick(1.0, &mut sink); // one second: both clips at their last key
/// // 0.25 · -1 + 0.75 · 1 = 0.5 … but a second wraps a looping clip back to 0:
/// assert!(sink.bone_matrices[0][12].abs() < 1e-6);
/// player.tick(0.5, &mut sink);
/// assert!((sink.bone_matrices[0][12] - 0.25).abs() < 1e-6);
///
/// // "right" added on top of itself at half weight: +0.5 · (0.5 − 0).
/// player.add_layer(LayerDesc::new(1).weight(0.5).additive(Reference::default()))?;
/// player.layer_mut(2)?.clock_mut().seek(0.5);
/// player.evaluate(&mut sink);
/// assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6);
/// # Ok::<(), AnimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Player {
    poser: crate::poser::Poser,
    layers: Vec<Layer>,
    mix: Mix,
    snapshot: Snapshot,
    visible: bool,
    root: Option<RootState>,
    ik: Vec<IkJob>,
    frame_map: ik_jobs::FrameMap,
}

/// Root motion of a player: what is extracted, where its slots are, and the deltas.
#[derive(Debug, Clone)]
pub(crate) struct RootState {
    pub(crate) plan: root_motion::RootPlan,
    /// The blend slots of the root's translation and rotation (`usize::MAX`: no clip animates
    /// it).
    pub(crate) t_slot: usize,
    pub(crate) r_slot: usize,
    delta: root_motion::Motion,
    total: root_motion::Motion,
}

impl Player {
    /// A player over `rig` with no layers (the rest pose). Allocates its scratch buffers.
    #[must_use]
    pub fn new(rig: &Arc<Rig>) -> Self {
        Self {
            poser: crate::poser::Poser::new(rig),
            layers: Vec::new(),
            mix: Mix::new(rig),
            snapshot: Snapshot::new(rig),
            visible: true,
            root: None,
            ik: Vec::new(),
            frame_map: ik_jobs::FrameMap::of(rig),
        }
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.poser.rig
    }

    /// The asset's data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.poser.rig.data()
    }

    /// Adds a layer on top of the others and returns its index. Allocates: do it at setup.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for a clip (or reference clip) past the end,
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite weight, speed, start or reference
    /// time, and what [`Mask`] resolution finds (unknown node, mask selecting nothing). Nothing
    /// is added on error.
    pub fn add_layer(&mut self, desc: LayerDesc) -> Result<usize, AnimError> {
        let layer = Layer::new(&self.poser.rig, &desc)?;
        self.layers.push(layer);
        Ok(self.layers.len() - 1)
    }

    /// Removes layer `layer` (later layers move down by one) and returns it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn remove_layer(&mut self, layer: usize) -> Result<Layer, AnimError> {
        self.check_layer(layer)?;
        Ok(self.layers.remove(layer))
    }

    /// Removes every layer (the rest pose).
    pub fn clear_layers(&mut self) {
        self.layers.clear();
    }

    fn check_layer(&self, layer: usize) -> Result<(), AnimError> {
        if layer < self.layers.len() {
            Ok(())
        } else {
            Err(AnimError::NoSuchLayer {
                layer,
                layer_count: self.layers.len(),
            })
        }
    }

    /// The layers, bottom first.
    #[must_use]
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The layers, to change weights and clocks.
    pub fn layers_mut(&mut self) -> &mut [Layer] {
        &mut self.layers
    }

    /// Layer `layer`.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn layer_mut(&mut self, layer: usize) -> Result<&mut Layer, AnimError> {
        self.check_layer(layer)?;
        Ok(&mut self.layers[layer])
    }

    /// Sets the weight of layer `layer` (see [`Layer::set_weight`]).
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn set_weight(&mut self, layer: usize, weight: f32) -> Result<(), AnimError> {
        self.layer_mut(layer)?.set_weight(weight);
        Ok(())
    }

    /// Installs (or removes) the bone-control hook: `before_channels` runs after the rest
    /// reset (so overrides are the "rest" that fills in below weight 1), `after_channels`
    /// (visibility) after every layer.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.poser.hook = hook;
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.poser.hook.as_ref()
    }

    /// Marks the character visible or not: while not visible, [`tick`](Self::tick) moves the
    /// clocks and fades and skips the pose (a culled character costs a few nanoseconds); its
    /// first visible tick poses it at its current times.
    pub fn set_visible(&mut self, visible: bool) {
        self.visible = visible;
    }

    /// Whether [`tick`](Self::tick) poses.
    #[must_use]
    pub fn visible(&self) -> bool {
        self.visible
    }

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
    /// markers in its playing direction. Allocates nothing.
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

    fn advance_inner(
        &mut self,
        dt: f64,
        mut on_event: Option<&mut dyn FnMut(&AnimationEvent<'_>)>,
    ) {
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
        let data = self.poser.rig.data();
        let mut motion = root_motion::MotionMix::default();
        for (index, layer) in self.layers.iter_mut().enumerate() {
            let before = *layer.clock();
            layer.advance(dt);
            if let Some(root) = &self.root {
                let step = dt * f64::from(before.speed_ratio());
                let clip = &data.clips[layer.clip];
                let d = root
                    .plan
                    .layer_delta(clip, layer.clip, &before, layer.clock(), step);
                let w =
                    f64::from(layer.effective_weight() * layer.mask_weight(root.plan.config.node));
                match layer.mode {
                    LayerMode::Blend => motion.add_blend(w, d),
                    LayerMode::Additive(_) => motion.add_additive(w, d),
                }
            }
            let Some(on_event) = on_event.as_deref_mut() else {
                continue;
            };
            let markers = &data.clips[layer.clip].markers;
            if markers.is_empty() {
                continue;
            }
            let step = dt * f64::from(before.speed_ratio());
            let Some(sweep) = events::Sweep::between(&before, layer.clock(), step) else {
                continue;
            };
            let mut fire = |(marker, m): (usize, &crate::Marker)| {
                for _ in 0..sweep.crossings(m.time) {
                    on_event(&AnimationEvent {
                        layer: index,
                        clip: layer.clip,
                        marker,
                        name: &m.name,
                        time: m.time,
                        weight: layer.effective_weight(),
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
            root.delta = motion.finish();
            root.total = root.total.then(root.delta);
        }
        self.finish_fades();
    }

    /// Evaluates the layers at their current times and writes the pose to `sink`: rest reset,
    /// bone-control overrides, blend layers, additive layers, visibility, local → world, bone
    /// matrices and morph weights.
    pub fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        if let Some(single) = self.single_clip() {
            self.mix.trs_current = false;
            self.poser.pose(single.0, single.1, sink);
            return;
        }
        if self.poser.hook.is_none()
            && self.ik.is_empty()
            && self.root.is_none()
            && self.snapshot.weight <= 0.0
            && quad_mix::pose(
                &self.poser.rig,
                &mut self.layers,
                &mut self.poser.scratch,
                sink.wants_local_transforms(),
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
            crate::pose::compute_frame_bone_matrices(data, scratch, sink);
            return;
        }
        let Self {
            poser,
            layers,
            mix,
            snapshot,
            root,
            ik,
            frame_map,
            ..
        } = self;
        poser.pose_with(sink, |rig, scratch| {
            mix::mix_layers_with(rig, scratch, layers, mix, snapshot, root.as_ref());
            if !ik.is_empty() {
                ik_jobs::solve_all(scratch, ik, frame_map);
            }
        });
    }

    /// `Some((clip, time))` when the stack is plain playback of one clip (or of nothing): one
    /// contributing layer, blend mode, effective weight ≥ 1, no mask, no snapshot.
    fn single_clip(&self) -> Option<(Option<usize>, f32)> {
        if self.snapshot.weight > 0.0 || self.root.is_some() || !self.ik.is_empty() {
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

    /// World matrices of every node from the last pose, 16 floats each (computed on the first
    /// call after each pose: the player poses in the first skinned mesh's rest frame, where a
    /// bone costs one product).
    pub fn world_matrices(&mut self) -> &[f32] {
        self.resolve_world_matrices();
        &self.poser.scratch.world
    }

    /// Brings `scratch().world` up to date with the last pose.
    pub fn resolve_world_matrices(&mut self) {
        crate::pose::resolve_world(&mut self.poser.scratch);
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[f32]> {
        self.poser.scratch.bones.get(binding).map(Vec::as_slice)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.poser
            .scratch
            .morph_weights
            .get(binding)
            .map(Vec::as_slice)
    }

    /// The scratch buffers of the last pose (local TRS, bones, weights; `world` as of the last
    /// [`world_matrices`](Self::world_matrices) call).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        &self.poser.scratch
    }
}
