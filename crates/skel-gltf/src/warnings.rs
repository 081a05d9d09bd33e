//! What loading skipped or could not apply, with the JSON path of each: a file is never refused
//! for a part skel does not use, but the user is told.

use std::fmt;

/// One thing the loader set aside: a channel target skel does not apply, an image it could not
/// decode, an extension it ignores. [`GltfAsset::warnings`](crate::GltfAsset::warnings) and
/// `skel info` list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// JSON path of the object, e.g. `animations[0].channels[3]`.
    pub path: String,
    /// What was skipped and why.
    pub message: String,
}

impl LoadWarning {
    /// A warning at `path`.
    #[must_use]
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}
