//! The bone pass of a baked crowd that poses only what the camera sees
//! ([`PoseOptions::skip_unseen`](crate::PoseOptions::skip_unseen)): dispatched indirectly over
//! the cull's visible list, so that an instance out of view launches no thread.
//!
//! The cull runs between the advance pass (which boxes every instance) and the bone pass. One
//! thread (`skel_pose_listed_args`) turns the list's count into workgroups, written to an
//! arguments buffer; every chunk's bone dispatch (`skel_pose_baked_listed`) then reads them as
//! its indirect arguments (what they depend on, the instance and bone counts, the list and the
//! widest row, is the same for every chunk: each chunk's dispatch walks the whole list and
//! poses its own instances). The arguments are written through their own bind group: a buffer
//! read as indirect arguments cannot be bound for writing in the same dispatch.
//!
//! Posing every (instance, bone) and skipping the unseen after a read of its box cost an H100
//! 0.26 ms per 1 000 000 unseen CesiumMan, more than half of posing them
//! (`docs/bench-gpu.md`).

use crate::GpuContext;
use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::compute_pass::compute_pipelines_with;
use crate::pose_data::POSE_WGSL;
use crate::pose_pipeline::{LISTED_BINDING, PosePipelineKey, constants};

/// The binding of a chunk's dispatch arguments in `skel_pose_listed_args`.
const ARGS_BINDING: u32 = 17;

/// Bytes of the arguments: the workgroups (x, y, z).
const ARGS_BYTES: u64 = 12;

/// The listed bone pass: its arguments pass and the buffer that writes (see the module docs).
#[derive(Debug)]
pub(crate) struct ListedBones {
    /// `skel_pose_baked_listed`, with the pose pass's bind group layout.
    bones: wgpu::ComputePipeline,
    /// `skel_pose_listed_args`.
    pipeline: wgpu::ComputePipeline,
    /// The first chunk's uniform parameters, the visible list, the arguments.
    group: wgpu::BindGroup,
    args: wgpu::Buffer,
}

impl ListedBones {
    /// Sets up the arguments pass over the cull's `visible` list, reading the first chunk's
    /// uniform parameters (the first `params_bytes` of `params`), for the listed pipeline
    /// `bones` (compiled for `key`).
    pub(crate) fn new(
        ctx: &GpuContext,
        key: &PosePipelineKey,
        bones: wgpu::ComputePipeline,
        (params, params_bytes): (&wgpu::Buffer, u64),
        visible: &wgpu::Buffer,
    ) -> Self {
        let layout = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("skel pose listed args"),
                entries: &[
                    compute_entry(0, UNIFORM),
                    compute_entry(LISTED_BINDING, READ),
                    compute_entry(ARGS_BINDING, WRITE),
                ],
            });
        let [pipeline] = compute_pipelines_with(
            ctx,
            "skel pose listed args",
            POSE_WGSL.into(),
            &[&layout],
            ["skel_pose_listed_args"],
            false,
            &constants(key),
        );
        let args = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel pose listed dispatch"),
            size: ARGS_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
            mapped_at_creation: false,
        });
        let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skel pose listed args"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: params,
                        offset: 0,
                        size: wgpu::BufferSize::new(params_bytes),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: LISTED_BINDING,
                    resource: visible.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: ARGS_BINDING,
                    resource: args.as_entire_binding(),
                },
            ],
        });
        Self {
            bones,
            pipeline,
            group,
            args,
        }
    }

    /// Records the arguments, then each chunk's bone dispatch (with its bind group from
    /// `pose_groups`) over them.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, pose_groups: &[wgpu::BindGroup]) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.bones);
        for group in pose_groups {
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups_indirect(&self.args, 0);
        }
    }
}
