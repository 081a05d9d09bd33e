//! The bytes of a glTF image (buffer view, data URI or file) and their decoding to RGBA8.

use gltf::json;

use crate::external_files::{missing_file_reason, uri_bytes};
use crate::material::{DecodedImage, ImageSlot};
use crate::{GltfDocument, GltfError};

/// Decodes image `index` (PNG or JPEG, from a buffer view, a data URI or a file).
pub(crate) fn decode_image(doc: &GltfDocument, index: usize) -> ImageSlot {
    match image_bytes(doc, index).and_then(|bytes| {
        let img = image::load_from_memory(&bytes).map_err(|e| GltfError::Image {
            image: index,
            reason: e.to_string(),
        })?;
        let rgba = img.to_rgba8();
        Ok(DecodedImage {
            width: rgba.width(),
            height: rgba.height(),
            rgba8: rgba.into_raw(),
        })
    }) {
        Ok(img) => ImageSlot::Decoded(img),
        Err(e) => ImageSlot::Failed {
            reason: e.to_string(),
        },
    }
}

fn image_bytes(doc: &GltfDocument, index: usize) -> Result<Vec<u8>, GltfError> {
    let json = &doc.root;
    let img: &json::Image = json
        .images
        .get(index)
        .ok_or_else(|| GltfError::BadReference {
            used_by: "image".into(),
            kind: "image",
            index,
            count: json.images.len(),
        })?;
    let used_by = || format!("images[{index}]");
    if let Some(view) = img.buffer_view {
        let view = view.value();
        let v = json
            .buffer_views
            .get(view)
            .ok_or_else(|| GltfError::BadReference {
                used_by: used_by(),
                kind: "bufferView",
                index: view,
                count: json.buffer_views.len(),
            })?;
        let buffer = doc
            .buffer(v.buffer.value())
            .ok_or_else(|| GltfError::BadReference {
                used_by: format!("bufferViews[{view}]"),
                kind: "buffer",
                index: v.buffer.value(),
                count: doc.buffers.len(),
            })?;
        let start = v.byte_offset.map_or(0, |o| o.0);
        let end = start.saturating_add(v.byte_length.0);
        let range = usize::try_from(start).ok().zip(usize::try_from(end).ok());
        return match range.and_then(|(s, e)| buffer.get(s..e)) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => Err(GltfError::BufferViewOutOfRange {
                view,
                buffer: v.buffer.value(),
                start,
                end,
                buffer_len: buffer.len() as u64,
            }),
        };
    }
    let uri = img.uri.as_deref().ok_or_else(|| GltfError::Image {
        image: index,
        reason: "neither a uri nor a bufferView".into(),
    })?;
    let files = doc.external_files();
    uri_bytes(uri, files, &used_by)?.ok_or_else(|| GltfError::Image {
        image: index,
        reason: missing_file_reason(uri, files.is_some()),
    })
}
