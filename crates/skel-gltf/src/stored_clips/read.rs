//! Reading `SKEL_compressed_animation`: each animation's stored keys attached to its clip.

use serde_json::Value;
use skel_anim::{AnimationData, StoredKeys};

use super::COMPRESSED_ANIMATION;
use crate::accessor::view_bytes;
use crate::{GltfDocument, GltfError};

/// Attaches the stored keys of every animation of `doc` that has them to its clip in `data`
/// (clip `i` is animation `i`).
pub(crate) fn attach_stored_clips(
    doc: &GltfDocument,
    data: &mut AnimationData,
) -> Result<(), GltfError> {
    let Some(animations) = doc.raw.get("animations").and_then(Value::as_array) else {
        return Ok(());
    };
    for (ai, anim) in animations.iter().enumerate() {
        let Some(ext) = anim
            .get("extensions")
            .and_then(|e| e.get(COMPRESSED_ANIMATION))
        else {
            continue;
        };
        let path = format!("animations[{ai}].extensions.{COMPRESSED_ANIMATION}.bufferView");
        let view = ext
            .get("bufferView")
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| GltfError::Invalid {
                path: path.clone(),
                reason: "missing, or not an index".into(),
            })?;
        let (bytes, _) = view_bytes(doc, view, &path)?;
        if ai < data.clips.len() {
            data.attach_stored_keys(ai, StoredKeys::from_bytes(bytes))?;
        }
    }
    Ok(())
}
