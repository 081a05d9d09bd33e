//! What the stored format's reader and writer share: its magic and version, the width codes,
//! the counts the clip's layout gives rather than the bytes, and the values a lane takes
//! unless the bytes say otherwise.

use crate::NodeRest;
use crate::sample::four_node::{Quad, ROWS};
use crate::sample::lane_bits::WHOLE_CLIP;
use crate::sample::packed::Width;

pub(super) const MAGIC: [u8; 4] = *b"SKEL";
pub(super) const FORMAT: u16 = 1;

/// The value lane `l` of quad `q` takes in row `c` of group `g` unless the bytes say
/// otherwise: its node's rest value, or the identity in a padding lane.
pub(super) fn implied(q: &Quad, rest: &[NodeRest], g: usize, l: usize, c: usize) -> f32 {
    let node = (l < q.lanes)
        .then(|| rest.get(q.nodes[l] as usize))
        .flatten();
    match (g, node) {
        (0, Some(n)) => n.translation.get(c).copied().unwrap_or(0.0),
        (1, Some(n)) => n.scale.get(c).copied().unwrap_or(1.0),
        (_, Some(n)) => n.rotation.get(c).copied().unwrap_or(0.0),
        (0, None) => 0.0,
        (1, None) => 1.0,
        (_, None) => f32::from(u8::from(c == 3)),
    }
}

/// The value lane `l` of quad `q` takes in row `c` of bit-packed group `g` unless the bytes
/// say otherwise: [`implied`], a rotation made unit and turned to non-negative `w` with the
/// arithmetic of the compressor's sources (`compile/bit_rates.rs`, `GroupSource::new`), so
/// that an untracked lane decodes bit for bit as it was written.
pub(super) fn implied_packed(q: &Quad, rest: &[NodeRest], g: usize, l: usize, c: usize) -> f32 {
    if g != 2 {
        return implied(q, rest, g, l, c);
    }
    let [x, y, z, w] = [0, 1, 2, 3].map(|c| implied(q, rest, g, l, c));
    let len = (x * x + y * y + z * z + w * w).sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 1.0 };
    let w = w * inv;
    let sign = if w < 0.0 { -1.0 } else { 1.0 };
    match c {
        0 => sign * (x * inv),
        1 => sign * (y * inv),
        2 => sign * (z * inv),
        _ => sign * w,
    }
}

/// Whether lane `l` of quad `q` is keyed in group `g` (translation, scale, rotation): its
/// value comes from the clip, not from its node's rest.
pub(super) fn keyed(q: &Quad, g: usize, l: usize) -> bool {
    [q.t_keyed, q.s_keyed, q.r_keyed][g].test(l)
}

/// The 8-bit range of a segment that spans its whole group: every level of the clip range.
pub(super) const FULL_RANGE: (u8, u8) = (0, 255);

/// Keys per quad: from each quad's first key row to the next quad's (the last to `len`).
pub(super) fn key_counts(quads: &[Quad], len: usize) -> Vec<usize> {
    quads
        .iter()
        .zip(quads.iter().skip(1).map(|q| q.first).chain([len]))
        .map(|(q, end)| end.saturating_sub(q.first) / ROWS)
        .collect()
}

/// Segments of a group of `keys` keys at `shift`.
pub(super) fn segment_count(keys: usize, shift: u32) -> usize {
    if shift == WHOLE_CLIP {
        1
    } else {
        keys.max(1).div_ceil(1 << shift)
    }
}

pub(super) fn width_code(width: Width) -> u16 {
    match width {
        Width::Held => 0,
        Width::Bits8 => 1,
        Width::Bits16 => 2,
        Width::Lanes => 3,
        Width::F32 => 4,
    }
}

pub(super) fn width_of(code: u16) -> Result<Width, String> {
    Ok(match code {
        0 => Width::Held,
        1 => Width::Bits8,
        2 => Width::Bits16,
        3 => Width::Lanes,
        4 => Width::F32,
        _ => return Err(format!("unknown width code {code}")),
    })
}
