//! Bytes to a compressed clip's keys (the format is in `mod.rs`), against the clip's lossless
//! layout: the quads as the clip's nodes and key times lay them out, their groups' widths,
//! held values and keys from the bytes, so that the result is the plan the compressor built,
//! without compressing again.

use glam::{BVec4A, Vec4};

use super::bytes::In;
use super::layout::{
    FORMAT, FULL_RANGE, MAGIC, implied, implied_packed, key_counts, keyed, segment_count, width_of,
};
use crate::compile::choice::uniform_of;
use crate::rig::four_node::{QuadPlan, fix_if_constant};
use crate::sample::bit_stream::field;
use crate::sample::four_node::{Quad, ROWS};
use crate::sample::lane_bits::{ClipRanges, LaneGroup, MAX_BITS, WHOLE_CLIP};
use crate::sample::packed::{GROUPS, PackedGroup, PackedKeys, Range, Width};
use crate::{ClipCompression, NodeRest};

/// The compressed plan `bytes` store for the clip whose lossless quads are `lossless` (over
/// nodes at rest `rest`), and the report they carry (memory and lossless bytes measured
/// here); an error naming what does not fit.
pub(crate) fn read(
    bytes: &[u8],
    lossless: &QuadPlan,
    rest: &[NodeRest],
) -> Result<(QuadPlan, ClipCompression), String> {
    let mut input = In::new(bytes);
    if input.take(4, "the magic")? != MAGIC {
        return Err("not skel's stored keys (bad magic)".into());
    }
    let version = input.u16("the version")?;
    if version != FORMAT {
        return Err(format!(
            "format version {version}; this build reads {FORMAT}"
        ));
    }
    input.u16("the header")?;
    let quads = input.u32("the quad count")? as usize;
    let lossless_len = input.u32("the key count")? as usize;
    if quads != lossless.quads.len() || lossless_len != lossless.keys.len() {
        return Err(format!(
            "written for {quads} quads of {lossless_len} key rows, the clip lays out {} of {}",
            lossless.quads.len(),
            lossless.keys.len()
        ));
    }
    let bit_bytes = input.u32("the stream length")? as usize;
    let mut report = ClipCompression {
        raw_bytes: input.u32("the report")? as usize,
        compressed_bytes: input.u32("the report")? as usize,
        max_error: input.f32("the report")?,
        held: input.u32("the report")? as usize,
        lossless_bytes: lossless.keys.len() * 16,
        stored_bytes: bytes.len(),
        ..ClipCompression::default()
    };
    let bits = input.take(bit_bytes, "the bit stream")?;
    let mut reader = Fields { bits, at: 0 };
    let counts = key_counts(&lossless.quads, lossless_len);
    let mut plan = QuadPlan {
        quads: lossless.quads.clone(),
        keys: Vec::new(),
        fixed: Vec::new(),
        packed: None,
    };
    let mut packed = PackedKeys {
        lossless_len,
        ..PackedKeys::default()
    };
    for (qi, q) in plan.quads.iter_mut().enumerate() {
        let code = input.u16("a quad's widths")?;
        let widths: [Width; 3] = [
            width_of(code & 7)?,
            width_of(code >> 3 & 7)?,
            width_of(code >> 6 & 7)?,
        ];
        if code >> 10 != 0 {
            return Err(format!("quad {qi}: unknown flags {code:#x}"));
        }
        packed.nlerp.push(code >> 9 & 1 == 1);
        [q.t_const, q.s_const, q.r_const] = widths.map(|w| w == Width::Held);
        let keyed = [q.t_keyed, q.s_keyed, q.r_keyed];
        let mut groups = [PackedGroup {
            width: Width::Held,
            first: 0,
            range: 0,
        }; 3];
        for (g, &width) in widths.iter().enumerate() {
            let (first_row, rows) = GROUPS[g];
            let n = counts[qi];
            groups[g] = match width {
                Width::Held => {
                    let stored = if keyed[g].any() {
                        input.u8("a group's stored lanes")?
                    } else {
                        0
                    };
                    for l in (0..q.lanes).filter(|&l| keyed[g].test(l)) {
                        for c in 0..rows {
                            q.held[first_row + c][l] = if stored >> l & 1 == 1 {
                                input.f32("a held value")?
                            } else {
                                implied(q, rest, g, l, c)
                            };
                        }
                    }
                    PackedGroup {
                        width,
                        first: 0,
                        range: 0,
                    }
                }
                Width::Bits8 | Width::Bits16 => {
                    let range = to_u32(packed.ranges.len())?;
                    for _ in 0..rows {
                        let min = input.vec4("a row's range")?;
                        let step = input.vec4("a row's range")?;
                        packed.ranges.push(Range { min, step });
                    }
                    let words = n * rows;
                    let first = if width == Width::Bits8 {
                        let first = to_u32(packed.u8s.len())?;
                        for _ in 0..words {
                            packed.u8s.push(input.u32("8-bit rows")?);
                        }
                        first
                    } else {
                        let first = to_u32(packed.u16s.len())?;
                        for _ in 0..words {
                            let lo = u64::from(input.u32("16-bit rows")?);
                            let hi = u64::from(input.u32("16-bit rows")?);
                            packed.u16s.push(lo | hi << 32);
                        }
                        first
                    };
                    PackedGroup {
                        width,
                        first,
                        range,
                    }
                }
                Width::F32 => {
                    let first = to_u32(packed.f32s.len())?;
                    for _ in 0..n * rows {
                        packed.f32s.push(input.vec4("f32 rows")?);
                    }
                    PackedGroup {
                        width,
                        first,
                        range: 0,
                    }
                }
                Width::Lanes => {
                    let first = read_lanes(&mut input, &mut reader, &mut packed, (g, q, rest), n)?;
                    PackedGroup {
                        width,
                        first,
                        range: 0,
                    }
                }
            };
        }
        fix_if_constant(q, &mut plan.fixed).ok_or("too many fixed quads")?;
        packed.quads.push(groups);
    }
    if input.left() != 0 {
        return Err(format!("{} bytes past the last quad", input.left()));
    }
    untracked_lanes_hold(&packed, &plan.quads, lossless, &counts)?;
    packed.uniform = uniform_of(&plan.quads, &packed.nlerp);
    for width in packed.quads.iter().flatten().map(|g| g.width) {
        match width {
            Width::Bits8 => report.bits8 += 1,
            Width::Bits16 => report.bits16 += 1,
            Width::Lanes => report.packed += 1,
            Width::F32 => report.float32 += 1,
            Width::Held => {}
        }
    }
    report.nlerp = plan
        .quads
        .iter()
        .zip(&packed.nlerp)
        .filter(|&(_, &n)| n)
        .count();
    report.memory_bytes = packed.memory_bytes();
    plan.packed = Some(packed);
    Ok((plan, report))
}

