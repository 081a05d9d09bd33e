//! Choosing and writing bit-packed groups (`sample/lane_bits.rs`): one group of a quad's rows
//! over the clip, its clip and segment ranges, each lane's error at a width, the smallest
//! width per lane and segment within a tolerance, and the encoding. Errors are measured with
//! the decoder's own arithmetic (`dequantise_lane`, `rebuild_w_lane`), so a width accepted
//! here decodes to exactly the values it was measured on.

use glam::{BVec4A, Vec4};

use crate::sample::four_node::ROWS;
use crate::sample::lane_bits::{
    ClipRanges, LaneGroup, LaneKeys, LaneSegment, MAX_BITS, WHOLE_CLIP, dequantise_lane,
    inv_levels, rebuild_w_lane, to_u32,
};

/// [`GroupSource::width`] of a lane that no width brings within its tolerance.
const UNMET: u8 = u8::MAX;

/// log₂ of the keys of a segment, each tried: 8, 16 and 32 keys (ACL's segments hold about
/// 16).
const SEGMENT_SHIFTS: [u32; 3] = [3, 4, 5];

/// One group of a quad over the clip, ready to encode: the rows per key (a rotation's unit
/// `x, y, z, w`, every key turned to non-negative `w`; a translation's or scale's three and
/// a zero row), and the clip ranges.
pub(crate) struct GroupSource {
    /// Per key, the rows.
    rows: Vec<[Vec4; 4]>,
    rotation: bool,
    min: [Vec4; 4],
    step: [Vec4; 4],
    held: BVec4A,
}

/// One segment's 8-bit ranges: per row, each lane's minimum and extent in clip steps.
#[derive(Debug, Clone, Copy)]
struct SegmentRanges {
    min8: [[u8; 4]; 4],
    ext8: [[u8; 4]; 4],
}

/// What a group costs in a file at some widths: the bits of its keys and its per-segment
/// ranges and widths.
pub(crate) struct Layout {
    /// Rows stored per key: 3, or 4 for a rotation that stores its `w` too.
    pub(crate) rows: usize,
    pub(crate) shift: u32,
    /// Per segment, each lane's width.
    pub(crate) widths: Vec<[u8; 4]>,
    /// Per segment, its 8-bit ranges.
    ranges: Vec<SegmentRanges>,
    /// Bits of the keys' fields.
    bits: usize,
    /// Bytes besides the fields: clip ranges, and per segment its widths and ranges.
    overhead: usize,
    pub(crate) stored_bytes: usize,
    /// Whether every lane meets its tolerance (at most [`MAX_BITS`] bits where not).
    pub(crate) meets: bool,
}

impl Layout {
    /// Segment `s` (of `keys` keys) at `widths` instead, and the bytes it then stores.
    pub(crate) fn set_segment(&mut self, s: usize, widths: [u8; 4], keys: usize) {
        let bits =
            |w: &[u8; 4]| keys * self.rows * w.iter().map(|&b| usize::from(b)).sum::<usize>();
        self.bits = self.bits - bits(&self.widths[s]) + bits(&widths);
        self.widths[s] = widths;
        self.stored_bytes = self.bits.div_ceil(8) + self.overhead;
    }
}

