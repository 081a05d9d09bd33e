//! A parsed glTF file with its buffers resolved: the input of every other step.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gltf::json;
use serde_json::Value;

use crate::channel_split::{ChannelSplit, split_channels};
use crate::extensions::extension_support;
use crate::external_files::{missing_file_reason, uri_bytes};
use crate::glb::{GLB_MAGIC, parse_glb};
use crate::uri::read_file;
use crate::{ExternalFiles, GltfError, LoadWarning};

/// A glTF 2.0 document (`.gltf` or `.glb`) with every buffer's bytes in memory.
///
/// Built by [`GltfDocument::from_path`], [`GltfDocument::from_slice`] or
/// [`GltfDocument::from_slice_with_files`]; the JSON is not
/// validated by the `gltf` crate (which rejects `KHR_mesh_quantization`): every index and
/// accessor is checked where this crate reads it, and a bad one becomes a [`GltfError`].
///
/// The raw JSON is read first, so that what gltf-json cannot type (pointer and untargeted
/// channels, extension objects) is kept rather than fatal; compressed buffer views and
/// primitives are decoded here, so every later step reads plain accessors.
#[derive(Debug, Clone)]
pub struct GltfDocument {
    pub(crate) root: json::Root,
    /// The whole JSON, as gltf-json was given it (channels it cannot type set aside, texture
    /// sources taken from their extensions): extension objects are read from it.
    pub(crate) raw: Value,
    pub(crate) buffers: Vec<Vec<u8>>,
    pub(crate) base_dir: Option<PathBuf>,
    /// Where external files (images, read when decoded) come from.
    pub(crate) files: Option<Arc<dyn ExternalFiles>>,
    /// Channels gltf-json does not see, and the file indices of those it does.
    pub(crate) channels: ChannelSplit,
    /// What the document step skipped.
    pub(crate) warnings: Vec<LoadWarning>,
}

/// Whether `bytes` start like a binary container rather than JSON text: a NUL byte in the
/// first 12 (every GLB header has them, in its version field; JSON text never does). A GLB
/// with a wrong magic then gets [`GltfError::Glb`] instead of a JSON syntax error.
fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(12).any(|&b| b == 0)
}

impl GltfDocument {
    /// Reads `path` (`.gltf` or `.glb`, told apart by content) and every external buffer it
    /// names, relative to its directory.
    ///
    /// # Errors
    /// [`GltfError::Io`] when a file cannot be read, and every error of
    /// [`GltfDocument::from_slice`].
    pub fn from_path(path: &Path) -> Result<Self, GltfError> {
        let bytes = read_file(path)?;
        let base_dir = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Self::from_slice(&bytes, Some(&base_dir))
    }

    /// Parses a `.gltf` (JSON) or `.glb` (binary) file held in memory. Buffers given as
    /// `data:` URIs are decoded; external buffers are read relative to `base_dir`.
    ///
    /// # Errors
    /// [`GltfError::Glb`] for a malformed container, [`GltfError::Parse`] for bad JSON,
    /// [`GltfError::UnsupportedExtension`] when a required extension is not supported,
    /// [`GltfError::MissingBuffer`], [`GltfError::BufferLength`], [`GltfError::DataUri`] and
    /// [`GltfError::Io`] when a buffer's bytes cannot be had.
    pub fn from_slice(bytes: &[u8], base_dir: Option<&Path>) -> Result<Self, GltfError> {
        let files = base_dir.map(|d| Arc::new(d.to_path_buf()) as Arc<dyn ExternalFiles>);
        Self::parse(bytes, files, base_dir)
    }

    /// Parses a `.gltf` or `.glb` file held in memory whose external files (buffers now,
    /// images when they are decoded) come from `files`: a [`FileMap`](crate::FileMap) of
    /// bytes the caller fetched, a directory ([`PathBuf`]), or any [`ExternalFiles`]. URIs are
    /// percent-decoded before `files` sees them; `data:` URIs are decoded here.
    ///
    /// ```
    /// use skel_gltf::{FileMap, GltfDocument};
    ///
    /// let gltf = br#"{"asset":{"version":"2.0"},
    ///   "buffers":[{"uri":"./mesh%20data.bin","byteLength":4}]}"#;
    /// let files: FileMap = [("mesh data.bin", vec![1, 2, 3, 4])].into_iter().collect();
    /// let doc = GltfDocument::from_slice_with_files(gltf, files).unwrap();
    /// assert_eq!(doc.buffer(0), Some(&[1, 2, 3, 4][..]));
    /// ```
    ///
    /// # Errors
    /// As [`GltfDocument::from_slice`]; a buffer file `files` does not hold is
    /// [`GltfError::MissingBuffer`] naming its URI, and an error `files` returns is passed on.
    pub fn from_slice_with_files(
        bytes: &[u8],
        files: impl ExternalFiles + 'static,
    ) -> Result<Self, GltfError> {
        Self::parse(bytes, Some(Arc::new(files)), None)
    }

