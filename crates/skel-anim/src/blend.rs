//! Weighted blending of any number of clips of one asset (the seed's weighted manager,
//! `weighted-gltf-mixer` → `uploadTarget`; three.js `AnimationMixer`, bevy's blend weights).
//!
//! # What you see
//!
//! A [`WeightedBlend`] holds layers: a clip, a weight and a [`PlaybackClock`] each (a clip may
//! appear in several layers). Every tick each property that some playing layer animates
//! (a node's translation, rotation or scale, or a mesh's morph weights) is blended **on its own**,
//! over only the layers whose clip animates it:
//!
//! - When those layers' weights add up to 1 or more, they are normalised by their sum: a
//!   hand-only clip at weight 1 over a walk at weight 1 averages the hands and leaves the body
//!   walking at full strength (it does not halve the body, as a global normalisation would).
//! - When they add up to less than 1, the rest pose (with any bone-control overrides) fills in
//!   the remainder: a cross-fade that brings in a clip animating bones the old one did not
//!   starts from where those bones were, with no jump on its first frame.
//! - A property no weighted layer animates keeps its rest value.
//!
//! Rotations are blended as weighted quaternion sums, each contributor flipped into the
//! hemisphere of the first one (`q` and `-q` are the same rotation; summing opposite signs would
//! cancel) and normalised at the end. Translations, scales and morph weights are weighted
//! linear sums. A property with a single contributor at weight ≥ 1 is copied as sampled, so
//! weights `(1, 0)` reproduce the first clip bit for bit. After blending, the bone-control
//! visibility hook runs again (`after_channels`: a hidden bone stays hidden even under clips with
//! scale tracks), exactly as in the single-clip [`AnimationController`].
//!
//! The maps from each clip's channels to these properties are built once in
//! [`WeightedBlend::new`]; [`tick`](WeightedBlend::tick) walks flat arrays, allocates nothing
//! and cannot fail.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//!
//! // Two clips moving one joint along x: "left" to -1, "right" to +1.
//! let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
//!     let s = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
//!     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
//! };
//! let data = Arc::new(AnimationData {
//!     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
//!     clips: vec![clip("left", -1.0)?, clip("right", 1.0)?],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
//!     morph_bindings: vec![],
//!     handedness: Handedness::RightHanded,
//! });
//!
//! let mut blend = WeightedBlend::with_weights(data, &[(0, 0.25), (1, 0.75)])?;
//! let mut sink = RecordingSink::default();
//! for layer in blend.layers_mut() {
//!     layer.clock_mut().seek(1.0); // both at the last key
//! }
//! blend.evaluate(&mut sink);
//! // 0.25 · -1 + 0.75 · 1 = 0.5
//! assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6);
//!
//! // Weight 0.5 on "right" alone: the rest pose (x = 0) fills in the other half.
//! blend.set_weight(0, 0.0)?;
//! blend.set_weight(1, 0.5)?;
//! blend.evaluate(&mut sink);
//! assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6);
//! # Ok::<(), AnimError>(())
//! ```

use std::sync::Arc;

use glam::Vec4;

use crate::blend_map::{ChannelMaps, MorphEntry, MorphSlot, TrsSlot};
use crate::blend_tracks::{NO_SLOT, TrackSlots};
use crate::timeline::{Segment, TimeCursor};
use crate::{
    AnimError, AnimationController, AnimationData, PlaybackClock, PoseHook, PoseScratch, PoseSink,
    SamplerCursor, evaluate_sampler_cursor,
};

/// One clip playing inside a [`WeightedBlend`], with its weight and clock.
#[derive(Debug, Clone)]
pub struct BlendLayer {
    clip: usize,
    weight: f32,
    clock: PlaybackClock,
    cursors: Vec<SamplerCursor>,
    /// One cursor per key-time array of the clip (its tracks share them).
    time_cursors: Vec<TimeCursor>,
}

impl BlendLayer {
    /// The clip this layer plays.
    #[must_use]
    pub fn clip(&self) -> usize {
        self.clip
    }

    /// The layer's weight (in `0..=`[`MAX_WEIGHT`]).
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Sets the weight. Negative, NaN and infinite weights count as 0 (the layer is skipped);
    /// weights above [`MAX_WEIGHT`] count as `MAX_WEIGHT`.
    pub fn set_weight(&mut self, weight: f32) {
        self.weight = sanitize_weight(weight);
    }

