//! A blend's transforms four nodes at a time: every layer's clip sampled by its
//! [`QuadPlan`](crate::quads::QuadPlan), summed per lane with the blend's rules (per-property
//! weight normalisation, rest fill-in, hemisphere-aligned rotations, a single contributor at
//! weight ≥ 1 copied as sampled), then composed and placed like the controller's pass.
//!
//! Each lane runs the operations of the property-by-property accumulator (`blend::Acc`) in its
//! order, so the results are bit for bit the same; the blend takes this path when it has no
//! pose hook and no snapshot and every weighted layer's clip has quads.

use glam::{BVec4A, Vec4};

use crate::quads::{Lanes, Quad, QuadPlan, ROWS};
use crate::timeline::Segment;

/// Rows of one quad's blend result: translation `x, y, z`, scale `x, y, z`, rotation
/// `x, y, z, w` (the key rows' layout), then the contributor counts of translation, rotation
/// and scale.
pub(crate) const OUT_ROWS: usize = ROWS + 3;
pub(crate) const COUNT_T: usize = ROWS;
pub(crate) const COUNT_R: usize = ROWS + 1;
pub(crate) const COUNT_S: usize = ROWS + 2;

/// Running sums of one property of four nodes.
#[derive(Clone, Copy)]
struct Sums<const N: usize> {
    sum: [Vec4; N],
    first: [Vec4; N],
    weight: Vec4,
    count: Vec4,
}

impl<const N: usize> Sums<N> {
    const EMPTY: Self = Self {
        sum: [Vec4::ZERO; N],
        first: [Vec4::ZERO; N],
        weight: Vec4::ZERO,
        count: Vec4::ZERO,
    };

    /// Adds `value` at weight `w` in the lanes `keyed`; rotations (`N == 4`) whose value lies in
    /// the other hemisphere from the lane's first contributor count negatively.
    #[inline]
    fn add(&mut self, value: &[Vec4; N], keyed: BVec4A, w: f32) {
        let start = keyed & self.count.cmpeq(Vec4::ZERO);
        let more = keyed & self.count.cmpgt(Vec4::ZERO);
        let w4 = Vec4::splat(w);
        let signed = if N == 4 {
            let flip = dot(value, &self.first).cmplt(Vec4::ZERO);
            Vec4::select(flip, -w4, w4)
        } else {
            w4
        };
        for ((first, sum), &v) in self.first.iter_mut().zip(&mut self.sum).zip(value) {
            *first = Vec4::select(start, v, *first);
            let grown = Vec4::select(more, *sum + v * signed, *sum);
            *sum = Vec4::select(start, v * w4, grown);
        }
        self.weight = Vec4::select(start, w4, Vec4::select(more, self.weight + w4, self.weight));
        self.count = Vec4::select(keyed, self.count + Vec4::ONE, self.count);
    }

    /// The blended values given the rest values `rest` (lanes without a contributor keep them).
    #[inline]
    fn finish(&self, rest: &[Vec4; N]) -> [Vec4; N] {
        let total = self.weight;
        let single = self.count.cmpeq(Vec4::ONE) & total.cmpge(Vec4::ONE);
        let under = total.cmplt(Vec4::ONE);
        let fill = if N == 4 {
            let flip = dot(rest, &self.first).cmplt(Vec4::ZERO);
            Vec4::select(flip, total - Vec4::ONE, Vec4::ONE - total)
        } else {
            Vec4::ONE - total
        };
        let mut out: [Vec4; N] = std::array::from_fn(|c| {
            let over = if N == 4 {
                self.sum[c]
            } else {
                self.sum[c] / total
            };
            let mixed = Vec4::select(under, self.sum[c] + rest[c] * fill, over);
            Vec4::select(single, self.first[c], mixed)
        });
        if N == 4 {
            let len_sq = dot(&out, &out);
            let ok = len_sq.cmpgt(Vec4::ZERO) & len_sq.cmplt(Vec4::INFINITY);
            let len = len_sq.map(f32::sqrt);
            for (o, &first) in out.iter_mut().zip(&self.first) {
                let normalised = Vec4::select(ok, *o / len, first);
                *o = Vec4::select(single, *o, normalised);
            }
        }
        let touched = self.count.cmpgt(Vec4::ZERO);
        std::array::from_fn(|c| Vec4::select(touched, out[c], rest[c]))
    }
}

