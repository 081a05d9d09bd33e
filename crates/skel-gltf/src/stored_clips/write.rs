//! Writing a file whose clips are stored compressed (`skel compress --out`): the source file's
//! own JSON, edited rather than rebuilt, so that everything skel does not model (pointer
//! channels, extensions, extras, meshopt and Draco data) comes through as it was. The outputs
//! of the translation, rotation and scale samplers of each stored clip lose their data, every
//! buffer view nothing refers to any more is dropped, the bytes still referred to are packed
//! into one BIN chunk (each at its old offset modulo 16, so every alignment holds), external
//! images are packed too, and each clip's stored keys become one buffer view under
//! [`COMPRESSED_ANIMATION`].

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use skel_anim::StoredKeys;

use super::COMPRESSED_ANIMATION;
use crate::compressed::is_fallback_buffer;
use crate::document::buffer_bytes;
use crate::glb::{GLB_MAGIC, parse_glb};
use crate::uri::{UriSource, read_file, resolve_uri};
use crate::write::{mime_of, pack_glb, pad, write_atomically};
use crate::{ExternalFiles, GltfError};

/// The meshopt extensions, whose buffer views point at their compressed bytes in a buffer of
/// their own.
const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// `source` (a `.gltf` or `.glb` file's bytes, its external files relative to `base_dir`) as
/// one `.glb` in which animation `i` stores its clip as `stored[i]` where that is `Some`
/// (from [`Rig::stored_keys`](skel_anim::Rig::stored_keys) of a rig loaded from the same
/// file: clip `i` is animation `i`).
///
/// Samplers whose channels all drive a node's translation, rotation or scale (LINEAR or STEP)
/// keep their key times; their outputs become accessors without data (zeros), which
/// [`load_path`](crate::load_path) fills from the stored keys. Outputs other channels or
/// meshes share, weights and pointer channels, and animations without stored keys stay as
/// they are.
///
/// # Errors
/// [`GltfError::Glb`] and [`GltfError::Parse`] for a source that is not glTF,
/// [`GltfError::MissingBuffer`], [`GltfError::BufferLength`], [`GltfError::DataUri`] and
/// [`GltfError::Io`] when a buffer's bytes cannot be had, [`GltfError::BufferViewOutOfRange`]
/// and [`GltfError::BadReference`] for a buffer view past its buffer or naming one the file
/// does not have, [`GltfError::Invalid`] for a view without a buffer or length, or a result
/// past the GLB size limit.
pub fn write_compressed_glb(
    source: &[u8],
    base_dir: Option<&Path>,
    stored: &[Option<StoredKeys>],
) -> Result<Vec<u8>, GltfError> {
    let (json_bytes, bin) = if source.starts_with(GLB_MAGIC) {
        let glb = parse_glb(source)?;
        (glb.json, glb.bin)
    } else {
        (source, None)
    };
    let mut root: Value = serde_json::from_slice(json_bytes).map_err(|e| GltfError::Parse {
        reason: e.to_string(),
    })?;
    let dir = base_dir.map(Path::to_path_buf);
    let files = dir.as_ref().map(|d| d as &dyn ExternalFiles);
    let buffers = every_buffer(&root, bin, files)?;
    for a in droppable_outputs(&root, stored) {
        if let Some(acc) = root
            .pointer_mut(&format!("/accessors/{a}"))
            .and_then(Value::as_object_mut)
        {
            for key in ["bufferView", "byteOffset", "sparse", "min", "max"] {
                acc.remove(key);
            }
        }
    }
    // Keys stored before (the source was written this way) give way to the new ones.
    for (ai, keys) in stored.iter().enumerate() {
        if keys.is_some()
            && let Some(exts) = root
                .pointer_mut(&format!("/animations/{ai}/extensions"))
                .and_then(Value::as_object_mut)
        {
            exts.remove(COMPRESSED_ANIMATION);
        }
    }
    let mut bin = Vec::new();
    let fallback = repack(&mut root, &buffers, &mut bin)?;
    pack_images(&mut root, files, &mut bin)?;
    let mut any = false;
    for (ai, keys) in stored.iter().enumerate() {
        let (Some(keys), Some(anim)) = (keys, root.pointer(&format!("/animations/{ai}"))) else {
            continue;
        };
        if !anim.is_object() {
            continue;
        }
        let view = push_view(&mut root, &mut bin, keys.as_bytes());
        let anim = root
            .pointer_mut(&format!("/animations/{ai}"))
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| unreachable!("checked above"));
        let exts = anim.entry("extensions").or_insert_with(|| json!({}));
        if !exts.is_object() {
            *exts = json!({});
        }
        exts[COMPRESSED_ANIMATION] = json!({ "bufferView": view });
        any = true;
    }
    if any {
        for list in ["extensionsUsed", "extensionsRequired"] {
            let entry = root
                .as_object_mut()
                .map(|r| r.entry(list).or_insert_with(|| json!([])));
            if let Some(Value::Array(names)) = entry
                && !names.iter().any(|n| n == COMPRESSED_ANIMATION)
            {
                names.push(json!(COMPRESSED_ANIMATION));
            }
        }
    }
    pad(&mut bin, 4, 0);
    let mut new_buffers = vec![json!({ "byteLength": bin.len() })];
    new_buffers.extend(fallback);
    root["buffers"] = Value::Array(new_buffers);
    let text = serde_json::to_vec(&root).map_err(|e| GltfError::Invalid {
        path: "(document)".into(),
        reason: e.to_string(),
    })?;
    pack_glb(&text, &bin)
}

