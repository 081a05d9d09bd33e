//! Compressed four-node key blocks ([`Compression`](crate::Compression), opt in): a clip's
//! [`QuadPlan`](crate::rig::four_node::QuadPlan) keys stored per quad and per group of rows
//! (translation, scale, rotation) as nothing (held constant), 8-bit or 16-bit levels
//! range-reduced per row and lane over the clip ([`KeyFormat::Fixed`](crate::KeyFormat)),
//! bit-packed lanes of their own widths (`sample/lane_bits.rs`,
//! [`KeyFormat::Variable`](crate::KeyFormat)), or f32, and decoded two keys at a time by the
//! four-node passes. What plays is what the compressor measured: the player decodes with the
//! same function the compressor evaluated (`compile/compressor.rs`).

use glam::Vec4;

use crate::sample::cursor::Segment;
use crate::sample::four_node::{
    KeyPair, Lanes, NLERP, Quad, QuadRows, R_ROWS, ROWS, Rot, RowPair, S_ROWS, SLERP, T_ROWS,
    sample_rows, segment_of,
};
use crate::sample::key_cache::KeyCache;
use crate::sample::lane_bits::{LaneKeys, to_u32, widen8};

/// How one group of a quad's rows is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    /// Not stored: the group is constant (the quad's `held` rows), either in the clip or
    /// because holding it kept the error under the bound.
    Held,
    /// One byte per value: `min + level · step`, 255 steps over the row's range.
    Bits8,
    /// Two bytes per value: 65 535 steps.
    Bits16,
    /// Bit-packed lanes ([`LaneKeys`]): `first` is the group's index there.
    Lanes,
    /// The f32 keys as they are.
    F32,
}

/// The groups of a quad's rows: first row and row count (translation, scale, rotation).
pub(crate) const GROUPS: [(usize, usize); 3] = [(T_ROWS, 3), (S_ROWS, 3), (R_ROWS, 4)];

/// Where one group's keys are: `width`'s stream from row `first` (key `k` at
/// `first + k · rows`), its rows' ranges from `range`; for [`Width::Lanes`], group `first` of
/// the bit-packed keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackedGroup {
    pub(crate) width: Width,
    pub(crate) first: u32,
    pub(crate) range: u32,
}

/// A quantised row's decoding: `min + level · step`, lane by lane.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Range {
    pub(crate) min: Vec4,
    pub(crate) step: Vec4,
}

/// A clip's compressed keys: per quad its three groups, and the streams they point into.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedKeys {
    pub(crate) quads: Vec<[PackedGroup; 3]>,
    /// 8-bit rows, four lanes in a word (lane 0 in the low byte).
    pub(crate) u8s: Vec<u32>,
    /// 16-bit rows, four lanes in a word (lane 0 in the low half-word).
    pub(crate) u16s: Vec<u64>,
    pub(crate) f32s: Vec<Vec4>,
    pub(crate) ranges: Vec<Range>,
    pub(crate) lanes: LaneKeys,
    /// Per quad, whether its rotations interpolate by normalised lerp (ozz-animation's rule)
    /// instead of the polynomial slerp.
    pub(crate) nlerp: Vec<bool>,
    /// The rule shared by every quad, where they share one (`None`: mixed), so that the
    /// single-clip pass runs one rule without asking each quad.
    pub(crate) uniform: Option<Rot>,
    /// Length of the lossless key array (`QuadPlan::keys`) these keys came from: what
    /// [`QuadPlan::unpacked`](crate::rig::four_node::QuadPlan::unpacked) rebuilds.
    pub(crate) lossless_len: usize,
}

impl PackedKeys {
    /// Bytes of the streams and ranges (what the passes read; the per-quad records aside).
    pub(crate) fn bytes(&self) -> usize {
        self.u8s.len() * 4 + self.u16s.len() * 8 + self.f32s.len() * 16 + self.ranges.len() * 32
    }

