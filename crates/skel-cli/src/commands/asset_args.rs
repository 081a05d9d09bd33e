//! Arguments shared by the subcommands that read an asset: the path and the handedness, and
//! the parsing of `--clip` and `--times`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use skel::anim::Handedness;
use skel::gltf::{GltfAsset, LoadOptions, load_path};

/// The world's handedness on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum HandednessArg {
    /// Left-handed: root nodes mirrored in x (the seed's and Babylon.js's convention).
    #[default]
    Lh,
    /// glTF's own right-handed space, no reflection (what the golden files use).
    Rh,
}

impl From<HandednessArg> for Handedness {
    fn from(h: HandednessArg) -> Self {
        match h {
            HandednessArg::Lh => Self::LeftHanded,
            HandednessArg::Rh => Self::RightHanded,
        }
    }
}

/// The asset to read and how.
#[derive(Debug, Clone, Args)]
pub struct AssetArgs {
    /// A `.gltf` or `.glb` file.
    pub asset: PathBuf,
    /// World handedness: `lh` (default, the seed's) or `rh` (glTF-native).
    #[arg(long, value_enum, default_value_t = HandednessArg::Lh)]
    pub handedness: HandednessArg,
    /// Play every clip mirrored left for right (pairs found from the joint names; see
    /// docs/mirror.md): a left-handed swing from a right-handed clip.
    #[arg(long)]
    pub mirror: bool,
    /// A `.vrma` clip (VRMC_vrm_animation) to play on this character, added to its clips under
    /// the name it has in the file: retargeted through the avatar's VRM humanoid map, or the
    /// humanoid map found from the bone names on other characters (docs/vrm.md). Repeatable.
    #[arg(long = "vrma", value_name = "FILE.vrma")]
    pub vrma: Vec<PathBuf>,
}

impl AssetArgs {
    /// Loads the asset (without decoding images: these commands never draw), with the
    /// `--vrma` clips added, and every clip mirrored with `--mirror`.
    ///
    /// # Errors
    /// What [`load_path`] reports; for a `--vrma` file, what loading or retargeting it
    /// reports; with `--mirror`, what [`skel::mirror_clips_named`] reports (no left/right pairs
    /// in the joint names).
    pub fn load(&self) -> Result<GltfAsset, Box<dyn std::error::Error>> {
        let opts = LoadOptions {
            handedness: self.handedness.into(),
            decode_images: false,
        };
        let mut asset = load_path(&self.asset, &opts)?;
        for file in &self.vrma {
            let vrma = skel::retarget::Vrma::load_path(file, &opts)
                .map_err(|e| format!("--vrma {}: {e}", file.display()))?;
            let clips = skel::retarget::retarget_vrma(&vrma, &asset)
                .map_err(|e| format!("--vrma {}: {e}", file.display()))?;
            asset.animation.clips.extend(clips);
        }
        if self.mirror {
            skel::mirror_clips_named(
                &mut asset.animation,
                &asset.morph_names,
                skel::ClipMirroring::Replace,
            )
            .map_err(|e| format!("--mirror: {e}"))?;
        }
        Ok(asset)
    }
}

/// A command-line value that does not make sense for the asset.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    /// `--times` holds something that is not a finite number.
    #[error("--times: {text:?} is not a finite number of seconds")]
    BadTime {
        /// The offending item.
        text: String,
    },
    /// `--times` is empty.
    #[error("--times needs at least one time")]
    NoTimes,
    /// `--clip` names no clip of the asset.
    #[error("--clip {clip:?}: the asset has {count} clips: {names}")]
    NoSuchClip {
        /// What was asked for.
        clip: String,
        /// Clips in the asset.
        count: usize,
        /// Their indices and names.
        names: String,
    },
}

/// Parses `t1,t2,…` as `f32` seconds. Parsing the decimal text straight to `f32` (not via
/// `f64`) means a key time printed from an `f32` (shortest round-trip form) hits that key
/// exactly.
///
/// # Errors
/// [`ArgError::BadTime`] for an item that is not a finite number, [`ArgError::NoTimes`].
pub fn parse_times(text: &str) -> Result<Vec<f32>, ArgError> {
    let times = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match s.parse::<f32>() {
            Ok(t) if t.is_finite() => Ok(t),
            _ => Err(ArgError::BadTime { text: s.to_owned() }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if times.is_empty() {
        return Err(ArgError::NoTimes);
    }
    Ok(times)
}

/// Resolves `--clip`: an index (`0`, `1`, …) or, failing that, a clip name.
///
/// # Errors
/// [`ArgError::NoSuchClip`] when neither matches.
pub fn resolve_clip(asset: &GltfAsset, clip: &str) -> Result<usize, ArgError> {
    let clips = &asset.animation.clips;
    if let Ok(i) = clip.parse::<usize>()
        && i < clips.len()
    {
        return Ok(i);
    }
    asset.clip_index(clip).ok_or_else(|| ArgError::NoSuchClip {
        clip: clip.to_owned(),
        count: clips.len(),
        names: clips
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i} {:?}", c.name))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn times_parse_as_f32_exactly() {
        // 0.0154166492074728 is CesiumMan's second key time printed from its f32 value.
        let key = 0.015_416_649_f32;
        let t = parse_times("0, 0.0154166492074728 ,2").unwrap();
        assert_eq!(t, [0.0, key, 2.0]);
        assert!(matches!(parse_times("1,x"), Err(ArgError::BadTime { .. })));
        assert!(matches!(parse_times("NaN"), Err(ArgError::BadTime { .. })));
        assert!(matches!(parse_times(" , "), Err(ArgError::NoTimes)));
    }
}
