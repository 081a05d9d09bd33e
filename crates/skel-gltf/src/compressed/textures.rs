//! Textures whose image is only named in an extension: `EXT_texture_webp` (decoded by the
//! `image` crate's WebP support) and `KHR_texture_basisu` (KTX2, not decoded: the texture's
//! own `source`, the file's fallback PNG or JPEG, is drawn when there is one).

use serde_json::Value;

use crate::LoadWarning;

const WEBP: &str = "EXT_texture_webp";
const BASISU: &str = "KHR_texture_basisu";

/// Sets each texture's `source` to its WebP image when it has one; warns for a KTX2-only
/// texture, which is left without a source (drawn with its base colour factor alone).
/// Returns whether any texture changed.
pub(super) fn prepare_textures(root: &mut Value, warnings: &mut Vec<LoadWarning>) -> bool {
    let Some(textures) = root.get_mut("textures").and_then(Value::as_array_mut) else {
        return false;
    };
    let mut changed = false;
    for (index, texture) in textures.iter_mut().enumerate() {
        let ext_source = |name: &str| {
            texture
                .get("extensions")
                .and_then(|e| e.get(name))
                .and_then(|e| e.get("source"))
                .filter(|s| s.is_u64())
                .cloned()
        };
        let webp = ext_source(WEBP);
        let basisu = ext_source(BASISU);
        let has_source = texture.get("source").is_some_and(Value::is_u64);
        if let (Some(source), Some(obj)) = (webp, texture.as_object_mut()) {
            // The WebP image is the one meant; a `source` beside it is a fallback for viewers
            // without WebP.
            obj.insert("source".into(), source);
            changed = true;
        } else if basisu.is_some() {
            let message = if has_source {
                format!("{BASISU} (KTX2) is not decoded: the texture's fallback image is drawn")
            } else {
                format!(
                    "{BASISU} (KTX2) is not decoded and the texture has no fallback image: \
                     materials using it draw their base colour factor only"
                )
            };
            warnings.push(LoadWarning::new(format!("textures[{index}]"), message));
        }
    }
    changed
}