    /// Bytes these keys take in memory: the records, the streams and the ranges.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.quads.len() * size_of::<[PackedGroup; 3]>()
            + self.lanes.memory_bytes()
            + self.bytes()
            + self.nlerp.len()
    }

    /// Stores `rows` rows from `first_row` of every key of `keys` (a quad's keys, [`ROWS`] a key)
    /// at `width`; a [`Width::Lanes`] group is written by `compile/bit_rates.rs`, which gives
    /// its index, `lanes`.
    pub(crate) fn push_group(
        &mut self,
        keys: &[Vec4],
        (first_row, rows): (usize, usize),
        width: Width,
        lanes: u32,
    ) -> PackedGroup {
        let levels = match width {
            Width::Lanes => {
                return PackedGroup {
                    width,
                    first: lanes,
                    range: 0,
                };
            }
            Width::Held => {
                return PackedGroup {
                    width,
                    first: 0,
                    range: 0,
                };
            }
            Width::F32 => {
                let first = to_u32(self.f32s.len());
                for key in keys.chunks_exact(ROWS) {
                    self.f32s
                        .extend_from_slice(&key[first_row..first_row + rows]);
                }
                return PackedGroup {
                    width,
                    first,
                    range: 0,
                };
            }
            Width::Bits8 => 255.0,
            Width::Bits16 => 65_535.0,
        };
        let range = to_u32(self.ranges.len());
        for row in first_row..first_row + rows {
            let (min, max) = keys.chunks_exact(ROWS).fold(
                (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY)),
                |(lo, hi), key| (lo.min(key[row]), hi.max(key[row])),
            );
            let step = (max - min) / Vec4::splat(levels);
            self.ranges.push(Range { min, step });
        }
        let first = match width {
            Width::Bits8 => to_u32(self.u8s.len()),
            _ => to_u32(self.u16s.len()),
        };
        for key in keys.chunks_exact(ROWS) {
            for (c, r) in self.ranges[range as usize..][..rows].iter().enumerate() {
                let level = |lane: usize| {
                    let (v, min, step) = (key[first_row + c][lane], r.min[lane], r.step[lane]);
                    if step > 0.0 {
                        ((v - min) / step).round().clamp(0.0, levels)
                    } else {
                        0.0
                    }
                };
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "levels are whole numbers in 0..=255 or 0..=65 535"
                )]
                match width {
                    Width::Bits8 => self
                        .u8s
                        .push((0..4).fold(0_u32, |w, lane| w | (level(lane) as u32) << (8 * lane))),
                    _ => self.u16s.push(
                        (0..4).fold(0_u64, |w, lane| w | (level(lane) as u64) << (16 * lane)),
                    ),
                }
            }
        }
        PackedGroup {
            width,
            first,
            range,
        }
    }

    /// Decodes key `key` of quad `groups` into `out` (rows of held groups untouched).
    pub(crate) fn decode(&self, groups: &[PackedGroup; 3], key: u32, out: &mut QuadRows) {
        let pair = PackedPair {
            keys: self,
            groups,
            a: key,
            b: key,
        };
        if groups[0].width != Width::Held {
            out[T_ROWS..T_ROWS + 3].copy_from_slice(&pair.rows::<T_ROWS, 3>().0);
        }
        if groups[1].width != Width::Held {
            out[S_ROWS..S_ROWS + 3].copy_from_slice(&pair.rows::<S_ROWS, 3>().0);
        }
        if groups[2].width != Width::Held {
            out[R_ROWS..R_ROWS + 4].copy_from_slice(&pair.rows::<R_ROWS, 4>().0);
        }
    }

    /// Quad `qi` (`q`) at the key intervals `segments`: its two keys decoded group by group
    /// where it moves, and sampled as f32 keys are (`sample::four_node::sample_rows`), rotations by
    /// slerp or, where the compressor chose it for the quad, normalised lerp.
    #[inline(always)]
    pub(crate) fn sample(&self, qi: usize, q: &Quad, segments: &[Segment]) -> Lanes {
        if self.nlerp[qi] {
            self.sample_as::<NLERP>(qi, q, segments)
        } else {
            self.sample_as::<SLERP>(qi, q, segments)
        }
    }

    /// [`sample`](Self::sample) with every quad's rotations by `ROT` (the clip's
    /// [`uniform`](Self::uniform) rule).
    #[inline(always)]
    pub(crate) fn sample_as<const ROT: Rot>(
        &self,
        qi: usize,
        q: &Quad,
        segments: &[Segment],
    ) -> Lanes {
        if q.fixed != crate::data::NONE {
            return Lanes::from_rows(&q.held);
        }
        let seg = segment_of(q, segments);
        let pair = PackedPair {
            keys: self,
            groups: &self.quads[qi],
            a: seg.a,
            b: seg.b,
        };
        sample_rows::<ROT>(&pair, q, seg)
    }

    /// [`sample`](Self::sample) through `cache`: each of the quad's two keys decoded only
    /// where the cache does not hold it, then read as f32 keys are; bit for bit what
    /// [`sample`](Self::sample) gives.
    #[inline(always)]
    pub(crate) fn sample_cached(
        &self,
        qi: usize,
        q: &Quad,
        segments: &[Segment],
        cache: &mut KeyCache,
    ) -> Lanes {
        if self.nlerp[qi] {
            self.sample_cached_as::<NLERP>(qi, q, segments, cache)
        } else {
            self.sample_cached_as::<SLERP>(qi, q, segments, cache)
        }
    }

    /// [`sample_cached`](Self::sample_cached) with every quad's rotations by `ROT`.
    #[inline(always)]
    pub(crate) fn sample_cached_as<const ROT: Rot>(
        &self,
        qi: usize,
        q: &Quad,
        segments: &[Segment],
        cache: &mut KeyCache,
    ) -> Lanes {
        if q.fixed != crate::data::NONE {
            return Lanes::from_rows(&q.held);
        }
        let seg = segment_of(q, segments);
        let groups = &self.quads[qi];
        let (a, b) = cache.pair(qi, seg.a, seg.b, |key, rows| {
            // Only the rows `sample_rows` reads: constant groups come from `q.held`.
            if !q.t_const {
                rows[T_ROWS..T_ROWS + 3]
                    .copy_from_slice(&self.key_rows::<T_ROWS, 3>(groups[0], key));
            }
            if !q.s_const {
                rows[S_ROWS..S_ROWS + 3]
                    .copy_from_slice(&self.key_rows::<S_ROWS, 3>(groups[1], key));
            }
            if !q.r_const {
                rows[R_ROWS..R_ROWS + 4]
                    .copy_from_slice(&self.key_rows::<R_ROWS, 4>(groups[2], key));
            }
        });
        sample_rows::<ROT>(&RowPair { a, b }, q, seg)
    }
}

