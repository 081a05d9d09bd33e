//! Resolving buffer and image URIs: `data:` URIs (base64) and relative file paths.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::GltfError;

/// Where a URI's bytes come from.
pub(crate) enum UriSource {
    /// Bytes decoded from a `data:` URI (the media type is not needed: images are sniffed).
    Data(Vec<u8>),
    /// A file path, relative to the asset's directory when relative.
    File(PathBuf),
}

/// Decodes a `data:[<media type>][;base64],<data>` URI (RFC 2397), or resolves a relative
/// reference (percent-decoded) against `base_dir`. Without a base directory a file URI is an
/// error naming `used_by`.
pub(crate) fn resolve_uri(
    uri: &str,
    base_dir: Option<&Path>,
    used_by: &dyn Fn() -> String,
) -> Result<Option<UriSource>, GltfError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, payload) = rest.split_once(',').ok_or_else(|| GltfError::DataUri {
            used_by: used_by(),
            reason: "no comma separating header and data".into(),
        })?;
        let base64 = header.ends_with(";base64");
        let bytes = if base64 {
            base64::engine::general_purpose::STANDARD
                .decode(payload.trim_end())
                .map_err(|e| GltfError::DataUri {
                    used_by: used_by(),
                    reason: e.to_string(),
                })?
        } else {
            percent_decode(payload).ok_or_else(|| GltfError::DataUri {
                used_by: used_by(),
                reason: "bad percent-encoding".into(),
            })?
        };
        return Ok(Some(UriSource::Data(bytes)));
    }
    let Some(base_dir) = base_dir else {
        return Ok(None);
    };
    let decoded = percent_decode(uri)
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| uri.to_owned());
    Ok(Some(UriSource::File(base_dir.join(decoded))))
}

/// Decodes `%XX` escapes; `None` on a malformed escape.
fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Reads a file named by a URI, mapping I/O errors to [`GltfError::Io`].
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, GltfError> {
    std::fs::read(path).map_err(|source| GltfError::Io {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn used_by() -> String {
        "buffers[0]".into()
    }

    #[test]
    fn decodes_base64_data_uris() {
        let Some(UriSource::Data(bytes)) = resolve_uri(
            "data:application/octet-stream;base64,AAECAw==",
            None,
            &used_by,
        )
        .unwrap() else {
            panic!("expected data");
        };
        assert_eq!(bytes, [0, 1, 2, 3]);
    }

    #[test]
    fn rejects_bad_base64() {
        let err = resolve_uri("data:application/octet-stream;base64,!!!", None, &used_by);
        assert!(matches!(err, Err(GltfError::DataUri { .. })));
    }

    #[test]
    fn resolves_relative_paths_percent_decoded() {
        let Some(UriSource::File(p)) =
            resolve_uri("my%20mesh.bin", Some(Path::new("/a")), &used_by).unwrap()
        else {
            panic!("expected a file");
        };
        assert_eq!(p, Path::new("/a/my mesh.bin"));
        assert!(resolve_uri("x.bin", None, &used_by).unwrap().is_none());
    }
}
