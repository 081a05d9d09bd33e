//! GPU skinning for skel on wgpu: bone textures, joint/weight buffers, morph targets, the
//! per-frame upload sink, WGSL skinning fragments and a compute skinning pipeline.
//!
//! The pieces, in the order a frame meets them:
//!
//! - [`GpuContext`]: device, queue, adapter info and limits (the seed's `EngineContext`).
//!   [`GpuContext::new_headless`] makes one without a window.
//! - [`create_skeleton`] → [`SkeletonGpu`]: the bone texture (`rgba32float`, 4 texels per bone,
//!   wrapping into rows past the device's width, see [`BoneTextureLayout`]) and the joints
//!   (`Uint32x4`) / weights (`Float32x4`) vertex buffers, 4, 8 or 16 influences ([`create_skeleton_with`] for 16), with a CPU mirror.
//! - [`create_morph`] → [`MorphGpu`]: morph weights uniform (up to [`MAX_MORPH_TARGETS`]) and
//!   the position/normal deltas of every target, in a storage buffer, or in a texture where
//!   vertex shaders have no storage buffers (WebGL2; [`MorphDeltaStorage`],
//!   [`create_morph_with`] to choose).
//! - [`GpuPoseSink`]: what `skel_anim::AnimationController::tick` writes to; uploads bone
//!   matrices with `write_texture` and morph weights with `write_buffer`, allocation-free.
//! - [`ShaderFragment`]: WGSL to include in a vertex shader (`skel_skin_vertex(...)`), in
//!   variants for 0/4/8/16 influences × morph on/off, with the user's group/binding/locations
//!   (and, for morph, deltas from a buffer or a texture:
//!   [`ShaderFragment::with_morph_deltas`]).
//! - [`ComputeSkinning`]: the same skinning as a compute pass writing skinned position and
//!   normal buffers, with compact input formats (`u8`/`u16` joints, `unorm8`/`unorm16` weights)
//!   and a [`ComputeTuning`] (bone cache layout, tiles per workgroup, vertices per iteration)
//!   whose default is what measured fastest on an NVIDIA H200 (`docs/benchmarks.md`).
//! - [`create_buffers_init`]: several buffers filled from one staging buffer, as the two
//!   create functions above fill theirs (one temporary allocation per call keeps later
//!   per-frame uploads fast when many meshes are loaded; see `src/staging.rs`).
//! - [`CrowdBones`], [`CrowdSkinning`], [`crowd_vertex_wgsl`]: many instances of one asset —
//!   every instance's bone matrices in one storage buffer written once per frame through a
//!   staging ring, skinned in one compute dispatch per mesh, or in the user's vertex shader
//!   (instance index → bone offset). Meshes with morph targets are morphed per instance
//!   before compute skinning ([`CrowdSkinning::with_morph`], [`CrowdMorphInputs`]; weights
//!   from [`GpuCrowdPose::morph_buffer`] or uploaded with the bones,
//!   [`CrowdBones::upload_with_morph_weights`]); the vertex fragment does not morph.
//! - [`GpuClipSet`] → [`GpuClips`] → [`GpuCrowdPose`]: posing on the GPU. An asset's clips
//!   resampled at a uniform rate per clip (the error against the lossless CPU pose measured and
//!   bounded), and a pass that advances every instance's playheads by `dt`, samples up to two
//!   clips per instance, walks the hierarchy and writes the skinning matrices into a
//!   [`CrowdBones`] buffer ([`CrowdBones::new_gpu_posed`]), in chunks under the storage binding
//!   limit. A steady crowd uploads one uniform per chunk per frame and nothing per instance.
//! - [`CrowdCull`]: bounds and frustum culling of a crowd on the GPU: each instance's world box
//!   from the character's bounding spheres under its bone matrices, the visible instances in a
//!   list and a `DrawIndexedIndirect` of them, nothing read back (`docs/bounds.md`).
//! - [`CrowdPick`]: one ray (or a screen pixel, [`pick_ray_from_pixel`]) against every
//!   instance on the GPU: box test first, then the candidates' skinned triangles; the
//!   instance, primitive, triangle, barycentrics and distance of the nearest hit, the answer
//!   skel-gltf's CPU `pick` gives per instance (`docs/bounds.md`).
//! - [`dual_quat`]: dual-quaternion skinning's CPU reference and [`SkinningMethod`] (the crowd
//!   compute path skins with either).
//! - Device loss: [`SkeletonGpu::recreate`] / [`MorphGpu::recreate`] rebuild the GPU fields
//!   from the CPU mirrors on a new device, leaving the `handle` association alone.
//!
//! Conventions: bone matrices cross this API as [`glam::Mat4`] (re-exported as [`glam`]),
//! one per bone, column-major (the layout of glTF and WGSL's `mat4x4<f32>`), in the mesh's
//! units; a `&[Mat4]` is cast to the bytes the GPU reads for free (bytemuck). Dual quaternions
//! are [`DualQuat`], points and normals [`glam::Vec3`]. Weights, morph values and vertex
//! streams (3 floats per vertex, as glTF stores them) stay `&[f32]`.
//!
//! ```no_run
//! use skel_gpu::*;
//!
//! let ctx = GpuContext::new_headless()?;
//! // One vertex fully bound to bone 0, which translates by +1 in x.
//! let mut bone = [glam::Mat4::from_translation(glam::Vec3::X)];
//! let mut skeleton = create_skeleton(
//!     &ctx,
//!     JointIndices::U8(&[0, 0, 0, 0]),
//!     &[1.0, 0.0, 0.0, 0.0],
//!     1,
//!     &bone,
//!     None,
//!     None,
//! )?;
//! bone[0].w_axis.x = 2.0;
//! update_skeleton_bone_matrices(&ctx, &mut skeleton, &bone)?;
//! let fragment = ShaderFragment::for_skeleton(&skeleton, false, FragmentBindings::default());
//! assert!(fragment.source().contains("fn skel_skin_vertex"));
//! # Ok::<(), GpuError>(())
//! ```

