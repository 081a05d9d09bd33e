//! What every compute pass of this crate builds the same way: its shader module, pipeline
//! layout and pipelines (one per entry point), and the 2D grid of workgroups a dispatch
//! covers its threads with (the device caps each dimension).

use std::borrow::Cow;

use crate::GpuContext;

/// The compute pipelines of the WGSL `source`'s `entry_points`, over `group_layouts`, each
/// labelled with its entry point. `zero_workgroup_memory: false` skips WebGPU's zeroing of
/// workgroup memory, for shaders that write every word they read (see the pose pass).
pub(crate) fn compute_pipelines<const N: usize>(
    ctx: &GpuContext,
    label: &str,
    source: Cow<'_, str>,
    group_layouts: &[&wgpu::BindGroupLayout],
    entry_points: [&str; N],
    zero_workgroup_memory: bool,
) -> [wgpu::ComputePipeline; N] {
    compute_pipelines_with(
        ctx,
        label,
        source,
        group_layouts,
        entry_points,
        zero_workgroup_memory,
        &[],
    )
}

/// [`compute_pipelines`] with values for the shader's override constants (`constants`: name,
/// value), such as [`crate::BoneLayout::constants`].
pub(crate) fn compute_pipelines_with<const N: usize>(
    ctx: &GpuContext,
    label: &str,
    source: Cow<'_, str>,
    group_layouts: &[&wgpu::BindGroupLayout],
    entry_points: [&str; N],
    zero_workgroup_memory: bool,
    constants: &[(&str, f64)],
) -> [wgpu::ComputePipeline; N] {
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source),
        });
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> =
        group_layouts.iter().map(|l| Some(*l)).collect();
    let layout = ctx
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &layouts,
            immediate_size: 0,
        });
    entry_points.map(|entry_point| {
        ctx.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    zero_initialize_workgroup_memory: zero_workgroup_memory,
                },
                cache: None,
            })
    })
}

/// Workgroups (x, y) of `group` threads covering `threads` threads, x at most `max_x`
/// (`Limits::max_compute_workgroups_per_dimension`, 65 535 by default): a crowd of more than
/// 65 535 × `group` instances needs the second dimension. A shader finds its thread as
/// `(workgroup_id.y * num_workgroups.x + workgroup_id.x) * group + local_invocation_index` and
/// returns past `threads`.
#[must_use]
pub fn groups_2d(threads: u64, max_x: u32, group: u32) -> (u32, u32) {
    let groups = threads.div_ceil(u64::from(group)).max(1);
    let x = groups.min(u64::from(max_x.max(1)));
    let y = groups.div_ceil(x);
    // x ≤ max_x (a u32); y is at most `threads`, far below u32::MAX for any dispatch.
    (
        u32::try_from(x).unwrap_or(u32::MAX),
        u32::try_from(y).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::groups_2d;

    #[test]
    fn the_grid_covers_every_thread_and_keeps_x_under_the_cap() {
        for (threads, max_x, group) in [
            (1, 65_535, 64),
            (64, 65_535, 64),
            (65, 65_535, 64),
            (10_000_000, 1_000, 64),
        ] {
            let (x, y) = groups_2d(threads, max_x, group);
            assert!(x <= max_x, "{x}");
            assert!(u64::from(x) * u64::from(y) * u64::from(group) >= threads);
            assert!(u64::from(x) * u64::from(y - 1) * u64::from(group) < threads.max(1));
        }
    }
}
