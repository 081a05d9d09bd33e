//! Indirect dispatch of a GPU-culled crowd's skinning: after the cull has written the visible
//! list on the GPU, one small pass turns the list's count into each skinning chunk's workgroup
//! grid, so that skinning dispatches the visible instances only (a dispatch over every slot
//! would start a workgroup for each culled slot, which returns at once but still costs its
//! launch), and nothing is read back to the CPU.

use std::borrow::Cow;

use crate::bind_entries::{READ, WRITE, compute_entry, numbered_bind_group};
use crate::compute_pass::compute_pipelines;
use crate::crowd_skinning::CROWD_WORKGROUP_SIZE;
use crate::{BoneLayout, CrowdSkinning, CrowdSkinningBindings, GpuContext};

/// The WGSL of the pass that writes the skinning's indirect dispatch arguments.
pub const CROWD_DISPATCH_WGSL: &str = include_str!("../shaders/skel_crowd_dispatch.wgsl");

/// Bytes of one chunk's dispatch arguments (workgroups x, y, z as `u32`), the stride of
/// [`CrowdDispatch::args_buffer`].
pub const DISPATCH_ARGS_BYTES: u64 = 12;

/// The indirect dispatch arguments of a crowd's skinning chunks, written on the GPU from the
/// visible list's count ([`encode`](Self::encode)); chunk `i`'s grid is at
/// `i * DISPATCH_ARGS_BYTES` of [`args_buffer`](Self::args_buffer), the grid
/// [`CrowdSkinning::workgroups_for`] gives for the chunk's share of the visible slots.
#[derive(Debug)]
pub struct CrowdDispatch {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    args: wgpu::Buffer,
    _chunks: wgpu::Buffer,
    chunks: u32,
}

impl CrowdDispatch {
    /// The pass over `chunks` (each a skinning chunk's vertex count, first slot and slot
    /// count, in the order the skinning dispatches them), reading the count at the start of
    /// `list` (the crowd's visible list: count, then instances).
    #[must_use]
    pub fn new(ctx: &GpuContext, list: &wgpu::Buffer, chunks: &[(u32, u32, u32)]) -> Self {
        let max = ctx.limits.max_compute_workgroups_per_dimension.max(1);
        let mut data: Vec<u32> = chunks
            .iter()
            .flat_map(|&(vertices, first, slots)| {
                [vertices.div_ceil(CROWD_WORKGROUP_SIZE), first, slots, max]
            })
            .collect();
        if data.is_empty() {
            // A binding may not be empty; no chunk is dispatched then.
            data = vec![0; 4];
        }
        let device = &ctx.device;
        let chunk_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel crowd dispatch chunks"),
            size: (data.len() * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue
            .write_buffer(&chunk_buffer, 0, bytemuck::cast_slice(&data));
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel crowd dispatch args"),
            size: DISPATCH_ARGS_BYTES * (data.len() / 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel crowd dispatch"),
            entries: &[
                compute_entry(0, READ),
                compute_entry(1, READ),
                compute_entry(2, WRITE),
            ],
        });
        let group = numbered_bind_group(
            device,
            "skel crowd dispatch",
            &layout,
            [
                chunk_buffer.as_entire_binding(),
                list.as_entire_binding(),
                args.as_entire_binding(),
            ],
        );
        let [pipeline] = compute_pipelines(
            ctx,
            "skel crowd dispatch",
            Cow::Borrowed(CROWD_DISPATCH_WGSL),
            &[&layout],
            ["skel_crowd_dispatch"],
            true,
        );
        Self {
            pipeline,
            group,
            args,
            _chunks: chunk_buffer,
            chunks: u32::try_from(chunks.len()).unwrap_or(u32::MAX),
        }
    }

    /// Records the pass that writes every chunk's arguments from the list's count (after the
    /// pass that writes the list, before the skinning that reads the arguments).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.chunks == 0 {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel crowd dispatch"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(self.chunks.div_ceil(64), 1, 1);
    }

    /// The arguments, `DISPATCH_ARGS_BYTES` a chunk (usable as `INDIRECT` and copied from).
    #[must_use]
    pub fn args_buffer(&self) -> &wgpu::Buffer {
        &self.args
    }
}

impl CrowdSkinning {
    /// [`dispatch`](Self::dispatch) with the grid read on the GPU from `args` at `offset`
    /// (a [`CrowdDispatch`]'s arguments for this chunk).
    pub fn dispatch_indirect(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bindings: &CrowdSkinningBindings,
        args: &wgpu::Buffer,
        offset: u64,
    ) {
        let pipeline = match bindings.bone_layout {
            BoneLayout::Affine3x4 => self.affine.get().unwrap_or(&self.pipeline),
            BoneLayout::Mat4 => &self.pipeline,
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bindings.group, &[]);
        pass.dispatch_workgroups_indirect(args, offset);
    }
}
