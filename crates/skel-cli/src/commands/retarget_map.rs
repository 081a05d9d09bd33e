//! What `skel retarget` and `skel pose --retarget-from` share: how the node map is made
//! (`--map`, `--auto`, or same names) and the root-position options.

use std::path::PathBuf;

use clap::Args;
use skel::anim::{AnimationData, Clip};
use skel::gltf::GltfAsset;
use skel::retarget::{Mapping, MorphTargetNames, NodeMap, RetargetError, RetargetOptions};

/// The node map and root options on the command line.
#[derive(Debug, Clone, Default, Args)]
pub struct MapArgs {
    /// A JSON object `{"target node": "source node", …}`; with --auto, its entries override
    /// the detected ones.
    #[arg(long, value_name = "MAP.json")]
    pub map: Option<PathBuf>,
    /// Pair the canonical humanoid joints both rigs have (Mixamo, Unreal, Rigify, VRM and
    /// plain English names; the hierarchy resolves the rest). Without --map or --auto, nodes
    /// pair by equal names, as Babylon.js does.
    #[arg(long)]
    pub auto: bool,
    /// The target's root node (default: the target's humanoid hips).
    #[arg(long, value_name = "NODE")]
    pub root: Option<String>,
    /// The target's ground-reference node (default: the lower foot of the target's humanoid
    /// map).
    #[arg(long, value_name = "NODE")]
    pub ground: Option<String>,
    /// Keep the root's translation keys as the key rule makes them (no height scaling).
    #[arg(long)]
    pub no_root_fix: bool,
    /// Turn each mapped target joint's reference so that its bone points as the source's does
    /// at rest, before the rule (a source with arms down on a T-posed target).
    #[arg(long)]
    pub align_rest: bool,
}

/// A map that pairs nothing, a map file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum MapArgError {
    /// No target node has a source node.
    #[error("no target node pairs with a source node: pass --map MAP.json or --auto")]
    Empty,
    /// The map file cannot be read.
    #[error("--map {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

impl MapArgs {
    /// The mapping these arguments ask for (skel-retarget's [`Mapping`], shared with
    /// skel-bevy): `--auto` pairs humanoid joints, `--map`'s entries pair names (over the
    /// detected ones with `--auto`), neither pairs equal names.
    ///
    /// # Errors
    /// [`MapArgError::Read`] for a map file that cannot be read, skel-retarget's `MapJson`
    /// for one that is not a JSON object of names.
    pub fn mapping(&self) -> Result<Mapping, Box<dyn std::error::Error>> {
        let pairs = match &self.map {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| MapArgError::Read {
                    path: path.display().to_string(),
                    source,
                })?;
                Some(Mapping::pairs_from_json(&text)?)
            }
            None => None,
        };
        Ok(match (self.auto, pairs) {
            (true, None) => Mapping::Humanoid,
            (true, Some(pairs)) => Mapping::HumanoidWith(pairs),
            (false, Some(pairs)) => Mapping::Pairs(pairs),
            (false, None) => Mapping::SameNames,
        })
    }

    /// The node map (target → source) these arguments ask for.
    ///
    /// # Errors
    /// Those of [`MapArgs::mapping`], what detection and map resolution report,
    /// [`MapArgError::Empty`] for a map that pairs nothing.
    pub fn node_map(
        &self,
        source: &AnimationData,
        target: &AnimationData,
    ) -> Result<NodeMap, Box<dyn std::error::Error>> {
        self.mapping()?
            .node_map(source, target)
            .map_err(|e| match e {
                RetargetError::EmptyMap => MapArgError::Empty.into(),
                e => e.into(),
            })
    }

    /// The retargeting options, for `clips` (all when `None`).
    #[must_use]
    pub fn options(&self, clips: Option<Vec<String>>) -> RetargetOptions {
        RetargetOptions {
            fix_root_position: !self.no_root_fix,
            root: self.root.clone(),
            ground: self.ground.clone(),
            align_rest: self.align_rest,
            clips,
            ..RetargetOptions::default()
        }
    }

    /// Retargets `clips` of `source` onto `target` with these arguments; morph-weight
    /// channels map by mesh and target name (see [`morph_target_names`]).
    ///
    /// # Errors
    /// Those of [`MapArgs::node_map`] and of retargeting.
    pub fn bake(
        &self,
        source: &GltfAsset,
        target: &GltfAsset,
        clips: Option<Vec<String>>,
    ) -> Result<(Vec<Clip>, NodeMap), Box<dyn std::error::Error>> {
        let (s, t) = (&source.animation, &target.animation);
        let map = self.node_map(s, t)?;
        let options = RetargetOptions {
            morph_names: Some(morph_target_names(source, target)),
            ..self.options(clips)
        };
        let baked = skel::retarget::retarget(s, t, &map, &options)
            .map_err(|e: RetargetError| Box::new(e) as Box<dyn std::error::Error>)?;
        Ok((baked, map))
    }
}

/// The target names of both assets' morph bindings (glTF's `mesh.extras.targetNames`), for
/// retargeting to match morph-weight channels by name as Babylon.js does.
#[must_use]
pub fn morph_target_names(source: &GltfAsset, target: &GltfAsset) -> MorphTargetNames {
    let table = |a: &GltfAsset| a.morph_names.iter().map(|m| m.targets.clone()).collect();
    MorphTargetNames {
        source: table(source),
        target: table(target),
    }
}

/// `skel pose TARGET --retarget-from SOURCE [--map …|--auto] --clip NAME`: the pose of a
/// retargeted clip without writing a file.
#[derive(Debug, Clone, Default, Args)]
pub struct RetargetFromArgs {
    /// Retarget the source asset's clip named by --clip onto the posed asset first (then
    /// --clip names the retargeted clip).
    #[arg(long, value_name = "SOURCE")]
    pub retarget_from: Option<PathBuf>,
    #[command(flatten)]
    pub map: MapArgs,
}

impl RetargetFromArgs {
    /// With `--retarget-from`, replaces (or adds) `clip` of `asset` by the source's clip of
    /// that name retargeted; without it, leaves `asset` as it is.
    ///
    /// # Errors
    /// When the source cannot be loaded, or the map, the options or the clip are refused.
    pub fn apply(
        &self,
        asset: &mut skel::gltf::GltfAsset,
        clip: Option<&str>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let Some(path) = &self.retarget_from else {
            return Ok(());
        };
        let opts = skel::gltf::LoadOptions {
            handedness: asset.animation.handedness,
            decode_images: false,
        };
        let source = skel::gltf::load_path(path, &opts)?;
        let clips = clip.map(|c| vec![c.to_owned()]);
        let (baked, _) = self.map.bake(&source, asset, clips)?;
        asset.animation = skel::retarget::with_clips(&asset.animation, baked);
        Ok(())
    }
}
