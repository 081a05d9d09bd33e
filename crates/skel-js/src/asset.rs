//! [`Asset`]: a glTF asset read on the CPU and its rig, compiled once and shared by every
//! [`Animator`] made from it.

use std::sync::Arc;

use skel_anim::{AnimationData, Handedness, Player, Rig};
use skel_gltf::FileMap;

use crate::{Animator, JsApiError};

/// A loaded character: its nodes, clips, skins and morph bindings, and the compiled rig.
/// Cheap to share: animators hold the rig by `Arc`.
#[derive(Debug, Clone)]
pub struct Asset {
    rig: Arc<Rig>,
}

impl Asset {
    /// Reads a `.glb` (or a `.gltf` whose buffers are embedded as data URIs) from `bytes`,
    /// without decoding images (the page's renderer loads the textures), and compiles its rig.
    ///
    /// # Errors
    /// [`JsApiError::Gltf`] for bytes that are not a readable glTF asset (the loader never
    /// panics: a malformed file ends here, naming the place), [`JsApiError::Anim`] when its
    /// animation data does not validate.
    pub fn from_bytes(bytes: &[u8], handedness: Handedness) -> Result<Self, JsApiError> {
        let asset = skel_gltf::load_slice(bytes, None, &Self::options(handedness))?;
        Self::compile(asset)
    }

    /// Reads a `.gltf` (or `.glb`) from `bytes` whose external buffers are in `files`, keyed by
    /// the URI the JSON gives them (`"Fox.bin"`, `"buffers/body%20a.bin"`: compared
    /// percent-decoded, with `./` and `x/../` resolved; see [`FileMap`]). Images are not
    /// decoded, so image files need not be given. The browser has no directory to read a
    /// `.gltf`'s sibling `.bin` from: the page fetches it and passes it here.
    ///
    /// # Errors
    /// As [`Asset::from_bytes`]; a buffer `files` does not hold is [`JsApiError::Gltf`] with
    /// [`GltfError::MissingBuffer`](skel_gltf::GltfError::MissingBuffer) naming its URI.
    pub fn from_gltf(
        bytes: &[u8],
        files: FileMap,
        handedness: Handedness,
    ) -> Result<Self, JsApiError> {
        let asset = skel_gltf::load_slice_with_files(bytes, files, &Self::options(handedness))?;
        Self::compile(asset)
    }

    /// The loader's options: `handedness`, images not decoded (the page's renderer loads the
    /// textures).
    fn options(handedness: Handedness) -> skel_gltf::LoadOptions {
        let mut options = skel_gltf::LoadOptions::with_handedness(handedness);
        options.decode_images = false;
        options
    }

    fn compile(asset: skel_gltf::GltfAsset) -> Result<Self, JsApiError> {
        let rig = Rig::new(Arc::new(asset.animation))?;
        Ok(Self { rig })
    }

    /// The asset's animation data (nodes, clips, skeleton and morph bindings).
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.rig.data()
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.rig
    }

    /// A new character over this asset, at rest (its pose buffers already hold the rest pose).
    #[must_use]
    pub fn animator(&self) -> Animator {
        Animator::new(Player::new(&self.rig))
    }

    /// Every clip's name, in the file's order (a clip's index is its place here; unnamed
    /// clips have an empty name).
    #[must_use]
    pub fn clip_names(&self) -> Vec<String> {
        self.data().clips.iter().map(|c| c.name.clone()).collect()
    }

    /// The index of the first clip called `name`.
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.rig.clip_index(name)
    }

    /// The index of the clip called `name`.
    ///
    /// # Errors
    /// [`JsApiError::NoClipNamed`], listing the names there are.
    pub fn clip_named(&self, name: &str) -> Result<usize, JsApiError> {
        self.clip_index(name)
            .ok_or_else(|| JsApiError::NoClipNamed {
                name: name.to_owned(),
                names: self.clip_names(),
            })
    }

    /// Clip `clip`'s length in seconds (its last key time).
    ///
    /// # Errors
    /// [`JsApiError::NoSuchClip`] for an index past the end.
    pub fn clip_duration(&self, clip: usize) -> Result<f32, JsApiError> {
        let clips = &self.data().clips;
        clips
            .get(clip)
            .map(skel_anim::Clip::duration)
            .ok_or(JsApiError::NoSuchClip {
                clip,
                clip_count: clips.len(),
            })
    }

    /// How many nodes the asset has (node world matrices come one per node, in glTF order).
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.data().nodes.len()
    }

    /// Node `node`'s parent, `None` for a root or an index past the end.
    #[must_use]
    pub fn node_parent(&self, node: usize) -> Option<usize> {
        self.data().nodes.get(node).and_then(|n| n.parent)
    }

    /// How many skeleton bindings (skinned mesh nodes) the asset has.
    #[must_use]
    pub fn skeleton_count(&self) -> usize {
        self.data().skeletons.len()
    }

    /// The joint nodes of skeleton binding `binding`, in the skin's joint order: bone `i` of
    /// [`Animator::bone_matrices`] belongs to node `skeleton_joints(binding)[i]`.
    ///
    /// # Errors
    /// [`JsApiError::NoSuchSkeleton`] for an index past the end.
    pub fn skeleton_joints(&self, binding: usize) -> Result<&[usize], JsApiError> {
        Ok(&self.skeleton(binding)?.joints)
    }

    /// The node holding skeleton binding `binding`'s mesh.
    ///
    /// # Errors
    /// [`JsApiError::NoSuchSkeleton`] for an index past the end.
    pub fn skeleton_mesh_node(&self, binding: usize) -> Result<usize, JsApiError> {
        Ok(self.skeleton(binding)?.mesh_node)
    }

    fn skeleton(&self, binding: usize) -> Result<&skel_anim::SkeletonBinding, JsApiError> {
        let skeletons = &self.data().skeletons;
        skeletons.get(binding).ok_or(JsApiError::NoSuchSkeleton {
            binding,
            count: skeletons.len(),
        })
    }

    /// How many morph bindings (morphed mesh primitives) the asset has.
    #[must_use]
    pub fn morph_binding_count(&self) -> usize {
        self.data().morph_bindings.len()
    }

    /// The node holding morph binding `binding`'s mesh.
    ///
    /// # Errors
    /// [`JsApiError::NoSuchMorphBinding`] for an index past the end.
    pub fn morph_binding_node(&self, binding: usize) -> Result<usize, JsApiError> {
        let bindings = &self.data().morph_bindings;
        bindings
            .get(binding)
            .map(|b| b.node)
            .ok_or(JsApiError::NoSuchMorphBinding {
                binding,
                count: bindings.len(),
            })
    }
}
