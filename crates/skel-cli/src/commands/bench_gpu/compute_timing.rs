//! How `skel bench gpu compute` times passes, and the copy bandwidth it compares them with.
//!
//! GPU timestamps around each pass when the adapter has `TIMESTAMP_QUERY`, wall clock per
//! submitted-and-waited pass otherwise. Untimed warm-up passes come first, for a time rather
//! than a count: GPUs idle at low clocks between configurations (the H200 at 345–375 MHz) and
//! need a few hundred milliseconds to clock up.

use std::time::Instant;

use serde::Serialize;
use skel::gpu::GpuContext;

type Error = Box<dyn std::error::Error>;

/// How many passes to time, after how long a warm-up.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    /// Timed passes per measurement (the median of them is the result).
    pub(super) iterations: u32,
    /// Untimed passes for at least this long first (and at least 3).
    pub(super) warmup_ms: u32,
}

/// Whether the device writes GPU timestamps around passes.
pub(super) fn has_timestamps(ctx: &GpuContext) -> bool {
    ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY)
}

/// Waits until the device has run everything submitted.
fn wait(ctx: &GpuContext) -> Result<(), Error> {
    ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
    Ok(())
}

/// Seconds per pass: `timing.iterations` passes recorded by `record` (each given its timestamp
/// writes when the device has timestamps), after the warm-up. Returns (median, best).
///
/// # Errors
/// A failed wait or timestamp readback.
pub(super) fn time_passes(
    ctx: &GpuContext,
    timing: Timing,
    record: &dyn Fn(&mut wgpu::CommandEncoder, Option<wgpu::ComputePassTimestampWrites<'_>>),
) -> Result<(f64, f64), Error> {
    let start = Instant::now();
    let mut warm = 0;
    while warm < 3 || start.elapsed().as_millis() < u128::from(timing.warmup_ms) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..4 {
            record(&mut encoder, None);
        }
        ctx.queue.submit([encoder.finish()]);
        wait(ctx)?;
        warm += 4;
    }
    let mut secs = if has_timestamps(ctx) {
        let count = timing.iterations * 2;
        let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("skel bench gpu compute"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel bench gpu compute timestamps"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for i in 0..timing.iterations {
            record(
                &mut encoder,
                Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * i),
                    end_of_pass_write_index: Some(2 * i + 1),
                }),
            );
        }
        encoder.resolve_query_set(&queries, 0..count, &resolve, 0);
        ctx.queue.submit([encoder.finish()]);
        let ticks: Vec<u64> =
            skel::gpu::readback::read_buffer_as(ctx, &resolve, 0, count as usize)?;
        let period = f64::from(ctx.queue.get_timestamp_period()) * 1e-9;
        ticks
            .chunks_exact(2)
            .map(|t| t[1].saturating_sub(t[0]) as f64 * period)
            .collect::<Vec<_>>()
    } else {
        let mut secs = Vec::new();
        for _ in 0..timing.iterations {
            let start = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            record(&mut encoder, None);
            ctx.queue.submit([encoder.finish()]);
            wait(ctx)?;
            secs.push(start.elapsed().as_secs_f64());
        }
        secs
    };
    secs.sort_by(f64::total_cmp);
    Ok((
        super::report::median(&mut secs),
        secs.first().copied().unwrap_or(0.0),
    ))
}

/// The device's copy bandwidth, in bytes read plus written per second.
#[derive(Debug, Serialize)]
pub(super) struct CopyBandwidth {
    buffer_bytes: u64,
    bytes_moved_per_copy: u64,
    copy_buffer_to_buffer_seconds: f64,
    pub(super) copy_buffer_to_buffer_gb_per_second: f64,
    /// `encoder_timestamps` or `wall_clock`.
    copy_buffer_to_buffer_timing: &'static str,
    copy_buffer_to_buffer_wall_clock_gb_per_second: f64,
    compute_copy_seconds: f64,
    pub(super) compute_copy_gb_per_second: f64,
}

impl CopyBandwidth {
    /// The reference for shares of bandwidth: the faster of the two copies (the compute copy
    /// on the H200, where `copy_buffer_to_buffer` measured far below it).
    pub(super) fn best_gb_per_second(&self) -> f64 {
        self.copy_buffer_to_buffer_gb_per_second
            .max(self.compute_copy_gb_per_second)
    }
}

