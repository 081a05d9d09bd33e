//! What skel does with each glTF extension: the one table behind the `extensionsRequired`
//! check and `skel info`'s extension list.

/// How skel treats an extension a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExtensionSupport {
    /// Decoded or applied: the file means what it says.
    Applied(&'static str),
    /// Read past: it changes nothing skel computes or draws, or skel draws without it.
    Ignored(&'static str),
    /// Not implemented: a file that *requires* it is refused with
    /// [`GltfError::UnsupportedExtension`](crate::GltfError::UnsupportedExtension).
    Refused,
}

impl ExtensionSupport {
    /// Whether a file that lists the extension in `extensionsRequired` still loads.
    #[must_use]
    pub fn loads_when_required(self) -> bool {
        !matches!(self, Self::Refused)
    }

    /// A word for the kind (`applied`, `ignored`, `refused`).
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            Self::Applied(_) => "applied",
            Self::Ignored(_) => "ignored",
            Self::Refused => "refused",
        }
    }

    /// What skel does with it, in a sentence.
    #[must_use]
    pub fn detail(self) -> &'static str {
        match self {
            Self::Applied(d) | Self::Ignored(d) => d,
            Self::Refused => "not implemented by skel",
        }
    }
}

/// meshopt in this build: decoded (every target: the decoder is Rust), or (the `meshopt`
/// feature off) read from the fallback data when the file has some and refused by name
/// otherwise.
#[cfg(feature = "meshopt")]
const MESHOPT: ExtensionSupport = ExtensionSupport::Applied(
    "buffer views decoded by skel's Rust meshopt decoder (attribute formats 0 and 1, \
     triangles, indices; filters octahedral, quaternion, exponential, colour); a stream that \
     fails falls back to the file's fallback data",
);
#[cfg(not(feature = "meshopt"))]
const MESHOPT: ExtensionSupport = ExtensionSupport::Ignored(
    "not decoded by this build: the fallback data is read, a file without it is refused \
     (re-export with gltfpack without -c)",
);

/// Draco in this build: decoded, or (the `draco` feature off) the uncompressed fallback
/// accessors read and a file without them refused by name.
#[cfg(feature = "draco")]
const DRACO: ExtensionSupport =
    ExtensionSupport::Applied("primitives decoded with draco-core into the accessors' own types");
#[cfg(not(feature = "draco"))]
const DRACO: ExtensionSupport = ExtensionSupport::Ignored(
    "not decoded by this build: uncompressed fallback accessors are read, a file without \
     them is refused",
);

/// Every extension skel knows, with what it does.
const TABLE: &[(&str, ExtensionSupport)] = &[
    (
        "KHR_mesh_quantization",
        ExtensionSupport::Applied("integer vertex attributes decoded (normalised or not)"),
    ),
    (
        "KHR_texture_transform",
        ExtensionSupport::Applied(
            "base colour texture: offset, rotation, scale and texCoord, in the file and animated, \
             applied by skel's renderer (so gltfpack's quantised UVs draw in place); the \
             transforms of other slots are read and sampled, their textures are not drawn",
        ),
    ),
    (
        "KHR_animation_pointer",
        ExtensionSupport::Applied(
            "pointer channels: node TRS and weights as joint channels, material, texture \
             transform, visibility, camera and light properties as property tracks (sampled and \
             blended by the player; skel's renderer draws base colour, alpha cutoff, emission, \
             the base colour texture's transform and visibility)",
        ),
    ),
    (
        "KHR_node_visibility",
        ExtensionSupport::Applied(
            "`visible`, in the file and animated: skel's renderer hides the node's mesh and its \
             descendants'",
        ),
    ),
    (
        "SKEL_compressed_animation",
        ExtensionSupport::Applied(
            "skel's compressed clips (written by `skel compress --out`): decoded into the \
             animation's samplers and played as stored, bit for bit what the compressor measured",
        ),
    ),
    ("EXT_meshopt_compression", MESHOPT),
    ("KHR_meshopt_compression", MESHOPT),
    ("KHR_draco_mesh_compression", DRACO),
    (
        "EXT_texture_webp",
        ExtensionSupport::Applied("WebP images decoded"),
    ),
    (
        "KHR_texture_basisu",
        ExtensionSupport::Ignored(
            "KTX2 is not decoded: the texture's fallback image is drawn, else the base colour",
        ),
    ),
    (
        "KHR_lights_punctual",
        ExtensionSupport::Ignored("lights are not drawn; their animated properties are sampled"),
    ),
    (
        "KHR_materials_emissive_strength",
        ExtensionSupport::Applied(
            "multiplies the emission skel's renderer draws (materials without an emissive \
             texture), in the file and animated",
        ),
    ),
    (
        "VRMC_vrm",
        ExtensionSupport::Applied(
            "VRM 1.0 avatar: meta, humanoid bone map, lookAt and expressions (morph target \
             binds; material binds kept as data), in `GltfAsset::vrm`",
        ),
    ),
    (
        "VRMC_springBone",
        ExtensionSupport::Applied(
            "spring bones: colliders, collider groups and springs, read into skel-anim's \
             spring description",
        ),
    ),
    (
        "VRMC_springBone_extended_collider",
        ExtensionSupport::Applied("inside spheres and capsules, and planes, as spring colliders"),
    ),
    (
        "VRMC_node_constraint",
        ExtensionSupport::Applied("roll, aim and rotation constraints, read per node"),
    ),
    (
        "VRMC_vrm_animation",
        ExtensionSupport::Applied(
            "a .vrma clip: its humanoid bone map, expression and lookAt nodes, read by \
             `skel_gltf::vrm::VrmAnimation` and played on avatars by `skel_retarget::Vrma`",
        ),
    ),
    (
        "VRM",
        ExtensionSupport::Applied(
            "VRM 0.x avatar: humanoid, meta, blend shapes and secondaryAnimation converted to \
             the VRM 1.0 model as three-vrm converts them",
        ),
    ),
    (
        "KHR_materials_unlit",
        ExtensionSupport::Ignored("shading only; skel's renderer lights every material"),
    ),
];

/// What skel does with `name`. Material extensions other than those named are shading only
/// (skel draws base colour and emission), so they load and are ignored.
#[must_use]
pub fn extension_support(name: &str) -> ExtensionSupport {
    if let Some(&(_, s)) = TABLE.iter().find(|(n, _)| *n == name) {
        return s;
    }
    if name.starts_with("KHR_materials_") {
        return ExtensionSupport::Ignored("shading only: skel draws the base colour");
    }
    ExtensionSupport::Refused
}
