//! The accumulators of a layered pose, sized once per rig: a running sum per animated property
//! (blend layers' weighted values, normalised when finished, the rest value filling a total
//! below 1), per-layer sample buffers, and the snapshot an interrupted fade blends from.

use glam::Vec4;

use crate::rig::blend_map::MorphSlot;
use crate::sample::cursor::Segment;
use crate::{PoseScratch, Rig};

/// Running sums of one property during an evaluation; after it, `sum` holds the blended value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Acc {
    /// Weighted sum of the contributors (unused lanes stay 0).
    pub(crate) sum: Vec4,
    /// The first contributor: the hemisphere reference, and the exact result when it is the
    /// only contributor.
    pub(crate) first: Vec4,
    pub(crate) weight: f32,
    pub(crate) count: u32,
}

impl Acc {
    #[inline]
    pub(crate) fn add(&mut self, value: Vec4, w: f32, rotation: bool) {
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
    pub(crate) fn finish(&mut self, rest: Vec4, rotation: bool) -> Vec4 {
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
    pub(crate) samples: Vec<f32>,
    pub(crate) morph_weight: Vec<f32>,
    pub(crate) morph_count: Vec<u32>,
    /// Weighted sums, then the blended values (`MorphSlot::values` offsets).
    pub(crate) morph_acc: Vec<f32>,
    /// One contributor's sample.
    pub(crate) morph_sample: Vec<f32>,
    /// One layer's key intervals and track samples (see `tracks::sample_tracks`).
    pub(crate) segments: Vec<Segment>,
    pub(crate) vec3: Vec<Vec4>,
    pub(crate) quat: Vec<Vec4>,
    /// Whether `trs` holds the last evaluation's blended values (the property-by-property
    /// pass ran); a snapshot taken otherwise re-runs it first.
    pub(crate) trs_current: bool,
}

/// A frozen pose used as one more blend contributor, or (an additive group's) a frozen
/// change: per property the delta the group applied (a rotation delta quaternion, translation,
/// scale and morph-weight differences), added as one more additive member.
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

    /// A snapshot without storage, for a group that never captures into it.
    pub(crate) fn empty() -> Self {
        Self {
            weight: 0.0,
            trs: Vec::new(),
            trs_slots: Vec::new(),
            morph: Vec::new(),
            morph_slots: Vec::new(),
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
    pub(crate) fn add_morph(&mut self, slot: usize, values: usize, components: usize, w: f32) {
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
    pub(crate) fn finish_morph(&mut self, s: usize, slot: &MorphSlot, scratch: &mut PoseScratch) {
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
