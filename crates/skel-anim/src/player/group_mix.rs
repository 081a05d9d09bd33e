//! The channel step of a player with layer groups, property by property:
//!
//! 1. the ungrouped blend layers (and the player's snapshot) make the base pose, exactly as
//!    without groups (the rest value filling a total below 1);
//! 2. each group, bottom to top: an override group's own pose is the normalised blend of its
//!    members that animate the property and of its snapshot (the pose below filling a total
//!    below 1), laid over the pose below as `lerp(below, own, weight × mask(node))` (an
//!    nlerp, hemisphere-aligned, for rotations); an additive group's snapshot (a frozen change)
//!    and then its members are added as additive layers at their weight × the group's weight ×
//!    the group's mask;
//! 3. the ungrouped additive layers, in layer order.
//!
//! Buffers are the player's, sized once; nothing here allocates.

use glam::Vec4;

use super::accumulators::{Mix, Snapshot};
use super::additive::{add_quat, add_vec3};
use super::group::{GroupMode, LayerGroup};
use super::layer::{Layer, LayerMode};
use super::mask::SlotMask;
use super::mix::{Gain, Unity, Use, sample_layer, write_trs};
use super::motion_extraction::RootState;
use super::{Player, ik_pass};
use crate::rig::blend_map::TrsSlot;
use crate::{AnimError, PoseScratch, PoseSink, Rig};

/// Which pose an evaluation freezes on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Capture {
    /// None.
    Nothing,
    /// The base pose, into the player's snapshot.
    Base,
    /// Group `g`'s own pose (override) or change (additive), into its snapshot.
    Group(usize),
    /// Nothing, for a spring step's pose: not a frame (no switch finished, no foot moved).
    Springs,
}

/// An additive group's weight times its mask, on its members' weights.
#[derive(Clone, Copy)]
struct GroupGain<'a> {
    weight: f32,
    mask: Option<&'a SlotMask>,
}

impl Gain for GroupGain<'_> {
    #[inline]
    fn trs(self, slot: usize) -> f32 {
        self.mask
            .map_or(self.weight, |(m, _)| self.weight * m[slot])
    }
    #[inline]
    fn morph(self, slot: usize) -> f32 {
        self.mask
            .map_or(self.weight, |(_, m)| self.weight * m[slot])
    }
}

impl Player {
    /// Freezes group `group`'s own contribution at the layers' current times and weights
    /// (between ticks, what the last tick showed), into its snapshot:
    /// - an override group's own pose: the normalised blend of its members and of its current
    ///   snapshot, before its weight and mask lay it over the pose below;
    /// - an additive group's own change: per property, the delta its current snapshot and
    ///   members apply at their weights, before the group's weight and mask scale them (a
    ///   rotation delta quaternion, translation, scale and morph-weight differences).
    ///
    /// The snapshot then acts as one more member of the group at
    /// [`set_group_snapshot_weight`](Self::set_group_snapshot_weight) (unchanged by the
    /// capture; an additive group adds it before its members): an interrupted fade continues
    /// from what was on screen instead of restarting a clip. Evaluates the pose once (an
    /// additive group's members twice) and leaves it as it was; allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::NoSuchGroup`] for an index past the end.
    pub fn capture_group_snapshot(&mut self, group: usize) -> Result<(), AnimError> {
        self.group_mut(group)?;
        self.pose_groups(&mut crate::NullSink, Capture::Group(group));
        Ok(())
    }

    /// Poses a player with groups into `sink` (rest, hook, groups, IK, world, bones),
    /// freezing `capture` on the way.
    #[inline(never)]
    pub(super) fn pose_groups(&mut self, sink: &mut dyn PoseSink, capture: Capture) {
        let Self {
            poser,
            layers,
            groups,
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
            mix_groups(
                rig,
                scratch,
                Stack {
                    layers,
                    groups,
                    snapshot,
                },
                mix,
                root.as_ref(),
                capture,
            );
            if let Some(inertia) = inertia {
                if capture == Capture::Nothing {
                    super::inertia_state::finish_switch(inertia, &scratch.trs);
                }
                inertia.apply(&mut scratch.trs);
            }
            if !ik.is_empty() {
                ik_pass::solve_all(scratch, ik, frame_map);
            }
            // A capture is not a frame: the feet's state moves once per shown pose.
            if let (Some(foot), Capture::Nothing) = (foot, capture) {
                foot.run(rig.data(), scratch, *last_dt);
            }
            if let (Some(c), Capture::Nothing | Capture::Springs) = (constraints, capture) {
                c.apply(&mut scratch.trs, glam::Affine3A::IDENTITY);
            }
            if let (Some(job), Capture::Nothing) = (springs, capture) {
                job.bones.write_rotations(&job.state, &mut scratch.trs);
            }
        });
    }
}

