//! Every Draco-compressed primitive of a document (`KHR_draco_mesh_compression`), decoded into
//! a new buffer: one view per attribute named in the extension and one for the indices, and
//! the primitive's accessors pointed at them, so the accessor readers read them unchanged.

use gltf::json;
use serde_json::Value;

use super::decoded::{DecodedBytes, view_bytes};
use crate::{GltfError, LoadWarning};

/// The extension's name.
pub(crate) const DRACO: &str = "KHR_draco_mesh_compression";

/// One compressed primitive: where its stream is and which Draco attribute fills which
/// accessor.
#[cfg_attr(
    not(feature = "draco"),
    expect(dead_code, reason = "read by the decoder, which this build lacks")
)]
struct DracoPrimitive {
    mesh: usize,
    primitive: usize,
    view: usize,
    /// (accessor, Draco unique id, attribute name).
    attributes: Vec<(usize, u32, String)>,
}

/// Decodes every primitive with a Draco extension object.
pub(super) fn decode_primitives(
    root: &mut json::Root,
    raw: &Value,
    buffers: &mut Vec<Vec<u8>>,
    warnings: &mut Vec<LoadWarning>,
    budget: &mut DecodedBytes,
) -> Result<(), GltfError> {
    let Some(meshes) = raw.get("meshes").and_then(Value::as_array) else {
        return Ok(());
    };
    for (m, mesh) in meshes.iter().enumerate() {
        let Some(prims) = mesh.get("primitives").and_then(Value::as_array) else {
            continue;
        };
        for (p, prim) in prims.iter().enumerate() {
            let Some(ext) = prim.get("extensions").and_then(|e| e.get(DRACO)) else {
                continue;
            };
            let path = format!("meshes[{m}].primitives[{p}]");
            let failed = match parse(m, p, prim, ext) {
                Ok(draco) => match decode_one(root, buffers, budget, &draco, &path)? {
                    Ok(()) => continue,
                    Err(reason) => reason,
                },
                Err(reason) => reason,
            };
            if has_fallback(root, buffers, prim) {
                // Decoding failed (or this build has no decoder) and the file has the data.
                warnings.push(LoadWarning::new(
                    path,
                    format!("{DRACO} not decoded ({failed}): the uncompressed accessors are read"),
                ));
            } else {
                return Err(if cfg!(feature = "draco") {
                    GltfError::Compressed {
                        path,
                        extension: DRACO.to_owned(),
                        reason: failed,
                    }
                } else {
                    GltfError::CodecNotBuilt {
                        extension: DRACO.to_owned(),
                        why: "skel-gltf was built without its `draco` feature",
                        command: "re-export without Draco (Blender: glTF export, Data › \
                                  Compression off; gltfpack -i in.glb -o out.glb)",
                    }
                });
            }
        }
    }
    Ok(())
}

fn parse(
    mesh: usize,
    primitive: usize,
    prim: &Value,
    ext: &Value,
) -> Result<DracoPrimitive, String> {
    let view = ext
        .get("bufferView")
        .and_then(Value::as_u64)
        .and_then(|v| usize::try_from(v).ok())
        .ok_or("bufferView is missing or not an index")?;
    let names = ext
        .get("attributes")
        .and_then(Value::as_object)
        .ok_or("attributes is missing or not an object")?;
    let mut attributes = Vec::with_capacity(names.len());
    for (name, id) in names {
        let id = id
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| format!("attributes.{name} is not a Draco attribute id"))?;
        let accessor = prim
            .get("attributes")
            .and_then(|a| a.get(name))
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| format!("the primitive has no accessor for attribute {name}"))?;
        attributes.push((accessor, id, name.clone()));
    }
    Ok(DracoPrimitive {
        mesh,
        primitive,
        view,
        attributes,
    })
}

/// Whether every accessor of the primitive has a buffer view with its bytes present: the
/// file's uncompressed fallback.
fn has_fallback(root: &json::Root, buffers: &[Vec<u8>], prim: &Value) -> bool {
    let accessors = prim
        .get("attributes")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|a| a.values())
        .chain(prim.get("indices"));
    let mut any = false;
    for a in accessors {
        any = true;
        let view = a
            .as_u64()
            .and_then(|a| root.accessors.get(usize::try_from(a).ok()?))
            .and_then(|a| a.buffer_view);
        match view {
            Some(v) if view_bytes(root, buffers, v.value()).is_some() => {}
            _ => return false,
        }
    }
    any
}

