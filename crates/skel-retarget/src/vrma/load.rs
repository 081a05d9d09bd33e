//! A `.vrma` file loaded whole: its rig and clips as any glTF (skel-gltf's loader) and its
//! `VRMC_vrm_animation` extension (skel-gltf's reader), from one parse of the file.

use std::path::Path;

use skel_gltf::vrm::VrmAnimation;
use skel_gltf::{GltfAsset, GltfDocument, GltfError, LoadOptions, load_document};

/// A loaded `.vrma`: the glTF data (rig at rest and clips) and its extension.
#[derive(Debug, Clone)]
pub struct Vrma {
    /// The file as any glTF: `asset.animation` holds the rig's rest pose and the clips;
    /// `asset.warnings` also holds the extension's warnings.
    pub asset: GltfAsset,
    /// The `VRMC_vrm_animation` extension.
    pub animation: VrmAnimation,
}

impl Vrma {
    /// Loads a `.vrma` file.
    ///
    /// # Errors
    /// A [`GltfError`] for a malformed glTF; [`GltfError::Vrm`] when the file has no
    /// `VRMC_vrm_animation` extension, an unsupported `specVersion` or a malformed field,
    /// naming its JSON path (see [`VrmAnimation::read`]).
    pub fn load_path(path: &Path, opts: &LoadOptions) -> Result<Self, GltfError> {
        Self::load_document(&GltfDocument::from_path(path)?, opts)
    }

    /// Loads a `.vrma` held in memory (see [`Vrma::load_path`]).
    ///
    /// # Errors
    /// As [`Vrma::load_path`].
    pub fn load_slice(bytes: &[u8], opts: &LoadOptions) -> Result<Self, GltfError> {
        Self::load_document(&GltfDocument::from_slice(bytes, None)?, opts)
    }

    /// Loads a parsed `.vrma` document (see [`Vrma::load_path`]).
    ///
    /// # Errors
    /// As [`Vrma::load_path`].
    pub fn load_document(doc: &GltfDocument, opts: &LoadOptions) -> Result<Self, GltfError> {
        let mut asset = load_document(doc, opts)?;
        let animation = VrmAnimation::read(doc, &mut asset.warnings)?;
        Ok(Self { asset, animation })
    }
}
