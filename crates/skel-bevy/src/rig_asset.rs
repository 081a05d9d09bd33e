//! skel's compiled rig as a Bevy asset, read from the same glTF file bevy's loader spawns.

use std::sync::Arc;

use bevy::asset::Asset;
use bevy::reflect::TypePath;
use skel_anim::constraint::NodeConstraintDesc;
use skel_anim::spring::SpringBonesDesc;
use skel_anim::{AnimationData, Handedness, Rig};
use skel_gltf::vrm::Vrm;
use skel_gltf::{GltfAsset, GltfDocument, LoadOptions, load_document, parse_animation_data};

use crate::SkelBevyError;
use crate::gltf_bytes::scene_copy;

/// A copy of a rig's file that bevy's glTF loader accepts (see [`SkelRig::from_bytes`]).
#[derive(Debug)]
pub(crate) struct SceneCopy {
    /// The file's bytes.
    pub(crate) bytes: Vec<u8>,
    /// `"glb"` or `"gltf"`.
    pub(crate) extension: &'static str,
}

/// A glTF file compiled into skel's [`Rig`] (clips, hierarchy, skins), shared by every
/// character spawned from that file. The plugin reads the file of each character's
/// `WorldAssetRoot` through bevy's asset reader, once per file; add your own (retargeted
/// clips) to `Assets<SkelRig>` and hand it to [`SkelPlayer::with_rig`](crate::SkelPlayer::with_rig).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SkelRig {
    rig: Arc<Rig>,
    /// The rig the characters' players pose with: `rig` without its skin bindings where it
    /// was compiled here, so that a pose stops at the joints' transforms (bevy skins from the
    /// joints' `GlobalTransform`s, so skinning matrices would be thrown away).
    pose: Arc<Rig>,
    scene_copy: Option<Arc<SceneCopy>>,
    vrm: Option<Arc<RigVrm>>,
}

impl SkelRig {
    /// Compiles a `.glb` or a `.gltf` with embedded buffers, in glTF's own right-handed space
    /// (the space bevy's loader spawns nodes in, so local transforms carry over unchanged).
    /// (The plugin reads a character's file through bevy's asset reader and inlines its
    /// external buffers before calling this.)
    ///
    /// A file that requires skel's stored-clip extension (`skel compress --out`) also keeps
    /// a copy that bevy's glTF loader accepts (the extension dropped, its animations left
    /// without channels): a character spawned from such a file is respawned from that copy
    /// (see [`SkelPlugin`](crate::SkelPlugin)).
    ///
    /// A VRM (a file with `VRMC_springBone`, `VRMC_node_constraint` or VRM 0.x's `VRM`
    /// extension) keeps its spring bones and node constraints, which
    /// [`SkelSprings`](crate::SkelSprings) runs on every character of the rig.
    ///
    /// # Errors
    /// [`SkelBevyError::Gltf`] for a file skel cannot read, [`SkelBevyError::Anim`] for
    /// animation data it rejects.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SkelBevyError> {
        let (data, vrm) = data_from_bytes(bytes)?;
        let rig = Self::from_data(data)?.with_scene_copy_of(bytes);
        Ok(match vrm {
            Some(vrm) => rig.with_vrm(&vrm),
            None => rig,
        })
    }

    /// The same rig with `vrm`'s spring bones and node constraints (a rig built from data
    /// whose file is a VRM: [`GltfAsset::vrm`]). Their nodes are the rig's own node indices:
    /// pass the VRM data of the file the rig's nodes came from.
    #[must_use]
    pub fn with_vrm(mut self, vrm: &Vrm) -> Self {
        self.vrm = RigVrm::of(vrm).map(Arc::new);
        self
    }

    /// The VRM secondary motion of the rig's file, if any.
    pub(crate) fn vrm(&self) -> Option<&Arc<RigVrm>> {
        self.vrm.as_ref()
    }

    /// The same with the scene copy of `bytes`' file, if it needs one (a copy that cannot be
    /// made is logged: the rig still plays on a scene spawned some other way).
    pub(crate) fn with_scene_copy_of(mut self, bytes: &[u8]) -> Self {
        match scene_copy(bytes) {
            Ok(copy) => {
                self.scene_copy =
                    copy.map(|(bytes, extension)| Arc::new(SceneCopy { bytes, extension }));
            }
            Err(e) => tracing::error!("skel-bevy: {e}"),
        }
        self
    }

    /// The copy of the rig's file that bevy's glTF loader accepts, when the file itself is
    /// refused by it.
    pub(crate) fn scene_copy(&self) -> Option<&Arc<SceneCopy>> {
        self.scene_copy.as_ref()
    }

    /// Compiles animation data already read (a file's, with retargeted clips added).
    ///
    /// # Errors
    /// [`SkelBevyError::Anim`] for animation data skel rejects.
    ///
    /// The characters' players pose with a second compilation of the same data without its
    /// skin bindings (bevy skins from the joints' `GlobalTransform`s): their poses compute no
    /// skinning matrices. The clips are held twice.
    pub fn from_data(data: AnimationData) -> Result<Self, SkelBevyError> {
        let unskinned = AnimationData {
            skeletons: Vec::new(),
            ..data.clone()
        };
        Ok(Self {
            rig: Rig::new(Arc::new(data))?,
            pose: Rig::new(Arc::new(unskinned))?,
            scene_copy: None,
            vrm: None,
        })
    }

    /// Wraps a rig compiled elsewhere (retargeted clips, a rig built with options). Its
    /// players pose with this rig as it is (its options kept), skinning matrices included.
    #[must_use]
    pub fn from_rig(rig: Arc<Rig>) -> Self {
        Self {
            pose: Arc::clone(&rig),
            rig,
            scene_copy: None,
            vrm: None,
        }
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.rig
    }

    /// The rig the characters' players are built over (the same nodes and clips as
    /// [`rig`](Self::rig), without skin bindings where this rig compiled them).
    pub(crate) fn pose_rig(&self) -> &Arc<Rig> {
        &self.pose
    }
}

