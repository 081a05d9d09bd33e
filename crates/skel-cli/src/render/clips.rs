//! Which animation a render plays, and finding a clip by index or name.

use skel::AssetContainer;

use super::error::RenderError;

/// Which animation to play.
#[derive(Debug, Clone, PartialEq)]
pub enum Animation {
    /// The first clip, or the rest pose when there is none.
    Default,
    /// A clip by index or name (`--clip`).
    Clip(String),
    /// A weighted blend, `CLIP=WEIGHT,…` (`--blend`).
    Blend(String),
    /// A layer stack from a JSON file (`--layers`).
    Layers(std::path::PathBuf),
    /// An animation graph (`--graph`, `--set`, `--travel`).
    Graph(crate::graph_args::GraphArgs),
}

/// Resolves `--clip N|NAME` against the asset's clips.
///
/// # Errors
/// [`RenderError::UnknownClip`] listing the clips there are.
pub fn resolve_clip(
    container: &AssetContainer,
    requested: &str,
    asset: &str,
) -> Result<usize, RenderError> {
    let clips = &container.animation.clips;
    let by_index = requested.parse::<usize>().ok().filter(|&i| i < clips.len());
    by_index
        .or_else(|| container.clip_index(requested))
        .ok_or_else(|| RenderError::UnknownClip {
            asset: asset.to_owned(),
            requested: requested.to_owned(),
            available: clip_list(container),
        })
}

pub(crate) fn clip_list(container: &AssetContainer) -> String {
    let clips = &container.animation.clips;
    if clips.is_empty() {
        return "none (the asset has no animations)".into();
    }
    clips
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{i}: {:?}", c.name))
        .collect::<Vec<_>>()
        .join(", ")
}
