//! The GPU pose pass of a crowd ([`GpuCrowdPose`]): per frame, one dispatch advances every
//! instance's playheads by `dt` and samples its morph weights, then one dispatch per chunk of
//! the bone buffer poses the instances into it. The only per-frame upload is one 256-byte
//! uniform slot per chunk; instances are written when they change, sparsely.
//!
//! The bone buffer can be larger than a storage binding may be
//! (`max_storage_buffer_binding_size`, 2 GiB − 4 on an NVIDIA H200): it is bound in chunks of
//! whole instances, each under the limit, one dispatch each.
//!
//! The matrices go out in the bone buffer's [`BoneLayout`]: 4×4 (64 bytes a bone) or the top
//! three rows of the affine matrix (48 bytes; 1 000 000 CesiumMan: 0.91 GB a frame instead of
//! 1.22 GB). What 3×4 saves is read by skinning and culling (9 % and 21 % faster on an H100);
//! the per-node pass itself, bound by how many workgroups stay in flight rather than by its
//! stores, took 8 % longer with it there (`docs/bench-gpu.md`).
//!
//! [`GpuCrowdPose::with_options`] sets the per-node pass's workgroup size
//! ([`PoseTuning`](crate::PoseTuning)) and can make it box every posed instance for culling
//! ([`PoseBounds`](crate::PoseBounds); see `pose_bounds.rs`).

use crate::compute_pass::groups_2d;
use crate::pose_bounds::PoseOptions;
use crate::pose_data::{
    GpuClips, GpuCrowdPoseDescriptor, POSE_MAX_CHARACTER_NODES, PoseInstance, PoseLayout,
};
use crate::pose_listed::ListedBones;
use crate::pose_pipeline::{
    BAKED_BINDINGS, BoundsBindings, ChunkShape, PosePipelineKey, PosePipelines, baked_buffers,
    check_clips, pipelines,
};
use crate::{BoneLayout, CrowdBones, GpuContext, GpuError};

/// Threads per workgroup of the pose passes (the per-node pass's by default:
/// [`PoseTuning::group_threads`](crate::PoseTuning::group_threads)).
pub const POSE_WORKGROUP_SIZE: u32 = 64;

/// Bytes between two chunks' uniform parameters (WebGPU's uniform offset alignment).
const PARAMS_STRIDE: u64 = 256;

/// Bytes of one chunk's parameters (`SkelPoseParams`).
const PARAMS_BYTES: usize = 64;

/// A crowd posed on the GPU (see the module docs): the instances' state, their morph weights,
/// and the bind groups that pose them into a [`CrowdBones`] buffer.
#[derive(Debug)]
pub struct GpuCrowdPose {
    layout: PoseLayout,
    bone_layout: BoneLayout,
    advance: wgpu::ComputePipeline,
    pose: wgpu::ComputePipeline,
    instances: wgpu::Buffer,
    morph: wgpu::Buffer,
    params: wgpu::Buffer,
    groups: Vec<wgpu::BindGroup>,
    params_bytes: Vec<u8>,
    /// Per chunk: first instance, instances, workgroups (x, y) of the bone pass.
    chunks: Vec<(u32, u32, u32, u32)>,
    advance_groups: (u32, u32),
    instance_count: u32,
    bones: u32,
    node_count: u32,
    frame: u32,
    uploaded: u64,
    base_params: [u32; 16],
    /// Threads per workgroup of the bone pass.
    group_threads: u32,
    /// Whether the pass writes boxes (the bone pass, or baked the advance pass).
    writes_bounds: bool,
    /// With [`PoseOptions::skip_unseen`]: the bone pass over the cull's visible list.
    listed: Option<ListedBones>,
}

impl GpuCrowdPose {
    /// Sets up posing `initial` (one entry per instance of `bones`) with `clips` into `bones`
    /// (made with [`CrowdBones::new_gpu_posed`] or [`CrowdBones::new`]).
    ///
    /// # Errors
    /// [`GpuError::BoneCountMismatch`] when `bones` holds another bone count per instance than
    /// `clips`; [`GpuError::LengthMismatch`] for an `initial` of another length;
    /// [`GpuError::OutOfRange`] for a clip id past the set, or
    /// [`PoseLayout::PerCharacter`] or [`PoseLayout::PerNode`] with more than
    /// [`POSE_MAX_CHARACTER_NODES`] posed nodes, or [`PoseLayout::Baked`] with clips that were
    /// not baked ([`GpuClips::upload_baked`]);
    /// [`GpuError::MissingLimit`] and [`GpuError::Validation`] from wgpu.
    pub fn new(
        ctx: &GpuContext,
        clips: &GpuClips,
        bones: &CrowdBones,
        initial: &[PoseInstance],
        desc: &GpuCrowdPoseDescriptor,
    ) -> Result<Self, GpuError> {
        Self::with_options(ctx, clips, bones, initial, desc, &PoseOptions::default())
    }

