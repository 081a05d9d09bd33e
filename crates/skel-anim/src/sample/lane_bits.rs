//! Bit-packed four-node keys (the Animation Compression Library's variable bit rates, in
//! lanes): one group of a quad's rows (translation, scale, or a rotation's `x, y, z` with `w`
//! rebuilt, or all four) stored per lane at its own width of 0 to [`MAX_BITS`] bits, chosen
//! per segment of 8, 16 or 32 keys (or once for the whole clip), each segment's values
//! range-reduced twice: over the clip (f32 minimum and extent per lane and row) and, inside
//! that, over the segment (8-bit minimum and extent).
//!
//! A key's record is its rows one after the other, each row its four lanes' fields one after
//! the other (lane 0 first, a lane of width 0 takes no bits), so a key of a segment is
//! `stride` bits from the previous one and every field sits at a fixed offset in its record.
//! Decoding a row: four fields read from the stream, and one multiply-add per lane,
//! `low + level · span`, where each segment holds per row `low = clip min + segment min ·
//! step₈` and `span = segment extent · step₈ · (1 / (2ʷ − 1))`, computed once when it is
//! written (a file holds the 8-bit ranges instead: `compile/stored`). The compressor measures its error
//! with the same arithmetic (`dequantise_lane` and `rebuild_w_lane`, in
//! `compile/bit_rates.rs`), so what plays is what it measured.

use glam::{BVec4A, IVec4, Vec4};

use crate::sample::bit_stream::BitWriter;

/// The widest field: 24-bit levels convert to f32 exactly.
pub(crate) const MAX_BITS: u8 = 24;
/// The `shift` of a group stored as one segment: every key index of a clip shifts to 0.
pub(crate) const WHOLE_CLIP: u32 = 31;

/// One group of one quad, bit-packed: its layout and where its segments are (its clip-wide
/// ranges live on in each segment's decoding, [`LaneSegment::low`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaneGroup {
    /// Rows stored per key: three, or four for a rotation whose `w` comes near 0 somewhere
    /// (rebuilding it there from `x, y, z` loses precision: `dw = r·dr / w`).
    pub(crate) rows: u32,
    /// A rotation's `w` in [`held`](Self::held) lanes (those are not rebuilt).
    pub(crate) w_held: Vec4,
    /// Lanes whose stored rows are the same at every key (width 0 and no extent: exact).
    pub(crate) held: BVec4A,
    /// Index of the group's first segment in [`LaneKeys::segments`].
    pub(crate) first_segment: u32,
    /// A key's segment is `key >> shift`: segments of `2^shift` keys, or [`WHOLE_CLIP`].
    pub(crate) shift: u32,
}

/// One segment of one group: where its keys' records are, their layout and its ranges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaneSegment {
    /// Bit offset of the segment's first key record in [`LaneKeys::bits`].
    pub(crate) bit: u32,
    /// Bits per key record: the group's rows of `row_bits` each.
    pub(crate) stride: u32,
    /// Bits per row: the lanes' widths added.
    pub(crate) row_bits: u32,
    /// Each lane's field offset inside a row (the widths of the lanes before it).
    pub(crate) lane_at: [u8; 4],
    /// Each lane's `2ʷ − 1` (its width is 0 to [`MAX_BITS`]).
    pub(crate) masks: [u32; 4],
    /// Per row, each lane's decoding ([`affine`]) from the clip's range, the segment's 8-bit
    /// range and the lane's width, computed once here: a decoded row is `low + level · span`.
    /// A file stores the 8-bit ranges (`compile/stored` recovers them from these); memory holds these (80 bytes more a segment, a
    /// multiply-add and two conversions fewer per row decoded).
    pub(crate) low: [Vec4; 4],
    pub(crate) span: [Vec4; 4],
}

