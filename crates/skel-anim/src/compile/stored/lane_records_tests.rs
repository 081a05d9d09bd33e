//! A bit-packed group's records: the writer recovers each segment's 8-bit ranges from the
//! decoding the rig folded them into, and the reader refuses a group's size or a lane's width
//! that no compressor writes.

#![allow(clippy::unwrap_used, reason = "tests")]

use glam::{BVec4A, Vec4};

use super::bytes::{In, Out};
use super::layout::segment_count;
use super::read::{Fields, read_lanes};
use super::write::{recover_ranges, write_lanes};
use crate::compile::test_chain::chain;
use crate::sample::bit_stream::BitWriter;
use crate::sample::four_node::Quad;
use crate::sample::lane_bits::{MAX_BITS, WHOLE_CLIP, affine, inv_levels};
use crate::sample::packed::PackedKeys;
use crate::{Compression, KeyFormat, NodeRest, Rig, RigOptions};

/// Deterministic xorshift64 in [0, 1), so a failure reproduces.
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    #[expect(clippy::cast_precision_loss, reason = "53 bits: exact")]
    let v = (*state >> 11) as f64 / (1_u64 << 53) as f64;
    v
}

/// A segment's decoding, computed as the reader computes it, gives back 8-bit ranges that
/// decode to it bit for bit: clip minimums from ±10⁻⁴² to ±10³⁸ and steps from the smallest
/// subnormal to 10³¹ (where the minimum's ulp is far coarser than a step, several ranges
/// decode alike and any of them will do), every width.
#[test]
fn a_segments_ranges_are_recovered_from_its_decoding_across_the_f32_range() {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut coarse = 0;
    for _ in 0..300_000 {
        let mut next = || uniform(&mut state);
        #[expect(clippy::cast_possible_truncation, reason = "test values")]
        let (min, step) = (
            ((next() - 0.5) * 10_f64.powf(next() * 80.0 - 42.0)) as f32,
            10_f64.powf(next() * 76.0 - 45.0) as f32,
        );
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "in range"
        )]
        let (width, m8, e8) = (
            1 + (next() * f64::from(MAX_BITS)) as u8,
            (next() * 256.0) as u8,
            (next() * 256.0) as u8,
        );
        let inv = inv_levels(width);
        let decode = |(m, e): (u8, u8)| {
            let (low, span) = affine(
                Vec4::splat(min),
                Vec4::splat(step),
                Vec4::splat(f32::from(m)),
                Vec4::splat(f32::from(e)),
                Vec4::splat(inv),
            );
            (low.x.to_bits(), span.x.to_bits())
        };
        let (low, span) = decode((m8, e8));
        let found = recover_ranges(
            (min, step),
            inv,
            (f32::from_bits(low), f32::from_bits(span)),
        );
        let Some(r) = found else {
            panic!("min {min:e} step {step:e} width {width} ranges {m8} {e8}: none found");
        };
        assert_eq!(
            decode(r),
            (low, span),
            "min {min:e} step {step:e} {m8} {e8}"
        );
        coarse += usize::from(r != (m8, e8));
    }
    // The sweep reaches minimums whose ulp is coarser than their steps.
    assert!(coarse > 1000, "{coarse}");
}

/// The records of a bit-packed group of `rows` rows with no lane held, one segment for the
/// whole clip over its full range, every lane `width` bits wide.
fn group_record(rows: u8, width: u8) -> Vec<u8> {
    let mut out = Out::default();
    #[expect(clippy::cast_possible_truncation, reason = "31")]
    let whole = WHOLE_CLIP as u8;
    out.u8(rows);
    out.u8(0);
    out.u8(whole);
    for _ in 0..rows {
        for _ in 0..4 {
            out.f32(-1.0);
            out.f32(0.25);
        }
    }
    (0..4).for_each(|_| out.u8(width));
    out.u8(1);
    out.0
}

