//! What the compressed-data decoders share: the memory budget of decoded bytes and the bytes
//! a buffer view holds.

use gltf::json;

use crate::GltfError;
use crate::budget::MAX_ASSET_FLOATS;

/// Bytes one asset's decoded streams may take together: the asset's float budget, in bytes
/// (a small stream can claim a large count).
pub(super) struct DecodedBytes {
    left: u64,
}

impl DecodedBytes {
    pub(super) fn new() -> Self {
        Self {
            left: MAX_ASSET_FLOATS * 4,
        }
    }

    /// What is left.
    #[cfg_attr(
        not(feature = "draco"),
        expect(dead_code, reason = "the Draco decoder's limit")
    )]
    pub(super) fn left(&self) -> u64 {
        self.left
    }

    /// Takes `bytes` for `what` (a JSON path), or fails with [`GltfError::TooLarge`].
    pub(super) fn take(&mut self, what: &str, bytes: u64) -> Result<(), GltfError> {
        if bytes > self.left {
            return Err(GltfError::TooLarge {
                what: what.to_owned(),
                floats: bytes.div_ceil(4),
                limit: MAX_ASSET_FLOATS,
            });
        }
        self.left -= bytes;
        Ok(())
    }
}

/// The bytes of buffer view `view` as the document holds them now, if they are there.
pub(super) fn view_bytes<'a>(
    root: &json::Root,
    buffers: &'a [Vec<u8>],
    view: usize,
) -> Option<&'a [u8]> {
    let v = root.buffer_views.get(view)?;
    let buffer = buffers.get(v.buffer.value())?;
    let start = usize::try_from(v.byte_offset.map_or(0, |o| o.0)).ok()?;
    let end = start.checked_add(usize::try_from(v.byte_length.0).ok()?)?;
    buffer.get(start..end)
}