    /// The layer's playback clock.
    #[must_use]
    pub fn clock(&self) -> &PlaybackClock {
        &self.clock
    }

    /// The layer's playback clock (play, pause, seek, speed, loop, range).
    pub fn clock_mut(&mut self) -> &mut PlaybackClock {
        &mut self.clock
    }
}

/// The largest weight a layer or snapshot takes; larger finite weights count as this.
///
/// Blending is relative, and past a ratio of about 1e7 the lighter contributor is lost in f32
/// rounding anyway; capping keeps every weighted sum finite (two layers at `f32::MAX / 2`
/// would otherwise sum to infinity and blend into NaN bone matrices: found by the
/// `controller_api` fuzz target).
pub const MAX_WEIGHT: f32 = 1e12;

fn sanitize_weight(weight: f32) -> f32 {
    if weight.is_finite() && weight > 0.0 {
        weight.min(MAX_WEIGHT)
    } else {
        0.0
    }
}

/// Running sums of one property during an evaluation; after it, `sum` holds the blended value.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    /// Weighted sum of the contributors (unused lanes stay 0).
    sum: Vec4,
    /// The first contributor: the hemisphere reference, and the exact result when it is the
    /// only contributor.
    first: Vec4,
    weight: f32,
    count: u32,
}

impl Acc {
    #[inline]
    fn add(&mut self, value: Vec4, w: f32, rotation: bool) {
        if self.count == 0 {
            self.first = value;
            self.sum = value * w;
            self.weight = w;
            self.count = 1;
        } else {
            let signed = if rotation && value.dot(self.first) < 0.0 {
                -w
            } else {
                w
            };
            self.sum += value * signed;
            self.weight += w;
            self.count += 1;
        }
    }

    /// The blended value, given the property's rest (or override) value `rest`.
    #[inline]
    fn finish(&mut self, rest: Vec4, rotation: bool) -> Vec4 {
        let total = self.weight;
        let mut out = if self.count == 1 && total >= 1.0 {
            self.first
        } else if total < 1.0 {
            let fill = if rotation && rest.dot(self.first) < 0.0 {
                total - 1.0
            } else {
                1.0 - total
            };
            self.sum + rest * fill
        } else if rotation {
            self.sum
        } else {
            self.sum / total
        };
        if rotation && !(self.count == 1 && total >= 1.0) {
            let len_sq = out.length_squared();
            out = if len_sq > 0.0 && len_sq.is_finite() {
                out / len_sq.sqrt()
            } else {
                self.first
            };
        }
        self.sum = out;
        out
    }
}

/// Running sums of one evaluation: one [`Acc`] per TRS slot, flat buffers for morph slots.
#[derive(Debug, Clone)]
struct Mix {
    trs: Vec<Acc>,
    /// One layer's TRS samples, 4 floats per entry of its clip.
    samples: Vec<f32>,
    morph_weight: Vec<f32>,
    morph_count: Vec<u32>,
    /// Weighted sums, then the blended values (`MorphSlot::values` offsets).
    morph_acc: Vec<f32>,
    /// One contributor's sample.
    morph_sample: Vec<f32>,
    /// One layer's key intervals and track samples (see `tracks::sample_tracks`).
    segments: Vec<Segment>,
    vec3: Vec<Vec4>,
    quat: Vec<Vec4>,
}

/// A frozen pose used as one more contributor (how a cross-fade interrupted mid-way starts
/// from what is on screen).
#[derive(Debug, Clone)]
struct Snapshot {
    weight: f32,
    trs: Vec<Vec4>,
    trs_slots: Vec<usize>,
    morph: Vec<f32>,
    morph_slots: Vec<usize>,
}

/// A weighted blend of clips of one asset, turned into bone matrices and morph weights every
/// tick. See the [module docs](self) for the blending rules.
#[derive(Debug, Clone)]
pub struct WeightedBlend {
    controller: AnimationController,
    maps: Arc<ChannelMaps>,
    tracks: Arc<TrackSlots>,
    layers: Vec<BlendLayer>,
    mix: Mix,
    snapshot: Snapshot,
}

