//! What a [`Crowd`](crate::Crowd) is made of: instances, the starting clip, where they are
//! posed and how they are skinned and culled.

use skel_gpu::{CROWD_STAGING_SLOTS, SkinningMethod};

use crate::Posing;

/// What [`Crowd::new`](crate::Crowd::new) builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdDescriptor {
    /// Instances (at least 1).
    pub instances: u32,
    /// The clip every player starts with (`None`: the rest pose).
    pub clip: Option<usize>,
    /// Whether to create the compute pipelines and the skinned output buffers
    /// (12 + 12 bytes per vertex per instance) for [`Crowd::skin`](crate::Crowd::skin).
    pub compute: bool,
    /// Staging slots of the upload ring.
    pub staging_slots: usize,
    /// How the compute path skins: linear, or dual quaternions (volume-preserving twists).
    /// A mesh whose rest bones carry scale or shear falls back to linear skinning and says so
    /// in [`Crowd::warnings`](crate::Crowd::warnings).
    pub skinning: SkinningMethod,
    /// Where instances are posed: CPU players, or the GPU pose pass (see [`Crowd::posed_on_gpu`](crate::Crowd::posed_on_gpu)).
    pub posing: Posing,
    /// The largest storage binding a chunk of the bone buffer or the skinned output may take
    /// (`None`: the device's `max_storage_buffer_binding_size`); smaller values exercise the
    /// chunking that lets crowds past the limit skin.
    pub max_chunk_bytes: Option<u64>,
    /// With [`Posing::Gpu`]: also set up culling on the GPU ([`Crowd::encode_cull`](crate::Crowd::encode_cull): each
    /// instance boxed from its posed bones, tested against a camera, the visible list and draw
    /// counts written where skinning and drawing read them). It costs 100 bytes of GPU memory
    /// an instance (placement, box, list entry). A CPU-posed crowd culls with
    /// [`Crowd::cull`](crate::Crowd::cull) without it.
    pub gpu_cull: bool,
    /// With [`Posing::Gpu`]`(`[`PoseLayout::Baked`](skel_gpu::PoseLayout::Baked)`)` and
    /// [`gpu_cull`](Self::gpu_cull): pose only the instances the camera sees. A baked
    /// instance's box needs its time, not its bones, so [`Crowd::upload`](crate::Crowd::upload)
    /// advances and boxes every instance, and [`Crowd::encode_cull`](crate::Crowd::encode_cull)
    /// culls and then poses the instances it kept. An instance out of view keeps the matrices
    /// it was last posed with: whatever else reads the bone buffer (a shadow pass with its own
    /// frustum) sees those. A frame that records no `encode_cull` poses nobody.
    pub pose_only_seen: bool,
    /// With [`Posing::Cpu`]: box each instance inside [`Crowd::tick`](crate::Crowd::tick),
    /// right after its player writes its bone matrices, while they are still in the cache, and
    /// keep the boxes (28 bytes an instance, allocated here). Then
    /// [`Crowd::cull`](crate::Crowd::cull) tests one placed box per instance and
    /// [`Crowd::instance_box`](crate::Crowd::instance_box) returns the kept box; without it
    /// `cull` reads every visible instance's bones back from the crowd's bone array, out of the
    /// cache by then in a large crowd. The verdicts and boxes are the same either way. The
    /// boxes are made in every tick, culled or not, and on one core of the dev machine boxing
    /// inside the tick took longer than the separate pass's reading back (docs/bounds.md,
    /// "Boxes made in the tick"): turn it on where that pass waits for memory.
    /// Ignored with [`Posing::Gpu`], whose boxes are made on the GPU
    /// ([`gpu_cull`](Self::gpu_cull)).
    pub boxes_in_tick: bool,
}

impl Default for CrowdDescriptor {
    /// One instance, clip 0, compute skinning on, [`CROWD_STAGING_SLOTS`] slots, CPU posing,
    /// nothing culled on the GPU, boxes made by [`Crowd::cull`](crate::Crowd::cull) itself.
    fn default() -> Self {
        Self {
            instances: 1,
            clip: Some(0),
            compute: true,
            staging_slots: CROWD_STAGING_SLOTS,
            skinning: SkinningMethod::Linear,
            posing: Posing::Cpu,
            max_chunk_bytes: None,
            gpu_cull: false,
            pose_only_seen: false,
            boxes_in_tick: false,
        }
    }
}