/// [`write_compressed_glb`] of the file at `source` into `out` (through a temporary file:
/// a failure leaves no partial file).
///
/// # Errors
/// Those of [`write_compressed_glb`], and [`GltfError::Io`] when a file cannot be read or
/// written.
pub fn write_compressed_glb_file(
    source: &Path,
    stored: &[Option<StoredKeys>],
    out: &Path,
) -> Result<(), GltfError> {
    let bytes = read_file(source)?;
    let base = source
        .parent()
        .map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    write_atomically(out, &write_compressed_glb(&bytes, Some(&base), stored)?)
}

fn index(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
}

fn array<'v>(root: &'v Value, key: &str) -> &'v [Value] {
    root.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Each buffer's bytes (`None`: a meshopt fallback buffer without data).
fn every_buffer(
    root: &Value,
    bin: Option<&[u8]>,
    files: Option<&dyn ExternalFiles>,
) -> Result<Vec<Option<Vec<u8>>>, GltfError> {
    let mut out = Vec::new();
    for (i, b) in array(root, "buffers").iter().enumerate() {
        let uri = b.get("uri").and_then(Value::as_str);
        let length = b.get("byteLength").and_then(Value::as_u64).unwrap_or(0);
        if uri.is_none() && is_fallback_buffer(root, i) {
            out.push(None);
            continue;
        }
        out.push(Some(buffer_bytes(i, uri, length, bin, files)?));
    }
    Ok(out)
}

/// The output accessors of stored clips that nothing else reads: outputs of LINEAR or STEP
/// samplers whose every channel drives a node's translation, rotation or scale, not shared
/// with another sampler, a mesh, a skin or an instancing extension.
fn droppable_outputs(root: &Value, stored: &[Option<StoredKeys>]) -> BTreeSet<usize> {
    let mut candidates = BTreeSet::new();
    let mut candidate_samplers = BTreeSet::new();
    for (ai, anim) in array(root, "animations").iter().enumerate() {
        if !matches!(stored.get(ai), Some(Some(_))) {
            continue;
        }
        let channels = array(anim, "channels");
        for (si, sampler) in array(anim, "samplers").iter().enumerate() {
            let interpolation = sampler.get("interpolation").and_then(Value::as_str);
            let users: Vec<&Value> = channels
                .iter()
                .filter(|c| index(c.get("sampler")) == Some(si))
                .collect();
            let trs = |c: &&Value| {
                let target = c.get("target");
                index(target.and_then(|t| t.get("node"))).is_some()
                    && matches!(
                        target.and_then(|t| t.get("path")).and_then(Value::as_str),
                        Some("translation" | "rotation" | "scale")
                    )
            };
            if matches!(interpolation, None | Some("LINEAR" | "STEP"))
                && !users.is_empty()
                && users.iter().all(trs)
                && let Some(output) = index(sampler.get("output"))
            {
                candidates.insert(output);
                candidate_samplers.insert((ai, si));
            }
        }
    }
    // Every other reader of an accessor keeps it.
    let mut kept = BTreeSet::new();
    for (ai, anim) in array(root, "animations").iter().enumerate() {
        for (si, sampler) in array(anim, "samplers").iter().enumerate() {
            kept.extend(index(sampler.get("input")));
            if !candidate_samplers.contains(&(ai, si)) {
                kept.extend(index(sampler.get("output")));
            }
        }
    }
    let values = |v: Option<&Value>| {
        v.and_then(Value::as_object)
            .into_iter()
            .flat_map(|o| o.values().filter_map(|x| index(Some(x))))
            .collect::<Vec<_>>()
    };
    for mesh in array(root, "meshes") {
        for p in array(mesh, "primitives") {
            kept.extend(values(p.get("attributes")));
            kept.extend(index(p.get("indices")));
            for t in array(p, "targets") {
                kept.extend(values(Some(t)));
            }
        }
    }
    for skin in array(root, "skins") {
        kept.extend(index(skin.get("inverseBindMatrices")));
    }
    for node in array(root, "nodes") {
        let instancing = node
            .get("extensions")
            .and_then(|e| e.get("EXT_mesh_gpu_instancing"))
            .and_then(|e| e.get("attributes"));
        kept.extend(values(instancing));
    }
    candidates.retain(|a| !kept.contains(a));
    candidates
}

