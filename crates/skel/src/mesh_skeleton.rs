//! The slot where a skinned mesh keeps its GPU skeleton.

use std::sync::Arc;

use skel_gpu::SkeletonGpu;

/// A skinned mesh's GPU skeleton and the skeleton binding whose bone matrices it receives.
///
/// With bone control enabled at load, `gpu.handle` holds the mesh's bone-control association
/// (the seed's `SkeletonData._skeleton`), read back by `skel::bone_control::get_mesh_skeleton`.
/// Device-loss recovery (`SkeletonGpu::recreate`) rebuilds GPU fields only and keeps it.
///
/// Cloning is cheap and shares: both copies hold the same `Arc<SkeletonGpu>`, so they draw
/// from one bone texture and one upload poses both (the seed's clones sharing runtime skeleton
/// data, and with it the bone-control handle). `SkeletonGpu::recreate` needs the skeleton
/// unshared (`Arc::get_mut`).
#[derive(Debug, Clone)]
pub struct MeshSkeleton {
    /// Bone texture and joint/weight buffers, shared by every clone of the mesh.
    pub gpu: Arc<SkeletonGpu>,
    /// Index in `AnimationData::skeletons`.
    pub binding: usize,
}
