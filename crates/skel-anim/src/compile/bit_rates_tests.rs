//! Bit-packed groups encoded and decoded: every lane within its tolerance at every key,
//! held lanes exact, coarser tolerances smaller, and one segment encoded again in place.
#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use crate::sample::four_node::{R_ROWS, T_ROWS};

/// 40 keys of a quad: lane 0 moves smoothly, lane 1 jumps, lane 2 holds, lane 3 drifts a
/// little; rotations of unit length, some with negative `w`.
fn keys() -> Vec<Vec4> {
    let mut keys = Vec::new();
    for k in 0..40 {
        let t = k as f32 * 0.1;
        let mut key = [Vec4::ZERO; ROWS];
        key[T_ROWS] = Vec4::new(t.sin(), if k % 7 == 0 { 3.0 } else { -1.0 }, 0.25, 1e-4 * t);
        key[T_ROWS + 1] = Vec4::new(t.cos(), 0.0, 0.5, 2.0);
        key[T_ROWS + 2] = Vec4::new(0.1 * t, 1.0, 0.75, -2.0);
        for l in 0..4 {
            let angle = [t, 2.0 * t + 2.5, 0.3, 0.01 * t][l];
            let (s, c) = (0.5 * angle).sin_cos();
            let axis = glam::Vec3::new(0.6, 0.0, 0.8);
            for (c_row, v) in [axis.x * s, axis.y * s, axis.z * s, c]
                .into_iter()
                .enumerate()
            {
                key[R_ROWS + c_row][l] = v;
            }
        }
        keys.extend_from_slice(&key);
    }
    keys
}

#[test]
fn every_lane_decodes_within_its_tolerance_at_every_key() {
    let keys = keys();
    for (first_row, rotation) in [(T_ROWS, false), (R_ROWS, true)] {
        let src = GroupSource::new(&keys, first_row, rotation);
        assert_eq!(src.held().bitmask() & 0b100, 0b100, "lane 2 holds");
        for tolerance in [Vec4::splat(1e-2), Vec4::new(1e-5, 1e-3, 1.0, 1e-6)] {
            let layout = src.layout(tolerance);
            let mut lanes = LaneKeys::default();
            let g = src.encode(&layout, &mut lanes);
            let group = lanes.groups[g as usize];
            for k in 0..src.keys() {
                let key = &keys[k * ROWS..(k + 1) * ROWS];
                let want: Vec<Vec4> = (0..if rotation { 4 } else { 3 })
                    .map(|c| key[first_row + c])
                    .collect();
                let got: Vec<Vec4> = if rotation {
                    lanes.pair4(&group, k as u32, k as u32).0.to_vec()
                } else {
                    lanes.pair3(&group, k as u32, k as u32).0.to_vec()
                };
                for l in 0..4 {
                    // A rotation decodes to the same rotation: w made non-negative.
                    let sign = if rotation && want[3][l] < 0.0 {
                        -1.0
                    } else {
                        1.0
                    };
                    let e = (0..want.len())
                        .map(|c| (got[c][l] - sign * want[c][l]).powi(2))
                        .sum::<f32>()
                        .sqrt();
                    // Width 24 is the finest: f32 rounding of the rebuilt w stays.
                    assert!(
                        e <= tolerance[l].max(1e-6),
                        "rows {first_row} key {k} lane {l}: {e} over {}",
                        tolerance[l]
                    );
                    if l == 2 {
                        assert_eq!(e, 0.0, "a held lane is exact");
                    }
                }
            }
            assert!(layout.widths.iter().flatten().all(|&w| w <= MAX_BITS));
        }
        // Coarser tolerances store fewer bits.
        let fine = src.layout(Vec4::splat(1e-6)).stored_bytes;
        let coarse = src.layout(Vec4::splat(1e-2)).stored_bytes;
        assert!(coarse < fine, "{coarse} vs {fine}");
    }
}

#[test]
fn a_segment_encoded_again_plays_as_a_fresh_encoding_and_truncating_restores_the_stream() {
    let keys = keys();
    let src = GroupSource::new(&keys, R_ROWS, true);
    let mut layout = src.layout_at(Vec4::splat(1e-4), 3, 3);
    let bytes = layout.stored_bytes;
    let mut lanes = LaneKeys::default();
    let g = src.encode(&layout, &mut lanes);
    let before = lanes.clone();
    // Segment 1 two bits narrower per lane, written at the end of the stream.
    let s = 1;
    let narrower = layout.widths[s].map(|w| w.saturating_sub(2));
    let n = src.segment_keys(&layout, s).len();
    let wide = layout.widths[s];
    layout.set_segment(s, narrower, n);
    assert!(layout.stored_bytes < bytes);
    let mark = lanes.mark();
    let record = src.encode_segment(&layout, s, &mut lanes).unwrap();
    let index = lanes.groups[g as usize].first_segment as usize + s;
    let old = std::mem::replace(&mut lanes.segments[index], record);
    let mut fresh = LaneKeys::default();
    let fg = src.encode(&layout, &mut fresh);
    for k in 0..src.keys() as u32 {
        let got = lanes.pair4(&lanes.groups[g as usize], k, k).0;
        let want = fresh.pair4(&fresh.groups[fg as usize], k, k).0;
        assert_eq!(
            got.map(|v| v.to_array().map(f32::to_bits)),
            want.map(|v| v.to_array().map(f32::to_bits)),
            "key {k}"
        );
    }
    // Put back: the records and the stream as they were, bit for bit.
    lanes.segments[index] = old;
    lanes.truncate(mark);
    assert_eq!(lanes.bits, before.bits);
    assert_eq!(
        (lanes.end, lanes.segments.len()),
        (before.end, before.segments.len())
    );
    layout.set_segment(s, wide, n);
    assert_eq!(layout.stored_bytes, bytes);
}