impl PackedKeys {
    /// Rows `FIRST..FIRST + R` of key `key` of group `g`, as [`PackedPair`] decodes them.
    #[inline(always)]
    fn key_rows<const FIRST: usize, const R: usize>(&self, g: PackedGroup, key: u32) -> [Vec4; R] {
        let at = g.first as usize + key as usize * R;
        let mut out = [Vec4::ZERO; R];
        match g.width {
            Width::Held => {}
            Width::Lanes => {
                let group = &self.lanes.groups[g.first as usize];
                if R == 4 {
                    out.copy_from_slice(&self.lanes.key4(group, key)[..R]);
                } else {
                    out.copy_from_slice(&self.lanes.key3(group, key)[..R]);
                }
            }
            Width::F32 => out.copy_from_slice(&self.f32s[at..at + R]),
            Width::Bits16 => {
                let ranges = &self.ranges[g.range as usize..][..R];
                for (c, (o, w)) in out.iter_mut().zip(&self.u16s[at..at + R]).enumerate() {
                    *o = ranges[c].min + widen16(*w) * ranges[c].step;
                }
            }
            Width::Bits8 => {
                let ranges = &self.ranges[g.range as usize..][..R];
                for (c, (o, w)) in out.iter_mut().zip(&self.u8s[at..at + R]).enumerate() {
                    *o = ranges[c].min + widen8(*w) * ranges[c].step;
                }
            }
        }
        out
    }
}

/// Keys `a` and `b` of one quad of [`PackedKeys`], decoded a group at a time.
pub(crate) struct PackedPair<'p> {
    keys: &'p PackedKeys,
    groups: &'p [PackedGroup; 3],
    a: u32,
    b: u32,
}

