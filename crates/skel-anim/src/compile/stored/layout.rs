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
