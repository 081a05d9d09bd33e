//! A crowd posed on the GPU: the asset's clips resampled once ([`skel_gpu::GpuClipSet`]), the
//! instances' playback as 32-byte [`PoseInstance`]s the GPU advances by `dt` every frame
//! ([`skel_gpu::GpuCrowdPose`]), and reading chosen instances' poses back without stalling the
//! frame ([`PoseReadback`]).

use skel_anim::Rig;
use skel_gpu::glam::Mat4;
use skel_gpu::{
    BakedClips, CROWD_BONE_BYTES, CrowdBones, GpuClipSet, GpuClipSetOptions, GpuClips, GpuContext,
    GpuCrowdPose, GpuCrowdPoseDescriptor, GpuError, PoseBounds, PoseBoundsTable, PoseInstance,
    PoseLayout, PoseOptions,
};

use crate::crowd_cull_pass::GpuCull;

/// Where a [`Crowd`](crate::Crowd) poses its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Posing {
    /// One [`Player`](skel_anim::Player) per instance on the CPU, bones uploaded every frame:
    /// every player feature (layers, masks, IK, events, root motion).
    #[default]
    Cpu,
    /// On the GPU with the given thread layout: up to two clips per instance (a cross-fade or
    /// a 1D blend), playheads advanced on the GPU, nothing uploaded per instance per frame.
    Gpu(PoseLayout),
}

/// What a crowd's GPU posing is built for (from its
/// [`CrowdDescriptor`](crate::CrowdDescriptor)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct GpuPosingSpec {
    /// The clip every instance starts with (`None`: clip 0 at rest).
    pub(crate) clip: Option<usize>,
    pub(crate) layout: PoseLayout,
    pub(crate) max_chunk_bytes: Option<u64>,
    /// Pose only the instances the GPU cull keeps (baked, with a cull).
    pub(crate) only_seen: bool,
}

/// A crowd's GPU posing state.
#[derive(Debug)]
pub(crate) struct GpuPosing {
    pub(crate) set: GpuClipSet,
    pub(crate) clips: GpuClips,
    pub(crate) pose: GpuCrowdPose,
    /// Seconds the next upload advances the playheads by (set by `tick`).
    pub(crate) dt: f32,
    pub(crate) readback: PoseReadback,
    /// The GPU cull ([`CrowdDescriptor::gpu_cull`](crate::CrowdDescriptor::gpu_cull)).
    pub(crate) cull: Option<crate::crowd_cull_pass::GpuCull>,
}

impl GpuPosing {
    /// Resamples `rig`'s clips and sets up posing `bones.instance_count()` instances, every one
    /// playing `spec.clip` from 0 (clip 0 at rest when the asset has none: the pass needs a
    /// clip), in chunks of `spec.max_chunk_bytes`.
    ///
    /// With a GPU `cull` and [`PoseLayout::Baked`], the clips' frames are boxed too and the
    /// pose pass writes every instance's box ([`PoseOptions::bounds`]), so that
    /// [`Crowd::encode_cull`](crate::Crowd::encode_cull) only tests boxes: one read of 32
    /// bytes an instance instead of every joint sphere's bone matrix. With `spec.only_seen`
    /// too, the
    /// bone pass poses only the instances that cull keeps ([`PoseOptions::skip_unseen`]); a
    /// character without joint spheres, never culled, is posed whole.
    pub(crate) fn new(
        ctx: &GpuContext,
        rig: &Rig,
        bones: &CrowdBones,
        spec: GpuPosingSpec,
        cull: Option<GpuCull>,
    ) -> Result<Self, GpuError> {
        let GpuPosingSpec {
            clip,
            layout,
            max_chunk_bytes,
            only_seen,
        } = spec;
        let options = GpuClipSetOptions::for_skeletons(rig.data());
        let set = GpuClipSet::new(rig, &options)?;
        let mut clips = GpuClips::new(ctx, &set)?;
        let boxed = cull
            .as_ref()
            .and_then(|c| Some((c.pass.as_ref()?, &c.inputs)))
            .filter(|_| layout == PoseLayout::Baked);
        let mut table = None;
        if layout == PoseLayout::Baked {
            let mut baked = BakedClips::new(rig, &set, &options)?;
            if let Some((_, inputs)) = boxed {
                baked.bake_boxes(&set, inputs)?;
                table = Some(PoseBoundsTable::new(&set, inputs)?);
            }
            clips.upload_baked(ctx, &baked)?;
        }
        let id = u16::try_from(clip.unwrap_or(0)).unwrap_or(u16::MAX);
        let initial = vec![PoseInstance::new(id, 0.0); bones.instance_count() as usize];
        let pose = GpuCrowdPose::with_options(
            ctx,
            &clips,
            bones,
            &initial,
            &GpuCrowdPoseDescriptor {
                layout,
                max_chunk_bytes,
            },
            &PoseOptions {
                bounds: table
                    .as_ref()
                    .zip(boxed)
                    .map(|(table, (cull, _))| PoseBounds { table, cull }),
                skip_unseen: only_seen && table.is_some(),
                ..PoseOptions::default()
            },
        )?;
        Ok(Self {
            set,
            clips,
            pose,
            dt: 0.0,
            readback: PoseReadback::default(),
            cull,
        })
    }
}

