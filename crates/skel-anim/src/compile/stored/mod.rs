//! A compressed clip's keys as bytes ([`StoredKeys`](crate::StoredKeys)): written from a
//! rig's compressed plan, read back into the same plan against the clip's lossless layout,
//! so that a file can hold the compressed clip instead of its f32 keys and a rig built from
//! it plays bit for bit what the compressor measured.
//!
//! # Format (version 1, little endian)
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `SKEL` |
//! | 2, 2 | format version (1), reserved (0) |
//! | 4, 4 | quads, lossless key rows (`ROWS` per key per quad): checked against the clip |
//! | 4 | length of the bit stream below |
//! | 4, 4, 4, 4 | the compressor's report: raw bytes, accounted bytes, max error (f32), groups it held |
//! | … | the bit stream: every bit-packed key field, least significant bit first, in record order |
//! | … | per quad, its record |
//!
//! A quad's record: a `u16` of three 3-bit width codes (translation, scale, rotation: held,
//! 8-bit, 16-bit, bit-packed, f32) and the normalised-lerp flag (bit 9), then per group:
//! - held: where any lane is keyed, a byte of the keyed lanes whose value is stored (the
//!   others hold their node's rest value bit for bit), and their values (3 f32, a rotation
//!   4); untracked lanes hold their rest value, which the clip's nodes give;
//! - 8 / 16-bit: each row's minimum and step (2 × 4 f32), then per key and row four lanes'
//!   levels (4 × 1 or 4 × 2 bytes);
//! - f32: per key and row four lanes' values;
//! - bit-packed: rows stored (3, or 4 for a rotation storing `w`), held lanes (4 bits),
//!   segment shift (31: one segment), the held lanes whose value is stored (4 bits: the
//!   others hold their node's rest value, or the identity in a padding lane); a stored held
//!   lane's `w` where `w` is rebuilt; per stored row, each moving lane's clip minimum and
//!   step and each stored held lane's value (f32); then per segment (of `2^shift` keys) each
//!   moving lane's width (0 to 24) and per row each moving lane's 8-bit minimum and extent
//!   (one segment: a byte, 1 where every one is the full range 0, 255 and left out); the
//!   segment's fields are in the bit stream.
//!
//! Key counts, segment counts and which lanes are keyed come from the clip, not the bytes:
//! the reader builds the clip's lossless layout first and refuses bytes written for another.

mod attach;
mod bytes;
#[cfg(test)]
mod lane_records_tests;
mod layout;
mod read;
#[cfg(test)]
mod tests;
mod write;

use crate::rig::four_node::QuadPlan;
use crate::{AnimError, ClipCompression, NodeRest, StoredKeys};

/// The stored keys of a compressed clip's plan `plan` (over nodes at rest `rest`), carrying
/// `report`.
pub(crate) fn store(
    clip: usize,
    plan: &QuadPlan,
    report: &ClipCompression,
    rest: &[NodeRest],
) -> Result<StoredKeys, AnimError> {
    write::write(plan, report, rest)
        .map(StoredKeys::from_bytes)
        .map_err(|reason| AnimError::BadStoredKeys { clip, reason })
}

/// The compressed plan `keys` hold for clip `clip`, whose lossless quads are `lossless`, and
/// their report.
pub(crate) fn load(
    clip: usize,
    keys: &StoredKeys,
    lossless: &QuadPlan,
    rest: &[NodeRest],
) -> Result<(QuadPlan, ClipCompression), AnimError> {
    read::read(keys.as_bytes(), lossless, rest)
        .map_err(|reason| AnimError::BadStoredKeys { clip, reason })
}