impl WeightedBlend {
    /// Validates `data`, maps every clip's channels, and allocates every buffer. Starts with no
    /// layers (the rest pose).
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds.
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        let controller = AnimationController::new(data)?;
        let maps = ChannelMaps::new(controller.data());
        let (trs, morph) = (maps.trs_slots.len(), maps.morph_slots.len());
        let values = maps.morph_value_len;
        let plan = &controller.scratch().plan;
        let tracks = TrackSlots::new(controller.data(), plan, &maps);
        let (timelines, vec3, quat) = (plan.max_timelines, plan.max_vec3, plan.max_quat);
        Ok(Self {
            tracks: Arc::new(tracks),
            controller,
            mix: Mix {
                trs: vec![Acc::default(); trs],
                samples: vec![0.0; 4 * maps.max_trs_entries()],
                morph_weight: vec![0.0; morph],
                morph_count: vec![0; morph],
                morph_acc: vec![0.0; values],
                morph_sample: vec![0.0; maps.max_morph_components],
                segments: vec![Segment::default(); timelines],
                vec3: vec![Vec4::ZERO; vec3],
                quat: vec![Vec4::ZERO; quat],
            },
            snapshot: Snapshot {
                weight: 0.0,
                trs: vec![Vec4::ZERO; trs],
                trs_slots: Vec::with_capacity(trs),
                morph: vec![0.0; values],
                morph_slots: Vec::with_capacity(morph),
            },
            maps: Arc::new(maps),
            layers: Vec::new(),
        })
    }

    /// A blend with one playing, looping layer per `(clip, weight)`, in order.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds, or [`AnimError::NoSuchClip`].
    pub fn with_weights(
        data: Arc<AnimationData>,
        weights: &[(usize, f32)],
    ) -> Result<Self, AnimError> {
        let mut blend = Self::new(data)?;
        for &(clip, weight) in weights {
            blend.add_layer(clip, weight)?;
        }
        Ok(blend)
    }

    /// Adds a layer playing `clip` at `weight` (playing and looping over the whole clip, at
    /// time 0) and returns its index. Allocates: do it at setup, not every frame.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn add_layer(&mut self, clip: usize, weight: f32) -> Result<usize, AnimError> {
        let data = self.controller.data();
        let Some(c) = data.clips.get(clip) else {
            return Err(AnimError::NoSuchClip {
                clip,
                clip_count: data.clips.len(),
            });
        };
        let mut clock = PlaybackClock::new(c.duration());
        clock.play();
        let timelines = self.controller.scratch().plan.clips[clip].timelines.len();
        self.layers.push(BlendLayer {
            clip,
            weight: sanitize_weight(weight),
            clock,
            cursors: vec![SamplerCursor::default(); c.samplers.len()],
            time_cursors: vec![TimeCursor::default(); timelines],
        });
        Ok(self.layers.len() - 1)
    }

    /// Removes layer `layer` (later layers move down by one) and returns it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn remove_layer(&mut self, layer: usize) -> Result<BlendLayer, AnimError> {
        self.check_layer(layer)?;
        Ok(self.layers.remove(layer))
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

    /// Sets the weight of layer `layer` (negative, NaN and infinite weights count as 0, weights
    /// above [`MAX_WEIGHT`] as `MAX_WEIGHT`).
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn set_weight(&mut self, layer: usize, weight: f32) -> Result<(), AnimError> {
        self.check_layer(layer)?;
        self.layers[layer].set_weight(weight);
        Ok(())
    }

    /// The layers, in order.
    #[must_use]
    pub fn layers(&self) -> &[BlendLayer] {
        &self.layers
    }

    /// The layers, to change weights and clocks.
    pub fn layers_mut(&mut self) -> &mut [BlendLayer] {
        &mut self.layers
    }

    /// The shared animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.controller.data()
    }

    /// Installs (or removes) the bone-control hook: `before_channels` runs after the rest
    /// reset (so overrides are the "rest" that fills in below weight 1), `after_channels`
    /// (visibility) after the blend.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.controller.set_pose_hook(hook);
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.controller.pose_hook()
    }

    /// Freezes the pose of the last evaluation (the blended values, before visibility) as an
    /// extra contributor that blends in with [`set_snapshot_weight`](Self::set_snapshot_weight)
    /// (0 until set). Before any evaluation the snapshot is the rest pose. Allocates nothing.
    pub fn capture_snapshot(&mut self) {
        let snapshot = &mut self.snapshot;
        snapshot.trs_slots.clear();
        for (i, acc) in self.mix.trs.iter().enumerate() {
            if acc.count > 0 {
                snapshot.trs[i] = acc.sum;
                snapshot.trs_slots.push(i);
            }
        }
        snapshot.morph_slots.clear();
        for (i, slot) in self.maps.morph_slots.iter().enumerate() {
            if self.mix.morph_count[i] > 0 {
                let values = slot.values..slot.values + slot.components;
                snapshot.morph[values.clone()].copy_from_slice(&self.mix.morph_acc[values]);
                snapshot.morph_slots.push(i);
            }
        }
    }

    /// Weight of the captured snapshot (0: ignored).
    #[must_use]
    pub fn snapshot_weight(&self) -> f32 {
        self.snapshot.weight
    }

    /// Sets the snapshot's weight (negative, NaN and infinite weights count as 0, weights above
    /// [`MAX_WEIGHT`] as `MAX_WEIGHT`).
    pub fn set_snapshot_weight(&mut self, weight: f32) {
        self.snapshot.weight = sanitize_weight(weight);
    }

    /// Drops the snapshot (weight 0, nothing captured).
    pub fn clear_snapshot(&mut self) {
        self.snapshot.weight = 0.0;
        self.snapshot.trs_slots.clear();
        self.snapshot.morph_slots.clear();
    }

    /// Advances every layer's clock by `delta_ms` milliseconds, then (when
    /// [`visible`](Self::visible)) blends and writes the pose to `sink` (see
    /// [`evaluate`](Self::evaluate)).
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        for layer in &mut self.layers {
            layer.clock.advance(delta_ms);
        }
        if self.controller.visible {
            self.evaluate(sink);
        }
    }

    /// Marks the blend visible or not (see [`AnimationController::visible`]): while not
    /// visible, [`tick`](Self::tick) moves the layers' clocks and skips the pose.
    pub fn set_visible(&mut self, visible: bool) {
        self.controller.visible = visible;
    }

    /// Whether [`tick`](Self::tick) poses.
    #[must_use]
    pub fn visible(&self) -> bool {
        self.controller.visible
    }

    /// Blends the layers at their current times and writes the pose to `sink`: rest reset,
    /// bone-control overrides, blended channels, visibility, local → world, bone matrices and
    /// morph weights.
    pub fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        let Self {
            controller,
            maps,
            tracks,
            layers,
            mix,
            snapshot,
        } = self;
        controller.pose_with(sink, |data, scratch| {
            blend_channels(data, scratch, maps, tracks, layers, mix, snapshot);
        });
    }

    /// World matrices of every node from the last pose, 16 floats each (computed on the first
    /// call after each pose, see [`AnimationController::world_matrices`]).
    pub fn world_matrices(&mut self) -> &[f32] {
        self.controller.world_matrices()
    }

    /// Brings `scratch().world` up to date with the last pose.
    pub fn resolve_world_matrices(&mut self) {
        self.controller.resolve_world_matrices();
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[f32]> {
        self.controller.bone_matrices(binding)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.controller.morph_weights(binding)
    }

    /// The scratch buffers of the last pose (blended TRS, world matrices, bones, weights).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        self.controller.scratch()
    }
}