/// A clip's bit-packed groups: the records and the stream they point into.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneKeys {
    pub(crate) groups: Vec<LaneGroup>,
    pub(crate) segments: Vec<LaneSegment>,
    /// The fields, least significant bit first, with 8 bytes of padding at the end so that an
    /// 8-byte read at a row's byte stays inside.
    pub(crate) bits: Vec<u8>,
    /// Bits of fields written (where the next segment starts).
    pub(crate) end: usize,
    /// Per group, its clip-wide ranges: what the decoder folded into each segment's
    /// [`LaneSegment::low`] and [`span`](LaneSegment::span), kept apart (and never read per
    /// frame) so that the keys can be written to a file (`compile/stored`).
    pub(crate) clip_ranges: Vec<ClipRanges>,
}

/// One group's clip-wide ranges: per stored row, each lane's minimum and 8-bit step (extent
/// / 255).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ClipRanges {
    pub(crate) min: [Vec4; 4],
    pub(crate) step: [Vec4; 4],
}

/// The decoding of one row of a segment, `low + level · span` per lane, from the clip's
/// range (`min`, `step` = extent / 255), the segment's 8-bit range (`min8`, `ext8`) and the
/// lanes' `1 / (2ʷ − 1)`: `low = min + min₈ · step`, `span = (ext₈ · step) · inv_levels`.
#[inline(always)]
pub(crate) fn affine(
    min: Vec4,
    step: Vec4,
    min8: Vec4,
    ext8: Vec4,
    inv_levels: Vec4,
) -> (Vec4, Vec4) {
    (min + min8 * step, (ext8 * step) * inv_levels)
}

/// One lane's decoded value, in scalar f32 bit for bit what [`affine`] and the decoder's
/// multiply-add give (the same operations in the same order): what the encoder measures.
pub(crate) fn dequantise_lane(
    min: f32,
    step: f32,
    min8: f32,
    ext8: f32,
    inv_levels: f32,
    level: f32,
) -> f32 {
    let low = min + min8 * step;
    let span = (ext8 * step) * inv_levels;
    low + level * span
}

/// `1 / (2ʷ − 1)` as f32 (1 for width 0).
pub(crate) fn inv_levels(width: u8) -> f32 {
    #[expect(clippy::cast_precision_loss, reason = "at most 2²⁴ − 1: exact")]
    let l = ((1_u32 << width) - 1).max(1) as f32;
    1.0 / l
}

/// Four 8-bit levels (lane 0 lowest) as floats.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(
    unsafe_code,
    reason = "SSE2 intrinsics on registers; the block says why"
)]
pub(crate) fn widen8(word: u32) -> Vec4 {
    use core::arch::x86_64::{
        _mm_cvtepi32_ps, _mm_cvtsi32_si128, _mm_setzero_si128, _mm_unpacklo_epi8,
        _mm_unpacklo_epi16,
    };
    #[expect(clippy::cast_possible_wrap, reason = "the bits as they are")]
    let word = word as i32;
    // SAFETY: as in `widen16`: SSE2 is x86-64's baseline; registers only.
    let levels = unsafe {
        let zero = _mm_setzero_si128();
        let bytes = _mm_cvtsi32_si128(word);
        _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(bytes, zero), zero))
    };
    Vec4::from(levels)
}

/// Four 8-bit levels (lane 0 lowest) as floats.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn widen8(word: u32) -> Vec4 {
    widen8_lanes(word)
}

/// [`widen8`] one lane at a time: what it is without x86-64's SSE2 (wasm32, aarch64), compiled
/// everywhere so that x86-64's tests hold the two to each other.
#[inline(always)]
#[cfg_attr(
    target_arch = "x86_64",
    allow(dead_code, reason = "used by the tests on x86-64")
)]
pub(crate) fn widen8_lanes(word: u32) -> Vec4 {
    let lane = |i: u32| f32::from((word >> (8 * i)) as u8);
    Vec4::new(lane(0), lane(1), lane(2), lane(3))
}