impl GroupSource {
    /// Rows `first_row..first_row + 3` of a quad's keys (`keys`: [`ROWS`] per key); a rotation
    /// (`rotation`) also takes its `w` row, every key negated where `w` is negative.
    pub(crate) fn new(keys: &[Vec4], first_row: usize, rotation: bool) -> Self {
        let mut rows = Vec::with_capacity(keys.len() / ROWS);
        for key in keys.chunks_exact(ROWS) {
            let mut r = [
                key[first_row],
                key[first_row + 1],
                key[first_row + 2],
                Vec4::ZERO,
            ];
            if rotation {
                // Unit length (a rebuilt w assumes it; the passes normalise what they
                // interpolate anyway), then w made non-negative: the same rotation.
                let mut w = key[first_row + 3];
                let len = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + w * w).map(f32::sqrt);
                let unit = len.cmpgt(Vec4::ZERO);
                let inv = Vec4::select(unit, Vec4::ONE / len, Vec4::ONE);
                w *= inv;
                let flip = w.cmplt(Vec4::ZERO);
                for v in &mut r[..3] {
                    *v *= inv;
                    *v = Vec4::select(flip, -*v, *v);
                }
                r[3] = Vec4::select(flip, -w, w);
            }
            rows.push(r);
        }
        let (mut min, mut max) = (
            [Vec4::splat(f32::INFINITY); 4],
            [Vec4::splat(f32::NEG_INFINITY); 4],
        );
        let mut held = BVec4A::splat(true);
        for r in &rows {
            for c in 0..4 {
                min[c] = min[c].min(r[c]);
                max[c] = max[c].max(r[c]);
                held &= r[c].cmpeq(rows[0][c]);
            }
        }
        let step = std::array::from_fn(|c| (max[c] - min[c]) / Vec4::splat(255.0));
        Self {
            rows,
            rotation,
            min,
            step,
            held,
        }
    }

    /// Keys of the group.
    pub(crate) fn keys(&self) -> usize {
        self.rows.len()
    }

    /// Lanes whose rows never change (stored as nothing but their value).
    pub(crate) fn held(&self) -> BVec4A {
        self.held
    }

    /// The 8-bit ranges of keys `keys` (in clip steps, rounded outwards).
    fn ranges(&self, keys: core::ops::Range<usize>) -> SegmentRanges {
        let mut out = SegmentRanges {
            min8: [[0; 4]; 4],
            ext8: [[0; 4]; 4],
        };
        for c in 0..4 {
            for l in 0..4 {
                let step = self.step[c][l];
                if step <= 0.0 {
                    continue;
                }
                let (lo, hi) = self.rows[keys.clone()]
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), r| {
                        (lo.min(r[c][l]), hi.max(r[c][l]))
                    });
                let min = self.min[c][l];
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "clamped to 0..=255"
                )]
                let (m8, top) = (
                    ((lo - min) / step).floor().clamp(0.0, 255.0) as u8,
                    ((hi - min) / step).ceil().clamp(0.0, 255.0) as u8,
                );
                out.min8[c][l] = m8;
                out.ext8[c][l] = top - m8;
            }
        }
        out
    }

    /// Lane `l`'s level and decoded value of row `c` at key `k` at width `w` in ranges `r`.
    fn quantise(&self, r: &SegmentRanges, c: usize, l: usize, w: u8, k: usize) -> (u32, f32) {
        let (min, step) = (self.min[c][l], self.step[c][l]);
        let (m8, e8) = (f32::from(r.min8[c][l]), f32::from(r.ext8[c][l]));
        let inv = inv_levels(w);
        let low = min + m8 * step;
        let span = (e8 * step) * inv;
        #[expect(clippy::cast_precision_loss, reason = "at most 2²⁴ − 1: exact")]
        let lv = ((1_u32 << w) - 1) as f32;
        let v = self.rows[k][c][l];
        let level = if w > 0 && span > 0.0 {
            ((v - low) / span).round().clamp(0.0, lv)
        } else {
            0.0
        };
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a whole number in 0..=2²⁴ − 1"
        )]
        let level_bits = if w == 0 { 0 } else { level as u32 };
        (level_bits, dequantise_lane(min, step, m8, e8, inv, level))
    }

    /// The largest distance, over keys `keys`, between lane `l`'s rows and their decoding at
    /// width `w` with `stored` rows a key (a rotation: its four components, `w` rebuilt
    /// unless stored).
    fn lane_error(
        &self,
        r: &SegmentRanges,
        l: usize,
        w: u8,
        stored: usize,
        keys: core::ops::Range<usize>,
    ) -> f32 {
        let mut worst = 0.0_f32;
        for k in keys {
            let d = [0, 1, 2].map(|c| self.quantise(r, c, l, w, k).1);
            let mut e2 = (0..3)
                .map(|c| (d[c] - self.rows[k][c][l]).powi(2))
                .sum::<f32>();
            if self.rotation {
                let dw = if stored == 4 {
                    self.quantise(r, 3, l, w, k).1
                } else {
                    rebuild_w_lane(d[0], d[1], d[2])
                };
                e2 += (dw - self.rows[k][3][l]).powi(2);
            }
            worst = worst.max(e2.sqrt());
        }
        worst
    }

    /// The smallest width of lane `l` over keys `keys` whose error is at most `tolerance`
    /// ([`MAX_BITS`] when none is).
    fn width(
        &self,
        r: &SegmentRanges,
        l: usize,
        tolerance: f32,
        stored: usize,
        keys: core::ops::Range<usize>,
    ) -> u8 {
        if self.held.test(l) {
            return 0;
        }
        if self.lane_error(r, l, MAX_BITS, stored, keys.clone()) > tolerance {
            return UNMET;
        }
        // The error falls as the width grows: bisect.
        let (mut lo, mut hi) = (0_u8, MAX_BITS);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.lane_error(r, l, mid, stored, keys.clone()) <= tolerance {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The widths meeting each lane's `tolerance`, segment by segment of 8, 16 or 32 keys or
    /// over the whole clip, a rotation's `w` rebuilt or stored, whichever stores fewest bytes.
    pub(crate) fn layout(&self, tolerance: Vec4) -> Layout {
        let n = self.keys();
        let mut best: Option<Layout> = None;
        for stored in if self.rotation { &[3, 4][..] } else { &[3][..] } {
            for shift in SEGMENT_SHIFTS.into_iter().chain([WHOLE_CLIP]) {
                if shift != WHOLE_CLIP && 1 << shift >= n {
                    continue;
                }
                let layout = self.layout_at(tolerance, *stored, shift);
                // A layout that meets every tolerance beats one that does not.
                let key = (!layout.meets, layout.stored_bytes);
                if best
                    .as_ref()
                    .is_none_or(|b| key < (!b.meets, b.stored_bytes))
                {
                    best = Some(layout);
                }
            }
        }
        best.unwrap_or_else(|| unreachable!("one layout at least"))
    }

    /// The widths meeting each lane's `tolerance` with `stored` rows a key in segments of
    /// `1 << shift` keys.
    fn layout_at(&self, tolerance: Vec4, stored: usize, shift: u32) -> Layout {
        let (n, len) = (self.keys(), self.segment_len(shift));
        let mut widths = Vec::new();
        let mut ranges = Vec::new();
        let mut bits = 0_usize;
        let mut meets = true;
        let mut start = 0;
        while start < n.max(1) {
            let keys = start..(start + len).min(n);
            let r = self.ranges(keys.clone());
            let w: [u8; 4] = std::array::from_fn(|l| {
                let w = self.width(&r, l, tolerance[l], stored, keys.clone());
                meets &= w != UNMET;
                w.min(MAX_BITS)
            });
            bits += keys.len() * stored * w.iter().map(|&b| usize::from(b)).sum::<usize>();
            widths.push(w);
            ranges.push(r);
            start += len;
        }
        let moving = 4 - self.held.bitmask().count_ones() as usize;
        // Per segment: a byte of width per moving lane, and (segmented) two bytes of range per
        // moving lane and row.
        let range_bytes = if shift == WHOLE_CLIP { 0 } else { 2 * stored };
        let clip_ranges = moving * stored * 8;
        let overhead = widths.len() * moving * (1 + range_bytes) + clip_ranges;
        Layout {
            rows: stored,
            shift,
            widths,
            ranges,
            bits,
            overhead,
            stored_bytes: bits.div_ceil(8) + overhead,
            meets,
        }
    }

    /// The keys of `layout`'s segment `s`.
    pub(crate) fn segment_keys(&self, layout: &Layout, s: usize) -> core::ops::Range<usize> {
        let len = self.segment_len(layout.shift);
        s * len..((s + 1) * len).min(self.keys())
    }

    /// The widths of `layout`'s segment `s` (its ranges and rows kept) meeting each lane's
    /// `tolerance`; `None` where some lane meets it at no width.
    pub(crate) fn segment_widths(
        &self,
        layout: &Layout,
        s: usize,
        tolerance: Vec4,
    ) -> Option<[u8; 4]> {
        let keys = self.segment_keys(layout, s);
        let w: [u8; 4] = std::array::from_fn(|l| {
            self.width(
                &layout.ranges[s],
                l,
                tolerance[l],
                layout.rows,
                keys.clone(),
            )
        });
        (!w.contains(&UNMET)).then_some(w)
    }

    /// Keys per segment at `shift`.
    fn segment_len(&self, shift: u32) -> usize {
        if shift == WHOLE_CLIP {
            self.keys().max(1)
        } else {
            1 << shift
        }
    }

    /// Writes the group into `keys` at `layout`'s widths; returns its index.
    pub(crate) fn encode(&self, layout: &Layout, keys: &mut LaneKeys) -> u32 {
        let w_held = self.rows.first().map_or(Vec4::ONE, |r| r[3]);
        let group = keys.push_group(
            LaneGroup {
                rows: to_u32(layout.rows),
                w_held,
                held: self.held,
                first_segment: 0,
                shift: layout.shift,
            },
            ClipRanges {
                min: self.min,
                step: self.step,
            },
        );
        let mut levels = Vec::with_capacity(self.segment_len(layout.shift));
        for s in 0..layout.widths.len() {
            self.push_segment(layout, s, keys, &mut levels);
        }
        group
    }

    /// Writes `layout`'s segment `s` at the end of `keys`' stream and returns its record,
    /// which `keys` does not keep: to replace the group's own record of segment `s`.
    pub(crate) fn encode_segment(
        &self,
        layout: &Layout,
        s: usize,
        keys: &mut LaneKeys,
    ) -> Option<LaneSegment> {
        self.push_segment(layout, s, keys, &mut Vec::new());
        keys.segments.pop()
    }

    /// Appends `layout`'s segment `s` to `keys` (`levels`: scratch).
    fn push_segment(
        &self,
        layout: &Layout,
        s: usize,
        keys: &mut LaneKeys,
        levels: &mut Vec<[[u32; 4]; 4]>,
    ) {
        let (widths, r) = (layout.widths[s], &layout.ranges[s]);
        levels.clear();
        levels.extend(self.segment_keys(layout, s).map(|k| {
            std::array::from_fn(|c| {
                std::array::from_fn(|l| {
                    // Rows past the stored ones are not written.
                    if c < layout.rows {
                        self.quantise(r, c, l, widths[l], k).0
                    } else {
                        0
                    }
                })
            })
        }));
        let word = |b: [u8; 4]| u32::from_le_bytes(b);
        keys.push_segment(
            (&self.min, &self.step),
            layout.rows,
            widths,
            r.min8.map(word),
            r.ext8.map(word),
            levels,
        );
    }
}

#[cfg(test)]
#[path = "bit_rates_tests.rs"]
mod tests;