    fn parse(
        bytes: &[u8],
        files: Option<Arc<dyn ExternalFiles>>,
        base_dir: Option<&Path>,
    ) -> Result<Self, GltfError> {
        let (json_bytes, bin) = if bytes.starts_with(GLB_MAGIC) || looks_binary(bytes) {
            let glb = parse_glb(bytes)?;
            (glb.json, glb.bin)
        } else {
            (bytes, None)
        };
        let parse_error = |e: serde_json::Error| GltfError::Parse {
            reason: e.to_string(),
        };
        let mut raw: Value = serde_json::from_slice(json_bytes).map_err(parse_error)?;
        let channels = split_channels(&mut raw);
        let mut warnings = Vec::new();
        let rewritten = crate::compressed::prepare_json(&mut raw, &mut warnings);
        // gltf-json keeps `extras` as raw JSON text, which only its text parser can give:
        // parse the bytes as they are unless the JSON was changed above.
        let mut root: json::Root = if channels.set_aside.is_empty() && !rewritten {
            serde_json::from_slice(json_bytes).map_err(parse_error)?
        } else {
            let text = serde_json::to_vec(&raw).map_err(parse_error)?;
            serde_json::from_slice(&text).map_err(parse_error)?
        };
        for ext in &root.extensions_required {
            if !extension_support(ext).loads_when_required() {
                return Err(GltfError::UnsupportedExtension {
                    extension: ext.clone(),
                });
            }
        }
        let mut buffers = root
            .buffers
            .iter()
            .enumerate()
            .map(|(i, buffer)| {
                if crate::compressed::is_fallback_buffer(&raw, i) && buffer.uri.is_none() {
                    // A meshopt fallback without data: every view into it is decoded from
                    // another buffer, so it is never read.
                    Ok(Vec::new())
                } else {
                    load_buffer(i, buffer, bin, files.as_deref())
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        crate::compressed::decode(&mut root, &raw, &mut buffers, &mut warnings)?;
        Ok(Self {
            root,
            raw,
            buffers,
            base_dir: base_dir.map(Path::to_path_buf),
            files,
            channels,
            warnings,
        })
    }

    /// The glTF JSON, as the `gltf` crate's `gltf-json` types (not validated).
    #[must_use]
    pub fn json(&self) -> &json::Root {
        &self.root
    }

    /// The bytes of buffer `index` (exactly `byteLength` of them).
    #[must_use]
    pub fn buffer(&self, index: usize) -> Option<&[u8]> {
        self.buffers.get(index).map(Vec::as_slice)
    }

    /// The whole JSON, for extension objects gltf-json does not type (as gltf-json was given
    /// it: channels it cannot type are set aside, texture sources taken from `EXT_texture_webp`).
    #[must_use]
    pub fn raw_json(&self) -> &Value {
        &self.raw
    }

    /// What the document step skipped (channels and extensions are reported when the asset
    /// is loaded: see [`GltfAsset::warnings`](crate::GltfAsset::warnings)).
    #[must_use]
    pub fn warnings(&self) -> &[LoadWarning] {
        &self.warnings
    }

    /// The directory external files are read from, when known (given to
    /// [`GltfDocument::from_slice`] or [`GltfDocument::from_path`]).
    #[must_use]
    pub fn base_dir(&self) -> Option<&Path> {
        self.base_dir.as_deref()
    }

    /// Where external files are read from: the base directory, or the files given to
    /// [`GltfDocument::from_slice_with_files`].
    #[must_use]
    pub fn external_files(&self) -> Option<&dyn ExternalFiles> {
        self.files.as_deref()
    }
}

fn load_buffer(
    index: usize,
    buffer: &json::buffer::Buffer,
    bin: Option<&[u8]>,
    files: Option<&dyn ExternalFiles>,
) -> Result<Vec<u8>, GltfError> {
    buffer_bytes(
        index,
        buffer.uri.as_deref(),
        buffer.byte_length.0,
        bin,
        files,
    )
}

/// The `expected` bytes of buffer `index` given by `uri` (none: the GLB's `bin` chunk, for
/// buffer 0 only), external files read from `files`.
pub(crate) fn buffer_bytes(
    index: usize,
    uri: Option<&str>,
    expected: u64,
    bin: Option<&[u8]>,
    files: Option<&dyn ExternalFiles>,
) -> Result<Vec<u8>, GltfError> {
    let used_by = || format!("buffers[{index}]");
    let mut data = match uri {
        None => match (index, bin) {
            (0, Some(bin)) => bin.to_vec(),
            (0, None) => {
                return Err(GltfError::MissingBuffer {
                    buffer: index,
                    reason: "no uri and the file has no GLB BIN chunk".into(),
                });
            }
            _ => {
                return Err(GltfError::MissingBuffer {
                    buffer: index,
                    reason: "no uri (only buffer 0 of a GLB may omit it)".into(),
                });
            }
        },
        Some(uri) => match uri_bytes(uri, files, &used_by)? {
            Some(bytes) => bytes,
            None => {
                return Err(GltfError::MissingBuffer {
                    buffer: index,
                    reason: missing_file_reason(uri, files.is_some()),
                });
            }
        },
    };
    let actual = data.len() as u64;
    if actual < expected {
        return Err(GltfError::BufferLength {
            buffer: index,
            expected,
            actual,
        });
    }
    // A GLB BIN chunk may carry up to 3 bytes of padding past byteLength.
    data.truncate(usize::try_from(expected).unwrap_or(usize::MAX));
    Ok(data)
}
