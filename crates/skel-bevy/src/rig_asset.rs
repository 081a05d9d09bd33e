//! skel's compiled rig as a Bevy asset, read from the same glTF file bevy's loader spawns.

use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::reflect::TypePath;
use skel_anim::{Handedness, Rig};
use skel_gltf::{GltfDocument, LoadOptions, parse_animation_data};

use crate::SkelBevyError;

/// A glTF file compiled into skel's [`Rig`] (clips, hierarchy, skins), shared by every
/// character spawned from that file. Loaded by [`SkelRigLoader`] from the path of the
/// character's `WorldAssetRoot`, or by hand with `asset_server.load::<SkelRig>("x.glb")`.
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
        let doc = GltfDocument::from_slice(bytes, None)?;
        let opts = LoadOptions {
            handedness: Handedness::RightHanded,
            decode_images: false,
        };
        let data = parse_animation_data(&doc, &opts)?;
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

/// Reads `.glb`/`.gltf` files as [`SkelRig`]s. It shares the extensions with bevy's glTF
/// loader; the asset server picks the loader by the asset type asked for.
#[derive(Debug, Default, TypePath)]
pub struct SkelRigLoader;

impl AssetLoader for SkelRigLoader {
    type Asset = SkelRig;
    type Settings = ();
    type Error = SkelBevyError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<SkelRig, SkelBevyError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        SkelRig::from_bytes(&bytes)
    }

    fn extensions(&self) -> &[&str] {
        &["glb", "gltf"]
    }
}
