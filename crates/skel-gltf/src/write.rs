//! Writing a loaded asset back as one self-contained `.glb` with new animations: the
//! document's own JSON (meshes, skins, materials, everything as loaded, through `gltf-json`'s
//! serialisation), every buffer and external image packed into the BIN chunk, and the given
//! clips as its animations.

use std::path::Path;

use gltf::json::{self, Index, validation::Checked, validation::USize64};
use skel_anim::{ChannelPath, Clip, Interpolation};

use crate::glb::GLB_MAGIC;
use crate::uri::{UriSource, resolve_uri};
use crate::{GltfDocument, GltfError};

const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

fn too_large(what: &str) -> GltfError {
    GltfError::Invalid {
        path: what.to_owned(),
        reason: "the packed file would pass 4 GiB, the GLB limit".into(),
    }
}

pub(crate) fn pad(bin: &mut Vec<u8>, align: usize, byte: u8) {
    while !bin.len().is_multiple_of(align) {
        bin.push(byte);
    }
}

/// A buffer view over `bytes`, appended to the BIN chunk (4-byte aligned, as every accessor
/// component type needs).
fn push_view(root: &mut json::Root, bin: &mut Vec<u8>, bytes: &[u8]) -> Index<json::buffer::View> {
    pad(bin, 4, 0);
    let offset = bin.len() as u64;
    bin.extend_from_slice(bytes);
    Index::push(
        &mut root.buffer_views,
        json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: None,
        },
    )
}

/// An `f32` accessor of `count` elements of `type_` over `values`, with `min`/`max` when
/// asked (animation inputs must have them, glTF 2.0 §5.1.3).
fn push_floats(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    values: &[f32],
    type_: json::accessor::Type,
    bounds: bool,
) -> Index<json::Accessor> {
    let width = type_.multiplicity();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = push_view(root, bin, &bytes);
    let (min, max) = if bounds {
        let mut lo = vec![f32::INFINITY; width];
        let mut hi = vec![f32::NEG_INFINITY; width];
        for chunk in values.chunks(width) {
            for (k, &v) in chunk.iter().enumerate() {
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
            }
        }
        (Some(serde_json::json!(lo)), Some(serde_json::json!(hi)))
    } else {
        (None, None)
    };
    Index::push(
        &mut root.accessors,
        json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64((values.len() / width.max(1)) as u64),
            component_type: Checked::Valid(json::accessor::GenericComponentType(
                json::accessor::ComponentType::F32,
            )),
            extensions: None,
            extras: None,
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        },
    )
}

/// One clip as a glTF animation; channel nodes index the document's nodes.
fn animation(root: &mut json::Root, bin: &mut Vec<u8>, clip: &Clip) -> json::Animation {
    use json::accessor::Type;
    use json::animation::{Interpolation as I, Property};
    let mut samplers = Vec::with_capacity(clip.samplers.len());
    for s in &clip.samplers {
        let input = push_floats(root, bin, s.input(), Type::Scalar, true);
        let type_ = match s.components() {
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => Type::Scalar,
        };
        let type_ = clip
            .channels
            .iter()
            .find(|c| std::ptr::eq(&clip.samplers[c.sampler], s))
            .map_or(type_, |c| {
                if c.path == ChannelPath::Weights {
                    Type::Scalar
                } else {
                    type_
                }
            });
        let output = push_floats(root, bin, s.output(), type_, false);
        let interpolation = match s.interpolation() {
            Interpolation::Step => I::Step,
            Interpolation::CubicSpline => I::CubicSpline,
            _ => I::Linear,
        };
        samplers.push(json::animation::Sampler {
            extensions: None,
            extras: None,
            input,
            interpolation: Checked::Valid(interpolation),
            output,
        });
    }
    let channels = clip
        .channels
        .iter()
        .map(|c| json::animation::Channel {
            sampler: Index::new(c.sampler as u32),
            target: json::animation::Target {
                extensions: None,
                extras: None,
                node: Index::new(c.node as u32),
                path: Checked::Valid(match c.path {
                    ChannelPath::Translation => Property::Translation,
                    ChannelPath::Rotation => Property::Rotation,
                    ChannelPath::Scale => Property::Scale,
                    ChannelPath::Weights => Property::MorphTargetWeights,
                }),
            },
            extensions: None,
            extras: None,
        })
        .collect();
    json::Animation {
        extensions: None,
        extras: None,
        channels,
        name: (!clip.name.is_empty()).then(|| clip.name.clone()),
        samplers,
    }
}

/// Guesses an image's media type from its first bytes (PNG, JPEG, WebP).
pub(crate) fn mime_of(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        "image/jpeg"
    } else if bytes.get(8..12) == Some(b"WEBP") {
        "image/webp"
    } else {
        "application/octet-stream"
    }
}