/// The channel step with groups, nothing captured (an inertialized switch's extra poses).
pub(super) fn mix_stack(
    rig: &Rig,
    scratch: &mut PoseScratch,
    layers: &mut [Layer],
    groups: &mut [LayerGroup],
    snapshot: &mut Snapshot,
    mix: &mut Mix,
    root: Option<&RootState>,
) {
    let stack = Stack {
        layers,
        groups,
        snapshot,
    };
    mix_groups(rig, scratch, stack, mix, root, Capture::Nothing);
}

/// What a grouped evaluation mixes.
struct Stack<'a> {
    layers: &'a mut [Layer],
    groups: &'a mut [LayerGroup],
    snapshot: &'a mut Snapshot,
}

/// The channel step with groups over `scratch` (reset to rest, overrides applied): the rules
/// of the module docs.
fn mix_groups(
    rig: &Rig,
    scratch: &mut PoseScratch,
    stack: Stack<'_>,
    mix: &mut Mix,
    root: Option<&RootState>,
    capture: Capture,
) {
    let Stack {
        layers,
        groups,
        snapshot,
    } = stack;
    // Whatever `mix.trs` holds afterwards, it is not the base the player's snapshot freezes.
    mix.trs_current = false;
    start(rig, mix, snapshot);
    for layer in layers.iter_mut() {
        if layer.group.is_none() && layer.mode == LayerMode::Blend && layer.effective_weight() > 0.0
        {
            sample_layer(rig, layer, mix, scratch, Use::Blend, root, Unity);
        }
    }
    for (acc, slot) in mix.trs.iter_mut().zip(&rig.maps.trs_slots) {
        if acc.count > 0 {
            write_trs(acc, slot, &mut scratch.trs);
        }
    }
    for (s, slot) in rig.maps.morph_slots.iter().enumerate() {
        if mix.morph_count[s] > 0 {
            mix.finish_morph(s, slot, scratch);
        }
    }
    if capture == Capture::Base {
        snapshot.capture(rig, mix);
    }
    for (g, group) in groups.iter_mut().enumerate() {
        let capturing = capture == Capture::Group(g);
        match group.mode {
            GroupMode::Override => {
                if group.weight <= 0.0 && !capturing {
                    continue;
                }
                start(rig, mix, &group.snapshot);
                for layer in layers.iter_mut().filter(|l| l.group == Some(g)) {
                    if layer.mode == LayerMode::Blend && layer.effective_weight() > 0.0 {
                        sample_layer(rig, layer, mix, scratch, Use::Blend, root, Unity);
                    }
                }
                lay_over(rig, mix, group, scratch);
                if capturing {
                    group.snapshot.capture(rig, mix);
                }
            }
            GroupMode::Additive => {
                if capturing {
                    capture_change(rig, scratch, mix, (&mut *layers, g, &mut *group), root);
                }
                if group.weight != 0.0 {
                    let gain = GroupGain {
                        weight: group.weight,
                        mask: group.slot_mask.as_ref(),
                    };
                    add_snapshot(rig, &group.snapshot, scratch, gain);
                    for layer in layers.iter_mut().filter(|l| l.group == Some(g)) {
                        add_layer(rig, layer, mix, scratch, root, gain);
                    }
                }
                if capturing {
                    // The new change replaces the old one once the pose has used the old one.
                    let weight = group.snapshot.weight;
                    std::mem::swap(&mut group.snapshot, &mut group.spare);
                    group.snapshot.weight = weight;
                }
            }
        }
    }
    for layer in layers.iter_mut().filter(|l| l.group.is_none()) {
        add_layer(rig, layer, mix, scratch, root, Unity);
    }
}