/// Checks that every lane the clip does not key plays, in each group stored at 8 or 16 bits
/// or as f32, at every key, the value the clip's layout holds for it (its rest, or the
/// identity in a padding lane): the clip's samplers have nothing else for it, so the bytes may
/// not either. (Bit-packed groups hold such lanes by construction: `read_lanes`.)
fn untracked_lanes_hold(
    packed: &PackedKeys,
    quads: &[Quad],
    lossless: &QuadPlan,
    counts: &[usize],
) -> Result<(), String> {
    let mut key = [Vec4::ZERO; ROWS];
    for (qi, (q, groups)) in quads.iter().zip(&packed.quads).enumerate() {
        let quantised =
            |g: usize| matches!(groups[g].width, Width::Bits8 | Width::Bits16 | Width::F32);
        let checked: Vec<(usize, usize)> = (0..3)
            .filter(|&g| quantised(g))
            .flat_map(|g| {
                (0..4)
                    .filter(move |&l| !keyed(q, g, l))
                    .map(move |l| (g, l))
            })
            .collect();
        if checked.is_empty() {
            continue;
        }
        for k in 0..counts[qi] {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "key counts fit u32: the plan checked them"
            )]
            packed.decode(groups, k as u32, &mut key);
            let layout = &lossless.keys[q.first + k * ROWS..][..ROWS];
            for &(g, l) in &checked {
                let (first_row, rows) = GROUPS[g];
                if (first_row..first_row + rows).any(|r| key[r][l] != layout[r][l]) {
                    return Err(format!(
                        "quad {qi}: a value for lane {l}, which the clip does not key"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn to_u32(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| "past 4 294 967 295 records".to_owned())
}

/// The bit stream of the keys, read in order.
pub(super) struct Fields<'b> {
    pub(super) bits: &'b [u8],
    pub(super) at: usize,
}

impl Fields<'_> {
    fn next(&mut self, width: u8) -> Result<u32, String> {
        let v = field(self.bits, self.at, width).ok_or("the bit stream ends early")?;
        self.at += usize::from(width);
        Ok(v)
    }
}

/// One bit-packed group of `keys` keys (group `g` of quad `q`, over nodes at rest `rest`)
/// into `packed`'s lanes; its index there.
pub(super) fn read_lanes(
    input: &mut In<'_>,
    fields: &mut Fields<'_>,
    packed: &mut PackedKeys,
    (g, q, rest): (usize, &Quad, &[NodeRest]),
    keys: usize,
) -> Result<u32, String> {
    let rotation = g == 2;
    let rows = usize::from(input.u8("a group's rows")?);
    if !(rows == 3 || rotation && rows == 4) {
        return Err(format!("a group of {rows} rows"));
    }
    let mask = input.u8("a group's held lanes")?;
    let shift = u32::from(input.u8("a group's segment length")?);
    if shift > WHOLE_CLIP || mask >> 4 & !mask != 0 {
        return Err(format!("held lanes {mask:#x}, segment shift {shift}"));
    }
    let held = BVec4A::from_array(std::array::from_fn(|l| mask >> l & 1 == 1));
    let stored = |l: usize| mask >> (4 + l) & 1 == 1;
    // Only a keyed lane's value may differ from its rest: an untracked lane plays its rest,
    // as the clip's samplers (which have none for it) say.
    if let Some(l) = (0..4).find(|&l| (stored(l) || !held.test(l)) && !keyed(q, g, l)) {
        return Err(format!(
            "a value stored for lane {l}, which the clip does not key"
        ));
    }
    let mut w_held = Vec4::ONE;
    if rotation && rows == 3 {
        for l in (0..4).filter(|&l| held.test(l)) {
            w_held[l] = if stored(l) {
                input.f32("a held w")?
            } else {
                implied_packed(q, rest, g, l, 3)
            };
        }
    }
    let mut ranges = ClipRanges {
        min: [Vec4::ZERO; 4],
        step: [Vec4::ZERO; 4],
    };
    for c in 0..rows {
        for l in 0..4 {
            if !held.test(l) {
                ranges.min[c][l] = input.f32("a group's range")?;
                ranges.step[c][l] = input.f32("a group's range")?;
            } else if stored(l) {
                ranges.min[c][l] = input.f32("a held value")?;
            } else {
                ranges.min[c][l] = implied_packed(q, rest, g, l, c);
            }
        }
    }
    let index = packed.lanes.push_group(
        LaneGroup {
            #[expect(clippy::cast_possible_truncation, reason = "3 or 4")]
            rows: rows as u32,
            w_held,
            held,
            first_segment: 0,
            shift,
        },
        ranges,
    );
    let segment_keys = if shift == WHOLE_CLIP {
        keys.max(1)
    } else {
        1 << shift
    };
    let mut levels = Vec::new();
    for s in 0..segment_count(keys, shift) {
        let mut widths = [0_u8; 4];
        for l in (0..4).filter(|&l| !held.test(l)) {
            widths[l] = input.u8("a segment's widths")?;
            if widths[l] > MAX_BITS {
                return Err(format!("a lane of {} bits", widths[l]));
            }
        }
        let full = shift == WHOLE_CLIP
            && match input.u8("a segment's range flag")? {
                0 => false,
                1 => true,
                f => return Err(format!("a segment's range flag of {f}")),
            };
        let (mut min8, mut ext8) = ([0_u32; 4], [0_u32; 4]);
        for c in 0..rows {
            for l in (0..4).filter(|&l| !held.test(l)) {
                let (m8, e8) = if full {
                    FULL_RANGE
                } else {
                    (
                        input.u8("a segment's ranges")?,
                        input.u8("a segment's ranges")?,
                    )
                };
                min8[c] |= u32::from(m8) << (8 * l);
                ext8[c] |= u32::from(e8) << (8 * l);
            }
        }
        let in_segment = segment_keys
            .min(keys.saturating_sub(s * segment_keys))
            .max(1);
        levels.clear();
        for _ in 0..in_segment {
            let mut key = [[0_u32; 4]; 4];
            for row in &mut key[..rows] {
                for (l, level) in row.iter_mut().enumerate() {
                    *level = fields.next(widths[l])?;
                }
            }
            levels.push(key);
        }
        packed.lanes.push_segment(
            (&ranges.min, &ranges.step),
            rows,
            widths,
            min8,
            ext8,
            &levels,
        );
    }
    Ok(index)
}
