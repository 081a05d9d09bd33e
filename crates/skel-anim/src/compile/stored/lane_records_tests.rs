//! A bit-packed group's records: the writer recovers each segment's 8-bit ranges from the
//! decoding the rig folded them into, and the reader refuses a group's size or a lane's width
//! that no compressor writes.

#![allow(clippy::unwrap_used, reason = "tests")]

use glam::{BVec4A, Vec4};

use super::bytes::{In, Out};
use super::read::{Fields, read_lanes};
use super::write::recover_ranges;
use crate::compile::test_chain::chain;
use crate::sample::lane_bits::{MAX_BITS, WHOLE_CLIP, affine, inv_levels};
use crate::sample::packed::PackedKeys;
use crate::{Compression, KeyFormat, Rig, RigOptions};

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

/// `record` read as group `g` (translation, scale, rotation) of two keys of a quad whose four
/// lanes are keyed.
fn read_group(g: usize, record: &[u8]) -> Result<u32, String> {
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
    let bits = vec![0; 1024];
    read_lanes(
        &mut In::new(record),
        &mut Fields { bits: &bits, at: 0 },
        &mut PackedKeys::default(),
        (g, &quad, &rig.data.nodes),
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