    /// [`new`](Self::new) with the per-node pass's workgroup size (`options.tuning`, used by
    /// [`PoseLayout::PerNode`] only) and, with `options.bounds`, boxes: each frame the bone
    /// pass also writes every posed instance's world box into the cull's
    /// [`boxes_buffer`](crate::CrowdCull::boxes_buffer) (an instance skipped by its update
    /// rate keeps last frame's), for
    /// [`CrowdCull::encode_from_boxes`](crate::CrowdCull::encode_from_boxes).
    ///
    /// With `options.skip_unseen` (baked, with bounds) the bone pass poses only the instances
    /// that a [`CrowdCull::encode_from_boxes`](crate::CrowdCull::encode_from_boxes) recorded
    /// between [`record_advance`](Self::record_advance) and
    /// [`record_bones`](Self::record_bones) kept.
    ///
    /// # Errors
    /// As [`new`](Self::new); [`GpuError::OutOfRange`] for a workgroup size other than 64,
    /// 128 or 256, bounds with a layout other than [`PoseLayout::PerNode`] and
    /// [`PoseLayout::Baked`], `skip_unseen` without both [`PoseLayout::Baked`] and bounds, or
    /// baked bounds with clips baked without boxes
    /// ([`BakedClips::bake_boxes`](crate::BakedClips::bake_boxes));
    /// [`GpuError::LengthMismatch`] for bounds of another node count or crowd;
    /// [`GpuError::MissingLimit`] for a workgroup or a count of storage buffers the device
    /// does not allow.
    pub fn with_options(
        ctx: &GpuContext,
        clips: &GpuClips,
        bones: &CrowdBones,
        initial: &[PoseInstance],
        desc: &GpuCrowdPoseDescriptor,
        options: &PoseOptions<'_>,
    ) -> Result<Self, GpuError> {
        if bones.bones_per_instance() != clips.bone_count {
            return Err(GpuError::BoneCountMismatch {
                expected: clips.bone_count,
                got: bones.bones_per_instance() as usize,
            });
        }
        let count = bones.instance_count();
        if initial.len() != count as usize {
            return Err(GpuError::LengthMismatch {
                what: "initial pose instances",
                expected: count as usize,
                got: initial.len(),
            });
        }
        check_clips(clips, initial)?;
        options.check_skip_unseen(desc.layout)?;
        if matches!(desc.layout, PoseLayout::PerCharacter | PoseLayout::PerNode)
            && clips.node_count > POSE_MAX_CHARACTER_NODES
        {
            return Err(GpuError::OutOfRange {
                what: "posed nodes for PoseLayout::PerCharacter and PerNode",
                got: clips.node_count.to_string(),
                expected: "at most 64",
            });
        }
        let instance_bytes = bones.instance_bytes();
        let per_chunk = crate::bone_layout::instances_per_chunk(
            ctx,
            instance_bytes,
            desc.max_chunk_bytes,
            count,
        )?;
        let max_x = ctx.limits.max_compute_workgroups_per_dimension.max(1);
        let group_threads = if desc.layout == PoseLayout::PerNode {
            options.tuning.check(&ctx.limits)?;
            options.tuning.group_threads
        } else {
            POSE_WORKGROUP_SIZE
        };
        let baked = baked_buffers(ctx, clips, desc.layout)?;
        let bounds = options
            .bounds
            .map(|b| BoundsBindings::new(ctx, clips, count, desc.layout, &b, options.skip_unseen))
            .transpose()?;
        let group_characters = (group_threads / clips.node_count.max(1)).max(1);
        let shape = ChunkShape {
            layout: desc.layout,
            bones: clips.bone_count,
            group_threads,
            group_characters,
            max_x,
        };
        let chunks = shape.chunks(count, per_chunk);
        let morph_bytes = u64::from(count) * u64::from(clips.morph_vec4s) * 16;
        let state_bytes = u64::from(count) * size_of::<PoseInstance>() as u64;
        for needed in [morph_bytes, state_bytes] {
            ctx.require_limit("max_storage_buffer_binding_size", needed, |l| {
                l.max_storage_buffer_binding_size
            })?;
        }
        let advance_groups = groups_2d(u64::from(count), max_x, POSE_WORKGROUP_SIZE);
        let base_params = [
            count,
            0,
            0,
            clips.bone_count,
            clips.node_count,
            clips.row_vec4s,
            clips.morph_first(),
            clips.morph_vec4s,
            0,
            0,
            u32::from(clips.has_mesh_inverse),
            0,
            advance_groups.0 * POSE_WORKGROUP_SIZE,
            clips.levels,
            group_characters,
            // The listed bone pass's rows: as wide as a dispatch may be.
            max_x.saturating_mul(POSE_WORKGROUP_SIZE),
        ];
        let params_bytes = vec![0u8; chunks.len() * PARAMS_STRIDE as usize];
        ctx.capture("GpuCrowdPose::new", || {
            let key = PosePipelineKey {
                layout: desc.layout,
                bone_layout: bones.bone_layout(),
                group_threads,
                bounds: bounds.is_some(),
                skip_unseen: options.skip_unseen,
            };
            let PosePipelines {
                group_layout: layout,
                advance,
                bones: pose,
                listed,
            } = pipelines(ctx, &key);
            let visible = options.bounds.filter(|_| options.skip_unseen);
            let storage = |label, size: u64| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.max(16),
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            };
            let instances = storage("skel pose instances", state_bytes);
            ctx.queue
                .write_buffer(&instances, 0, bytemuck::cast_slice(initial));
            let morph = storage("skel pose morph weights", morph_bytes);
            let params = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skel pose params"),
                size: params_bytes.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            fn binding(buffer: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::BindingResource<'_> {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: std::num::NonZeroU64::new(size.max(16)),
                })
            }
            let groups = chunks
                .iter()
                .enumerate()
                .map(|(c, &(first, n, _, _))| {
                    let resources = [
                        binding(&params, c as u64 * PARAMS_STRIDE, PARAMS_BYTES as u64),
                        clips.clips.as_entire_binding(),
                        clips.frames.as_entire_binding(),
                        clips.parents.as_entire_binding(),
                        clips.bone_nodes.as_entire_binding(),
                        clips.bone_matrices.as_entire_binding(),
                        instances.as_entire_binding(),
                        binding(
                            bones.bones_buffer(),
                            u64::from(first) * instance_bytes,
                            u64::from(n) * instance_bytes,
                        ),
                        binding(&morph, 0, morph_bytes),
                    ];
                    let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
                        .into_iter()
                        .zip(0..)
                        .chain(bounds.iter().flat_map(BoundsBindings::resources))
                        .chain(baked.iter().flat_map(|b| {
                            [&b.table, &b.rows]
                                .map(wgpu::Buffer::as_entire_binding)
                                .into_iter()
                                .zip(BAKED_BINDINGS)
                        }))
                        .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
                        .collect();
                    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("skel pose chunk"),
                        layout: &layout,
                        entries: &entries,
                    })
                })
                .collect();
            let listed = visible.zip(listed).map(|(b, pipeline)| {
                let first = (&params, PARAMS_BYTES as u64);
                ListedBones::new(ctx, &key, pipeline, first, b.cull.visible_buffer())
            });
            Self {
                layout: desc.layout,
                bone_layout: bones.bone_layout(),
                advance,
                pose,
                instances,
                morph,
                params,
                groups,
                params_bytes,
                chunks,
                advance_groups,
                instance_count: count,
                bones: clips.bone_count,
                node_count: clips.node_count,
                frame: 0,
                uploaded: state_bytes,
                base_params,
                group_threads,
                writes_bounds: bounds.is_some(),
                listed,
            }
        })
    }

    /// Instances in the crowd.
    #[must_use]
    pub fn instance_count(&self) -> u32 {
        self.instance_count
    }

    /// The thread layout of the bone pass.
    #[must_use]
    pub fn layout(&self) -> PoseLayout {
        self.layout
    }

    /// How the pass writes each bone (the bone buffer's layout).
    #[must_use]
    pub fn bone_layout(&self) -> BoneLayout {
        self.bone_layout
    }

    /// Bytes of bone matrices one frame writes when every instance poses (no LOD skipping).
    #[must_use]
    pub fn bone_bytes_per_frame(&self) -> u64 {
        u64::from(self.instance_count) * u64::from(self.bones) * self.bone_layout.bytes()
    }

    /// Chunks the bone buffer is bound in (one bone dispatch each).
    #[must_use]
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Instances per chunk (the last may hold fewer).
    #[must_use]
    pub fn chunk_instances(&self) -> u32 {
        self.chunks.first().map_or(0, |c| c.1)
    }

    /// Frames prepared so far (the LOD stagger counts them).
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// Bytes written to the GPU so far: instance state and per-frame parameters.
    #[must_use]
    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded
    }

    /// Bytes one frame's parameters take (what [`prepare`](Self::prepare) writes).
    #[must_use]
    pub fn params_bytes_per_frame(&self) -> u64 {
        self.params_bytes.len() as u64
    }

    /// The instances' state buffer ([`PoseInstance`]s, 32 bytes each; the GPU's playheads).
    #[must_use]
    pub fn instances_buffer(&self) -> &wgpu::Buffer {
        &self.instances
    }

    /// Every instance's morph weights, [`GpuClips::morph_floats`] floats each.
    #[must_use]
    pub fn morph_buffer(&self) -> &wgpu::Buffer {
        &self.morph
    }

    /// Replaces instances `first..first + instances.len()` (one `write_buffer`; the rest of
    /// the crowd keeps playing untouched).
    ///
    /// # Errors
    /// [`GpuError::InstanceOutOfRange`] past the crowd, [`GpuError::OutOfRange`] for a clip id
    /// past `clips`.
    pub fn write_instances(
        &mut self,
        ctx: &GpuContext,
        clips: &GpuClips,
        first: u32,
        instances: &[PoseInstance],
    ) -> Result<(), GpuError> {
        let end = u64::from(first) + instances.len() as u64;
        if end > u64::from(self.instance_count) {
            return Err(GpuError::InstanceOutOfRange {
                what: "GpuCrowdPose::write_instances",
                index: u32::try_from(end - 1).unwrap_or(u32::MAX),
                count: self.instance_count,
            });
        }
        check_clips(clips, instances)?;
        let bytes: &[u8] = bytemuck::cast_slice(instances);
        ctx.queue.write_buffer(
            &self.instances,
            u64::from(first) * size_of::<PoseInstance>() as u64,
            bytes,
        );
        self.uploaded += bytes.len() as u64;
        Ok(())
    }

    /// Writes this frame's parameters (`dt` seconds since the last frame, the frame counter):
    /// the one per-frame upload, [`params_bytes_per_frame`](Self::params_bytes_per_frame).
    /// Call once per frame before recording the passes. Allocates nothing here.
    pub fn prepare(&mut self, ctx: &GpuContext, dt: f32) {
        let mut params = self.base_params;
        params[8] = self.frame;
        params[9] = if dt.is_finite() { dt.to_bits() } else { 0 };
        for (c, &(first, n, x, _)) in self.chunks.iter().enumerate() {
            params[1] = first;
            params[2] = n;
            params[11] = x * self.group_threads;
            let at = c * PARAMS_STRIDE as usize;
            self.params_bytes[at..at + PARAMS_BYTES].copy_from_slice(bytemuck::cast_slice(&params));
        }
        ctx.queue.write_buffer(&self.params, 0, &self.params_bytes);
        self.uploaded += self.params_bytes.len() as u64;
        self.frame = self.frame.wrapping_add(1);
    }

    /// Records the advance dispatch (playheads and morph weights) into `pass`.
    pub fn record_advance(&self, pass: &mut wgpu::ComputePass<'_>) {
        let (x, y) = self.advance_groups;
        if let Some(group) = self.groups.first() {
            pass.set_pipeline(&self.advance);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
    }

    /// Records the bone dispatches, one per chunk, into `pass` (after
    /// [`record_advance`](Self::record_advance)). With
    /// [`PoseOptions::skip_unseen`], they pose the instances of the cull's visible list only
    /// (its count turned into each chunk's workgroups on the GPU first): the instances the
    /// last [`CrowdCull::encode_from_boxes`](crate::CrowdCull::encode_from_boxes) kept, which
    /// belongs between the two passes.
    pub fn record_bones(&self, pass: &mut wgpu::ComputePass<'_>) {
        match &self.listed {
            Some(listed) => listed.record(pass, &self.groups),
            None => self.record_every_bone(pass),
        }
    }

    /// Records both passes into `pass`, posing every instance (with
    /// [`PoseOptions::skip_unseen`] too).
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.record_advance(pass);
        self.record_every_bone(pass);
    }

    /// The bone dispatches over every instance, one per chunk.
    fn record_every_bone(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pose);
        for (group, &(_, _, x, y)) in self.groups.iter().zip(&self.chunks) {
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
    }

    /// Threads per workgroup of the bone pass.
    #[must_use]
    pub fn group_threads(&self) -> u32 {
        self.group_threads
    }

    /// Whether the pass writes boxes ([`PoseOptions::bounds`]): per-node the bone pass, baked
    /// the advance pass.
    #[must_use]
    pub fn writes_bounds(&self) -> bool {
        self.writes_bounds
    }

    /// Whether the bone pass poses only the instances the last cull kept
    /// ([`PoseOptions::skip_unseen`]).
    #[must_use]
    pub fn skips_unseen(&self) -> bool {
        self.listed.is_some()
    }

    /// Posed nodes per instance and bones per instance.
    #[must_use]
    pub fn shape(&self) -> (u32, u32) {
        (self.node_count, self.bones)
    }
}