/// Calls `f` on every `"bufferView"` index anywhere in `v`.
fn each_view_ref(v: &mut Value, f: &mut impl FnMut(&mut Value)) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if k == "bufferView" && x.is_u64() {
                    f(x);
                } else {
                    each_view_ref(x, f);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| each_view_ref(x, f)),
        _ => {}
    }
}

/// One stretch of a source buffer copied into the BIN chunk.
struct Moved {
    buffer: usize,
    start: u64,
    end: u64,
    to: u64,
}

/// Drops the buffer views nothing refers to, copies the bytes the others (and their meshopt
/// sources) cover into `bin` and points them there; returns the buffers without data
/// (meshopt fallbacks), which follow the BIN buffer.
fn repack(
    root: &mut Value,
    buffers: &[Option<Vec<u8>>],
    bin: &mut Vec<u8>,
) -> Result<Vec<Value>, GltfError> {
    let views = array(root, "bufferViews").to_vec();
    let mut live = vec![false; views.len()];
    each_view_ref(root, &mut |x| {
        if let Some(l) = index(Some(x)).and_then(|i| live.get_mut(i)) {
            *l = true;
        }
    });
    // New indices: live views in order.
    let mut new_index = vec![None; views.len()];
    let mut next = 0_u64;
    for (i, &l) in live.iter().enumerate() {
        if l {
            new_index[i] = Some(next);
            next += 1;
        }
    }
    each_view_ref(root, &mut |x| {
        if let Some(Some(n)) = index(Some(x)).and_then(|i| new_index.get(i)) {
            *x = json!(n);
        }
    });
    // The byte ranges still used, per buffer.
    let span = |v: &Value| -> Option<(usize, u64, u64)> {
        let b = index(v.get("buffer"))?;
        let off = v.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
        let len = v.get("byteLength").and_then(Value::as_u64)?;
        Some((b, off, off.checked_add(len)?))
    };
    let meshopt = |v: &Value| {
        MESHOPT
            .iter()
            .find_map(|e| v.get("extensions")?.get(*e).cloned())
    };
    // Per view (and its meshopt source): buffer, start, end, the view.
    let mut ranges: Vec<(usize, u64, u64, usize)> = Vec::new();
    for (i, v) in views.iter().enumerate().filter(|(i, _)| live[*i]) {
        let (b, start, end) = span(v).ok_or_else(|| bad_view(i, "no buffer or byteLength"))?;
        ranges.push((b, start, end, i));
        if let Some(ext) = meshopt(v) {
            let (b, start, end) = span(&ext).ok_or_else(|| bad_view(i, "meshopt source"))?;
            ranges.push((b, start, end, i));
        }
    }
    ranges.sort_unstable();
    let mut moved: Vec<Moved> = Vec::new();
    for (b, start, end, view) in ranges {
        let data = match buffers.get(b) {
            Some(Some(data)) => data,
            // A meshopt fallback without data: its views are decoded from elsewhere.
            Some(None) => continue,
            None => {
                return Err(GltfError::BadReference {
                    used_by: format!("bufferViews[{view}]"),
                    kind: "buffer",
                    index: b,
                    count: buffers.len(),
                });
            }
        };
        if end > data.len() as u64 {
            return Err(GltfError::BufferViewOutOfRange {
                view,
                buffer: b,
                start,
                end,
                buffer_len: data.len() as u64,
            });
        }
        if let Some(last) = moved
            .last_mut()
            .filter(|m| m.buffer == b && start <= m.end + 16)
        {
            if end > last.end {
                let from = usize::try_from(last.end).unwrap_or(usize::MAX);
                let to = usize::try_from(end).unwrap_or(usize::MAX);
                bin.extend_from_slice(&data[from..to]);
                last.end = end;
            }
            continue;
        }
        pad(bin, 16, 0);
        bin.resize(bin.len() + (start % 16) as usize, 0);
        let to = bin.len() as u64;
        let (from, upto) = (
            usize::try_from(start).unwrap_or(usize::MAX),
            usize::try_from(end).unwrap_or(usize::MAX),
        );
        bin.extend_from_slice(&data[from..upto]);
        moved.push(Moved {
            buffer: b,
            start,
            end,
            to,
        });
    }
    // Buffers without data keep their entries, after the BIN buffer.
    let mut fallback = Vec::new();
    let mut buffer_index = vec![0_usize; buffers.len()];
    for (i, data) in buffers.iter().enumerate() {
        if data.is_none() {
            buffer_index[i] = 1 + fallback.len();
            let mut b = array(root, "buffers")[i].clone();
            if let Some(o) = b.as_object_mut() {
                o.remove("uri");
            }
            fallback.push(b);
        }
    }
    let relocate = |v: &mut Value| {
        let Some((b, off, _)) = span(v) else { return };
        if buffers.get(b).is_some_and(Option::is_some)
            && let Some(m) = moved
                .iter()
                .find(|m| m.buffer == b && m.start <= off && off <= m.end)
        {
            v["byteOffset"] = json!(m.to + (off - m.start));
        }
        v["buffer"] = json!(buffer_index.get(b).copied().unwrap_or(0));
    };
    let mut kept_views = Vec::with_capacity(views.len());
    for (i, mut v) in views.into_iter().enumerate() {
        if !live[i] {
            continue;
        }
        relocate(&mut v);
        for e in MESHOPT {
            if let Some(ext) = v.get_mut("extensions").and_then(|x| x.get_mut(e)) {
                relocate(ext);
            }
        }
        kept_views.push(v);
    }
    root["bufferViews"] = Value::Array(kept_views);
    Ok(fallback)
}