impl LaneSegment {
    /// Row `c`'s `low` and `span` ([`affine`]).
    #[inline(always)]
    fn affine(&self, c: usize) -> (Vec4, Vec4) {
        (self.low[c], self.span[c])
    }
}

impl LaneKeys {
    /// Appends a group's record; its segments must follow with [`push_segment`](Self::push_segment).
    pub(crate) fn push_group(&mut self, mut group: LaneGroup, ranges: ClipRanges) -> u32 {
        group.first_segment = to_u32(self.segments.len());
        self.groups.push(group);
        self.clip_ranges.push(ranges);
        to_u32(self.groups.len() - 1)
    }

    /// Appends one segment of a group whose clip range is `min` and `step` (`rows` rows a
    /// key): its 8-bit ranges (`min8`, `ext8`: per row, lane 0 in the low byte), and each
    /// key's levels (`levels[key][row][lane]`, each within its lane's width; rows past `rows`
    /// not written).
    pub(crate) fn push_segment(
        &mut self,
        (min, step): (&[Vec4; 4], &[Vec4; 4]),
        rows: usize,
        widths: [u8; 4],
        min8: [u32; 4],
        ext8: [u32; 4],
        levels: &[[[u32; 4]; 4]],
    ) {
        self.bits.truncate(self.bits.len().saturating_sub(PADDING));
        let mut lane_at = [0_u8; 4];
        let mut row_bits = 0_u32;
        for (at, &w) in lane_at.iter_mut().zip(&widths) {
            *at = u8::try_from(row_bits).unwrap_or(u8::MAX);
            row_bits += u32::from(w);
        }
        let inv = Vec4::from_array(widths.map(inv_levels));
        let decode = |c: usize| affine(min[c], step[c], widen8(min8[c]), widen8(ext8[c]), inv);
        let start = self.end;
        let mut writer = BitWriter::at(&mut self.bits, start);
        for key in levels {
            for row in &key[..rows] {
                for (lane, &level) in row.iter().enumerate() {
                    writer.put(level, widths[lane]);
                }
            }
        }
        self.end = writer.at;
        self.bits.resize(self.bits.len() + PADDING, 0);
        self.segments.push(LaneSegment {
            bit: to_u32(start),
            stride: to_u32(rows) * row_bits,
            row_bits,
            lane_at,
            masks: widths.map(|w| (1_u32 << w) - 1),
            low: std::array::from_fn(|c| decode(c).0),
            span: std::array::from_fn(|c| decode(c).1),
        });
    }

    /// Rows `x, y, z` (translation or scale, or a rotation's first three) of keys `a` and `b`
    /// of group `g`.
    #[inline(always)]
    pub(crate) fn pair3(&self, g: &LaneGroup, a: u32, b: u32) -> ([Vec4; 3], [Vec4; 3]) {
        let (ka, kb) = (self.key_at(g, a), self.key_at(g, b));
        let mut out = ([Vec4::ZERO; 3], [Vec4::ZERO; 3]);
        for c in 0..3 {
            (out.0[c], out.1[c]) = self.row_pair(&ka, &kb, c);
        }
        out
    }

    /// A rotation's four rows at keys `a` and `b` of group `g`: `x, y, z` decoded, and `w`
    /// decoded where the group stores it, else rebuilt as the non-negative root of
    /// `1 − x² − y² − z²` (the encoder made every key's `w` non-negative, the same rotation),
    /// or the held lanes' own.
    #[inline(always)]
    pub(crate) fn pair4(&self, g: &LaneGroup, a: u32, b: u32) -> ([Vec4; 4], [Vec4; 4]) {
        let (ka, kb) = (self.key_at(g, a), self.key_at(g, b));
        let mut out = ([Vec4::ZERO; 4], [Vec4::ZERO; 4]);
        for c in 0..3 {
            (out.0[c], out.1[c]) = self.row_pair(&ka, &kb, c);
        }
        if g.rows == 4 {
            (out.0[3], out.1[3]) = self.row_pair(&ka, &kb, 3);
        } else {
            for key in [&mut out.0, &mut out.1] {
                key[3] = Vec4::select(g.held, g.w_held, rebuild_w(key[0], key[1], key[2]));
            }
        }
        out
    }