/// A quad of the test chain with its four lanes keyed in every group, and the chain's rest.
fn keyed_quad() -> (Quad, Vec<NodeRest>) {
    let options = RigOptions {
        compression: Some(Compression {
            keys: KeyFormat::Variable,
            ..Compression::default()
        }),
        ..RigOptions::default()
    };
    let rig = Rig::with_options(std::sync::Arc::new(chain()), &options).unwrap();
    let mut quad = rig.plan.clips[0].quads.as_ref().unwrap().quads[0].clone();
    quad.lanes = 4;
    (quad.t_keyed, quad.s_keyed, quad.r_keyed) = (BVec4A::TRUE, BVec4A::TRUE, BVec4A::TRUE);
    (quad, rig.data.nodes.clone())
}

/// `record` read as group `g` (translation, scale, rotation) of two keys of a quad whose four
/// lanes are keyed.
fn read_group(g: usize, record: &[u8]) -> Result<u32, String> {
    let (quad, rest) = keyed_quad();
    let bits = vec![0; 1024];
    read_lanes(
        &mut In::new(record),
        &mut Fields { bits: &bits, at: 0 },
        &mut PackedKeys::default(),
        (g, &quad, &rest),
        2,
    )
}

/// Translations and scales have three rows; a rotation has four, or three and a rebuilt w.
/// Any other count is refused, before a row is read.
#[test]
fn a_group_of_rows_its_property_cannot_have_is_refused() {
    for (g, rows) in [(0, 3), (1, 3), (2, 3), (2, 4)] {
        assert!(read_group(g, &group_record(rows, 8)).is_ok(), "{g} {rows}");
    }
    for (g, rows) in [(0, 4), (1, 4), (0, 2), (2, 2), (2, 0), (2, 5), (1, 255)] {
        let e = read_group(g, &group_record(rows, 8)).unwrap_err();
        assert_eq!(e, format!("a group of {rows} rows"), "{g}");
    }
}

/// A lane is at most `MAX_BITS` wide: a wider one is refused, not read as fields.
#[test]
fn a_lane_wider_than_the_format_allows_is_refused() {
    for width in [0, 1, MAX_BITS - 1, MAX_BITS] {
        assert!(read_group(0, &group_record(3, width)).is_ok(), "{width}");
    }
    for width in [MAX_BITS + 1, 32, 33, 255] {
        let e = read_group(0, &group_record(3, width)).unwrap_err();
        assert_eq!(e, format!("a lane of {width} bits"));
    }
}

/// What a bit-packed group's record says, for [`Group::bytes`].
struct Group {
    g: usize,
    rows: u8,
    /// Held lanes (low nibble) and, of those, the ones whose values are stored (high).
    mask: u8,
    shift: u32,
    keys: usize,
    /// Whether a whole-clip segment spans the clip's full range (its flag).
    full: bool,
    /// Every segment minimum (8-bit) at this, where given: a segment that starts at the
    /// clip's minimum but does not span its range is not the full range.
    min8: Option<u8>,
    widths: [u8; 4],
}

impl Group {
    /// The record's bytes and its fields' bit stream (a pattern of ones and zeros).
    fn bytes(&self) -> (Vec<u8>, Vec<u8>) {
        let (held, stored) = (
            |l: usize| self.mask >> l & 1 == 1,
            |l: usize| self.mask >> (4 + l) & 1 == 1,
        );
        let rows = usize::from(self.rows);
        let mut out = Out::default();
        #[expect(clippy::cast_possible_truncation, reason = "at most 31")]
        let shift = self.shift as u8;
        out.u8(self.rows);
        out.u8(self.mask);
        out.u8(shift);
        if self.g == 2 && rows == 3 {
            (0..4).filter(|&l| stored(l)).for_each(|_| out.f32(0.5));
        }
        #[expect(clippy::cast_precision_loss, reason = "small")]
        for c in 0..rows {
            for l in 0..4 {
                if !held(l) {
                    out.f32(-1.0 + 0.1 * c as f32 + 0.01 * l as f32);
                    out.f32(0.25 + 0.125 * l as f32);
                } else if stored(l) {
                    out.f32(0.3 + 0.01 * c as f32);
                }
            }
        }
        let moving = (0..4).filter(|&l| !held(l));
        let mut bits = 0;
        for s in 0..segment_count(self.keys, self.shift) {
            moving.clone().for_each(|l| out.u8(self.widths[l]));
            if self.shift == WHOLE_CLIP {
                out.u8(u8::from(self.full));
            }
            if !self.full {
                #[expect(clippy::cast_possible_truncation, reason = "small")]
                for c in 0..rows {
                    for l in moving.clone() {
                        out.u8(self.min8.unwrap_or((3 * s + c + l) as u8));
                        out.u8((200 - 9 * s - c - l) as u8);
                    }
                }
            }
            let keys = if self.shift == WHOLE_CLIP {
                self.keys
            } else {
                (1_usize << self.shift).min(self.keys - s * (1 << self.shift))
            };
            let row: usize = moving.clone().map(|l| usize::from(self.widths[l])).sum();
            bits += keys * rows * row;
        }
        #[expect(clippy::cast_possible_truncation, reason = "a pattern")]
        let mut stream: Vec<u8> = (0..bits.div_ceil(8)).map(|i| (i * 37 + 11) as u8).collect();
        // The last byte's bits past the stream are not the record's.
        if let (Some(last), 1..) = (stream.last_mut(), bits % 8) {
            *last &= (1 << (bits % 8)) - 1;
        }
        (out.0, stream)
    }
}

