//! A glTF file as bytes that need nothing else: external buffers read through bevy's asset
//! reader and inlined, and, for a file that requires skel's stored-clip extension, the copy
//! bevy's own glTF loader can spawn.

use base64::Engine as _;
use bevy::asset::{AssetPath, AssetServer};
use serde_json::Value;
use skel_gltf::{COMPRESSED_ANIMATION, pack_glb};

use crate::SkelBevyError;

/// The bytes of `path` with every external buffer of a `.gltf` (JSON) file read through the
/// same asset source (relative to the file, as bevy's glTF loader resolves them) and inlined
/// as a `data:` URI; a `.glb`, or a `.gltf` whose buffers are all inline, comes back as read.
pub(crate) async fn read_self_contained(
    server: &AssetServer,
    path: &AssetPath<'static>,
) -> Result<Vec<u8>, SkelBevyError> {
    let bytes = read_file(server, path).await?;
    if looks_binary(&bytes) {
        return Ok(bytes);
    }
    let Ok(mut root) = serde_json::from_slice::<Value>(&bytes) else {
        // skel-gltf reports the syntax error with its place.
        return Ok(bytes);
    };
    let mut changed = false;
    if let Some(buffers) = root.get_mut("buffers").and_then(Value::as_array_mut) {
        for buffer in buffers {
            let Some(uri) = buffer.get("uri").and_then(Value::as_str) else {
                continue;
            };
            if uri.starts_with("data:") {
                continue;
            }
            let decoded = percent_decode(uri);
            let sibling = path
                .resolve_embed_str(&decoded)
                .map_err(|e| SkelBevyError::RigLoad(format!("{path}: buffer URI {uri:?}: {e}")))?;
            let data = read_file(server, &sibling).await?;
            let inline = format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&data)
            );
            buffer["uri"] = Value::String(inline);
            changed = true;
        }
    }
    if !changed {
        return Ok(bytes);
    }
    serde_json::to_vec(&root).map_err(|e| SkelBevyError::RigLoad(format!("{path}: {e}")))
}

/// The bytes of one file through bevy's asset reader.
pub(crate) async fn read_file(
    server: &AssetServer,
    path: &AssetPath<'_>,
) -> Result<Vec<u8>, SkelBevyError> {
    let source = server
        .get_source(path.source())
        .map_err(|e| SkelBevyError::RigLoad(e.to_string()))?;
    let mut reader = source
        .reader()
        .read(path.path())
        .await
        .map_err(|e| SkelBevyError::RigLoad(format!("{path}: {e}")))?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await?;
    Ok(bytes)
}

/// For a self-contained file that requires skel's stored-clip extension
/// ([`COMPRESSED_ANIMATION`], what `skel compress --out` writes), a `.glb` that bevy's glTF
/// loader accepts, with its extension (`"glb"` or `"gltf"`, as the file was): the extension is no longer required or used, and each animation storing
/// its clip that way keeps its name with no channels (its key values are not in the file's
/// accessors, and skel, not bevy, plays it). Meshes, skins, materials and nodes are as they
/// were. `None` for any other file.
///
/// # Errors
/// [`SkelBevyError::RigLoad`] for a container or JSON text that cannot be read back (skel's
/// own reader, which read the same bytes first, reports those in detail).
pub(crate) fn scene_copy(bytes: &[u8]) -> Result<Option<(Vec<u8>, &'static str)>, SkelBevyError> {
    let bad = |what: &str| SkelBevyError::RigLoad(format!("scene copy: {what}"));
    let (json, bin) = if looks_binary(bytes) {
        split_glb(bytes).ok_or_else(|| bad("a malformed GLB container"))?
    } else {
        (bytes, None)
    };
    let mut root: Value = serde_json::from_slice(json).map_err(|e| bad(&e.to_string()))?;
    let required = root
        .get("extensionsRequired")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|e| e == COMPRESSED_ANIMATION));
    if !required {
        return Ok(None);
    }
    for list in ["extensionsRequired", "extensionsUsed"] {
        if let Some(names) = root.get_mut(list).and_then(Value::as_array_mut) {
            names.retain(|e| e != COMPRESSED_ANIMATION);
        }
    }
    let mut dataless = Vec::new();
    if let Some(animations) = root.get_mut("animations").and_then(Value::as_array_mut) {
        for animation in animations {
            let stored = animation
                .get("extensions")
                .and_then(|e| e.get(COMPRESSED_ANIMATION))
                .is_some();
            if !stored {
                continue;
            }
            let outputs = animation.get("samplers").and_then(Value::as_array);
            dataless.extend(
                outputs
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.get("output").and_then(Value::as_u64)),
            );
            animation["channels"] = Value::Array(Vec::new());
            animation["samplers"] = Value::Array(Vec::new());
            if let Some(exts) = animation
                .get_mut("extensions")
                .and_then(Value::as_object_mut)
            {
                exts.remove(COMPRESSED_ANIMATION);
            }
        }
    }
    give_data(&mut root, &dataless);
    let text = serde_json::to_vec(&root).map_err(|e| bad(&e.to_string()))?;
    match bin {
        Some(bin) => {
            let glb = pack_glb(&text, bin).map_err(|e| bad(&e.to_string()))?;
            Ok(Some((glb, "glb")))
        }
        None => Ok(Some((text, "gltf"))),
    }
}