    /// Rows `x, y, z` of key `k` of group `g`, as [`pair3`](Self::pair3) decodes them.
    #[inline(always)]
    pub(crate) fn key3(&self, g: &LaneGroup, k: u32) -> [Vec4; 3] {
        let at = self.key_at(g, k);
        std::array::from_fn(|c| self.row(&at, c))
    }

    /// A rotation's four rows at key `k` of group `g`, as [`pair4`](Self::pair4) decodes them.
    #[inline(always)]
    pub(crate) fn key4(&self, g: &LaneGroup, k: u32) -> [Vec4; 4] {
        let at = self.key_at(g, k);
        let mut out = [Vec4::ZERO; 4];
        for (c, row) in out.iter_mut().enumerate().take(g.rows as usize) {
            *row = self.row(&at, c);
        }
        if g.rows != 4 {
            out[3] = Vec4::select(g.held, g.w_held, rebuild_w(out[0], out[1], out[2]));
        }
        out
    }

    /// Row `c` of the key at `at`.
    #[inline(always)]
    fn row(&self, at: &KeyAt<'_>, c: usize) -> Vec4 {
        let (low, span) = at.s.affine(c);
        low + self.levels(at, c) * span
    }

    /// Where key `key` of group `g` is: its segment and record.
    #[inline(always)]
    fn key_at<'s>(&'s self, g: &LaneGroup, key: u32) -> KeyAt<'s> {
        let s = &self.segments[(g.first_segment + (key >> g.shift)) as usize];
        let local = key & ((1_u32 << g.shift) - 1);
        KeyAt {
            s,
            base: s.bit + local * s.stride,
        }
    }

    /// Row `c` of the keys at `a` and `b`: the segment's ranges turned into one multiply-add
    /// per lane once where both keys share a segment (nearly always).
    #[inline(always)]
    fn row_pair(&self, a: &KeyAt<'_>, b: &KeyAt<'_>, c: usize) -> (Vec4, Vec4) {
        let (low_a, span_a) = a.s.affine(c);
        let (low_b, span_b) = if core::ptr::eq(a.s, b.s) {
            (low_a, span_a)
        } else {
            b.s.affine(c)
        };
        (
            low_a + self.levels(a, c) * span_a,
            low_b + self.levels(b, c) * span_b,
        )
    }

    /// The four lanes' levels of row `c` of the key at `at`, as floats: one 8-byte read for a
    /// row of at most 57 bits (the fields then shifted out of it), a 4-byte read per field
    /// otherwise (fewer instructions, measured, than one 16-byte read or two 8-byte ones).
    #[inline(always)]
    fn levels(&self, at: &KeyAt<'_>, c: usize) -> Vec4 {
        let s = at.s;
        #[expect(clippy::cast_possible_truncation, reason = "c < 4")]
        let row = at.base + c as u32 * s.row_bits;
        let byte = (row >> 3) as usize;
        #[expect(clippy::cast_possible_wrap, reason = "at most 24 bits")]
        let level = if s.row_bits <= 57 {
            let word = self.bits[byte..byte + 8]
                .try_into()
                .map_or(0, u64::from_le_bytes)
                >> (row & 7);
            IVec4::from_array(std::array::from_fn(|l| {
                (((word >> s.lane_at[l]) as u32) & s.masks[l]) as i32
            }))
        } else {
            IVec4::from_array(std::array::from_fn(|l| {
                let bit = row + u32::from(s.lane_at[l]);
                let byte = (bit >> 3) as usize;
                let word = self.bits[byte..byte + 4]
                    .try_into()
                    .map_or(0, u32::from_le_bytes);
                ((word >> (bit & 7)) & s.masks[l]) as i32
            }))
        };
        level.as_vec4()
    }

    /// Where the records and the stream end now, to [`truncate`](Self::truncate) back to.
    pub(crate) fn mark(&self) -> LaneMark {
        LaneMark {
            groups: self.groups.len(),
            segments: self.segments.len(),
            bits: self.bits.len(),
            end: self.end,
        }
    }

    /// Drops every group and segment pushed since `mark`: the stream as it was then, its
    /// bits past `mark`'s end zero again (a later segment ORs its fields into them).
    pub(crate) fn truncate(&mut self, mark: LaneMark) {
        self.groups.truncate(mark.groups);
        self.clip_ranges.truncate(mark.groups);
        self.segments.truncate(mark.segments);
        self.bits.truncate(mark.bits);
        self.end = mark.end;
        let (byte, bit) = (mark.end >> 3, mark.end & 7);
        if let Some(partial) = self.bits.get_mut(byte) {
            *partial &= (1_u8 << bit) - 1;
        }
        for b in self.bits.iter_mut().skip(byte + 1) {
            *b = 0;
        }
    }

    /// Bytes these records and the stream take in memory.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.groups.len() * (size_of::<LaneGroup>() + size_of::<ClipRanges>())
            + self.segments.len() * size_of::<LaneSegment>()
            + self.bits.len()
    }
}

