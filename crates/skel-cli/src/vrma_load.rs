//! `--vrma FILE` for the commands that load through the facade's container (`skel render`,
//! `skel view`): the asset read on the CPU, each `.vrma` clip retargeted onto it and added to
//! its clips under the name it has in the file (as [`AssetArgs::load`] does for the commands
//! that read a `GltfAsset`), then the container built from it.
//!
//! [`AssetArgs::load`]: crate::commands::asset_args::AssetArgs::load

use std::path::PathBuf;

use skel::gpu::GpuContext;
use skel::{AssetContainer, LoadOptions, SkelError, Source};

/// Why the asset or a `.vrma` clip could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum VrmaLoadError {
    /// The asset itself.
    #[error(transparent)]
    Load(#[from] SkelError),
    /// A `.vrma` file that does not load or does not fit the character.
    #[error("--vrma {file}: {reason}")]
    Vrma {
        /// The file.
        file: String,
        /// What went wrong.
        reason: String,
    },
}

/// Loads `source` into a container with `options`, with the clips of every `vrma` file
/// added (none: exactly [`skel::load_gltf`]).
///
/// # Errors
/// What [`skel::load_gltf`] reports, and [`VrmaLoadError::Vrma`] for a `.vrma` file that does
/// not load or retarget.
pub fn load_with_vrma(
    ctx: &GpuContext,
    source: Source<'_>,
    options: &LoadOptions,
    vrma: &[PathBuf],
) -> Result<AssetContainer, VrmaLoadError> {
    if vrma.is_empty() {
        return Ok(skel::load_gltf(ctx, source, options)?);
    }
    let gltf_options = skel::gltf::LoadOptions {
        handedness: options.handedness,
        decode_images: options.decode_images,
    };
    let mut asset = match source {
        Source::Path(path) => skel::gltf::load_path(path, &gltf_options),
        Source::Bytes { bytes, base_dir } => skel::gltf::load_slice(bytes, base_dir, &gltf_options),
    }
    .map_err(SkelError::from)?;
    for file in vrma {
        let failed = |reason: String| VrmaLoadError::Vrma {
            file: file.display().to_string(),
            reason,
        };
        let clip = skel::retarget::Vrma::load_path(file, &gltf_options)
            .map_err(|e| failed(e.to_string()))?;
        let clips =
            skel::retarget::retarget_vrma(&clip, &asset).map_err(|e| failed(e.to_string()))?;
        asset.animation.clips.extend(clips);
    }
    Ok(skel::from_asset(ctx, asset, options)?)
}
