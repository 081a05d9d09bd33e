//! A compressed clip's keys to bytes (the format is in `mod.rs`): the rig's own records
//! (`PackedKeys`) read back, the bit-packed fields copied without the gaps the compressor's
//! in-place trials leave in memory, and each segment's 8-bit ranges recovered from the
//! decoding the rig folded them into (checked bit for bit).

use glam::Vec4;

use super::bytes::Out;
use super::layout::{
    FORMAT, FULL_RANGE, MAGIC, implied, implied_packed, key_counts, keyed, segment_count,
    width_code,
};
use crate::rig::four_node::QuadPlan;
use crate::sample::bit_stream::{BitWriter, field};
use crate::sample::four_node::Quad;
use crate::sample::lane_bits::{LaneKeys, WHOLE_CLIP, inv_levels};
use crate::sample::packed::{GROUPS, Width};
use crate::{ClipCompression, NodeRest};

/// The stored bytes of `plan` (a compressed clip's quads over nodes at rest `rest`) and its
/// `report`; an error where the plan is not compressed or its records do not hold together.
pub(crate) fn write(
    plan: &QuadPlan,
    report: &ClipCompression,
    rest: &[NodeRest],
) -> Result<Vec<u8>, String> {
    let packed = plan.packed.as_ref().ok_or("the clip is not compressed")?;
    let counts = key_counts(&plan.quads, packed.lossless_len);
    let mut records = Out::default();
    let mut bits = Vec::new();
    let mut writer = BitWriter::at(&mut bits, 0);
    for (qi, (q, groups)) in plan.quads.iter().zip(&packed.quads).enumerate() {
        let code = groups
            .iter()
            .enumerate()
            .fold(0_u16, |c, (g, pg)| c | width_code(pg.width) << (3 * g))
            | u16::from(packed.nlerp[qi]) << 9;
        records.u16(code);
        let keyed = [q.t_keyed, q.s_keyed, q.r_keyed];
        for (g, pg) in groups.iter().enumerate() {
            let (first_row, rows) = GROUPS[g];
            match pg.width {
                Width::Held => {
                    let stored: Vec<usize> = (0..q.lanes)
                        .filter(|&l| keyed[g].test(l))
                        .filter(|&l| {
                            (0..rows).any(|c| {
                                q.held[first_row + c][l].to_bits()
                                    != implied(q, rest, g, l, c).to_bits()
                            })
                        })
                        .collect();
                    if keyed[g].any() {
                        records.u8(stored.iter().fold(0, |m, &l| m | 1 << l));
                    }
                    for l in stored {
                        for c in 0..rows {
                            records.f32(q.held[first_row + c][l]);
                        }
                    }
                }
                Width::Bits8 | Width::Bits16 => {
                    let range = &packed.ranges[pg.range as usize..][..rows];
                    for r in range {
                        records.vec4(r.min);
                        records.vec4(r.step);
                    }
                    let words = counts[qi] * rows;
                    let first = pg.first as usize;
                    if pg.width == Width::Bits8 {
                        let levels = packed.u8s.get(first..first + words).ok_or("8-bit rows")?;
                        levels.iter().for_each(|&w| records.u32(w));
                    } else {
                        let levels = packed.u16s.get(first..first + words).ok_or("16-bit rows")?;
                        for &w in levels {
                            records.0.extend_from_slice(&w.to_le_bytes());
                        }
                    }
                }
                Width::F32 => {
                    let first = pg.first as usize;
                    let values = packed
                        .f32s
                        .get(first..first + counts[qi] * rows)
                        .ok_or("f32 rows")?;
                    values.iter().for_each(|&v| records.vec4(v));
                }
                Width::Lanes => {
                    write_lanes(
                        &packed.lanes,
                        (pg.first as usize, g, q, rest),
                        counts[qi],
                        &mut records,
                        &mut writer,
                    )?;
                }
            }
        }
    }
    let mut out = Out::default();
    out.0.extend_from_slice(&MAGIC);
    out.u16(FORMAT);
    out.u16(0);
    out.u32(to_u32(plan.quads.len())?);
    out.u32(to_u32(packed.lossless_len)?);
    out.u32(to_u32(bits.len())?);
    for v in [report.raw_bytes, report.compressed_bytes] {
        out.u32(to_u32(v)?);
    }
    out.f32(report.max_error);
    out.u32(to_u32(report.held)?);
    out.0.extend_from_slice(&bits);
    out.0.extend_from_slice(&records.0);
    Ok(out.0)
}

fn to_u32(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("{n} does not fit the format's 32-bit counts"))
}

