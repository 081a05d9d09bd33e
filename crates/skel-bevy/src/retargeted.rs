//! Clips of another glTF file, retargeted onto a character's own skeleton (skel-retarget's
//! rule), so that a [`SkelPlayer`](crate::SkelPlayer) plays them by name.

use bevy::asset::AssetPath;
use skel_gltf::GltfAsset;
use skel_retarget::{MorphTargetNames, RetargetOptions};

use crate::SkelBevyError;

/// How the source's joints are paired with the character's: skel-retarget's [`Mapping`](skel_retarget::Mapping)
/// (equal names, humanoid detection, explicit `(character node, source node)` pairs, or
/// detection with pairs over it), the same type skel's command line makes from its `--map`
/// and `--auto` options.
pub use skel_retarget::Mapping as SkelMapping;

/// The clips of glTF file `source` retargeted onto the character
/// ([`SkelPlayer::with_retargeted_clips`](crate::SkelPlayer::with_retargeted_clips)): the
/// character's rig is its own file's, with every retargeted clip added (a clip of the same
/// name replaces the character's own). Baked once, on bevy's IO task pool, when the first
/// character with this source, mapping and options binds; shared by the others.
///
/// ```
/// use skel_bevy::{SkelLayer, SkelMapping, SkelPlayer, SkelRetarget};
///
/// // The robot's dance on a humanoid character spawned from its own glTF.
/// let player = SkelPlayer::new()
///     .with_retargeted_clips(SkelRetarget::new("RobotExpressive.glb", SkelMapping::Humanoid))
///     .with_layer(SkelLayer::clip("Dance"));
/// # let _ = player;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SkelRetarget {
    /// The glTF file (an asset path) whose clips are retargeted.
    pub source: AssetPath<'static>,
    /// How joints are paired.
    pub mapping: SkelMapping,
    /// skel-retarget's options (root-position scaling, rest alignment, which clips).
    pub options: RetargetOptions,
}

impl SkelRetarget {
    /// Every clip of `source`, with skel-retarget's default options.
    #[must_use]
    pub fn new(source: impl Into<AssetPath<'static>>, mapping: SkelMapping) -> Self {
        Self {
            source: source.into(),
            mapping,
            options: RetargetOptions::default(),
        }
    }

    /// The same with `options`.
    #[must_use]
    pub fn with_options(mut self, options: RetargetOptions) -> Self {
        self.options = options;
        self
    }

    /// A key that tells retargetings apart (the options have no hash of their own).
    pub(crate) fn key(&self) -> (AssetPath<'static>, String) {
        (
            self.source.clone(),
            format!("{:?} {:?}", self.mapping, self.options),
        )
    }

    /// `target`'s animation data with the source's clips retargeted onto it; morph-weight
    /// channels map by mesh and target name (glTF's `mesh.extras.targetNames`, as skel's
    /// command line does) unless the options name their own tables.
    pub(crate) fn apply(
        &self,
        source: &GltfAsset,
        target: &GltfAsset,
    ) -> Result<skel_anim::AnimationData, SkelBevyError> {
        let (s, t) = (&source.animation, &target.animation);
        let map = self.mapping.node_map(s, t)?;
        let table = |a: &GltfAsset| a.morph_names.iter().map(|m| m.targets.clone()).collect();
        let options = RetargetOptions {
            morph_names: self.options.morph_names.clone().or_else(|| {
                Some(MorphTargetNames {
                    source: table(source),
                    target: table(target),
                })
            }),
            ..self.options.clone()
        };
        let clips = skel_retarget::retarget(s, t, &map, &options)?;
        Ok(skel_retarget::with_clips(t, clips))
    }
}