impl KeyPair for PackedPair<'_> {
    /// Both keys' rows of the group starting at row `FIRST` (`R` rows), each quantised row's
    /// range read once for both.
    #[inline(always)]
    fn rows<const FIRST: usize, const R: usize>(&self) -> ([Vec4; R], [Vec4; R]) {
        let g = self.groups[match FIRST {
            T_ROWS => 0,
            S_ROWS => 1,
            _ => 2,
        }];
        let at = |key: u32| g.first as usize + key as usize * R;
        let (at_a, at_b) = (at(self.a), at(self.b));
        let p = self.keys;
        let mut a = [Vec4::ZERO; R];
        let mut b = [Vec4::ZERO; R];
        match g.width {
            Width::Held => {}
            Width::Lanes => {
                let group = &p.lanes.groups[g.first as usize];
                if R == 4 {
                    let (ka, kb) = p.lanes.pair4(group, self.a, self.b);
                    a.copy_from_slice(&ka[..R]);
                    b.copy_from_slice(&kb[..R]);
                } else {
                    let (ka, kb) = p.lanes.pair3(group, self.a, self.b);
                    a.copy_from_slice(&ka[..R]);
                    b.copy_from_slice(&kb[..R]);
                }
            }
            Width::F32 => {
                a.copy_from_slice(&p.f32s[at_a..at_a + R]);
                b.copy_from_slice(&p.f32s[at_b..at_b + R]);
            }
            Width::Bits16 => {
                let (wa, wb) = (&p.u16s[at_a..at_a + R], &p.u16s[at_b..at_b + R]);
                let ranges = &p.ranges[g.range as usize..][..R];
                for c in 0..R {
                    a[c] = ranges[c].min + widen16(wa[c]) * ranges[c].step;
                    b[c] = ranges[c].min + widen16(wb[c]) * ranges[c].step;
                }
            }
            Width::Bits8 => {
                let (wa, wb) = (&p.u8s[at_a..at_a + R], &p.u8s[at_b..at_b + R]);
                let ranges = &p.ranges[g.range as usize..][..R];
                for c in 0..R {
                    a[c] = ranges[c].min + widen8(wa[c]) * ranges[c].step;
                    b[c] = ranges[c].min + widen8(wb[c]) * ranges[c].step;
                }
            }
        }
        (a, b)
    }
}

/// Four 16-bit levels (lane 0 lowest) as floats.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(
    unsafe_code,
    reason = "SSE2 intrinsics on registers; the block says why"
)]
fn widen16(word: u64) -> Vec4 {
    use core::arch::x86_64::{
        _mm_cvtepi32_ps, _mm_cvtsi64_si128, _mm_setzero_si128, _mm_unpacklo_epi16,
    };
    #[expect(clippy::cast_possible_wrap, reason = "the bits as they are")]
    let word = word as i64;
    // SAFETY: SSE2 is part of the x86-64 baseline (every x86-64 CPU has it, and the target
    // enables it); these intrinsics read and write registers only.
    let levels = unsafe {
        _mm_cvtepi32_ps(_mm_unpacklo_epi16(
            _mm_cvtsi64_si128(word),
            _mm_setzero_si128(),
        ))
    };
    Vec4::from(levels)
}

/// Four 16-bit levels (lane 0 lowest) as floats.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn widen16(word: u64) -> Vec4 {
    let lane = |i: u32| f32::from((word >> (16 * i)) as u16);
    Vec4::new(lane(0), lane(1), lane(2), lane(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_widen_lane_by_lane_on_every_target() {
        assert_eq!(
            widen16(0xffff_0002_0001_0000).to_array(),
            [0.0, 1.0, 2.0, 65_535.0]
        );
        assert_eq!(widen8(0xff02_0100).to_array(), [0.0, 1.0, 2.0, 255.0]);
    }

    #[test]
    fn a_quantised_row_decodes_within_half_a_step_and_hits_its_ends() {
        let mut keys = vec![Vec4::ZERO; 3 * ROWS];
        keys[0] = Vec4::new(-1.0, 0.5, 2.0, 7.0);
        keys[ROWS] = Vec4::new(1.0, 0.25, 2.0, -3.0);
        keys[2 * ROWS] = Vec4::new(0.3, 0.75, 2.0, 1.234);
        for width in [Width::Bits8, Width::Bits16] {
            let mut p = PackedKeys::default();
            let g = p.push_group(&keys, GROUPS[0], width, 0);
            let steps = p.ranges[0].step;
            for k in 0..3 {
                let mut out = [Vec4::NAN; ROWS];
                p.decode(&[g, g_held(), g_held()], k, &mut out);
                let want = keys[k as usize * ROWS];
                assert!(
                    (out[0] - want)
                        .abs()
                        .cmple(steps * 0.5 + Vec4::splat(1e-6))
                        .all(),
                    "{width:?} key {k}: {} vs {want}",
                    out[0]
                );
                // A lane that never moves decodes exactly.
                assert_eq!(out[0].z, 2.0);
                assert!(out[R_ROWS].is_nan(), "held rows untouched");
            }
        }
    }

    fn g_held() -> PackedGroup {
        PackedGroup {
            width: Width::Held,
            first: 0,
            range: 0,
        }
    }
}
