//! Where an asset comes from: a file, or bytes in memory.

use std::path::Path;

/// The input of [`load_gltf`](crate::load_gltf): a `.gltf`/`.glb` path, or the bytes of one
/// (with the directory its external buffers and images are relative to, if it has any).
///
/// ```
/// use std::path::Path;
/// use skel::Source;
///
/// let from_file = Source::from(Path::new("character.glb"));
/// let from_memory = Source::from(&b"glTF..."[..]);
/// # let _ = (from_file, from_memory);
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A file on disk; external files are read relative to it.
    Path(&'a Path),
    /// A file already in memory (e.g. `include_bytes!`).
    Bytes {
        /// The `.glb` or `.gltf` bytes.
        bytes: &'a [u8],
        /// Where external buffers and images live; `None` allows embedded data only.
        base_dir: Option<&'a Path>,
    },
}

impl<'a> From<&'a Path> for Source<'a> {
    fn from(path: &'a Path) -> Self {
        Self::Path(path)
    }
}

impl<'a> From<&'a std::path::PathBuf> for Source<'a> {
    fn from(path: &'a std::path::PathBuf) -> Self {
        Self::Path(path)
    }
}

impl<'a> From<&'a [u8]> for Source<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Self::Bytes {
            bytes,
            base_dir: None,
        }
    }
}