/// Computes additive group `g`'s own change into its spare snapshot: its snapshot and members
/// added at their weights (no group weight, no group mask) to a pose that is no change at all
/// (identity rotations, zero vectors and morph weights), the pose below saved in the blend
/// accumulators (unused while additive layers apply) and put back afterwards.
fn capture_change(
    rig: &Rig,
    scratch: &mut PoseScratch,
    mix: &mut Mix,
    (layers, g, group): (&mut [Layer], usize, &mut LayerGroup),
    root: Option<&RootState>,
) {
    let maps = &rig.maps;
    for (acc, slot) in mix.trs.iter_mut().zip(&maps.trs_slots) {
        acc.first = read_trs(slot, &scratch.trs);
        write_value(slot, no_change(slot), &mut scratch.trs);
    }
    for slot in &maps.morph_slots {
        let n = slot.components;
        let dst = &mut scratch.morph_weights[slot.binding][..n];
        mix.morph_acc[slot.values..slot.values + n].copy_from_slice(dst);
        dst.fill(0.0);
    }
    add_snapshot(rig, &group.snapshot, scratch, Unity);
    for layer in layers.iter_mut().filter(|l| l.group == Some(g)) {
        add_layer(rig, layer, mix, scratch, root, Unity);
    }
    let spare = &mut group.spare;
    spare.trs_slots.clear();
    for (s, (acc, slot)) in mix.trs.iter().zip(&maps.trs_slots).enumerate() {
        let change = read_trs(slot, &scratch.trs);
        if change != no_change(slot) {
            spare.trs[s] = change;
            spare.trs_slots.push(s);
        }
        write_value(slot, acc.first, &mut scratch.trs);
    }
    spare.morph_slots.clear();
    for (s, slot) in maps.morph_slots.iter().enumerate() {
        let (values, n) = (slot.values..slot.values + slot.components, slot.components);
        let dst = &mut scratch.morph_weights[slot.binding][..n];
        if dst.iter().any(|&d| d != 0.0) {
            spare.morph[values.clone()].copy_from_slice(dst);
            spare.morph_slots.push(s);
        }
        dst.copy_from_slice(&mix.morph_acc[values]);
    }
}

/// The value of a property that changes nothing when added: the identity rotation, zero.
#[inline]
fn no_change(slot: &TrsSlot) -> Vec4 {
    if slot.rotation { Vec4::W } else { Vec4::ZERO }
}

/// Adds an additive group's `snapshot` (a frozen change) to the pose in `scratch` at its
/// weight × `gain`, as an additive layer whose reference is no change.
fn add_snapshot(rig: &Rig, snapshot: &Snapshot, scratch: &mut PoseScratch, gain: impl Gain) {
    let w = snapshot.weight;
    if w <= 0.0 {
        return;
    }
    for &s in &snapshot.trs_slots {
        let sw = w * gain.trs(s);
        if sw == 0.0 {
            continue;
        }
        let slot = &rig.maps.trs_slots[s];
        if slot.rotation {
            add_quat(&mut scratch.trs, rig, s, snapshot.trs[s], Vec4::W, sw);
        } else {
            add_vec3(&mut scratch.trs, rig, s, snapshot.trs[s], Vec4::ZERO, sw);
        }
    }
    for &s in &snapshot.morph_slots {
        let sw = w * gain.morph(s);
        if sw == 0.0 {
            continue;
        }
        let slot = &rig.maps.morph_slots[s];
        let dst = &mut scratch.morph_weights[slot.binding][..slot.components];
        let change = &snapshot.morph[slot.values..slot.values + slot.components];
        for (d, &c) in dst.iter_mut().zip(change) {
            *d += sw * c;
        }
    }
}

/// Adds additive `layer` to the pose in `scratch` (when it has weight) at its weight × `gain`.
#[inline]
fn add_layer(
    rig: &Rig,
    layer: &mut Layer,
    mix: &mut Mix,
    scratch: &mut PoseScratch,
    root: Option<&RootState>,
    gain: impl Gain,
) {
    if layer.effective_weight() == 0.0 {
        return;
    }
    // Taken out for the call: the layer's cursors move while its reference is read.
    if let Some(reference) = layer.reference.take() {
        sample_layer(rig, layer, mix, scratch, Use::Add(&reference), root, gain);
        layer.reference = Some(reference);
    }
}