/// The VRM secondary motion a rig's file describes, kept with the rig.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RigVrm {
    pub(crate) springs: Option<SpringBonesDesc>,
    pub(crate) constraints: Vec<NodeConstraintDesc>,
}

impl RigVrm {
    /// `vrm`'s springs and constraints; `None` when it has neither.
    pub(crate) fn of(vrm: &Vrm) -> Option<Self> {
        let springs = vrm
            .spring_bones
            .as_ref()
            .map(|s| &s.desc)
            .filter(|d| !d.springs.is_empty())
            .cloned();
        (springs.is_some() || !vrm.constraints.is_empty()).then(|| Self {
            springs,
            constraints: vrm.constraints.clone(),
        })
    }
}

/// How rigs are read: glTF's own right-handed space, no images.
const OPTIONS: LoadOptions = LoadOptions {
    handedness: Handedness::RightHanded,
    decode_images: false,
};

/// The extensions that carry what [`SkelSprings`](crate::SkelSprings) runs.
const SECONDARY_EXTENSIONS: [&str; 3] = ["VRMC_springBone", "VRMC_node_constraint", "VRM"];

/// A `.glb` or a `.gltf` with embedded buffers read as skel's animation data, in glTF's own
/// right-handed space, with its VRM data when it has spring bones or node constraints
/// (skel-gltf reads VRM data with the whole asset: only such files pay for reading their
/// meshes; one whose meshes skel cannot read still plays, without springs, logged).
pub(crate) fn data_from_bytes(bytes: &[u8]) -> Result<(AnimationData, Option<Vrm>), SkelBevyError> {
    let doc = GltfDocument::from_slice(bytes, None)?;
    let extensions = doc.raw_json().get("extensions");
    let secondary = SECONDARY_EXTENSIONS
        .iter()
        .any(|name| extensions.and_then(|e| e.get(name)).is_some());
    if secondary {
        match load_document(&doc, &OPTIONS) {
            Ok(asset) => return Ok((asset.animation, asset.vrm)),
            Err(e) => tracing::warn!("skel-bevy: the file's VRM data is left out: {e}"),
        }
    }
    Ok((parse_animation_data(&doc, &OPTIONS)?, None))
}

/// The same file read whole (animation data and the morph targets' names, which
/// retargeting matches weights by).
pub(crate) fn asset_from_bytes(bytes: &[u8]) -> Result<GltfAsset, SkelBevyError> {
    let doc = GltfDocument::from_slice(bytes, None)?;
    Ok(load_document(&doc, &OPTIONS)?)
}
