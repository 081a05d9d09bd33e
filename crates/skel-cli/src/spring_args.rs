//! `--no-springs`: a VRM avatar's spring bones and node constraints (`skel::SecondaryMotion`)
//! run by default in `skel pose`, `play`, `render` and `view`, after the layers, the graph and
//! IK, before skinning; this flag leaves them out. Shared by those commands.

use clap::Args;
use skel::gltf::GltfAsset;
use skel::{SecondaryMotion, SecondaryOptions};

/// The spring arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct SpringArgs {
    /// Leave a VRM's spring bones and node constraints out: the chains hold the pose the
    /// clips (or the graph) give them. Without it they run at their fixed step of 1/60 s,
    /// whatever the display rate (docs/vrm.md).
    #[arg(long = "no-springs")]
    pub no_springs: bool,
}

impl SpringArgs {
    /// The facade's options these arguments ask for.
    #[must_use]
    pub fn options(self) -> SecondaryOptions {
        if self.no_springs {
            SecondaryOptions::OFF
        } else {
            SecondaryOptions::default()
        }
    }

    /// `asset`'s springs and constraints, as these arguments ask (empty with `--no-springs`
    /// or without VRM data).
    ///
    /// # Errors
    /// Springs or constraints that do not fit the asset's nodes.
    pub fn motion(self, asset: &GltfAsset) -> Result<SecondaryMotion, skel::SkelError> {
        SecondaryMotion::from_asset(asset, &self.options())
    }
}

/// Checks a display rate (`--fps`): finite and above zero.
///
/// # Errors
/// A message naming the value.
pub fn check_fps(fps: f64) -> Result<f64, String> {
    if fps.is_finite() && fps > 0.0 {
        Ok(fps)
    } else {
        Err(format!(
            "--fps must be a finite number of frames per second above 0, got {fps}"
        ))
    }
}