fn bad_view(i: usize, reason: &str) -> GltfError {
    GltfError::Invalid {
        path: format!("bufferViews[{i}]"),
        reason: reason.into(),
    }
}

/// A buffer view over `bytes`, appended to the BIN chunk (4-byte aligned); its index.
fn push_view(root: &mut Value, bin: &mut Vec<u8>, bytes: &[u8]) -> usize {
    pad(bin, 4, 0);
    let view = json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() });
    bin.extend_from_slice(bytes);
    if !root.get("bufferViews").is_some_and(Value::is_array) {
        root["bufferViews"] = json!([]);
    }
    let views = root["bufferViews"]
        .as_array_mut()
        .unwrap_or_else(|| unreachable!("set above"));
    views.push(view);
    views.len() - 1
}

/// Images given by URI packed into the BIN chunk (one that cannot be read keeps its URI, as
/// the loader tolerates).
fn pack_images(
    root: &mut Value,
    files: Option<&dyn ExternalFiles>,
    bin: &mut Vec<u8>,
) -> Result<(), GltfError> {
    for i in 0..array(root, "images").len() {
        let Some(uri) = root["images"][i]
            .get("uri")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            continue;
        };
        let used_by = || format!("images[{i}].uri");
        let bytes = match resolve_uri(&uri, &used_by)? {
            UriSource::Data(bytes) => bytes,
            UriSource::File(path) => match files.map(|f| f.read(&path)) {
                Some(Ok(Some(bytes))) => bytes,
                _ => continue,
            },
        };
        let view = push_view(root, bin, &bytes);
        let image = &mut root["images"][i];
        if image.get("mimeType").is_none() {
            image["mimeType"] = json!(mime_of(&bytes));
        }
        if let Some(o) = image.as_object_mut() {
            o.remove("uri");
        }
        image["bufferView"] = json!(view);
    }
    Ok(())
}
