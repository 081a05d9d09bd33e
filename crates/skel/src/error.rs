//! The facade's error types: the one every call returns, and the reasons it carries.

/// What [`load_gltf`](crate::load_gltf) and the container's helpers can fail with: the layer
/// that failed, with its own error (which names the accessor, node, joint or limit).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkelError {
    /// Reading or decoding the glTF file failed.
    #[error(transparent)]
    Gltf(#[from] skel_gltf::GltfError),
    /// Creating or uploading GPU resources failed.
    #[error("GPU resources for {what}: {source}")]
    Gpu {
        /// What was being created: `"skeleton of node 3"`, `"vertex buffers of node 0"`, ….
        what: String,
        /// skel-gpu's error.
        #[source]
        source: skel_gpu::GpuError,
    },
    /// The animation data did not validate, or a clip index is out of range.
    #[error(transparent)]
    Anim(#[from] skel_anim::AnimError),
    /// The primitives of one mesh node disagree in a way one set of GPU buffers cannot hold.
    #[error("mesh node {node}: {reason}")]
    InconsistentMesh {
        /// The node.
        node: usize,
        /// What disagrees, with the numbers.
        reason: String,
    },
    /// A crowd could not be culled as asked.
    #[error(transparent)]
    Cull(#[from] CullError),
    /// A crowd could not be picked as asked.
    #[error(transparent)]
    Pick(#[from] PickError),
    /// A VRM's spring bones or node constraints do not fit its nodes (load time, or
    /// [`SecondaryMotion::from_asset`](crate::SecondaryMotion::from_asset)).
    #[error("the asset's {what}: {source}")]
    Secondary {
        /// `"spring bones"` or `"node constraints"`.
        what: &'static str,
        /// skel-anim's error, naming the node or setting.
        #[source]
        source: skel_anim::AnimError,
    },
    /// Bone control could not be enabled.
    #[cfg(feature = "bone-control")]
    #[error(transparent)]
    BoneControl(#[from] skel_bone_control::BoneControlError),
}

impl SkelError {
    /// A `map_err` adapter naming `what` failed. The name becomes a `String` only when there
    /// is an error: `Crowd::upload` runs this every frame, and an eager conversion was one of
    /// its heap allocations per frame.
    pub(crate) fn gpu(what: impl Into<String>) -> impl FnOnce(skel_gpu::GpuError) -> Self {
        move |source| Self::Gpu {
            what: what.into(),
            source,
        }
    }
}

/// Why [`Frame::advance`](crate::Frame::advance) refused a frame (nothing moved).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The step is NaN or infinite: no clock can move by it.
    #[error("a frame step of {dt} s: the step must be a finite number of seconds")]
    BadStep {
        /// The step given, in seconds.
        dt: f32,
    },
    /// The player, the frame and the container come from different assets: the pose would be
    /// uploaded to meshes it does not fit.
    #[error(
        "the animated player has {animated} {what}, the container {container}: make players \
         with Player::new(&container.rig) and the frame with Frame::new(&container)"
    )]
    OtherAsset {
        /// What differs (`"nodes"`, `"skeleton bindings"`, `"morph bindings"`, or
        /// `"nodes (frame)"` for a frame made for another container).
        what: &'static str,
        /// The count on the player's (or the frame's) side.
        animated: usize,
        /// The container's count.
        container: usize,
    },
}

/// Why a crowd cannot be culled as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CullError {
    /// A GPU-posed crowd has no bone matrices on the CPU: cull it on the GPU
    /// ([`Crowd::encode_cull`](crate::Crowd::encode_cull), with
    /// [`CrowdDescriptor::gpu_cull`](crate::CrowdDescriptor::gpu_cull)).
    #[error("the crowd is posed on the GPU; cull it there (Crowd::encode_cull)")]
    PosedOnGpu,
    /// A CPU-posed crowd is culled on the CPU ([`Crowd::cull`](crate::Crowd::cull)), where
    /// its bones are.
    #[error("the crowd is posed on the CPU; cull it there (Crowd::cull)")]
    PosedOnCpu,
    /// The GPU-posed crowd was made without [`CrowdDescriptor::gpu_cull`](crate::CrowdDescriptor::gpu_cull).
    #[error("the crowd was made without a GPU cull (CrowdDescriptor::gpu_cull)")]
    GpuCullOff,
    /// [`CrowdDescriptor::pose_only_seen`](crate::CrowdDescriptor::pose_only_seen) without
    /// baked GPU posing and the GPU cull.
    #[error(
        "posing only what is seen needs Posing::Gpu(PoseLayout::Baked) and CrowdDescriptor::gpu_cull"
    )]
    PoseOnlySeen,
    /// Fewer placements than instances.
    #[error("{given} placements for {instances} instances")]
    Placements {
        /// Placements given.
        given: usize,
        /// Instances in the crowd.
        instances: usize,
    },
}

/// Why a crowd cannot be picked as asked ([`CrowdPicker::pick`](crate::CrowdPicker::pick)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PickError {
    /// A GPU-posed crowd has no bone matrices on the CPU: pick it on the GPU with
    /// [`skel_gpu::CrowdPick`].
    #[error("the crowd is posed on the GPU; pick it there (skel_gpu::CrowdPick)")]
    PosedOnGpu,
    /// Fewer placements than instances.
    #[error("{given} placements for {instances} instances")]
    Placements {
        /// Placements given.
        given: usize,
        /// Instances in the crowd.
        instances: usize,
    },
    /// The ray has a NaN or infinite component, or no direction.
    #[error(transparent)]
    Ray(#[from] skel_gltf::RayError),
}