/// The stored clips' output accessors, which have no data (skel fills them from the stored
/// keys) and which glTF validation refuses without a buffer view, now unused: each becomes one
/// element read from a new 64-byte buffer of zeros (the largest element, a float `MAT4`).
fn give_data(root: &mut Value, accessors: &[u64]) {
    const ZEROS: usize = 64;
    let empty = |a: &&mut Value| a.get("bufferView").is_none() && a.get("sparse").is_none();
    let mut patched = Vec::new();
    if let Some(list) = root.get_mut("accessors").and_then(Value::as_array_mut) {
        for &a in accessors {
            let Some(accessor) = usize::try_from(a).ok().and_then(|a| list.get_mut(a)) else {
                continue;
            };
            if empty(&accessor) && !patched.contains(&a) {
                patched.push(a);
            }
        }
    }
    if patched.is_empty() {
        return;
    }
    let mut push = |key: &str, value: Value| -> usize {
        let list = root
            .as_object_mut()
            .map(|r| r.entry(key).or_insert_with(|| Value::Array(Vec::new())));
        match list {
            Some(Value::Array(list)) => {
                list.push(value);
                list.len() - 1
            }
            _ => 0,
        }
    };
    let zeros = base64::engine::general_purpose::STANDARD.encode([0u8; ZEROS]);
    let buffer = push(
        "buffers",
        serde_json::json!({
            "byteLength": ZEROS,
            "uri": format!("data:application/octet-stream;base64,{zeros}"),
        }),
    );
    let view = push(
        "bufferViews",
        serde_json::json!({ "buffer": buffer, "byteLength": ZEROS }),
    );
    if let Some(list) = root.get_mut("accessors").and_then(Value::as_array_mut) {
        for a in patched {
            let slot = usize::try_from(a).ok().and_then(|a| list.get_mut(a));
            if let Some(accessor) = slot.and_then(Value::as_object_mut) {
                accessor.insert("bufferView".into(), view.into());
                accessor.insert("count".into(), 1.into());
                for key in ["byteOffset", "min", "max"] {
                    accessor.remove(key);
                }
            }
        }
    }
}

/// Whether `bytes` start like a binary container (a NUL in the first 12 bytes, as every GLB
/// header has and no JSON text does).
fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(12).any(|&b| b == 0)
}

/// The JSON and BIN chunks of a GLB (glTF 2.0, section 4.4); `None` when the container is
/// malformed.
fn split_glb(bytes: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    let word = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 4)?;
        usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
    };
    if bytes.get(..4)? != b"glTF" {
        return None;
    }
    let end = word(8)?.min(bytes.len());
    let (mut json, mut bin) = (None, None);
    let mut at = 12;
    while at + 8 <= end {
        let (len, kind) = (word(at)?, word(at + 4)?);
        let data = bytes.get(at + 8..(at + 8).checked_add(len)?)?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(data),
            0x004E_4942 if bin.is_none() => bin = Some(data),
            _ => {}
        }
        at += 8 + len;
    }
    Some((json?, bin))
}

/// `%XX` escapes of a relative URI decoded (as bevy's glTF loader does before resolving a
/// buffer's URI); a malformed escape is kept as it is.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| uri.to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode_and_bad_ones_stay() {
        assert_eq!(percent_decode("a%20b.bin"), "a b.bin");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("plain.bin"), "plain.bin");
    }

    #[test]
    fn a_file_without_the_extension_has_no_copy() {
        assert!(
            scene_copy(br#"{"asset":{"version":"2.0"}}"#)
                .unwrap()
                .is_none()
        );
        assert!(scene_copy(b"not json").is_err());
    }
}