/// Copy bandwidth over two buffers of `mib` MiB: a `copy_buffer_to_buffer` (timestamps inside
/// the encoder when the device has them, else wall clock over 10 copies) and a compute shader
/// copying `vec4<f32>`s (timed as [`time_passes`] times skinning).
///
/// # Errors
/// A failed wait or readback, or buffers the device cannot make.
pub(super) fn copy_bandwidth(
    ctx: &GpuContext,
    timing: Timing,
    mib: u64,
) -> Result<CopyBandwidth, Error> {
    let bytes = mib << 20;
    let limit = ctx
        .limits
        .max_buffer_size
        .min(ctx.limits.max_storage_buffer_binding_size);
    if bytes > limit {
        return Err(format!(
            "--copy-mib {mib}: this device binds at most {} MiB in one storage buffer",
            limit >> 20
        )
        .into());
    }
    let make = || {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("copy bandwidth"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (make(), make());
    // Fill the source with non-zero data (a GPU may move zeros faster).
    let chunk: Vec<u8> = (0..(64u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut at = 0;
    while at < bytes {
        let len = (bytes - at).min(chunk.len() as u64);
        ctx.queue
            .write_buffer(&src, at, &chunk[..usize::try_from(len)?]);
        ctx.queue.submit([]);
        at += len;
    }
    let inside = ctx
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    let ten_copies = || -> Result<f64, Error> {
        let start = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..10 {
            encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
        }
        ctx.queue.submit([encoder.finish()]);
        wait(ctx)?;
        Ok(start.elapsed().as_secs_f64() / 10.0)
    };
    let mut copy_secs: Vec<f64> = Vec::new();
    for round in 0..=timing.iterations {
        let secs = if inside {
            let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encoder.write_timestamp(&queries, 0);
            encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
            encoder.write_timestamp(&queries, 1);
            encoder.resolve_query_set(&queries, 0..2, &resolve, 0);
            ctx.queue.submit([encoder.finish()]);
            let t: Vec<u64> = skel::gpu::readback::read_buffer_as(ctx, &resolve, 0, 2)?;
            t[1].saturating_sub(t[0]) as f64 * f64::from(ctx.queue.get_timestamp_period()) * 1e-9
        } else {
            ten_copies()?
        };
        // Round 0 warms up.
        if round > 0 {
            copy_secs.push(secs);
        }
    }
    let copy = super::report::median(&mut copy_secs);
    // Wall clock over 10 copies in one submission, whatever the timestamps say.
    let copy_wall = ten_copies()?;

    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("copy kernel"),
            source: wgpu::ShaderSource::Wgsl(COPY_KERNEL.into()),
        });
    let pipeline = ctx
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("copy kernel"),
            layout: None,
            module: &module,
            entry_point: Some("copy"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
    let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: src.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    let groups = u32::try_from((bytes / 16).div_ceil(256 * 8))
        .unwrap_or(u32::MAX)
        .clamp(1, 65_535);
    let (kernel, _) = time_passes(ctx, timing, &|encoder, ts| {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: ts,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    })?;
    let moved = 2.0 * bytes as f64;
    Ok(CopyBandwidth {
        buffer_bytes: bytes,
        bytes_moved_per_copy: 2 * bytes,
        copy_buffer_to_buffer_seconds: copy,
        copy_buffer_to_buffer_gb_per_second: moved / copy / 1e9,
        copy_buffer_to_buffer_timing: if inside {
            "encoder_timestamps"
        } else {
            "wall_clock"
        },
        copy_buffer_to_buffer_wall_clock_gb_per_second: moved / copy_wall / 1e9,
        compute_copy_seconds: kernel,
        compute_copy_gb_per_second: moved / kernel / 1e9,
    })
}

/// A grid-stride `vec4<f32>` copy: the streaming ceiling of a compute shader.
const COPY_KERNEL: &str = r"
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = arrayLength(&dst);
    let stride = groups.x * 256u;
    for (var i = id.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}
";