#![forbid(unsafe_code)]

/// The glam this crate's API speaks: bone matrices are [`glam::Mat4`] (column-major, glTF's and
/// WGSL's layout), cast to bytes for free with bytemuck; use this re-export to name the same
/// version.
pub use glam;

mod bind_entries;
mod bone_layout;
mod bone_texture;
mod buffers;
mod clip_error;
mod clip_set;
mod compute;
mod compute_config;
mod compute_formats;
mod compute_pass;
mod compute_tuning;
mod context;
mod crowd;
mod crowd_dispatch;
mod crowd_morph;
mod crowd_skinning;
mod crowd_vertex;
mod cull;
mod cull_inputs;
pub mod dual_quat;
mod error;
mod frustum;
mod joints;
mod map_wait;
mod morph;
mod morph_storage;
mod morph_texture;
mod morph_upload;
mod pick;
mod pick_inputs;
mod pick_morph;
mod pose_bounds;
mod pose_data;
mod pose_listed;
mod pose_pass;
mod pose_pipeline;
pub mod readback;
pub mod shader;
mod sink;
mod skeleton;
mod staging;

pub use bone_layout::{BONE_VEC4S_CONSTANT, BoneLayout};
pub use bone_texture::{BONE_TEXEL_BYTES, BONE_TEXTURE_FORMAT, BoneTextureLayout};
pub use buffers::{BufferInit, MIN_BUFFER_SIZE, create_buffers_init, padded_buffer_size};
pub use clip_error::{bone_error, frame_at};
pub use clip_set::{
    BAKED_BONE_VEC4S, BAKED_BOX_VEC4S, BAKED_MAX_RATE, BakedClips, GpuClipSet, GpuClipSetOptions,
    GpuClipTable, NO_PARENT, POSE_NODE_VEC4S,
};
pub use compute::{ComputeSkinning, ComputeSkinningBindings, ComputeSkinningInputs};
pub use compute_config::ComputeSkinningConfig;
pub use compute_formats::{JointFormat, WeightFormat};
pub use compute_pass::groups_2d;
pub use compute_tuning::{
    BoneCacheLayout, COMPUTE_AUTO_WORKGROUPS, COMPUTE_BONE_CACHE_SIZE, COMPUTE_FRAGMENT_GROUP,
    COMPUTE_MAX_AUTO_TILES, COMPUTE_WORKGROUP_SIZE, ComputeTuning,
};
pub use context::{GpuContext, HeadlessOptions};
pub use crowd::{
    CROWD_BONE_BYTES, CROWD_BUFFER_USAGE, CROWD_STAGING_SLOTS, CrowdBones, CrowdBonesDescriptor,
};
pub use crowd_dispatch::{CROWD_DISPATCH_WGSL, CrowdDispatch, DISPATCH_ARGS_BYTES};
pub use crowd_morph::CrowdMorphInputs;
pub use crowd_skinning::{
    CROWD_COMPUTE_WGSL, CROWD_WORKGROUP_SIZE, CrowdSkinning, CrowdSkinningBindings,
    CrowdSkinningInputs, crowd_mesh_params,
};
pub use crowd_vertex::{CROWD_VERTEX_WGSL, crowd_vertex_layout_entries, crowd_vertex_wgsl};
pub use cull::{
    CULL_WGSL, CULL_WORKGROUP_SIZE, CrowdCull, CrowdCullDescriptor, DRAW_INDEXED_INDIRECT_BYTES,
};
pub use cull_inputs::{CullBone, CullInputs, CullPart};
pub use dual_quat::{DualQuat, SkinningMethod};
pub use error::GpuError;
pub use frustum::frustum_planes;
pub use joints::JointIndices;
pub use morph::{
    MORPH_WEIGHTS_MIN_UPLOAD, MorphGpu, create_morph, create_morph_with, update_morph_weights,
};
pub use morph_storage::MorphDeltaStorage;
pub use morph_texture::{
    MORPH_TEXEL_BYTES, MORPH_TEXTURE_FORMAT, MORPH_TEXTURE_MIN_WIDTH, MorphTextureLayout,
};
pub use morph_upload::{MAX_MORPH_TARGETS, MORPH_COUNTS_OFFSET, MORPH_PARAMS_SIZE};
pub use pick::{CrowdPick, CrowdPickDescriptor, PICK_WGSL, PICK_WORKGROUP_SIZE, PickMorphWeights};
pub use pick_inputs::{CrowdPickHit, CrowdPickPrimitive, PickTopology, pick_ray_from_pixel};
pub use pick_morph::PickMorph;
pub use pose_bounds::{
    POSE_GROUP_CONSTANT, POSE_GROUP_THREADS, PoseBounds, PoseBoundsTable, PoseOptions, PoseTuning,
};
pub use pose_data::PoseLayout;
pub use pose_data::{
    GpuClips, GpuCrowdPoseDescriptor, POSE_MAX_CHARACTER_NODES, POSE_MAX_CLIPS, POSE_WGSL,
    PoseInstance,
};
pub use pose_pass::{GpuCrowdPose, POSE_WORKGROUP_SIZE};
pub use shader::{
    FragmentBindings, Influences, ShaderFragment, SkinningVariant, bone_texture_layout_entry,
};
pub use sink::GpuPoseSink;
pub use skeleton::{
    INFLUENCE_BUFFER_USAGE, INFLUENCE_STRIDE, InfluenceSet, JOINTS_VERTEX_FORMAT,
    SkeletonDescriptor, SkeletonGpu, WEIGHTS_VERTEX_FORMAT, create_skeleton, create_skeleton_with,
    update_skeleton_bone_matrices,
};