/// Lane-wise 4D dot product in glam's order, `(x·x' + z·z') + (y·y' + w·w')` (`N == 4`).
#[inline]
fn dot<const N: usize>(a: &[Vec4; N], b: &[Vec4; N]) -> Vec4 {
    (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])
}

/// Blends quad `index` of every layer (`(quads, key intervals, weight)`, in layer order) over the rest values of `q` (quad
/// `index` of any clip: all cover the same nodes). Returns the blended transforms and, in
/// `out`, the result rows and contributor counts (for snapshots).
#[inline]
pub(crate) fn blend_quad<'a>(
    q: &Quad,
    index: usize,
    layers: impl Iterator<Item = (&'a QuadPlan, &'a [Segment], f32)>,
    out: &mut [Vec4; OUT_ROWS],
) -> Lanes {
    let mut t = Sums::<3>::EMPTY;
    let mut r = Sums::<4>::EMPTY;
    let mut s = Sums::<3>::EMPTY;
    for (quads, segments, weight) in layers {
        let lq = &quads.quads()[index];
        let v = quads.sample(lq, segments);
        t.add(&v.t, lq.t_keyed, weight);
        r.add(&v.r, !lq.r_rest, weight);
        s.add(&v.s, lq.s_keyed, weight);
    }
    let rest = &q.rest;
    let lanes = Lanes {
        t: t.finish(&[rest[0], rest[1], rest[2]]),
        s: s.finish(&[rest[3], rest[4], rest[5]]),
        r: r.finish(&[rest[6], rest[7], rest[8], rest[9]]),
    };
    out[..3].copy_from_slice(&lanes.t);
    out[3..6].copy_from_slice(&lanes.s);
    out[6..ROWS].copy_from_slice(&lanes.r);
    out[COUNT_T] = t.count;
    out[COUNT_R] = r.count;
    out[COUNT_S] = s.count;
    lanes
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use std::sync::Arc;

    use proptest::prelude::*;

    use crate::quads::tests::{data_with_clips, rig};
    use crate::{PoseHook, RecordingSink, WeightedBlend};

    /// A hook that changes nothing: installing it sends a blend down the property-by-property
    /// path, the reference here.
    #[derive(Debug)]
    struct NoOp;

    impl PoseHook for NoOp {
        fn before_channels(&self, _trs: &mut [f32]) {}
        fn after_channels(&self, _trs: &mut [f32]) {}
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Three layers at any weights (zero, below and above a sum of 1) and times: the
        /// four-node pass gives the property-by-property blend's TRS, world matrices and
        /// snapshot bit for bit.
        #[test]
        fn quads_give_the_accumulators_bits(
            rig in rig(),
            weights in prop::array::uniform3(prop_oneof![Just(0.0f32), Just(1.0), 0.0f32..2.0]),
            times in prop::array::uniform3(-0.5f32..8.0),
        ) {
            let data = Arc::new(data_with_clips(&rig, 3));
            let layers: Vec<(usize, f32)> = weights.iter().copied().enumerate().collect();
            let mut fast = WeightedBlend::with_weights(Arc::clone(&data), &layers).unwrap();
            let mut reference = WeightedBlend::with_weights(data, &layers).unwrap();
            reference.set_pose_hook(Some(Arc::new(NoOp)));
            for blend in [&mut fast, &mut reference] {
                for (layer, &t) in blend.layers_mut().iter_mut().zip(&times) {
                    layer.clock_mut().seek(t);
                }
                blend.evaluate(&mut RecordingSink::default());
            }
            prop_assert_eq!(bits(&fast.scratch().trs), bits(&reference.scratch().trs));
            prop_assert_eq!(bits(fast.world_matrices()), bits(reference.world_matrices()));
            // The snapshot of either pass, blended back in at half weight, poses alike.
            for blend in [&mut fast, &mut reference] {
                blend.capture_snapshot();
                blend.set_snapshot_weight(0.5);
                blend.evaluate(&mut RecordingSink::default());
            }
            prop_assert_eq!(bits(&fast.scratch().trs), bits(&reference.scratch().trs));
        }
    }
}