/// Chosen instances' bone matrices on their way back to the CPU: a copy recorded after the
/// pose pass into a mappable buffer, mapped when the GPU is done; read it a frame or two later
/// without waiting.
#[derive(Debug, Default)]
pub(crate) struct PoseReadback {
    buffer: Option<wgpu::Buffer>,
    instances: Vec<u32>,
    requested: Vec<u32>,
    in_flight: bool,
    /// Bytes and matrices per instance of the read in flight.
    size: u64,
    per_instance: usize,
    matrices: Vec<Mat4>,
}

impl PoseReadback {
    /// Asks for `instances`' poses of the next upload (replacing an earlier request).
    pub(crate) fn request(&mut self, instances: &[u32]) {
        self.requested.clear();
        self.requested.extend_from_slice(instances);
    }

    /// Drops requested instances past `count`.
    pub(crate) fn retain_below(&mut self, count: u32) {
        self.requested.retain(|&i| i < count);
    }

    /// Records the copies of the requested instances' bones after the pose pass, when no
    /// earlier read is still in flight.
    pub(crate) fn record(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        bones: &CrowdBones,
    ) {
        if self.requested.is_empty() || self.in_flight {
            return;
        }
        let per = u64::from(bones.bones_per_instance()) * CROWD_BONE_BYTES;
        let size = per * self.requested.len() as u64;
        if self.buffer.as_ref().is_none_or(|b| b.size() < size) {
            self.buffer = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skel crowd pose readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let Some(buffer) = &self.buffer else {
            return;
        };
        for (k, &i) in self.requested.iter().enumerate() {
            encoder.copy_buffer_to_buffer(
                bones.bones_buffer(),
                u64::from(i) * per,
                buffer,
                k as u64 * per,
                per,
            );
        }
        encoder.map_buffer_on_submit(buffer, wgpu::MapMode::Read, ..size, |_| {});
        std::mem::swap(&mut self.instances, &mut self.requested);
        self.requested.clear();
        self.in_flight = true;
        self.size = size;
        self.per_instance = bones.bones_per_instance() as usize;
    }

    /// The last read's instances and their bone matrices (each instance's in a row), once the
    /// GPU has delivered them; `None` while in flight or before any. Never waits.
    pub(crate) fn poll(&mut self, ctx: &GpuContext) -> Option<(&[u32], &[Mat4])> {
        if self.in_flight {
            let _ = ctx.device.poll(wgpu::PollType::Poll);
            let buffer = self.buffer.as_ref()?;
            let count = self.instances.len() * self.per_instance;
            let ready = buffer.get_mapped_range(..self.size).ok().map(|view| {
                let all: &[Mat4] = bytemuck::cast_slice(&view);
                self.matrices.clear();
                self.matrices
                    .extend_from_slice(&all[..count.min(all.len())]);
            });
            ready?;
            buffer.unmap();
            self.in_flight = false;
        }
        (!self.instances.is_empty()).then_some((&self.instances[..], &self.matrices[..]))
    }
}