/// The lengths of a [`LaneKeys`] at some point ([`LaneKeys::mark`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaneMark {
    groups: usize,
    segments: usize,
    bits: usize,
    end: usize,
}

/// A key's place in a group: its segment and the bit its record starts at.
struct KeyAt<'s> {
    s: &'s LaneSegment,
    base: u32,
}

/// `w` of unit quaternions from `x, y, z`, non-negative (0 where rounding leaves `x² + y² + z²`
/// above 1).
#[inline(always)]
pub(crate) fn rebuild_w(x: Vec4, y: Vec4, z: Vec4) -> Vec4 {
    sqrt((Vec4::ONE - (x * x + y * y + z * z)).max(Vec4::ZERO))
}

/// Each lane's square root: one `sqrtps` (SSE, part of x86-64's baseline; correctly rounded,
/// as `f32::sqrt` is). Exported as `skel_anim::lane_sqrt` for crates that forbid `unsafe`
/// (a crowd's boxes take four per joint every frame).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(
    unsafe_code,
    reason = "an SSE intrinsic on registers; the block says why"
)]
pub fn sqrt(v: Vec4) -> Vec4 {
    // SAFETY: SSE is part of the x86-64 baseline (every x86-64 CPU has it, and the target
    // enables it); `_mm_sqrt_ps` reads and writes registers only.
    Vec4::from(unsafe { core::arch::x86_64::_mm_sqrt_ps(v.into()) })
}

/// Each lane's square root.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn sqrt(v: Vec4) -> Vec4 {
    sqrt_lanes(v)
}

/// [`sqrt`] one lane at a time: what it is without x86-64's SSE (wasm32, aarch64), compiled
/// everywhere so that x86-64's tests hold the two to each other.
#[inline(always)]
#[cfg_attr(
    target_arch = "x86_64",
    allow(dead_code, reason = "used by the tests on x86-64")
)]
pub(crate) fn sqrt_lanes(v: Vec4) -> Vec4 {
    v.map(f32::sqrt)
}

/// [`rebuild_w`] of one lane, bit for bit.
pub(crate) fn rebuild_w_lane(x: f32, y: f32, z: f32) -> f32 {
    (1.0 - (x * x + y * y + z * z)).max(0.0).sqrt()
}

/// Bytes of zeros after the stream: an 8-byte read at a row's byte stays inside.
const PADDING: usize = 8;

pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
#[path = "lane_bits_tests.rs"]
mod tests;
