//! Where a `.gltf`'s external files come from: a directory on disk, or a map from URI to bytes
//! (the browser, which has no file system, fetches them itself and hands them over).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use crate::GltfError;
use crate::uri::{UriSource, normalize_reference, percent_decode_or_raw, resolve_uri};

/// Where the files a `.gltf` names by a relative URI (external buffers and images) are read
/// from. `data:` URIs never reach it: they are decoded by the loader.
///
/// Implemented for a directory ([`PathBuf`]: the path is joined to it, as
/// [`GltfDocument::from_path`](crate::GltfDocument::from_path) does) and for [`FileMap`] (bytes
/// the caller already holds, keyed by URI). Implement it to read from an archive or a cache.
///
/// ```
/// use skel_gltf::{ExternalFiles, FileMap};
///
/// let mut files = FileMap::new();
/// files.insert("meshes/body%20a.bin", vec![1, 2, 3]);
/// // The loader asks with the URI percent-decoded; `./` and `x/../` are resolved by the map.
/// assert_eq!(files.read("./meshes/body a.bin").unwrap(), Some(vec![1, 2, 3]));
/// assert_eq!(files.read("other.bin").unwrap(), None);
/// ```
pub trait ExternalFiles: fmt::Debug + Send + Sync {
    /// The bytes of the file at `path`: the URI as the glTF writes it, percent-decoded
    /// (RFC 3986 §2.1; a malformed escape is kept as written), so it may start with `./` or
    /// `../`, or be absolute. `Ok(None)` when this source does not hold the file: the loader
    /// then reports [`GltfError::MissingBuffer`] (or an image it could not read) naming the URI.
    ///
    /// # Errors
    /// Whatever reading the file gives: [`GltfError::Io`] for a directory.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, GltfError>;
}

/// A directory: `path` is joined to it (an absolute `path` replaces it, `../` leaves it), and a
/// file that cannot be read is [`GltfError::Io`] naming the joined path.
impl ExternalFiles for PathBuf {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, GltfError> {
        crate::uri::read_file(&self.join(path)).map(Some)
    }
}

/// External files held in memory, keyed by their URI relative to the `.gltf` (as written in
/// it: percent-encoded or not, with or without `./`).
///
/// Keys and the loader's paths are compared after percent-decoding and removing dot segments
/// (RFC 3986 §5.2.4: `a/./b` is `a/b`, `a/x/../b` is `a/b`; a leading `../` is kept), so
/// `"my%20mesh.bin"`, `"./my mesh.bin"` and `"sub/../my mesh.bin"` name the same file.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FileMap {
    files: BTreeMap<String, Vec<u8>>,
}

impl FileMap {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the file `uri` names; returns the bytes it replaced.
    pub fn insert(&mut self, uri: &str, bytes: Vec<u8>) -> Option<Vec<u8>> {
        self.files.insert(key_of(uri), bytes)
    }

    /// The bytes held for `uri` (compared as [`FileMap`] says).
    #[must_use]
    pub fn get(&self, uri: &str) -> Option<&[u8]> {
        self.files.get(&key_of(uri)).map(Vec::as_slice)
    }

    /// How many files the map holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the map holds no file.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl<S: AsRef<str>> FromIterator<(S, Vec<u8>)> for FileMap {
    fn from_iter<I: IntoIterator<Item = (S, Vec<u8>)>>(iter: I) -> Self {
        let mut map = Self::new();
        for (uri, bytes) in iter {
            map.insert(uri.as_ref(), bytes);
        }
        map
    }
}

/// Lists the keys and sizes, not the bytes.
impl fmt::Debug for FileMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.files.iter().map(|(k, v)| (k, v.len())))
            .finish()
    }
}

/// `path` is already percent-decoded: only its dot segments are removed before the lookup.
impl ExternalFiles for FileMap {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, GltfError> {
        Ok(self.files.get(&normalize_reference(path)).cloned())
    }
}

/// The form keys are compared in: percent-decoded, dot segments removed.
fn key_of(uri: &str) -> String {
    normalize_reference(&percent_decode_or_raw(uri))
}

/// The bytes `uri` names: decoded from a `data:` URI, or read from `files`. `Ok(None)` for an
/// external file when there are no files or they do not hold it.
pub(crate) fn uri_bytes(
    uri: &str,
    files: Option<&dyn ExternalFiles>,
    used_by: &dyn Fn() -> String,
) -> Result<Option<Vec<u8>>, GltfError> {
    match resolve_uri(uri, used_by)? {
        UriSource::Data(bytes) => Ok(Some(bytes)),
        UriSource::File(path) => files.map_or(Ok(None), |f| f.read(&path)),
    }
}

/// Why an external file's bytes are missing, naming its URI.
pub(crate) fn missing_file_reason(uri: &str, has_files: bool) -> String {
    if has_files {
        format!("external file {uri:?} is not among the files given")
    } else {
        format!("external file {uri:?} and no base directory to read it from")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use std::path::Path;

    use super::*;

    #[test]
    fn a_directory_reads_the_joined_path_and_no_source_is_none() {
        let used_by = || "buffers[0]".to_owned();
        let dir: &dyn ExternalFiles = &PathBuf::from("/nonexistent-skel-dir");
        let err = uri_bytes("x%20y.bin", Some(dir), &used_by).unwrap_err();
        assert!(
            matches!(&err, GltfError::Io { path, .. } if path == Path::new("/nonexistent-skel-dir/x y.bin")),
            "{err}"
        );
        assert!(uri_bytes("x.bin", None, &used_by).unwrap().is_none());
        let data = uri_bytes("data:,a%20b", None, &used_by).unwrap();
        assert_eq!(data.as_deref(), Some(&b"a b"[..]));
    }
}