#[cfg(feature = "draco")]
fn decode_one(
    root: &mut json::Root,
    buffers: &mut Vec<Vec<u8>>,
    budget: &mut DecodedBytes,
    draco: &DracoPrimitive,
    path: &str,
) -> Result<Result<(), String>, GltfError> {
    use super::draco::{Layout, decode_stream};
    use gltf::json::accessor::{ComponentType, GenericComponentType};
    use gltf::json::validation::{Checked, USize64};

    let Some(stream) = view_bytes(root, buffers, draco.view) else {
        return Ok(Err(format!(
            "bufferView {} does not exist or lies outside its buffer",
            draco.view
        )));
    };
    let decoded = match decode_stream(stream, budget.left()) {
        Ok(d) => d,
        Err(reason) => return Ok(Err(reason)),
    };
    let points = decoded.points();
    // One new buffer: each attribute, then the indices, 4-byte aligned.
    let mut data = Vec::new();
    let mut placed = Vec::with_capacity(draco.attributes.len() + 1);
    for (accessor, id, name) in &draco.attributes {
        let Some(a) = root.accessors.get(*accessor) else {
            return Ok(Err(format!(
                "attribute {name} names accessor {accessor}, which does not exist"
            )));
        };
        let layout = match Layout::of(&a.component_type, &a.type_, a.normalized) {
            Ok(l) => l,
            Err(reason) => return Ok(Err(format!("accessors[{accessor}] ({name}): {reason}"))),
        };
        let bytes = match decoded.attribute_bytes(*id, layout) {
            Ok(b) => b,
            Err(reason) => return Ok(Err(format!("attribute {name}: {reason}"))),
        };
        budget.take(path, bytes.len() as u64)?;
        placed.push((*accessor, data.len(), bytes.len(), points));
        data.extend_from_slice(&bytes);
        data.resize(data.len().next_multiple_of(4), 0);
    }
    let indices = root
        .meshes
        .get(draco.mesh)
        .and_then(|m| m.primitives.get(draco.primitive))
        .and_then(|p| p.indices)
        .map(|i| i.value());
    if let Some(accessor) = indices {
        let component = match root.accessors.get(accessor).map(|a| &a.component_type) {
            Some(Checked::Valid(GenericComponentType(c))) => *c,
            _ => ComponentType::U32,
        };
        let bytes = match decoded.index_bytes(component) {
            Ok(b) => b,
            Err(reason) => return Ok(Err(format!("indices: {reason}"))),
        };
        budget.take(path, bytes.len() as u64)?;
        placed.push((accessor, data.len(), bytes.len(), decoded.faces() * 3));
        data.extend_from_slice(&bytes);
        data.resize(data.len().next_multiple_of(4), 0);
    }
    let buffer = buffers.len();
    buffers.push(data);
    for (accessor, offset, length, count) in placed {
        let view = root.buffer_views.len();
        let new_view: json::buffer::View = match serde_json::from_value(serde_json::json!({
            "buffer": buffer,
            "byteOffset": offset,
            "byteLength": length,
        })) {
            Ok(v) => v,
            Err(e) => return Ok(Err(e.to_string())),
        };
        root.buffer_views.push(new_view);
        if let Some(a) = root.accessors.get_mut(accessor) {
            a.buffer_view = Some(json::Index::new(u32::try_from(view).unwrap_or(u32::MAX)));
            a.byte_offset = None;
            a.count = USize64(count as u64);
            a.sparse = None;
        }
    }
    Ok(Ok(()))
}

#[cfg(not(feature = "draco"))]
#[expect(
    clippy::unnecessary_wraps,
    reason = "the signature of the decoding build's decode_one"
)]
fn decode_one(
    _root: &mut json::Root,
    _buffers: &mut Vec<Vec<u8>>,
    _budget: &mut DecodedBytes,
    _draco: &DracoPrimitive,
    _path: &str,
) -> Result<Result<(), String>, GltfError> {
    Ok(Err(
        "this build has no Draco decoder (feature `draco`)".to_owned()
    ))
}
