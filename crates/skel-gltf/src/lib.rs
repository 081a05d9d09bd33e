//! skel-gltf turns a glTF 2.0 file (`.gltf` with external or embedded buffers, or `.glb`) into
//! the plain CPU data the rest of skel works with: the [`AnimationData`](skel_anim::AnimationData)
//! of `skel-anim` (nodes at rest, clips, skeleton and morph bindings), skins, and the vertex
//! streams of every mesh primitive. It creates no GPU resources.
//!
//! It is built on the `gltf` crate's JSON types but reads accessors itself, so that every
//! component type glTF allows (and `KHR_mesh_quantization`'s) is decoded, sparse accessors
//! are applied, and every malformed input becomes a [`GltfError`] naming the accessor or node
//! at fault — never a panic, never an allocation sized by an unchecked header.
//!
//! ```
//! use skel_gltf::{LoadOptions, load_slice};
//!
//! // A one-node file without meshes: nothing to skin, but it loads.
//! let json = br#"{"asset":{"version":"2.0"},"nodes":[{"name":"root"}],"scenes":[{"nodes":[0]}]}"#;
//! let asset = load_slice(json, None, &LoadOptions::default()).unwrap();
//! assert_eq!(asset.animation.nodes[0].name, "root");
//! assert!(asset.primitives.is_empty());
//! ```
//!
//! Semantics (glTF 2.0 §3.7.3 and what reference engines do):
//! - a skinned mesh node's own transform is ignored: its vertices are placed by its joints
//!   (`world = Σ wᵢ · jointWorldᵢ · inverseBindᵢ · v`); `skin.skeleton` is only a hint;
//! - skin weights are divided by their sum over *all* influence sets;
//! - rotation keys and rest rotations are normalised;
//! - handedness is chosen at load ([`LoadOptions::handedness`]): left-handed by default (root
//!   nodes mirrored in x, as Babylon.js and the seed do), or glTF's right-handed space.

#![forbid(unsafe_code)]

mod accessor;
mod animation;
mod asset;
mod bounds;
mod box_join;
mod budget;
mod channel_split;
mod compressed;
mod document;
mod error;
mod extensions;
mod external_files;
mod glb;
mod human_bone;
mod image;
mod influences;
mod joint_spheres;
mod material;
mod mesh;
mod morph_names;
mod nodes;
mod pick;
mod pick_filter;
mod pointer;
mod pose;
mod property_tracks;
mod rest_pose;
mod samplers;
mod skin;
mod skinned;
mod stored_clips;
mod texture_transform;
mod uri;
pub mod vrm;
mod vrm_error;
mod warnings;
mod write;

pub use asset::{
    GltfAsset, LoadOptions, load_document, load_path, load_slice, load_slice_with_files,
    parse_animation_data,
};
pub use bounds::{BoneSphere, CharacterBounds, carried_spheres_box};
pub use channel_split::{SetAsideChannel, SetAsideTarget};
/// The pure-Rust `EXT_meshopt_compression` / `KHR_meshopt_compression` decoder the loader
/// uses (public for callers holding raw streams, and for the tests and benches that hold it to
/// meshoptimizer's).
#[cfg(feature = "meshopt")]
pub use compressed::meshopt;
pub use document::GltfDocument;
pub use error::GltfError;
pub use extensions::{ExtensionSupport, extension_support};
pub use external_files::{ExternalFiles, FileMap};
pub use influences::{GPU_MAX_INFLUENCES, GpuInfluences, reduced_vertex_count};
pub use joint_spheres::JointSpheres;
pub use material::{AlphaMode, DecodedImage, ImageSlot, MaterialInfo, TextureRef};
pub use mesh::{MeshInfo, PrimitiveData, PrimitiveMode};
pub use morph_names::MorphNames;
pub use nodes::NodeInfo;
pub use pick::{PickHit, PosedPositions, RayError, pick, pick_primitives, ray_box_entry};
pub use pick_filter::{PickFilter, PickFilterScratch};
pub use pointer::{
    CameraField, LightField, MaterialField, Pointed, PropertyTarget, TextureSlot, UvField,
    parse_pointer,
};
pub use pose::CpuPoser;
pub use rest_pose::{SkinData, compute_bone_texture_data, extract_skin, rest_world_matrices};
pub use skin::SkinInfo;
pub use skinned::SkinnedPose;
pub use stored_clips::{COMPRESSED_ANIMATION, write_compressed_glb, write_compressed_glb_file};
pub use texture_transform::TextureTransform;
pub use warnings::LoadWarning;
pub use write::{pack_glb, write_glb, write_glb_file};
