//! Bit-packed groups decoded against their fields: every key of every segment of several
//! groups, rows of 0 to 96 bits, each lane `low + level · span` bit for bit as the encoder's
//! scalar arithmetic computes it and within rounding of the exact value; a rebuilt `w` as the
//! scalar root; the records' bytes; a truncated stream as if the dropped groups never were.

#![allow(clippy::unwrap_used, reason = "tests")]

use proptest::prelude::*;

use super::*;

/// One segment's fields: per lane its width, per row each lane's 8-bit minimum and extent,
/// and per key, row and lane a level within its lane's width.
#[derive(Debug, Clone)]
struct Segment {
    widths: [u8; 4],
    min8: [[u8; 4]; 4],
    ext8: [[u8; 4]; 4],
    levels: Vec<[[u32; 4]; 4]>,
}

/// One group: its rows (3 or 4), held lanes (width 0 in every segment, `w` from `w_held`
/// where a rotation's `w` is rebuilt), segment shift, clip ranges and segments.
#[derive(Debug, Clone)]
struct Group {
    rows: usize,
    held: [bool; 4],
    w_held: [f32; 4],
    shift: u32,
    min: [[f32; 4]; 4],
    step: [[f32; 4]; 4],
    segments: Vec<Segment>,
}

impl Group {
    fn keys(&self) -> usize {
        self.segments.iter().map(|s| s.levels.len()).sum()
    }

    /// The segment and its key that key `k` is.
    fn at(&self, k: usize) -> (&Segment, usize) {
        let per = if self.shift == WHOLE_CLIP {
            self.keys()
        } else {
            1 << self.shift
        };
        (&self.segments[k / per], k % per)
    }

    fn push(&self, lanes: &mut LaneKeys) -> u32 {
        let v = |a: &[[f32; 4]; 4]| a.map(Vec4::from_array);
        let (min, step) = (v(&self.min), v(&self.step));
        let index = lanes.push_group(
            LaneGroup {
                rows: u32::try_from(self.rows).unwrap(),
                w_held: Vec4::from_array(self.w_held),
                held: BVec4A::from_array(self.held),
                first_segment: 0,
                shift: self.shift,
            },
            ClipRanges { min, step },
        );
        let word = |b: [u8; 4]| u32::from_le_bytes(b);
        for s in &self.segments {
            lanes.push_segment(
                (&min, &step),
                self.rows,
                s.widths,
                s.min8.map(word),
                s.ext8.map(word),
                &s.levels,
            );
        }
        index
    }

    /// Row `c` of lane `l` at key `k`, as the encoder computes it.
    fn scalar(&self, k: usize, c: usize, l: usize) -> f32 {
        let (s, local) = self.at(k);
        dequantise_lane(
            self.min[c][l],
            self.step[c][l],
            f32::from(s.min8[c][l]),
            f32::from(s.ext8[c][l]),
            inv_levels(s.widths[l]),
            #[expect(clippy::cast_precision_loss, reason = "at most 2²⁴ − 1: exact")]
            {
                s.levels[local][c][l] as f32
            },
        )
    }

    /// Row `c` of lane `l` at key `k`, exactly.
    fn exact(&self, k: usize, c: usize, l: usize) -> f64 {
        let (s, local) = self.at(k);
        let levels = f64::from((1_u32 << s.widths[l]) - 1).max(1.0);
        let fraction = f64::from(s.levels[local][c][l]) / levels;
        f64::from(self.min[c][l])
            + (f64::from(s.min8[c][l]) + f64::from(s.ext8[c][l]) * fraction)
                * f64::from(self.step[c][l])
    }

    /// The four rows of key `k` as the encoder measures them: a rebuilt `w` from the scalar
    /// root, or the held lanes' own.
    fn key(&self, k: usize) -> [Vec4; 4] {
        let mut out = [Vec4::ZERO; 4];
        for (c, row) in out.iter_mut().enumerate().take(self.rows) {
            *row = Vec4::from_array(std::array::from_fn(|l| self.scalar(k, c, l)));
        }
        if self.rows == 3 {
            out[3] = Vec4::from_array(std::array::from_fn(|l| {
                if self.held[l] {
                    self.w_held[l]
                } else {
                    rebuild_w_lane(out[0][l], out[1][l], out[2][l])
                }
            }));
        }
        out
    }
}

/// Bits of a key's rows: equal bits, not equal values (a `-0.0` is not a `0.0` here).
fn bits<const N: usize>(rows: &[Vec4; N]) -> [[u32; 4]; N] {
    rows.map(|r| r.to_array().map(f32::to_bits))
}