/// `doc` as one `.glb`: its JSON as loaded (nodes, meshes, skins, materials, extras) with
/// `clips` as its animations (replacing the document's own); every buffer and every image
/// that had a URI packed into the BIN chunk, so that the file stands alone.
///
/// The clips' channel node indices are the document's node indices (as in the
/// [`AnimationData`](skel_anim::AnimationData) loaded from it).
///
/// An external image file that cannot be read keeps its URI (the loader tolerates missing
/// images too).
///
/// # Errors
/// [`GltfError::DataUri`] for a malformed `data:` image, [`GltfError::BadReference`] when a clip names a node the document does not have,
/// [`GltfError::Invalid`] when the result would pass the GLB size limit or its JSON cannot be
/// written.
pub fn write_glb(doc: &GltfDocument, clips: &[Clip]) -> Result<Vec<u8>, GltfError> {
    let mut root = doc.root.clone();
    for (ci, clip) in clips.iter().enumerate() {
        if let Some(c) = clip.channels.iter().find(|c| c.node >= root.nodes.len()) {
            return Err(GltfError::BadReference {
                used_by: format!("clip {ci} ({:?})", clip.name),
                kind: "node",
                index: c.node,
                count: root.nodes.len(),
            });
        }
    }
    let mut bin = Vec::new();
    let mut base = Vec::with_capacity(doc.buffers.len());
    for buffer in &doc.buffers {
        // 16 keeps every alignment a view or accessor inside the old buffer relied on.
        pad(&mut bin, 16, 0);
        base.push(bin.len() as u64);
        bin.extend_from_slice(buffer);
    }
    for view in &mut root.buffer_views {
        let b = base.get(view.buffer.value()).copied().unwrap_or(0);
        view.byte_offset = Some(USize64(b + view.byte_offset.map_or(0, |o| o.0)));
        view.buffer = Index::new(0);
    }
    for i in 0..root.images.len() {
        let Some(uri) = root.images[i].uri.clone() else {
            continue;
        };
        let used_by = || format!("images[{i}].uri");
        // An image file that cannot be read keeps its URI, as the loader tolerates: the
        // asset is written whole and a viewer beside the image files still finds them.
        let bytes = match resolve_uri(&uri, &used_by)? {
            UriSource::Data(bytes) => bytes,
            UriSource::File(path) => match doc.external_files().map(|f| f.read(&path)) {
                Some(Ok(Some(bytes))) => bytes,
                _ => continue,
            },
        };
        let view = push_view(&mut root, &mut bin, &bytes);
        let image = &mut root.images[i];
        if image.mime_type.is_none() {
            image.mime_type = Some(json::image::MimeType(mime_of(&bytes).to_owned()));
        }
        image.uri = None;
        image.buffer_view = Some(view);
    }
    root.animations = clips
        .iter()
        .map(|c| animation(&mut root, &mut bin, c))
        .collect();
    pad(&mut bin, 4, 0);
    root.buffers = vec![json::Buffer {
        byte_length: USize64(bin.len() as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: None,
    }];
    let text = serde_json::to_vec(&root).map_err(|e| GltfError::Invalid {
        path: "(document)".into(),
        reason: e.to_string(),
    })?;
    pack_glb(&text, &bin)
}

/// A binary glTF file (glTF 2.0 §4.4) of the JSON text `json` and the BIN chunk `bin`: the
/// 12-byte header, the JSON chunk padded with spaces and the BIN chunk padded with zeros to
/// four bytes. The JSON is taken as it is (its first buffer, without a `uri`, is the BIN
/// chunk); [`load_slice`](crate::load_slice) reads the result.
///
/// # Errors
/// [`GltfError::Invalid`] when the file would pass 4 GiB, the header's 32-bit length.
///
/// ```
/// let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
/// let glb = skel_gltf::pack_glb(json, &[1, 2, 3, 4])?;
/// assert_eq!(&glb[0..4], b"glTF");
/// assert_eq!(glb.len() % 4, 0);
/// # Ok::<(), skel_gltf::GltfError>(())
/// ```
pub fn pack_glb(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, GltfError> {
    let mut text = json.to_vec();
    pad(&mut text, 4, b' ');
    let mut bin = bin.to_vec();
    pad(&mut bin, 4, 0);
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let total32 = u32::try_from(total).map_err(|_| too_large("(file)"))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    for (kind, chunk) in [(CHUNK_JSON, &text), (CHUNK_BIN, &bin)] {
        let len = u32::try_from(chunk.len()).map_err(|_| too_large("(chunk)"))?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(chunk);
    }
    Ok(out)
}

/// [`write_glb`] into `path`, through a temporary file beside it that is renamed over `path`
/// once complete: a failure never leaves a partly written file.
///
/// # Errors
/// Those of [`write_glb`], and [`GltfError::Io`] when the file cannot be written.
pub fn write_glb_file(doc: &GltfDocument, clips: &[Clip], path: &Path) -> Result<(), GltfError> {
    write_atomically(path, &write_glb(doc, clips)?)
}

/// Writes `bytes` into `path` through a temporary file beside it, renamed over `path` once
/// complete: a failure never leaves a partly written file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), GltfError> {
    let io = |source| GltfError::Io {
        path: path.to_owned(),
        source,
    };
    let name = path
        .file_name()
        .map_or_else(|| "out.glb".into(), |n| n.to_string_lossy().into_owned());
    // wasm32-unknown-unknown has no process ids (`process::id` panics there) nor files: the
    // write below fails there with an `Io` error instead.
    #[cfg(not(target_arch = "wasm32"))]
    let pid = std::process::id();
    #[cfg(target_arch = "wasm32")]
    let pid = 0;
    let tmp = path.with_file_name(format!(".{name}.{pid}.tmp"));
    if let Err(e) = std::fs::write(&tmp, bytes) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}