/// Empties the accumulators and adds `snapshot` as a contributor at its weight.
fn start(rig: &Rig, mix: &mut Mix, snapshot: &Snapshot) {
    for acc in &mut mix.trs {
        acc.count = 0;
    }
    mix.morph_weight.fill(0.0);
    mix.morph_count.fill(0);
    if snapshot.weight <= 0.0 {
        return;
    }
    let w = snapshot.weight;
    let maps = &rig.maps;
    for &s in &snapshot.trs_slots {
        mix.trs[s].add(snapshot.trs[s], w, maps.trs_slots[s].rotation);
    }
    for &s in &snapshot.morph_slots {
        let slot = &maps.morph_slots[s];
        let (values, n) = (slot.values, slot.components);
        mix.morph_sample[..n].copy_from_slice(&snapshot.morph[values..values + n]);
        mix.add_morph(s, values, n, w);
    }
}

/// Finishes an override group's accumulators over the pose below (in `scratch`), leaving the
/// group's own pose in them (for its snapshot), and lerps it into `scratch` by the group's
/// weight × mask.
fn lay_over(rig: &Rig, mix: &mut Mix, group: &LayerGroup, scratch: &mut PoseScratch) {
    let maps = &rig.maps;
    let node_w = |s: usize, morph: bool| {
        group.slot_mask.as_ref().map_or(group.weight, |(t, m)| {
            group.weight * if morph { m[s] } else { t[s] }
        })
    };
    for (s, (acc, slot)) in mix.trs.iter_mut().zip(&maps.trs_slots).enumerate() {
        if acc.count == 0 {
            continue;
        }
        let below = read_trs(slot, &scratch.trs);
        let own = acc.finish(below, slot.rotation);
        let a = node_w(s, false);
        if a > 0.0 {
            write_value(slot, lerp(below, own, a, slot.rotation), &mut scratch.trs);
        }
    }
    for (s, slot) in maps.morph_slots.iter().enumerate() {
        if mix.morph_count[s] == 0 {
            continue;
        }
        let n = slot.components;
        let total = mix.morph_weight[s];
        let dst = &mut scratch.morph_weights[slot.binding][..n];
        let own = &mut mix.morph_acc[slot.values..slot.values + n];
        if total < 1.0 {
            for (o, &b) in own.iter_mut().zip(dst.iter()) {
                *o += (1.0 - total) * b;
            }
        } else {
            for o in own.iter_mut() {
                *o /= total;
            }
        }
        let a = node_w(s, true);
        if a >= 1.0 {
            dst.copy_from_slice(own);
        } else if a > 0.0 {
            for (d, &o) in dst.iter_mut().zip(own.iter()) {
                *d = *d * (1.0 - a) + o * a;
            }
        }
    }
}

/// `below` to `own` by `a` in `0..=1`: `own` itself at 1; rotations nlerped on the short path.
#[inline]
fn lerp(below: Vec4, own: Vec4, a: f32, rotation: bool) -> Vec4 {
    if a >= 1.0 {
        return own;
    }
    if !rotation {
        return below * (1.0 - a) + own * a;
    }
    let own = if below.dot(own) < 0.0 { -own } else { own };
    let out = below * (1.0 - a) + own * a;
    let len_sq = out.length_squared();
    if len_sq > 0.0 && len_sq.is_finite() {
        out / len_sq.sqrt()
    } else {
        below
    }
}

/// Property `slot`'s value in the TRS records (`w` 0 for vectors).
#[inline]
fn read_trs(slot: &TrsSlot, trs: &[f32]) -> Vec4 {
    let at = slot.at;
    let w = if slot.rotation { trs[at + 3] } else { 0.0 };
    Vec4::new(trs[at], trs[at + 1], trs[at + 2], w)
}

/// Writes property `slot`'s value into the TRS records.
#[inline]
fn write_value(slot: &TrsSlot, v: Vec4, trs: &mut [f32]) {
    let at = slot.at;
    trs[at] = v.x;
    trs[at + 1] = v.y;
    trs[at + 2] = v.z;
    if slot.rotation {
        trs[at + 3] = v.w;
    }
}
