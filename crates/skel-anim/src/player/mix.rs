//! The channel step of a layered pose: every blend layer sampled and summed property by
//! property (normalised, the rest value filling a total below 1), then every additive layer
//! applied on top in layer order. Buffers are sized once per rig; nothing here allocates.

use glam::Vec4;

use crate::player::accumulators::{Acc, Mix, Snapshot};
use crate::player::additive::{add_quat, add_vec3};
use crate::player::layer::{Layer, LayerMode, ReferencePose};
use crate::player::motion_extraction::RootState;
use crate::rig::blend_map::{MorphEntry, TrsSlot};
use crate::rig::blend_tracks::NO_SLOT;
use crate::{PoseScratch, Rig, SamplerCursor, evaluate_sampler_cursor};

/// What one layer's samples are for.
#[derive(Clone, Copy)]
pub(super) enum Use<'a> {
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
            sample_morphs(rig, layer, mix, scratch, Use::Blend, Unity);
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
            sample_morphs(rig, layer, mix, scratch, Use::Add(&reference), Unity);
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
            sample_layer(rig, layer, mix, scratch, Use::Blend, root, Unity);
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
            sample_layer(rig, layer, mix, scratch, Use::Add(&reference), root, Unity);
            layer.reference = Some(reference);
        }
    }
}

/// A factor on a layer's weight per property, beyond its own weight and mask: 1 for layers of
/// the player's stack, an additive group's weight times its mask for the group's members.
pub(super) trait Gain: Copy {
    /// The factor of blend slot `slot`.
    fn trs(self, slot: usize) -> f32;
    /// The factor of morph slot `slot`.
    fn morph(self, slot: usize) -> f32;
}

/// No factor (the multiplications by 1 fold away).
#[derive(Clone, Copy)]
pub(super) struct Unity;

impl Gain for Unity {
    #[inline(always)]
    fn trs(self, _: usize) -> f32 {
        1.0
    }
    #[inline(always)]
    fn morph(self, _: usize) -> f32 {
        1.0
    }
}

/// Samples `layer`'s clip at its clock's time and either sums it into `mix` or adds it to
/// `scratch`, property by property, at the layer's weight times its mask's node weight (times
/// `gain`).
#[inline]
pub(super) fn sample_layer(
    rig: &Rig,
    layer: &mut Layer,
    mix: &mut Mix,
    scratch: &mut PoseScratch,
    use_: Use<'_>,
    root: Option<&RootState>,
    gain: impl Gain,
) {
    let data = rig.data();
    let w = layer.effective_weight();
    let clip = &data.clips[layer.clip];
    let t = layer.clock.time();
    let trs_mask = layer.slot_mask.as_ref().map(|(trs, _)| &trs[..]);
    let weight_of = |slot: usize| gain.trs(slot) * trs_mask.map_or(w, |m| w * m[slot]);
    // LINEAR and STEP transforms: every track of the clip at once (one key search per key-time
    // array), then applied to their slots.
    let cp = &rig.plan.clips[layer.clip];
    let slots = &rig.tracks.clips[layer.clip];
    crate::pose::tracks::sample_tracks(
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
    sample_morphs(rig, layer, mix, scratch, use_, gain);
}

/// Samples `layer`'s morph-weight channels at its clock's time and sums them into `mix` or adds
/// them to `scratch` (see [`sample_layer`]).
#[inline]
pub(super) fn sample_morphs(
    rig: &Rig,
    layer: &mut Layer,
    mix: &mut Mix,
    scratch: &mut PoseScratch,
    use_: Use<'_>,
    gain: impl Gain,
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
        let slot_w = gain.morph(slot) * morph_mask.map_or(w, |m| w * m[slot]);
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
pub(super) fn write_trs(acc: &mut Acc, slot: &TrsSlot, trs: &mut [f32]) {
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
