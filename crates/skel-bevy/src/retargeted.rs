//! Clips of another glTF file, retargeted onto a character's own skeleton (skel-retarget's
//! rule), so that a [`SkelPlayer`](crate::SkelPlayer) plays them by name.

use bevy::asset::AssetPath;
use skel_anim::AnimationData;
use skel_retarget::{HumanoidMap, NodeMap, RetargetOptions};

use crate::SkelBevyError;

/// How the source's joints are paired with the character's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SkelMapping {
    /// Nodes of the same name.
    SameNames,
    /// Both rigs' canonical humanoid joints (hips, spine, limbs, head), found by skel-retarget's
    /// humanoid detection (Mixamo, Unreal, Rigify, VRM and similar names).
    Humanoid,
    /// Explicit `(character node, source node)` name pairs.
    Pairs(Vec<(String, String)>),
}

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

    /// `target` with the source's clips retargeted onto it.
    pub(crate) fn apply(
        &self,
        source: &AnimationData,
        target: &AnimationData,
    ) -> Result<AnimationData, SkelBevyError> {
        let map = match &self.mapping {
            SkelMapping::SameNames => NodeMap::same_names(source, target),
            SkelMapping::Humanoid => {
                HumanoidMap::pair(&HumanoidMap::detect(source)?, &HumanoidMap::detect(target)?)
            }
            SkelMapping::Pairs(pairs) => NodeMap::from_names(
                source,
                target,
                pairs.iter().map(|(t, s)| (t.as_str(), s.as_str())),
            )?,
        };
        let clips = skel_retarget::retarget(source, target, &map, &self.options)?;
        Ok(skel_retarget::with_clips(target, clips))
    }
}
