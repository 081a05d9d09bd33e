//! Where a crowd's drawn slots stand: the placements by instance, the per-slot stream the
//! draw reads, and the indirect draw arguments, all written on the GPU from the crowd's visible
//! list (see `shaders/crowd_place.wgsl`).
//!
//! Why on the GPU: a list cut by the GPU cull ([`Crowd::encode_cull`](crate::Crowd::encode_cull))
//! never reaches the CPU, and its order is whatever the cull's threads appended. Reading the
//! list where it is makes the CPU-culled and GPU-culled paths one path: the draws' instance
//! count and every slot's placement come from the list the crowd skinned from, with nothing
//! read back and nothing written by the CPU per frame.

use glam::Mat4;
use skel_gpu::{GpuContext, GpuError};

use super::RenderError;

/// The WGSL of the placing pass (entry point `skel_crowd_place`).
const PLACE_WGSL: &str = include_str!("../../shaders/crowd_place.wgsl");

/// Threads per workgroup of the placing pass (`@workgroup_size` in the shader).
const PLACE_GROUP: u32 = 64;

/// `u32`s of one draw's indirect arguments (`DrawIndexedIndirectArgs`; a non-indexed draw
/// uses the first four as `DrawIndirectArgs`).
pub(super) const ARGS_WORDS: usize = 5;

/// One primitive's draw as indirect arguments, instance count 0 until the placing pass writes
/// it.
#[derive(Debug, Clone, Copy)]
pub(super) enum DrawArgs {
    /// `draw_indexed_indirect`: index range of the container's index buffer.
    Indexed { first_index: u32, index_count: u32 },
    /// `draw_indirect`: vertex range.
    Vertices {
        first_vertex: u32,
        vertex_count: u32,
    },
}

impl DrawArgs {
    fn words(self) -> [u32; ARGS_WORDS] {
        match self {
            Self::Indexed {
                first_index,
                index_count,
            } => [index_count, 0, first_index, 0, 0],
            Self::Vertices {
                first_vertex,
                vertex_count,
            } => [vertex_count, 0, first_vertex, 0, 0],
        }
    }
}

/// The placing pass of one crowd renderer, and the buffers it writes.
#[derive(Debug)]
pub(super) struct SlotPlacements {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// Placements by instance (`mat4x4` each; one zero matrix when none were given).
    placements: wgpu::Buffer,
    placement_count: usize,
    /// Placements by drawn slot: the draw's per-instance vertex stream.
    pub(super) by_slot: wgpu::Buffer,
    /// [`ARGS_WORDS`] `u32`s per draw.
    pub(super) args: wgpu::Buffer,
    /// Workgroups (x, y) covering every slot of the crowd.
    groups: (u32, u32),
}

fn storage(ctx: &GpuContext, label: &str, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: skel_gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&buffer, 0, bytes);
    buffer
}

impl SlotPlacements {
    /// Sets up placing `slots` drawn slots from `visible` (a crowd's visible list: the count,
    /// then the instance of each slot), with instance `i` at `placements[i]`, for `draws`.
    pub(super) fn new(
        ctx: &GpuContext,
        visible: &wgpu::Buffer,
        slots: u32,
        placements: &[Mat4],
        draws: &[DrawArgs],
    ) -> Result<Self, RenderError> {
        let gpu = |context| move |source| RenderError::Gpu { context, source };
        let matrices: Vec<Mat4> = if placements.is_empty() {
            vec![Mat4::ZERO]
        } else {
            placements.to_vec()
        };
        let placements_buffer = storage(
            ctx,
            "skel crowd placements",
            bytemuck::cast_slice(&matrices),
            wgpu::BufferUsages::empty(),
        );
        // Every slot starts where the identity list puts it (slot i: instance i).
        let first: Vec<Mat4> = (0..slots as usize)
            .map(|i| matrices.get(i).copied().unwrap_or(Mat4::ZERO))
            .collect();
        let by_slot = storage(
            ctx,
            "skel crowd placements by slot",
            bytemuck::cast_slice(&first),
            wgpu::BufferUsages::VERTEX,
        );
        let mut words: Vec<u32> = draws.iter().flat_map(|d| d.words()).collect();
        if words.is_empty() {
            words = vec![0; ARGS_WORDS];
        }
        let args = storage(
            ctx,
            "skel crowd draw arguments",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::INDIRECT,
        );
        let device = &ctx.device;
        let entry = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel crowd place"),
            entries: &[
                entry(0, true),
                entry(1, true),
                entry(2, false),
                entry(3, false),
            ],
        });
        let pipeline = ctx
            .capture("compiling the crowd's placing pass", || {
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("skel crowd place"),
                    source: wgpu::ShaderSource::Wgsl(PLACE_WGSL.into()),
                });
                let pipeline_layout =
                    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("skel crowd place"),
                        bind_group_layouts: &[Some(&layout)],
                        immediate_size: 0,
                    });
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("skel crowd place"),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some("skel_crowd_place"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                })
            })
            .map_err(gpu("compiling the crowd's placing pass"))?;
        let group = ctx
            .capture("binding the crowd's placing pass", || {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("skel crowd place"),
                    layout: &layout,
                    entries: &[
                        (0, visible),
                        (1, &placements_buffer),
                        (2, &by_slot),
                        (3, &args),
                    ]
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }),
                })
            })
            .map_err(gpu("binding the crowd's placing pass"))?;
        let max_x = device.limits().max_compute_workgroups_per_dimension;
        Ok(Self {
            pipeline,
            group,
            placements: placements_buffer,
            placement_count: placements.len(),
            by_slot,
            args,
            groups: skel_gpu::groups_2d(u64::from(slots), max_x, PLACE_GROUP),
        })
    }

    /// Moves every instance: `placements[i]` for instance `i`, as many as
    /// [`new`](Self::new) was given.
    pub(super) fn set(&self, queue: &wgpu::Queue, placements: &[Mat4]) -> Result<(), RenderError> {
        if placements.len() != self.placement_count {
            return Err(RenderError::Gpu {
                context: "moving the crowd",
                source: GpuError::LengthMismatch {
                    what: "crowd placements (as many as the renderer was made with)",
                    expected: self.placement_count,
                    got: placements.len(),
                },
            });
        }
        if !placements.is_empty() {
            queue.write_buffer(&self.placements, 0, bytemuck::cast_slice(placements));
        }
        Ok(())
    }

    /// Records the placing pass: every drawn slot's placement and every draw's instance count
    /// from the visible list as the commands recorded before it leave it.
    pub(super) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel crowd place"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}
