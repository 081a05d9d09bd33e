//! The slot where a skinned mesh keeps its GPU skeleton.

use skel_gpu::SkeletonGpu;

/// A skinned mesh's GPU skeleton and the skeleton binding whose bone matrices it receives.
///
/// With bone control enabled at load, `gpu.handle` holds the mesh's bone-control association
/// (the seed's `SkeletonData._skeleton`), read back by `skel::bone_control::get_mesh_skeleton`.
/// Device-loss recovery (`SkeletonGpu::recreate`) rebuilds GPU fields only and keeps it.
#[derive(Debug)]
pub struct MeshSkeleton {
    /// Bone texture and joint/weight buffers.
    pub gpu: SkeletonGpu,
    /// Index in `AnimationData::skeletons`.
    pub binding: usize,
}
