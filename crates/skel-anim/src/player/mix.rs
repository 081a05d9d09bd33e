//! The channel step of a layered pose: every blend layer sampled and summed property by
//! property (normalised, the rest value filling a total below 1), then every additive layer
//! applied on top in layer order. Buffers are sized once per rig; nothing here allocates.

use glam::Vec4;

use crate::blend_map::{MorphEntry, MorphSlot, TrsSlot};
use crate::blend_tracks::NO_SLOT;
use crate::player::RootState;
use crate::player::additive::{add_quat, add_vec3};
use crate::player::layer::{Layer, LayerMode, ReferencePose};
use crate::timeline::Segment;
use crate::{PoseScratch, Rig, SamplerCursor, evaluate_sampler_cursor};

/// Running sums of one property during an evaluation; after it, `sum` holds the blended value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Acc {
    /// Weighted sum of the contributors (unused lanes stay 0).
    pub(crate) sum: Vec4,
    /// The first contributor: the hemisphere reference, and the exact result when it is the
    /// only contributor.
    first: Vec4,
    weight: f32,
    pub(crate) count: u32,
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

/// Running sums and per-layer sample buffers of one evaluation.
#[derive(Debug, Clone)]
pub(crate) struct Mix {
    pub(crate) trs: Vec<Acc>,
    /// One layer's generic (CUBICSPLINE) TRS samples, 4 floats per entry of its clip.
    samples: Vec<f32>,
    morph_weight: Vec<f32>,
    pub(crate) morph_count: Vec<u32>,
    /// Weighted sums, then the blended values (`MorphSlot::values` offsets).
    pub(crate) morph_acc: Vec<f32>,
    /// One contributor's sample.
    morph_sample: Vec<f32>,
    /// One layer's key intervals and track samples (see `tracks::sample_tracks`).
    segments: Vec<Segment>,
    vec3: Vec<Vec4>,
    quat: Vec<Vec4>,
    /// Whether `trs` holds the last evaluation's blended values (the property-by-property
    /// pass ran); a snapshot taken otherwise re-runs it first.
    pub(crate) trs_current: bool,
}

/// A frozen pose used as one more blend contributor.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub(crate) weight: f32,
    pub(crate) trs: Vec<Vec4>,
    pub(crate) trs_slots: Vec<usize>,
    pub(crate) morph: Vec<f32>,
    pub(crate) morph_slots: Vec<usize>,
}

impl Snapshot {
    pub(crate) fn new(rig: &Rig) -> Self {
        let (trs, morph) = (rig.maps.trs_slots.len(), rig.maps.morph_slots.len());
        Self {
            weight: 0.0,
            trs: vec![Vec4::ZERO; trs],
            trs_slots: Vec::with_capacity(trs),
            morph: vec![0.0; rig.maps.morph_value_len],
            morph_slots: Vec::with_capacity(morph),
        }
    }

    /// Freezes the last evaluation's blended values (allocates nothing).
    pub(crate) fn capture(&mut self, rig: &Rig, mix: &Mix) {
        self.trs_slots.clear();
        for (i, acc) in mix.trs.iter().enumerate() {
            if acc.count > 0 {
                self.trs[i] = acc.sum;
                self.trs_slots.push(i);
            }
        }
        self.morph_slots.clear();
        for (i, slot) in rig.maps.morph_slots.iter().enumerate() {
            if mix.morph_count[i] > 0 {
                let values = slot.values..slot.values + slot.components;
                self.morph[values.clone()].copy_from_slice(&mix.morph_acc[values]);
                self.morph_slots.push(i);
            }
        }
    }
}

