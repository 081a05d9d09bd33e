//! Compressed geometry and images, decoded at load: after [`decode`], every buffer view and
//! accessor of the document holds plain bytes, so the readers downstream never see a codec.
//!
//! - `EXT_meshopt_compression` / `KHR_meshopt_compression` (`views.rs`, `meshopt/`, a
//!   pure-Rust decoder): each compressed buffer view is decoded into a new buffer and the view
//!   points at it.
//! - `KHR_draco_mesh_compression` (`primitives.rs`, `draco.rs`): each compressed primitive is
//!   decoded into a new buffer with one view per attribute and the indices, and its accessors
//!   point at them.
//! - `EXT_texture_webp` / `KHR_texture_basisu` (`textures.rs`): the texture's `source` is set
//!   before gltf-json parses it.

mod decoded;
#[cfg(feature = "draco")]
mod draco;
#[cfg(feature = "meshopt")]
pub mod meshopt;
mod primitives;
mod textures;
mod view_ext;
mod views;

use gltf::json;
use serde_json::Value;

use crate::{GltfError, LoadWarning};
use decoded::DecodedBytes;

use view_ext::MESHOPT;

/// Rewrites, before gltf-json parses it, what gltf-json cannot read in compressed files.
/// Returns whether anything changed.
pub(crate) fn prepare_json(root: &mut Value, warnings: &mut Vec<LoadWarning>) -> bool {
    textures::prepare_textures(root, warnings)
}

/// Whether buffer `index` is a meshopt fallback buffer (`"fallback": true`): a placeholder
/// whose views are decoded from other buffers.
pub(crate) fn is_fallback_buffer(raw: &Value, index: usize) -> bool {
    let Some(buffer) = raw.get("buffers").and_then(|b| b.get(index)) else {
        return false;
    };
    MESHOPT.iter().any(|ext| {
        buffer
            .get("extensions")
            .and_then(|e| e.get(ext))
            .and_then(|e| e.get("fallback"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    })
}

/// Decodes compressed buffer views and primitives into new buffers and points the views and
/// accessors at them.
///
/// # Errors
/// A compressed stream that cannot be decoded names its buffer view or primitive
/// ([`GltfError::Compressed`]); a file that needs a decoder this build lacks gets
/// [`GltfError::CodecNotBuilt`]; decoding past the asset's memory budget,
/// [`GltfError::TooLarge`].
pub(crate) fn decode(
    root: &mut json::Root,
    raw: &Value,
    buffers: &mut Vec<Vec<u8>>,
    warnings: &mut Vec<LoadWarning>,
) -> Result<(), GltfError> {
    let mut budget = DecodedBytes::new();
    views::decode_views(root, raw, buffers, warnings, &mut budget)?;
    primitives::decode_primitives(root, raw, buffers, warnings, &mut budget)
}