/// The channel step of a blend: sums every weighted contributor per property, then writes each
/// touched property's blended value over the rest (or override) value in `scratch`.
fn blend_channels(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    maps: &ChannelMaps,
    tracks: &TrackSlots,
    layers: &mut [BlendLayer],
    mix: &mut Mix,
    snapshot: &Snapshot,
) {
    for acc in &mut mix.trs {
        acc.count = 0;
    }
    mix.morph_weight.fill(0.0);
    mix.morph_count.fill(0);
    if snapshot.weight > 0.0 {
        let w = snapshot.weight;
        for &s in &snapshot.trs_slots {
            mix.trs[s].add(snapshot.trs[s], w, maps.trs_slots[s].rotation);
        }
        for &s in &snapshot.morph_slots {
            let slot = &maps.morph_slots[s];
            let n = slot.components;
            mix.morph_sample[..n].copy_from_slice(&snapshot.morph[slot.values..slot.values + n]);
            mix.add_morph(s, slot.values, n, w);
        }
    }
    for layer in layers.iter_mut() {
        let w = layer.weight;
        if w <= 0.0 {
            continue;
        }
        let clip = &data.clips[layer.clip];
        let t = layer.clock.time();
        // LINEAR and STEP transforms: every track of the clip at once (one key search per
        // key-time array), then summed into their slots.
        let cp = &scratch.plan.clips[layer.clip];
        let slots = &tracks.clips[layer.clip];
        crate::tracks::sample_tracks(
            clip,
            cp,
            t,
            &mut layer.time_cursors,
            &mut mix.segments,
            &mut mix.vec3,
            &mut mix.quat,
        );
        for (&slot, value) in slots.vec3.iter().zip(&mix.vec3) {
            if slot != NO_SLOT {
                let mut value = *value;
                value.w = 0.0;
                mix.trs[slot].add(value, w, false);
            }
        }
        for (&slot, &value) in slots.quat.iter().zip(&mix.quat) {
            if slot != NO_SLOT {
                mix.trs[slot].add(value, w, true);
            }
        }
        // CUBICSPLINE transforms one by one. Sample every channel first, then sum: reading a
        // value back right after the sampler's scalar stores stalls on store-to-load
        // forwarding, which cost more than the sampling.
        let entries = &slots.generic;
        for (i, e) in entries.iter().enumerate() {
            evaluate_sampler_cursor(
                &clip.samplers[e.sampler],
                t,
                e.components,
                e.rotation,
                &mut mix.samples,
                i * 4,
                &mut layer.cursors[e.sampler],
            );
        }
        for (e, value) in entries.iter().zip(mix.samples.chunks_exact(4)) {
            let mut value = Vec4::from_slice(value);
            if !e.rotation {
                value.w = 0.0;
            }
            mix.trs[e.slot].add(value, w, e.rotation);
        }
        for e in maps.morph_entries(layer.clip) {
            let MorphEntry {
                sampler,
                slot,
                values,
                components,
            } = *e;
            evaluate_sampler_cursor(
                &clip.samplers[sampler],
                t,
                components,
                false,
                &mut mix.morph_sample,
                0,
                &mut layer.cursors[sampler],
            );
            mix.add_morph(slot, values, components, w);
        }
    }
    for (acc, slot) in mix.trs.iter_mut().zip(&maps.trs_slots) {
        if acc.count > 0 {
            write_trs(acc, slot, &mut scratch.trs);
        }
    }
    for (s, slot) in maps.morph_slots.iter().enumerate() {
        if mix.morph_count[s] > 0 {
            mix.finish_morph(s, slot, scratch);
        }
    }
}