/// Bit-packed group `index` of `lanes` (group `g` of quad `q`, over nodes at rest `rest`;
/// `keys` keys): its layout and clip ranges into `records`, its fields into `writer`.
pub(super) fn write_lanes(
    lanes: &LaneKeys,
    (index, g, q, rest): (usize, usize, &Quad, &[NodeRest]),
    keys: usize,
    records: &mut Out,
    writer: &mut BitWriter<'_>,
) -> Result<(), String> {
    let group = lanes.groups.get(index).ok_or("a bit-packed group")?;
    let ranges = lanes.clip_ranges.get(index).ok_or("a group's ranges")?;
    let rows = group.rows as usize;
    let held = group.held;
    let rebuilt_w = g == 2 && rows == 3;
    // Held lanes whose value is not the one the reader assumes; only a keyed lane's may be
    // (an untracked lane plays its rest, as the clip's samplers say).
    let differs = |l: usize| {
        (0..rows).any(|c| ranges.min[c][l].to_bits() != implied_packed(q, rest, g, l, c).to_bits())
            || rebuilt_w && group.w_held[l].to_bits() != implied_packed(q, rest, g, l, 3).to_bits()
    };
    let stored = |l: usize| held.test(l) && keyed(q, g, l) && differs(l);
    if let Some(l) = (0..4).find(|&l| held.test(l) && !keyed(q, g, l) && differs(l)) {
        return Err(format!(
            "lane {l} is not keyed but does not hold its rest value"
        ));
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "rows is 3 or 4; shift ≤ 31"
    )]
    {
        records.u8(rows as u8);
        records
            .u8(held.bitmask() as u8
                | ((0..4).filter(|&l| stored(l)).fold(0, |m, l| m | 1 << l)) << 4);
        records.u8(group.shift as u8);
    }
    if rebuilt_w {
        for l in (0..4).filter(|&l| stored(l)) {
            records.f32(group.w_held[l]);
        }
    }
    for c in 0..rows {
        for l in 0..4 {
            if !held.test(l) {
                records.f32(ranges.min[c][l]);
                records.f32(ranges.step[c][l]);
            } else if stored(l) {
                records.f32(ranges.min[c][l]);
            }
        }
    }
    let segment_keys = if group.shift == WHOLE_CLIP {
        keys.max(1)
    } else {
        1 << group.shift
    };
    for s in 0..segment_count(keys, group.shift) {
        let seg = lanes
            .segments
            .get(group.first_segment as usize + s)
            .ok_or("a segment")?;
        #[expect(clippy::cast_possible_truncation, reason = "a width is at most 32")]
        let widths = seg.masks.map(|m| (32 - m.leading_zeros()) as u8);
        for (l, &width) in widths.iter().enumerate() {
            if held.test(l) {
                if width != 0 {
                    return Err("a held lane has bits".into());
                }
            } else {
                records.u8(width);
            }
        }
        let mut seg_ranges = Vec::with_capacity(rows * 4);
        let mut full = group.shift == WHOLE_CLIP;
        for c in 0..rows {
            for l in (0..4).filter(|&l| !held.test(l)) {
                let clip = (ranges.min[c][l], ranges.step[c][l]);
                let (inv, decoding) = (inv_levels(widths[l]), (seg.low[c][l], seg.span[c][l]));
                seg_ranges.push(
                    recover_ranges(clip, inv, decoding)
                        .ok_or("a segment's 8-bit ranges do not reproduce its decoding")?,
                );
                full &= reproduces(clip, inv, decoding, FULL_RANGE);
            }
        }
        // A group of one segment spans the clip's range, mostly in full: a byte says so.
        if group.shift == WHOLE_CLIP {
            records.u8(u8::from(full));
        }
        if !full {
            for (m8, e8) in seg_ranges {
                records.u8(m8);
                records.u8(e8);
            }
        }
        let in_segment = segment_keys
            .min(keys.saturating_sub(s * segment_keys))
            .max(1);
        for k in 0..in_segment {
            for c in 0..rows {
                let row = seg.bit as usize + k * seg.stride as usize + c * seg.row_bits as usize;
                for (&at, &width) in seg.lane_at.iter().zip(&widths) {
                    let level = field(&lanes.bits, row + usize::from(at), width)
                        .ok_or("a field past the stream")?;
                    writer.put(level, width);
                }
            }
        }
    }
    Ok(())
}

/// The segment minimum and extent (8-bit, in clip steps) whose decoding `low = min + m₈ ·
/// step`, `span = (e₈ · step) · inv` is `(low, span)` bit for bit: the nearest whole steps,
/// which `lane_records_tests` finds always reproduce a decoding (across the f32 range, subnormal
/// steps included), so no search around them is needed. `None` where they would not.
pub(super) fn recover_ranges(
    (min, step): (f32, f32),
    inv: f32,
    (low, span): (f32, f32),
) -> Option<(u8, u8)> {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "saturating on purpose: NaN (a zero step) is 0, out of range 0 or 255"
    )]
    let nearest = |v: f32| v.round() as u8;
    let r = (nearest((low - min) / step), nearest(span / inv / step));
    reproduces((min, step), inv, (low, span), r).then_some(r)
}

/// Whether the 8-bit range `(m8, e8)` decodes to `(low, span)` bit for bit, as the reader
/// computes it (`sample/lane_bits.rs`, `affine`).
fn reproduces(
    (min, step): (f32, f32),
    inv: f32,
    (low, span): (f32, f32),
    (m8, e8): (u8, u8),
) -> bool {
    let (l, s) = crate::sample::lane_bits::affine(
        Vec4::splat(min),
        Vec4::splat(step),
        Vec4::splat(f32::from(m8)),
        Vec4::splat(f32::from(e8)),
        Vec4::splat(inv),
    );
    l.x.to_bits() == low.to_bits() && s.x.to_bits() == span.to_bits()
}