fn segment(rows: usize, held: [bool; 4], keys: usize) -> impl Strategy<Value = Segment> {
    let width = |l: usize| {
        if held[l] {
            Just(0_u8).boxed()
        } else {
            (0_u8..=MAX_BITS).boxed()
        }
    };
    [width(0), width(1), width(2), width(3)].prop_flat_map(move |widths| {
        let level = move |l: usize| 0..=((1_u32 << widths[l]) - 1);
        let row = [level(0), level(1), level(2), level(3)];
        let key = [row.clone(), row.clone(), row.clone(), row].prop_map(move |mut key| {
            for r in &mut key[rows..] {
                *r = [0; 4];
            }
            key
        });
        (
            prop::array::uniform4(prop::array::uniform4(any::<u8>())),
            prop::array::uniform4(prop::array::uniform4(any::<u8>())),
            prop::collection::vec(key, keys),
        )
            .prop_map(move |(min8, ext8, levels)| Segment {
                widths,
                min8,
                ext8,
                levels,
            })
    })
}

/// A group of 1 to 40 keys in segments of `2^shift` (0 to 3) keys or one, with ranges small
/// enough that a rotation's rebuilt `w` is real.
fn group() -> impl Strategy<Value = Group> {
    (
        3_usize..=4,
        prop::array::uniform4(prop::bool::weighted(0.25)),
        prop::array::uniform4(-1.0_f32..1.0),
        prop_oneof![Just(WHOLE_CLIP), 0_u32..=3],
        1_usize..40,
        prop::array::uniform4(prop::array::uniform4(-0.5_f32..0.0)),
        prop::array::uniform4(prop::array::uniform4(0.0_f32..0.5 / 255.0)),
    )
        .prop_flat_map(|(rows, held, w_held, shift, keys, min, step)| {
            let per = if shift == WHOLE_CLIP {
                keys
            } else {
                1 << shift
            };
            let segments = (0..keys.div_ceil(per))
                .map(|s| segment(rows, held, per.min(keys - s * per)))
                .collect::<Vec<_>>();
            segments.prop_map(move |segments| Group {
                rows,
                held,
                w_held,
                shift,
                min,
                step,
                segments,
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Several groups in one stream: each decodes at every key, alone and in pairs across
    /// segments, to the encoder's scalar values bit for bit, within rounding of the exact
    /// ones.
    #[test]
    fn every_key_decodes_as_the_encoder_computes_it(
        groups in prop::collection::vec(group(), 1..4),
    ) {
        let mut lanes = LaneKeys::default();
        for (i, g) in groups.iter().enumerate() {
            prop_assert_eq!(g.push(&mut lanes) as usize, i);
        }
        for (g, lane_group) in groups.iter().zip(&lanes.groups) {
            let keys = g.keys();
            for k in 0..keys {
                let want = g.key(k);
                let key = u32::try_from(k).unwrap();
                for (c, row) in want.iter().enumerate().take(g.rows) {
                    for (l, &v) in row.to_array().iter().enumerate() {
                        let exact = g.exact(k, c, l);
                        let error = (f64::from(v) - exact).abs();
                        prop_assert!(error <= 1e-6, "key {k} row {c} lane {l}: {v} vs {exact}");
                    }
                }
                let other = u32::try_from((k * 7 + 3) % keys).unwrap();
                let three = [want[0], want[1], want[2]];
                prop_assert_eq!(bits(&lanes.key3(lane_group, key)), bits(&three), "key {}", k);
                prop_assert_eq!(bits(&lanes.key4(lane_group, key)), bits(&want), "key {}", k);
                let (a3, b3) = lanes.pair3(lane_group, key, other);
                let (a4, b4) = lanes.pair4(lane_group, key, other);
                let want_other = g.key(other as usize);
                let other3 = [want_other[0], want_other[1], want_other[2]];
                prop_assert_eq!((bits(&a3), bits(&b3)), (bits(&three), bits(&other3)));
                prop_assert_eq!((bits(&a4), bits(&b4)), (bits(&want), bits(&want_other)));
            }
        }
    }
}

proptest! {
    /// Four bytes widen to the same floats through SSE2 (x86-64) and one lane at a time (the
    /// form other targets compile): each lane its own byte, in order.
    #[test]
    fn eight_bit_levels_widen_alike_on_every_target(word in any::<u32>()) {
        let want = word.to_le_bytes().map(f32::from);
        prop_assert_eq!(widen8(word).to_array(), want);
        prop_assert_eq!(widen8_lanes(word).to_array(), want);
    }

    /// Square roots, four lanes at once (x86-64's `sqrtps`) and one at a time (other
    /// targets): both `f32::sqrt`'s correctly rounded root of each lane.
    #[test]
    fn lane_square_roots_are_alike_on_every_target(v in any::<[f32; 4]>()) {
        let want = v.map(f32::sqrt).map(f32::to_bits);
        prop_assert_eq!(sqrt(Vec4::from_array(v)).to_array().map(f32::to_bits), want);
        prop_assert_eq!(sqrt_lanes(Vec4::from_array(v)).to_array().map(f32::to_bits), want);
    }
}

/// `1 / (2ʷ − 1)`, and 1 for width 0.
#[test]
fn inverse_levels() {
    assert_eq!(inv_levels(0), 1.0);
    assert_eq!(inv_levels(1), 1.0);
    assert_eq!(inv_levels(2), 1.0 / 3.0);
    assert_eq!(inv_levels(8), 1.0 / 255.0);
    assert_eq!(inv_levels(24), 1.0 / 16_777_215.0);
}

/// A rebuilt `w` is the root of `1 − x² − y² − z²` (each lane as the scalar root), and 0 past
/// the unit sphere.
#[test]
fn rebuilt_w_is_the_non_negative_root() {
    let (x, y, z) = (0.2_f32, -0.3_f32, 0.4_f32);
    let w = rebuild_w_lane(x, y, z);
    assert!((f64::from(w) - 0.71_f64.sqrt()).abs() < 1e-6, "{w}");
    assert_eq!(rebuild_w_lane(1.0, 1.0, 0.0), 0.0, "past the sphere");
    let (xs, ys, zs) = (
        Vec4::new(x, 1.0, 0.5, 0.0),
        Vec4::new(y, 1.0, -0.1, 0.0),
        Vec4::new(z, 0.0, 0.7, -0.6),
    );
    let lanes = rebuild_w(xs, ys, zs).to_array();
    for l in 0..4 {
        assert_eq!(
            lanes[l].to_bits(),
            rebuild_w_lane(xs[l], ys[l], zs[l]).to_bits(),
            "lane {l}"
        );
    }
    assert_eq!(lanes[0], w);
    assert_eq!(lanes[1], 0.0);
}

/// A group of `rows` rows, widths `widths`, one segment of `keys` whose levels are all ones.
fn filled(rows: usize, widths: [u8; 4], keys: usize) -> Group {
    let ones = widths.map(|w| (1_u32 << w) - 1);
    let mut key = [ones; 4];
    for r in &mut key[rows..] {
        *r = [0; 4];
    }
    Group {
        rows,
        held: [false; 4],
        w_held: [1.0; 4],
        shift: WHOLE_CLIP,
        min: [[-0.25; 4]; 4],
        step: [[0.001; 4]; 4],
        segments: vec![Segment {
            widths,
            min8: [[1; 4]; 4],
            ext8: [[200; 4]; 4],
            levels: vec![key; keys],
        }],
    }
}

fn state(lanes: &LaneKeys) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {}",
        lanes.groups, lanes.segments, lanes.clip_ranges, lanes.bits, lanes.end
    )
}

/// Groups pushed after a mark and truncated away leave the records and the stream as if they
/// had never been pushed: the last byte's bits past the mark cleared, the bytes after zero,
/// so that the group pushed next reads its own fields.
#[test]
fn a_truncated_stream_is_the_stream_before_the_trial() {
    // 3 keys of 3 rows of 5 bits: 45 bits, the mark inside the sixth byte.
    let kept = filled(3, [5, 0, 0, 0], 3);
    let tried = filled(4, [24, 24, 17, 3], 5);
    let next = filled(3, [2, 7, 0, 1], 4);
    let mut lanes = LaneKeys::default();
    kept.push(&mut lanes);
    let mark = lanes.mark();
    assert_eq!(mark.end, 45);
    tried.push(&mut lanes);
    lanes.truncate(mark);
    next.push(&mut lanes);
    let mut fresh = LaneKeys::default();
    kept.push(&mut fresh);
    next.push(&mut fresh);
    assert_eq!(state(&lanes), state(&fresh));
    for (g, group) in [&kept, &next].into_iter().zip(&lanes.groups) {
        for k in 0..g.keys() {
            let key = u32::try_from(k).unwrap();
            assert_eq!(bits(&lanes.key4(group, key)), bits(&g.key(k)));
        }
    }
}

/// The bytes the records and the stream take: each group's record and clip ranges, each
/// segment's record, the stream with its padding.
#[test]
fn memory_is_the_records_and_the_stream() {
    let mut lanes = LaneKeys::default();
    assert_eq!(lanes.memory_bytes(), 0);
    filled(3, [5, 0, 0, 0], 3).push(&mut lanes);
    let mut two = filled(4, [24, 1, 0, 9], 4);
    two.shift = 2;
    two.segments = vec![two.segments[0].clone(); 3];
    two.segments[2].levels.truncate(1);
    two.push(&mut lanes);
    assert_eq!((lanes.groups.len(), lanes.segments.len()), (2, 4));
    // 45 bits, then 9 keys of 4 rows of 34 bits: 1269 bits, 159 bytes and 8 of padding.
    assert_eq!(lanes.end, 45 + 9 * 4 * 34);
    assert_eq!(lanes.bits.len(), 159 + 8);
    let group = size_of::<LaneGroup>() + size_of::<ClipRanges>();
    assert_eq!(
        lanes.memory_bytes(),
        2 * group + 4 * size_of::<LaneSegment>() + 167
    );
}
