//! How [`load_gltf`](crate::load_gltf) loads.

use skel_anim::{Handedness, RigOptions};
use skel_gpu::{GpuContext, MorphDeltaStorage};

use crate::{ClipMirroring, SecondaryOptions};
use skel_anim::spring::SpringOptions;

/// Load options. Build from [`LoadOptions::default`] and the `with_*` methods.
///
/// ```
/// use skel::{LoadOptions, anim::Handedness};
///
/// let options = LoadOptions::default().with_handedness(Handedness::RightHanded);
/// assert!(options.decode_images);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Left-handed by default (root nodes mirrored in x, as the seed and Babylon.js do), or
    /// glTF's own right-handed space.
    pub handedness: Handedness,
    /// Decode base-colour textures (default true).
    pub decode_images: bool,
    /// Create bone-control [`Skeleton`](skel_bone_control::Skeleton) handles and install the
    /// override hook on every animation group (the seed's `enableBoneControl()` before load).
    /// Off by default: without it no handle or override map exists.
    #[cfg(feature = "bone-control")]
    pub bone_control: bool,
    /// How the asset's [`Rig`](skel_anim::Rig) is compiled: the CPU kernels, and whether its
    /// clips are compressed within an error bound ([`skel_anim::Compression`]; lossless by
    /// default).
    pub rig: RigOptions,
    /// Where morph deltas go on the GPU. `None` (the default) lets the device decide
    /// ([`MorphDeltaStorage::for_context`]): a storage buffer where vertex shaders may read
    /// one, a texture on WebGL2, which has none. `Some` forces one, e.g. the texture on a
    /// native device to see what WebGL2 draws. Compute and crowd skinning read the deltas from
    /// a storage buffer and refuse texture-backed morph targets
    /// ([`GpuError::MorphDeltaMismatch`](skel_gpu::GpuError::MorphDeltaMismatch)).
    pub morph_deltas: Option<MorphDeltaStorage>,
    /// Mirrored clips baked at load ([`ClipMirroring`]; none by default).
    pub mirror: ClipMirroring,
    /// A VRM's spring bones and node constraints: on by default, so that every player made
    /// with [`AssetContainer::player`](crate::AssetContainer::player) (and every crowd
    /// instance) swings its hair without another call.
    pub secondary: SecondaryOptions,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            handedness: Handedness::LeftHanded,
            decode_images: true,
            #[cfg(feature = "bone-control")]
            bone_control: false,
            rig: RigOptions::default(),
            morph_deltas: None,
            mirror: ClipMirroring::None,
            secondary: SecondaryOptions::default(),
        }
    }
}

impl LoadOptions {
    /// These options with `handedness`.
    #[must_use]
    pub fn with_handedness(mut self, handedness: Handedness) -> Self {
        self.handedness = handedness;
        self
    }

    /// These options with mirrored clips baked at load ([`ClipMirroring`]).
    #[must_use]
    pub fn with_mirror(mut self, mirror: ClipMirroring) -> Self {
        self.mirror = mirror;
        self
    }

    /// These options with image decoding on or off.
    #[must_use]
    pub fn with_decode_images(mut self, decode_images: bool) -> Self {
        self.decode_images = decode_images;
        self
    }

    /// These options with bone control on or off.
    #[cfg(feature = "bone-control")]
    #[doc(alias = "enableBoneControl")]
    #[must_use]
    pub fn with_bone_control(mut self, bone_control: bool) -> Self {
        self.bone_control = bone_control;
        self
    }

    /// These options with the rig compiled as `rig` says: for example its clips compressed
    /// within ACL's default error bound (0.01 cm at 3 cm from each joint).
    ///
    /// ```
    /// use skel::LoadOptions;
    /// use skel::anim::{Compression, RigOptions};
    ///
    /// let rig = RigOptions { compression: Some(Compression::default()), ..RigOptions::default() };
    /// let options = LoadOptions::default().with_rig(rig);
    /// assert_eq!(options.rig.compression, Some(Compression::default()));
    /// ```
    #[must_use]
    pub fn with_rig(mut self, rig: RigOptions) -> Self {
        self.rig = rig;
        self
    }

    /// These options with morph deltas in `storage` (`None`: as the device allows).
    ///
    /// ```
    /// use skel::LoadOptions;
    /// use skel::gpu::MorphDeltaStorage;
    ///
    /// let options = LoadOptions::default().with_morph_deltas(Some(MorphDeltaStorage::Texture));
    /// assert_eq!(options.morph_deltas, Some(MorphDeltaStorage::Texture));
    /// ```
    #[must_use]
    pub fn with_morph_deltas(mut self, storage: Option<MorphDeltaStorage>) -> Self {
        self.morph_deltas = storage;
        self
    }

    /// These options with a VRM's spring bones stepped as `springs` says (its fixed step,
    /// host loop and profile), or left out with `None` (the chains then hold what the clips
    /// give them).
    ///
    /// ```
    /// use skel::LoadOptions;
    /// use skel::anim::spring::{SpringOptions, SpringProfile};
    ///
    /// let univrm = SpringOptions { profile: SpringProfile::UniVrm, ..SpringOptions::default() };
    /// let options = LoadOptions::default().with_springs(Some(univrm));
    /// assert_eq!(options.secondary.springs, Some(univrm));
    /// assert!(LoadOptions::default().with_springs(None).secondary.springs.is_none());
    /// ```
    #[must_use]
    pub fn with_springs(mut self, springs: Option<SpringOptions>) -> Self {
        self.secondary.springs = springs;
        self
    }

    /// These options with a VRM's node constraints run (the default) or not.
    #[must_use]
    pub fn with_node_constraints(mut self, on: bool) -> Self {
        self.secondary.node_constraints = on;
        self
    }

    /// Where morph deltas go on `ctx`.
    pub(crate) fn morph_deltas_on(&self, ctx: &GpuContext) -> MorphDeltaStorage {
        self.morph_deltas
            .unwrap_or_else(|| MorphDeltaStorage::for_context(ctx))
    }

    pub(crate) fn gltf(&self) -> skel_gltf::LoadOptions {
        let mut options = skel_gltf::LoadOptions::with_handedness(self.handedness);
        options.decode_images = self.decode_images;
        options
    }
}