/// Finishes one TRS property and writes it over its rest value.
#[inline]
fn write_trs(acc: &mut Acc, slot: &TrsSlot, trs: &mut [f32]) {
    let at = slot.at;
    let rest = if slot.rotation {
        Vec4::new(trs[at], trs[at + 1], trs[at + 2], trs[at + 3])
    } else {
        Vec4::new(trs[at], trs[at + 1], trs[at + 2], 0.0)
    };
    let out = acc.finish(rest, slot.rotation);
    trs[at] = out.x;
    trs[at + 1] = out.y;
    trs[at + 2] = out.z;
    if slot.rotation {
        trs[at + 3] = out.w;
    }
}

impl Mix {
    /// A contributor to morph slot `slot`, in `morph_sample`.
    #[inline]
    fn add_morph(&mut self, slot: usize, values: usize, components: usize, w: f32) {
        let acc = &mut self.morph_acc[values..values + components];
        let sample = &self.morph_sample[..components];
        if self.morph_count[slot] == 0 {
            for (a, &x) in acc.iter_mut().zip(sample) {
                *a = w * x;
            }
        } else {
            for (a, &x) in acc.iter_mut().zip(sample) {
                *a += w * x;
            }
        }
        self.morph_weight[slot] += w;
        self.morph_count[slot] += 1;
    }

    /// Finishes morph slot `s` (kept in `morph_acc` for snapshots) and writes it into
    /// `scratch`, whose current weights are the mesh's defaults. With a single contributor at
    /// weight `w ≥ 1` the sum `w · x` divided by `w` is exact for `w = 1`, so weights `(1, 0)`
    /// reproduce the clip's morph weights bit for bit.
    #[inline]
    fn finish_morph(&mut self, s: usize, slot: &MorphSlot, scratch: &mut PoseScratch) {
        let n = slot.components;
        let total = self.morph_weight[s];
        let dst = &mut scratch.morph_weights[slot.binding][..n];
        let out = &mut self.morph_acc[slot.values..slot.values + n];
        if total < 1.0 {
            for (a, &r) in out.iter_mut().zip(dst.iter()) {
                *a += (1.0 - total) * r;
            }
        } else {
            for a in out.iter_mut() {
                *a /= total;
            }
        }
        dst.copy_from_slice(out);
    }
}
