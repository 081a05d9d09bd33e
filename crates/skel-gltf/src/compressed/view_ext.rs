//! The meshopt extension object of a buffer view, read from the raw JSON (gltf-json does not
//! type it) and checked: every field the decoder needs, with its defaults.

use serde_json::Value;

/// `mode` of a compressed buffer view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Vertex attributes (or animation data): `count` elements of `byteStride` bytes.
    Attributes,
    /// A triangle list's indices.
    Triangles,
    /// Any other index sequence.
    Indices,
}

/// `filter` of a compressed buffer view (applied after the stream is decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filter {
    /// None.
    None,
    /// Octahedral unit vectors (normals, tangents).
    Octahedral,
    /// Unit quaternions in three components and an index.
    Quaternion,
    /// Floats as a shared exponent and a 24-bit mantissa.
    Exponential,
    /// RGBA colours as `YCoCg` + alpha (`KHR_meshopt_compression`).
    Color,
}

/// A compressed buffer view: where its stream lies and what it decodes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MeshoptView {
    /// The extension's name as written (`EXT_…` or `KHR_…`).
    pub(crate) extension: &'static str,
    /// The buffer holding the compressed stream.
    pub(crate) buffer: usize,
    /// The stream's offset in it.
    pub(crate) offset: u64,
    /// The stream's length.
    pub(crate) length: u64,
    /// Bytes per decoded element.
    pub(crate) stride: usize,
    /// Decoded elements.
    pub(crate) count: usize,
    /// How the stream is coded.
    pub(crate) mode: Mode,
    /// The filter to undo.
    pub(crate) filter: Filter,
}

/// The two names of the extension (same layout).
pub(crate) const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// Reads the meshopt object of buffer view `view` (`None` when it has none).
///
/// # Errors
/// A field that is missing or of the wrong kind, in words.
pub(crate) fn meshopt_view(view: &Value) -> Option<Result<MeshoptView, String>> {
    let exts = view.get("extensions")?;
    let (extension, obj) = MESHOPT
        .iter()
        .find_map(|name| exts.get(*name).map(|o| (*name, o)))?;
    Some(parse(extension, obj))
}

fn parse(extension: &'static str, obj: &Value) -> Result<MeshoptView, String> {
    let uint = |key: &str, default: Option<u64>| -> Result<u64, String> {
        match obj.get(key) {
            None => default.ok_or_else(|| format!("{key} is missing")),
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("{key} is not a non-negative integer: {v}")),
        }
    };
    let size = |key: &str| -> Result<usize, String> {
        usize::try_from(uint(key, None)?).map_err(|_| format!("{key} is too large"))
    };
    let text = |key: &str| obj.get(key).and_then(Value::as_str);
    let mode = match text("mode") {
        Some("ATTRIBUTES") => Mode::Attributes,
        Some("TRIANGLES") => Mode::Triangles,
        Some("INDICES") => Mode::Indices,
        other => {
            return Err(format!(
                "mode {other:?} is not ATTRIBUTES, TRIANGLES or INDICES"
            ));
        }
    };
    let filter = match text("filter") {
        None | Some("NONE") => Filter::None,
        Some("OCTAHEDRAL") => Filter::Octahedral,
        Some("QUATERNION") => Filter::Quaternion,
        Some("EXPONENTIAL") => Filter::Exponential,
        Some("COLOR") => Filter::Color,
        Some(other) => return Err(format!("unknown filter {other:?}")),
    };
    Ok(MeshoptView {
        extension,
        buffer: size("buffer")?,
        offset: uint("byteOffset", Some(0))?,
        length: uint("byteLength", None)?,
        stride: size("byteStride")?,
        count: size("count")?,
        mode,
        filter,
    })
}
