//! Resolving buffer and image URIs: `data:` URIs (base64) and relative file paths.

use std::path::Path;

use base64::Engine as _;

use crate::GltfError;

/// Where a URI's bytes come from.
pub(crate) enum UriSource {
    /// Bytes decoded from a `data:` URI (the media type is not needed: images are sniffed).
    Data(Vec<u8>),
    /// An external file: the URI percent-decoded, for `ExternalFiles::read`.
    File(String),
}

/// Decodes a `data:[<media type>][;base64],<data>` URI (RFC 2397), or percent-decodes a
/// relative reference into the path an `ExternalFiles` reads. A malformed `data:` URI is an
/// error naming `used_by`.
pub(crate) fn resolve_uri(uri: &str, used_by: &dyn Fn() -> String) -> Result<UriSource, GltfError> {
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
        return Ok(UriSource::Data(bytes));
    }
    Ok(UriSource::File(percent_decode_or_raw(uri)))
}

/// `s` percent-decoded, or as written when an escape is malformed or the result is not UTF-8.
pub(crate) fn percent_decode_or_raw(s: &str) -> String {
    percent_decode(s)
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| s.to_owned())
}

/// A relative reference with its dot segments removed (RFC 3986 §5.2.4): `.` and empty
/// segments dropped, `x/..` cancelled; a `..` with nothing before it is kept (none above `/`
/// for an absolute path).
pub(crate) fn normalize_reference(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|s| *s != "..") {
                    out.pop();
                } else if !absolute {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
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
        let UriSource::Data(bytes) =
            resolve_uri("data:application/octet-stream;base64,AAECAw==", &used_by).unwrap()
        else {
            panic!("expected data");
        };
        assert_eq!(bytes, [0, 1, 2, 3]);
    }

    #[test]
    fn rejects_bad_base64() {
        let err = resolve_uri("data:application/octet-stream;base64,!!!", &used_by);
        assert!(matches!(err, Err(GltfError::DataUri { .. })));
    }

    #[test]
    fn resolves_relative_paths_percent_decoded() {
        let UriSource::File(p) = resolve_uri("my%20mesh.bin", &used_by).unwrap() else {
            panic!("expected a file");
        };
        assert_eq!(p, "my mesh.bin");
        // A malformed escape is kept as written.
        let UriSource::File(p) = resolve_uri("100%.bin", &used_by).unwrap() else {
            panic!("expected a file");
        };
        assert_eq!(p, "100%.bin");
    }

    #[test]
    fn removes_dot_segments() {
        assert_eq!(normalize_reference("./a/b.bin"), "a/b.bin");
        assert_eq!(normalize_reference("a/x/../b.bin"), "a/b.bin");
        assert_eq!(normalize_reference("a//./b.bin"), "a/b.bin");
        assert_eq!(normalize_reference("../../b.bin"), "../../b.bin");
        assert_eq!(normalize_reference("a/../../b.bin"), "../b.bin");
        assert_eq!(normalize_reference("/x/../../b.bin"), "/b.bin");
        assert_eq!(normalize_reference("/abs/b.bin"), "/abs/b.bin");
    }
}
