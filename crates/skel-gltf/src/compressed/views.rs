//! Every meshopt-compressed buffer view of a document, decoded into a new buffer the view then
//! points at; a view whose stream cannot be decoded keeps its fallback data when the file has
//! some, and is an error naming it otherwise.

use gltf::json;
use gltf::json::buffer::Stride;
use gltf::json::validation::USize64;
use serde_json::Value;

use super::decoded::{DecodedBytes, view_bytes};
use super::view_ext::{MESHOPT, MeshoptView, Mode, meshopt_view};
use crate::{GltfError, LoadWarning};

/// Decodes every buffer view with a meshopt extension object.
pub(super) fn decode_views(
    root: &mut json::Root,
    raw: &Value,
    buffers: &mut Vec<Vec<u8>>,
    warnings: &mut Vec<LoadWarning>,
    budget: &mut DecodedBytes,
) -> Result<(), GltfError> {
    let Some(views) = raw.get("bufferViews").and_then(Value::as_array) else {
        return Ok(());
    };
    for (index, view_json) in views.iter().enumerate() {
        let Some(parsed) = meshopt_view(view_json) else {
            continue;
        };
        let path = format!("bufferViews[{index}]");
        let extension = view_json
            .get("extensions")
            .and_then(|e| MESHOPT.iter().find(|n| e.get(**n).is_some()))
            .copied()
            .unwrap_or(MESHOPT[0]);
        let decoded = match parsed {
            Ok(view) => decode_one(&view, buffers, budget, &path)?,
            Err(reason) => Err(Failure::Bad(reason)),
        };
        match decoded {
            Ok((view, bytes)) => {
                let Some(target) = root.buffer_views.get_mut(index) else {
                    continue;
                };
                target.buffer = json::Index::new(u32::try_from(buffers.len()).unwrap_or(u32::MAX));
                target.byte_offset = None;
                target.byte_length = USize64(bytes.len() as u64);
                if view.mode == Mode::Attributes {
                    target.byte_stride = Some(Stride(view.stride));
                }
                buffers.push(bytes);
            }
            Err(Failure::NotBuilt { why, command })
                if view_bytes(root, buffers, index).is_none() =>
            {
                return Err(GltfError::CodecNotBuilt {
                    extension: extension.to_owned(),
                    why,
                    command,
                });
            }
            Err(failure) => {
                let reason = failure.to_string();
                if view_bytes(root, buffers, index).is_some() {
                    warnings.push(LoadWarning::new(
                        path,
                        format!("{extension} not decoded ({reason}): the fallback data is read"),
                    ));
                } else {
                    return Err(GltfError::Compressed {
                        path,
                        extension: extension.to_owned(),
                        reason,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Why one view was not decoded.
enum Failure {
    /// The stream or its parameters are bad.
    Bad(String),
    /// This build has no meshopt decoder.
    #[cfg_attr(
        feature = "meshopt",
        expect(dead_code, reason = "built only without a meshopt decoder")
    )]
    NotBuilt {
        why: &'static str,
        command: &'static str,
    },
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Self::Bad(reason)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bad(reason) => f.write_str(reason),
            Self::NotBuilt { why, .. } => write!(f, "no decoder in this build: {why}"),
        }
    }
}

/// Decodes one view: `Ok(Err(…))` for a failure the caller may answer with fallback data,
/// `Err` for one it may not (the memory budget).
fn decode_one(
    view: &MeshoptView,
    buffers: &[Vec<u8>],
    budget: &mut DecodedBytes,
    path: &str,
) -> Result<Result<(MeshoptView, Vec<u8>), Failure>, GltfError> {
    let Some(size) = view.count.checked_mul(view.stride) else {
        return Ok(Err(Failure::Bad(format!(
            "count {} × byteStride {} overflows",
            view.count, view.stride
        ))));
    };
    let Some(buffer) = buffers.get(view.buffer) else {
        return Ok(Err(Failure::Bad(format!(
            "names buffer {}, but the file has {}",
            view.buffer,
            buffers.len()
        ))));
    };
    let range = usize::try_from(view.offset)
        .ok()
        .zip(usize::try_from(view.length).ok())
        .and_then(|(start, len)| Some(start..start.checked_add(len)?));
    let Some(stream) = range.and_then(|r| buffer.get(r)) else {
        return Ok(Err(Failure::Bad(format!(
            "the stream (byteOffset {}, byteLength {}) lies outside buffer {} of {} bytes",
            view.offset,
            view.length,
            view.buffer,
            buffer.len()
        ))));
    };
    budget.take(path, size as u64)?;
    Ok(run_decoder(view, stream).map(|bytes| (view.clone(), bytes)))
}

#[cfg(feature = "meshopt")]
fn run_decoder(view: &MeshoptView, stream: &[u8]) -> Result<Vec<u8>, Failure> {
    Ok(super::meshopt::decode_view(view, stream)?)
}

#[cfg(not(feature = "meshopt"))]
fn run_decoder(_view: &MeshoptView, _stream: &[u8]) -> Result<Vec<u8>, Failure> {
    Err(Failure::NotBuilt {
        why: "skel-gltf was built without its `meshopt` feature",
        command: "gltfpack -i in.glb -o out.glb (without -c or -cc: quantised, uncompressed)",
    })
}