/// A bit-packed group's record read and written again is the same bytes and the same bit
/// stream: whole-clip groups over the full range (a flag and no ranges) or not, groups of
/// several segments, held lanes at their rest or stored, a rotation's rebuilt `w`.
#[test]
fn a_group_read_and_written_again_is_the_same_record() {
    let (quad, rest) = keyed_quad();
    let group = |g, rows, mask, shift, full| Group {
        g,
        rows,
        mask,
        shift,
        keys: 5,
        full,
        min8: None,
        widths: [5, 0, 11, 8],
    };
    let cases = [
        group(0, 3, 0x00, WHOLE_CLIP, true),
        group(0, 3, 0x00, WHOLE_CLIP, false),
        Group {
            min8: Some(0),
            ..group(0, 3, 0x00, WHOLE_CLIP, false)
        },
        group(1, 3, 0x22, WHOLE_CLIP, true),
        group(0, 3, 0x00, 1, false),
        group(0, 3, 0x02, 0, false),
        group(2, 4, 0x00, 2, false),
        group(2, 3, 0x2a, WHOLE_CLIP, true),
        group(2, 3, 0x2a, 1, false),
        group(2, 3, 0x08, WHOLE_CLIP, false),
    ];
    for case in cases {
        let (record, stream) = case.bytes();
        let mut packed = PackedKeys::default();
        let mut fields = Fields {
            bits: &stream,
            at: 0,
        };
        let ctx = (case.g, &quad, rest.as_slice());
        let index = read_lanes(
            &mut In::new(&record),
            &mut fields,
            &mut packed,
            ctx,
            case.keys,
        )
        .unwrap_or_else(|e| panic!("{e}: {:?}", case.mask));
        let (mut again, mut bits) = (Out::default(), Vec::new());
        let mut writer = BitWriter::at(&mut bits, 0);
        let ctx = (index as usize, case.g, &quad, rest.as_slice());
        write_lanes(&packed.lanes, ctx, case.keys, &mut again, &mut writer).unwrap();
        let what = format!(
            "group {} rows {} mask {:#x} shift {}",
            case.g, case.rows, case.mask, case.shift
        );
        assert_eq!(again.0, record, "{what}");
        bits.truncate(stream.len());
        assert_eq!(bits, stream, "{what}");
    }
}

/// A group's segment length is at most `WHOLE_CLIP`, and only a held lane may have a stored
/// value: either alone is refused, before a value is read.
#[test]
fn a_segment_length_or_stored_lane_no_writer_makes_is_refused() {
    let mut record = group_record(3, 8);
    assert!(read_group(0, &record).is_ok());
    record[2] = 32;
    assert_eq!(
        read_group(0, &record).unwrap_err(),
        "held lanes 0x0, segment shift 32"
    );
    let mut record = group_record(3, 8);
    record[1] = 0x10;
    assert_eq!(
        read_group(0, &record).unwrap_err(),
        "held lanes 0x10, segment shift 31"
    );
}