impl Mix {
    pub(crate) fn new(rig: &Rig) -> Self {
        let maps = &rig.maps;
        let plan = &rig.plan;
        let morph = maps.morph_slots.len();
        Self {
            trs: vec![Acc::default(); maps.trs_slots.len()],
            samples: vec![0.0; 4 * maps.max_trs_entries()],
            morph_weight: vec![0.0; morph],
            morph_count: vec![0; morph],
            morph_acc: vec![0.0; maps.morph_value_len],
            morph_sample: vec![0.0; maps.max_morph_components],
            segments: vec![Segment::default(); plan.max_timelines],
            vec3: vec![Vec4::ZERO; plan.max_vec3],
            quat: vec![Vec4::ZERO; plan.max_quat],
            trs_current: false,
        }
    }

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
    /// weight `w ≥ 1` the sum `w · x` divided by `w` is exact for `w = 1`, so weight 1
    /// reproduces the clip's morph weights bit for bit.
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

/// What one layer's samples are for.
#[derive(Clone, Copy)]
enum Use<'a> {
    /// Summed into the blend accumulators at the layer's weight.
    Blend,
    /// Added to the pose in `scratch` as differences from `reference`.
    Add(&'a ReferencePose),
}

/// The accumulators and per-layer sample buffers of [`mix_layers`], sized once for a rig.
#[derive(Debug, Clone)]
pub struct LayerMix {
    pub(crate) mix: Mix,
    pub(crate) snapshot: Snapshot,
}

impl LayerMix {
    /// Buffers for `rig` (allocates; reuse them every frame).
    #[must_use]
    pub fn new(rig: &Rig) -> Self {
        Self {
            mix: Mix::new(rig),
            snapshot: Snapshot::new(rig),
        }
    }
}

/// The layer step as a job over caller-owned buffers (ozz's `BlendingJob`): `layers`, each at
/// its clock's time, mixed into `scratch.trs` and `scratch.morph_weights` by the
/// [`Player`](crate::Player)'s rules (blend layers averaged per property, the values already in
/// `scratch` filling a total below 1, additive layers on top in order, masks per node). Run it
/// after [`reset_to_rest`](crate::reset_to_rest) (and any overrides), before
/// [`compute_world_matrices`](crate::compute_world_matrices) and
/// [`compute_bone_matrices`](crate::compute_bone_matrices). Allocates nothing.
///
/// # Panics
/// When `scratch`, `layers` or `mix` were made for another rig.
pub fn mix_layers(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch, mix: &mut LayerMix) {
    mix_layers_with(rig, scratch, layers, &mut mix.mix, &mix.snapshot, None);
}

/// The channel step of a layered pose over `scratch` (reset to rest, overrides applied): four
/// nodes at a time where [`quad_mix`](super::quad_mix) applies, else property by property.
pub(crate) fn mix_layers_with(
    rig: &Rig,
    scratch: &mut PoseScratch,
    layers: &mut [Layer],
    mix: &mut Mix,
    snapshot: &Snapshot,
    root: Option<&RootState>,
) {
    if snapshot.weight <= 0.0 && root.is_none() && super::quad_mix::mix_trs(rig, layers, scratch) {
        mix_morphs(rig, layers, mix, scratch);
        mix.trs_current = false;
        return;
    }
    mix_by_property(rig, scratch, layers, mix, snapshot, root);
}

/// The morph-weight part of the layer step (the transforms done elsewhere).
pub(crate) fn mix_morphs(
    rig: &Rig,
    layers: &mut [Layer],
    mix: &mut Mix,
    scratch: &mut PoseScratch,
) {
    if rig.maps.morph_slots.is_empty() {
        return;
    }
    mix.morph_weight.fill(0.0);
    mix.morph_count.fill(0);
    for layer in layers.iter_mut() {
        if layer.mode == LayerMode::Blend && layer.effective_weight() > 0.0 {
            sample_morphs(rig, layer, mix, scratch, Use::Blend);
        }
    }
    for (s, slot) in rig.maps.morph_slots.iter().enumerate() {
        if mix.morph_count[s] > 0 {
            mix.finish_morph(s, slot, scratch);
        }
    }
    for layer in layers.iter_mut() {
        if layer.effective_weight() == 0.0 {
            continue;
        }
        if let Some(reference) = layer.reference.take() {
            sample_morphs(rig, layer, mix, scratch, Use::Add(&reference));
            layer.reference = Some(reference);
        }
    }
}

/// The channel step property by property (every stack the quad pass does not take).
pub(crate) fn mix_by_property(
    rig: &Rig,
    scratch: &mut PoseScratch,
    layers: &mut [Layer],
    mix: &mut Mix,
    snapshot: &Snapshot,
    root: Option<&RootState>,
) {
    mix.trs_current = true;
    let maps = &rig.maps;
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
        if layer.mode == LayerMode::Blend && layer.effective_weight() > 0.0 {
            sample_layer(rig, layer, mix, scratch, Use::Blend, root);
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
    for layer in layers.iter_mut() {
        if layer.effective_weight() == 0.0 {
            continue;
        }
        // Taken out for the call: the layer's cursors move while its reference is read.
        if let Some(reference) = layer.reference.take() {
            sample_layer(rig, layer, mix, scratch, Use::Add(&reference), root);
            layer.reference = Some(reference);
        }
    }
}

/// Samples `layer`'s clip at its clock's time and either sums it into `mix` or adds it to
/// `scratch`, property by property, at the layer's weight times its mask's node weight.
#[inline]
fn sample_layer(
    rig: &Rig,
    layer: &mut Layer,
    mix: &mut Mix,
    scratch: &mut PoseScratch,
    use_: Use<'_>,
    root: Option<&RootState>,
) {
    let data = rig.data();
    let w = layer.effective_weight();
    let clip = &data.clips[layer.clip];
    let t = layer.clock.time();
    let trs_mask = layer.slot_mask.as_ref().map(|(trs, _)| &trs[..]);
    let weight_of = |slot: usize| trs_mask.map_or(w, |m| w * m[slot]);
    // LINEAR and STEP transforms: every track of the clip at once (one key search per key-time
    // array), then applied to their slots.
    let cp = &rig.plan.clips[layer.clip];
    let slots = &rig.tracks.clips[layer.clip];
    crate::tracks::sample_tracks(
        clip,
        cp,
        t,
        &mut layer.time_cursors,
        &mut mix.segments,
        &mut mix.vec3,
        &mut mix.quat,
    );
    if let Some(root) = root {
        hold_root(
            root,
            layer.clip,
            &slots.vec3,
            &mut mix.vec3,
            root.t_slot,
            false,
        );
        hold_root(
            root,
            layer.clip,
            &slots.quat,
            &mut mix.quat,
            root.r_slot,
            true,
        );
    }
    let vec3 = slots.vec3.iter().zip(&mix.vec3[..slots.vec3.len()]);
    let quat = slots.quat.iter().zip(&mix.quat[..slots.quat.len()]);
    match use_ {
        Use::Blend => {
            for (&slot, value) in vec3 {
                let sw = if slot == NO_SLOT {
                    0.0
                } else {
                    weight_of(slot)
                };
                if sw != 0.0 {
                    mix.trs[slot].add(value.truncate().extend(0.0), sw, false);
                }
            }
            for (&slot, &value) in quat {
                let sw = if slot == NO_SLOT {
                    0.0
                } else {
                    weight_of(slot)
                };
                if sw != 0.0 {
                    mix.trs[slot].add(value, sw, true);
                }
            }
        }
        Use::Add(reference) => {
            for (&slot, &value) in vec3 {
                let sw = if slot == NO_SLOT {
                    0.0
                } else {
                    weight_of(slot)
                };
                if sw != 0.0 {
                    add_vec3(&mut scratch.trs, rig, slot, value, reference.trs[slot], sw);
                }
            }
            for (&slot, &value) in quat {
                let sw = if slot == NO_SLOT {
                    0.0
                } else {
                    weight_of(slot)
                };
                if sw != 0.0 {
                    add_quat(&mut scratch.trs, rig, slot, value, reference.trs[slot], sw);
                }
            }
        }
    }
    // CUBICSPLINE transforms one by one. Sample every channel first, then apply: reading a
    // value back right after the sampler's scalar stores stalls on store-to-load forwarding,
    // which cost more than the sampling.
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
    for (i, e) in entries.iter().enumerate() {
        let mut value = Vec4::from_slice(&mix.samples[i * 4..i * 4 + 4]);
        if !e.rotation {
            value.w = 0.0;
        }
        if let Some(root) = root {
            if e.slot == root.t_slot && !e.rotation {
                value = root.plan.in_place_translation(layer.clip, value);
            } else if e.slot == root.r_slot && e.rotation {
                value = root.plan.in_place_rotation(layer.clip, value);
            }
        }
        let sw = weight_of(e.slot);
        if sw == 0.0 {
            continue;
        }
        match (use_, e.rotation) {
            (Use::Blend, rotation) => mix.trs[e.slot].add(value, sw, rotation),
            (Use::Add(r), false) => {
                add_vec3(&mut scratch.trs, rig, e.slot, value, r.trs[e.slot], sw)
            }
            (Use::Add(r), true) => {
                add_quat(&mut scratch.trs, rig, e.slot, value, r.trs[e.slot], sw)
            }
        }
    }
    sample_morphs(rig, layer, mix, scratch, use_);
}

/// Samples `layer`'s morph-weight channels at its clock's time and sums them into `mix` or adds
/// them to `scratch` (see [`sample_layer`]).
#[inline]
fn sample_morphs(
    rig: &Rig,
    layer: &mut Layer,
    mix: &mut Mix,
    scratch: &mut PoseScratch,
    use_: Use<'_>,
) {
    let clip = &rig.data().clips[layer.clip];
    let (w, t) = (layer.effective_weight(), layer.clock.time());
    let morph_mask = layer.slot_mask.as_ref().map(|(_, morph)| &morph[..]);
    for e in rig.maps.morph_entries(layer.clip) {
        let MorphEntry {
            sampler,
            slot,
            values,
            components,
        } = *e;
        let slot_w = morph_mask.map_or(w, |m| w * m[slot]);
        if slot_w == 0.0 {
            continue;
        }
        sample_morph(
            &clip.samplers[sampler],
            t,
            components,
            mix,
            &mut layer.cursors[sampler],
        );
        match use_ {
            Use::Blend => mix.add_morph(slot, values, components, slot_w),
            Use::Add(reference) => {
                let binding = rig.maps.morph_slots[slot].binding;
                let dst = &mut scratch.morph_weights[binding][..components];
                let refs = &reference.morph[values..values + components];
                for ((d, &x), &r) in dst
                    .iter_mut()
                    .zip(&mix.morph_sample[..components])
                    .zip(refs)
                {
                    *d += slot_w * (x - r);
                }
            }
        }
    }
}

/// Holds the root's extracted components at the clip's time 0 in a layer's samples.
fn hold_root(
    root: &RootState,
    clip_index: usize,
    slots: &[usize],
    values: &mut [Vec4],
    root_slot: usize,
    rotation: bool,
) {
    if root_slot == usize::MAX {
        return;
    }
    if let Some(i) = slots.iter().position(|&s| s == root_slot) {
        values[i] = if rotation {
            root.plan.in_place_rotation(clip_index, values[i])
        } else {
            root.plan.in_place_translation(clip_index, values[i])
        };
    }
}

#[inline]
fn sample_morph(
    sampler: &crate::Sampler,
    t: f32,
    components: usize,
    mix: &mut Mix,
    cursor: &mut SamplerCursor,
) {
    evaluate_sampler_cursor(
        sampler,
        t,
        components,
        false,
        &mut mix.morph_sample,
        0,
        cursor,
    );
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
