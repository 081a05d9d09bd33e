//! skel: GPU skeletal animation from glTF 2.0 — skins, clips, morph targets and bone control,
//! skinned on the GPU with wgpu. This facade is the one dependency for people who want all of
//! it; the layers are also crates of their own:
//!
//! | module | crate | what |
//! | --- | --- | --- |
//! | [`math`] | `skel-math` | column-major mat4/quat helpers over `&mut [f32]` |
//! | [`anim`] | `skel-anim` | samplers, clips, pose pipeline, controllers, groups, blending, CPU skinning |
//! | [`gltf`] | `skel-gltf` | glTF/GLB → CPU data (`AnimationData`, vertex streams) |
//! | [`gpu`] | `skel-gpu` | bone textures, joint/weight buffers, morph buffers, WGSL fragments |
//! | `bone_control` | `skel-bone-control` | opt-in bone overrides (feature `bone-control`) |
//!
//! [`load_gltf`] ties them together: it reads a file, creates a GPU skeleton per skinned mesh,
//! morph buffers per morphed mesh and one animation group per clip, and returns an
//! [`AssetContainer`]. Every frame, tick a group into the container's meshes and draw them with
//! a vertex shader composed from [`gpu::ShaderFragment`].
//!
//! ```
//! use skel::{LoadOptions, gpu::GpuContext, load_gltf};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = match GpuContext::new_headless() {
//!     Ok(ctx) => ctx,
//!     Err(e) => {
//!         eprintln!("no GPU adapter, nothing to show: {e}");
//!         return Ok(());
//!     }
//! };
//! // The project's own character: a 20+ joint humanoid with Walk and Wave clips.
//! let glb = include_bytes!("../../../fixtures/default_character.glb");
//! let mut character = load_gltf(&ctx, &glb[..], &LoadOptions::default())?;
//!
//! let walk = character.clip_index("Walk").unwrap_or(0);
//! character.animation_groups[walk].play();
//! for _ in 0..3 {
//!     // Samples the clip, walks the hierarchy and uploads bone matrices and morph weights.
//!     character.tick_animation(walk, 1000.0 / 60.0, &ctx.queue);
//! }
//! let mesh = &character.meshes[0];
//! let fragment = skel::gpu::ShaderFragment::new(mesh.skinning_variant(), Default::default());
//! assert!(fragment.compose("").contains("fn skel_skin_vertex"));
//! # Ok(())
//! # }
//! ```
//!
//! For many instances of one asset, [`Crowd`] poses every instance into one contiguous array,
//! uploads it once per frame into one GPU buffer and skins the whole crowd in one compute
//! dispatch per mesh (or in your vertex shader); see the `crowd` example.
//!
//! With the `bone-control` feature and [`LoadOptions::with_bone_control`], the container also
//! holds one `skel::bone_control::Skeleton` handle per skinned mesh (`container.skeletons`), and
//! every animation group applies the overrides set through it.

#![forbid(unsafe_code)]

pub use skel_anim as anim;
#[cfg(feature = "bone-control")]
pub use skel_bone_control as bone_control;
pub use skel_gltf as gltf;
pub use skel_gpu as gpu;
pub use skel_math as math;

mod container;
mod crowd;
mod error;
mod mesh;
mod mesh_skeleton;
mod options;
mod source;
mod topology;

pub use container::{AssetContainer, MeshPoseSink, VERTEX_BUFFER_USAGE, from_asset, load_gltf};
pub use crowd::{Crowd, CrowdDescriptor, CrowdMesh};
pub use error::SkelError;
pub use mesh::{Mesh, MeshMorph, Primitive};
pub use mesh_skeleton::MeshSkeleton;
pub use options::LoadOptions;
pub use skel_gpu::SkinningMethod;
pub use source::Source;
pub use topology::{Topology, list_indices, list_topology};
