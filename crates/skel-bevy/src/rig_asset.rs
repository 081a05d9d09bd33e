//! skel's compiled rig as a Bevy asset, read from the same glTF file bevy's loader spawns.

use std::sync::Arc;

use bevy::asset::Asset;
use bevy::reflect::TypePath;
use skel_anim::{AnimationData, Handedness, Rig};
use skel_gltf::{GltfDocument, LoadOptions, parse_animation_data};

use crate::SkelBevyError;

/// A glTF file compiled into skel's [`Rig`] (clips, hierarchy, skins), shared by every
/// character spawned from that file. The plugin reads the file of each character's
/// `WorldAssetRoot` through bevy's asset reader, once per file; add your own (retargeted
/// clips) to `Assets<SkelRig>` and hand it to [`SkelPlayer::with_rig`](crate::SkelPlayer::with_rig).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SkelRig {
    rig: Arc<Rig>,
}

impl SkelRig {
    /// Compiles a `.glb` or a `.gltf` with embedded buffers, in glTF's own right-handed space
    /// (the space bevy's loader spawns nodes in, so local transforms carry over unchanged).
    ///
    /// # Errors
    /// [`SkelBevyError::Gltf`] for a file skel cannot read, [`SkelBevyError::Anim`] for
    /// animation data it rejects.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SkelBevyError> {
        Self::from_data(data_from_bytes(bytes)?)
    }

    /// Compiles animation data already read (a file's, with retargeted clips added).
    ///
    /// # Errors
    /// [`SkelBevyError::Anim`] for animation data skel rejects.
    pub fn from_data(data: AnimationData) -> Result<Self, SkelBevyError> {
        Ok(Self::from_rig(Rig::new(Arc::new(data))?))
    }

    /// Wraps a rig compiled elsewhere (retargeted clips, a rig built with options).
    #[must_use]
    pub fn from_rig(rig: Arc<Rig>) -> Self {
        Self { rig }
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.rig
    }
}

/// A `.glb` or a `.gltf` with embedded buffers read as skel's animation data, in glTF's own
/// right-handed space.
pub(crate) fn data_from_bytes(bytes: &[u8]) -> Result<AnimationData, SkelBevyError> {
    let doc = GltfDocument::from_slice(bytes, None)?;
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    Ok(parse_animation_data(&doc, &opts)?)
}
