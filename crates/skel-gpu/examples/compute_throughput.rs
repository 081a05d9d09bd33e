//! Compute-skinning throughput: vertices per second for several vertex counts with 4/8/16
//! influences, positions only and positions + normals, and compact vertex formats (u8/u16
//! joints, unorm8/unorm16 weights) next to the skeleton's own u32/f32; the device's copy
//! bandwidth measured in the same run (a buffer-to-buffer copy and a plain compute copy), so
//! each result can be given as a share of it; and optionally a sweep over [`ComputeTuning`]s.
//! Prints one JSON document on stdout and a table on stderr.
//!
//! Timing is GPU timestamps around each dispatch when the adapter has `TIMESTAMP_QUERY`, wall
//! clock per submitted-and-waited batch otherwise (the JSON says which): untimed warm-up
//! dispatches first (by time: GPUs idle at low clocks between configurations), then
//! `--iterations` timed dispatches per round, median per round, and the median of the round
//! medians. Every configuration is checked against `skel_anim::skin_vertices` on a sample of
//! vertices (the first and last of the mesh).
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run --release -p skel-gpu --example compute_throughput -- \
//!     --vertices 1048576,16777216 --sweep 16777216
//! ```
//! Options:
//! - `--vertices N[,N…]` vertex counts of the table (default 1 048 576);
//! - `--bones B` (64); `--iterations I` timed dispatches per round (20); `--warmup-ms W` (300);
//!   `--rounds R` sweeps over every configuration (2);
//! - `--formats all|quick|none` (all: u32/f32, u16/unorm16, u8/unorm16, u8/unorm8; quick:
//!   u32/f32 and u8/unorm16; none: no table, e.g. with `--sweep` alone);
//! - `--sweep N`: before the table, time the tunings on N vertices (4 influences, positions,
//!   u32/f32 and u8/unorm16, random and clustered joints); `--use-sweep` then builds the table
//!   with the fastest one instead of the default tuning;
//! - `--tuning baseline|default` for the table (default: `default`);
//! - `--copy-mib M`: size of the copy-bandwidth buffers (1024; 0 skips). Shares of copy
//!   bandwidth are taken of the faster of the two copies.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program: fail loudly"
)]

mod support;

const USAGE: &str = "usage: compute_throughput [--vertices N,N] [--bones B] [--iterations I] [--warmup-ms MS] [--rounds R] [--formats all|quick|...] [--quick] [--sweep N] [--use-sweep] [--tuning baseline|default] [--copy-mib MIB]";

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value, json};
use skel_anim::{VertexInfluences, skin_vertices};
use skel_gpu::{
    BoneCacheLayout, ComputeSkinning, ComputeSkinningBindings, ComputeSkinningConfig,
    ComputeSkinningInputs, ComputeTuning, GpuContext, HeadlessOptions, Influences, JointFormat,
    JointIndices, SkeletonGpu, SkinningVariant, WeightFormat, create_skeleton,
};

struct Options {
    vertices: Vec<u32>,
    bones: u32,
    iterations: u32,
    warmup_ms: u32,
    rounds: u32,
    formats: String,
    sweep: Option<u32>,
    use_sweep: bool,
    baseline: bool,
    copy_mib: u64,
}

fn options() -> Options {
    let mut o = Options {
        vertices: vec![1 << 20],
        bones: 64,
        iterations: 20,
        warmup_ms: 300,
        rounds: 2,
        formats: "all".to_owned(),
        sweep: None,
        use_sweep: false,
        baseline: false,
        copy_mib: 1024,
    };
    let mut cli = support::Cli::new(USAGE);
    while let Some(arg) = cli.next_option() {
        match arg.as_str() {
            "--vertices" => {
                let list: String = cli.value(&arg);
                o.vertices = list
                    .split(',')
                    .map(|v| {
                        v.parse()
                            .unwrap_or_else(|_| cli.fail("--vertices: a list of counts"))
                    })
                    .collect();
            }
            "--bones" => o.bones = cli.value::<u32>(&arg).max(1),
            "--iterations" => o.iterations = cli.value::<u32>(&arg).max(1),
            "--warmup-ms" => o.warmup_ms = cli.value::<u32>(&arg),
            "--rounds" => o.rounds = cli.value::<u32>(&arg).max(1),
            "--formats" => o.formats = cli.value(&arg),
            "--quick" => o.formats = "quick".to_owned(),
            "--sweep" => o.sweep = Some(cli.value::<u32>(&arg).max(1)),
            "--use-sweep" => o.use_sweep = true,
            "--tuning" => o.baseline = cli.value::<String>(&arg) == "baseline",
            "--copy-mib" => o.copy_mib = u64::from(cli.value::<u32>(&arg)),
            other => cli.fail(&format!("unknown option {other}")),
        }
    }
    o
}

/// Deterministic xorshift in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Synthetic mesh data: positions, normals, 16 joints and weights per vertex (the first 4 are
/// the 4-influence set), weights multiples of 1/255 (at most 63/255, so 4 sum to ≤ 1) so that
/// unorm8 and unorm16 represent them exactly and every format skins the same values. Joints
/// are independent per vertex (the worst case for workgroup-memory bank conflicts).
struct Data {
    positions: Vec<f32>,
    normals: Vec<f32>,
    joints: Vec<u32>,
    weights: Vec<f32>,
}

fn data(n: usize, bones: u32) -> Data {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut d = Data {
        positions: Vec::with_capacity(n * 3),
        normals: Vec::with_capacity(n * 3),
        joints: Vec::with_capacity(n * 16),
        weights: Vec::with_capacity(n * 16),
    };
    for _ in 0..n {
        for _ in 0..3 {
            d.positions.push(rng.next() * 2.0 - 1.0);
        }
        let (a, b) = (rng.next() * std::f32::consts::TAU, rng.next() * 2.0 - 1.0);
        let r = (1.0 - b * b).sqrt();
        d.normals.extend([r * a.cos(), r * a.sin(), b]);
        for _ in 0..16 {
            d.joints
                .push(((rng.next() * bones as f32) as u32).min(bones - 1));
            d.weights.push((rng.next() * 63.0).round() / 255.0);
        }
    }
    d
}

/// Joints as a real mesh has them: vertices stored near each other share bones. Runs of 512
/// vertices use a base bone each; a vertex's 16 joints are the base and the next 15 bones.
fn clustered_joints(n: usize, bones: u32) -> Vec<u32> {
    let mut rng = Rng(0xC1_05E7);
    let mut base = 0;
    let mut out = Vec::with_capacity(n * 16);
    for v in 0..n {
        if v % 512 == 0 {
            base = ((rng.next() * bones as f32) as u32).min(bones - 1);
        }
        out.extend((0..16).map(|k| (base + k) % bones));
    }
    out
}

/// Influence set `set` (0 to 3) of the 16 stored per vertex.
fn set<T: Copy>(values: &[T], set: usize) -> Vec<T> {
    values
        .chunks_exact(16)
        .flat_map(|c| c[set * 4..set * 4 + 4].to_vec())
        .collect()
}

fn joint_bytes(joints: &[u32], format: JointFormat) -> Vec<u8> {
    match format {
        JointFormat::U8 => joints.iter().map(|&j| j as u8).collect(),
        JointFormat::U16 => joints
            .iter()
            .flat_map(|&j| (j as u16).to_le_bytes())
            .collect(),
        JointFormat::U32 => joints.iter().flat_map(|&j| j.to_le_bytes()).collect(),
    }
}

fn weight_bytes(weights: &[f32], format: WeightFormat) -> Vec<u8> {
    match format {
        WeightFormat::Unorm8 => weights.iter().map(|w| (w * 255.0).round() as u8).collect(),
        WeightFormat::Unorm16 => weights
            .iter()
            .flat_map(|w| ((w * 65535.0).round() as u16).to_le_bytes())
            .collect(),
        WeightFormat::F32 => bytemuck::cast_slice(weights).to_vec(),
    }
}

fn buffer(ctx: &GpuContext, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: skel_gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if !bytes.is_empty() {
        ctx.queue.write_buffer(&b, 0, bytes);
        ctx.queue.submit([]);
    }
    b
}

fn label(f: JointFormat) -> &'static str {
    match f {
        JointFormat::U8 => "u8",
        JointFormat::U16 => "u16",
        JointFormat::U32 => "u32",
    }
}

fn wlabel(f: WeightFormat) -> &'static str {
    match f {
        WeightFormat::Unorm8 => "unorm8",
        WeightFormat::Unorm16 => "unorm16",
        WeightFormat::F32 => "f32",
    }
}

fn tuning_label(t: &ComputeTuning) -> String {
    format!(
        "{}{}/tiles {}/k {}",
        match t.bone_cache {
            BoneCacheLayout::AffineRows => "affine",
            BoneCacheLayout::Columns => "columns",
        },
        if t.skip_zero_weights { "+skip0" } else { "" },
        t.tiles_per_workgroup
            .map_or_else(|| "auto".to_owned(), |n| n.to_string()),
        t.vertices_per_iteration()
    )
}

fn tuning_json(t: &ComputeTuning) -> Value {
    json!({
        "bone_cache": format!("{:?}", t.bone_cache),
        "tiles_per_workgroup": t.tiles_per_workgroup,
        "vertices_per_iteration": t.vertices_per_iteration(),
        "skip_zero_weights": t.skip_zero_weights,
    })
}

fn timestamps(ctx: &GpuContext) -> bool {
    ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY)
}

/// Seconds per pass: `iterations` passes recorded by `record` (each given its timestamp
/// writes when the device has timestamps), after `warmup_ms` of untimed ones. Returns
/// (median, best).
fn time_passes(
    ctx: &GpuContext,
    o: &Options,
    record: &dyn Fn(&mut wgpu::CommandEncoder, Option<wgpu::ComputePassTimestampWrites<'_>>),
) -> (f64, f64) {
    let start = Instant::now();
    let mut warm = 0;
    while warm < 3 || start.elapsed().as_millis() < u128::from(o.warmup_ms) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..4 {
            record(&mut encoder, None);
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        warm += 4;
    }
    let mut secs = if timestamps(ctx) {
        let count = o.iterations * 2;
        let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for i in 0..o.iterations {
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
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(
            &skel_gpu::readback::read_buffer(ctx, &resolve, 0, u64::from(count) * 8).unwrap(),
        );
        let period = f64::from(ctx.queue.get_timestamp_period()) * 1e-9;
        ticks
            .chunks_exact(2)
            .map(|t| t[1].saturating_sub(t[0]) as f64 * period)
            .collect::<Vec<_>>()
    } else {
        (0..o.iterations)
            .map(|_| {
                let start = Instant::now();
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                record(&mut encoder, None);
                ctx.queue.submit([encoder.finish()]);
                ctx.device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .unwrap();
                start.elapsed().as_secs_f64()
            })
            .collect()
    };
    secs.sort_by(f64::total_cmp);
    (secs[secs.len() / 2], secs[0])
}

/// Copy bandwidth in bytes (read + written) per second: a `copy_buffer_to_buffer` of `bytes`
/// (timestamps inside the encoder when the device has them, else wall clock over 10 copies)
/// and a compute shader copying `vec4<f32>`s.
fn copy_bandwidth(ctx: &GpuContext, o: &Options) -> Value {
    let bytes = o.copy_mib << 20;
    let make = |usage| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("copy bandwidth"),
            size: bytes,
            usage: usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (
        make(wgpu::BufferUsages::STORAGE),
        make(wgpu::BufferUsages::STORAGE),
    );
    // Fill the source with non-zero data (a GPU may move zeros faster).
    let chunk: Vec<u8> = (0..(64u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut at = 0;
    while at < bytes {
        let len = (bytes - at).min(chunk.len() as u64);
        ctx.queue
            .write_buffer(&src, at, &chunk[..usize::try_from(len).unwrap()]);
        ctx.queue.submit([]);
        at += len;
    }
    let inside = ctx
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    let mut copy_secs: Vec<f64> = Vec::new();
    for round in 0..=o.iterations {
        if inside {
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
            let t: Vec<u64> = bytemuck::pod_collect_to_vec(
                &skel_gpu::readback::read_buffer(ctx, &resolve, 0, 16).unwrap(),
            );
            if round > 0 {
                copy_secs.push(
                    t[1].saturating_sub(t[0]) as f64
                        * f64::from(ctx.queue.get_timestamp_period())
                        * 1e-9,
                );
            }
        } else {
            let start = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            for _ in 0..10 {
                encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
            }
            ctx.queue.submit([encoder.finish()]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
            if round > 0 {
                copy_secs.push(start.elapsed().as_secs_f64() / 10.0);
            }
        }
    }
    copy_secs.sort_by(f64::total_cmp);
    let copy = copy_secs[copy_secs.len() / 2];
    // Wall clock over 10 copies in one submission, whatever the timestamps say.
    let start = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for _ in 0..10 {
        encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let copy_wall = start.elapsed().as_secs_f64() / 10.0;

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
            compilation_options: Default::default(),
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
        .unwrap()
        .min(65_535);
    let (kernel, _) = time_passes(ctx, o, &|encoder, ts| {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: ts,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    });
    let moved = 2.0 * bytes as f64;
    eprintln!(
        "copy bandwidth over {} MiB: copy_buffer_to_buffer {:.0} GB/s ({}; {:.0} GB/s by wall clock over 10), compute copy {:.0} GB/s",
        o.copy_mib,
        moved / copy / 1e9,
        if inside {
            "encoder timestamps"
        } else {
            "wall clock"
        },
        moved / copy_wall / 1e9,
        moved / kernel / 1e9
    );
    json!({
        "buffer_bytes": bytes,
        "bytes_moved_per_copy": 2 * bytes,
        "copy_buffer_to_buffer_seconds": copy,
        "copy_buffer_to_buffer_gb_per_second": moved / copy / 1e9,
        "copy_buffer_to_buffer_timing": if inside { "encoder_timestamps" } else { "wall_clock" },
        "copy_buffer_to_buffer_wall_clock_gb_per_second": moved / copy_wall / 1e9,
        "compute_copy_seconds": kernel,
        "compute_copy_gb_per_second": moved / kernel / 1e9,
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

/// Largest error of sampled skinned vertices (the first 4096 and the last 4096) against the
/// CPU reference, relative to the bounding box diagonal of the sample.
fn check(
    ctx: &GpuContext,
    d: &Data,
    joints: &[u32],
    bones: &[f32],
    per_vertex: usize,
    out: &wgpu::Buffer,
    n: usize,
) -> f32 {
    let head = n.min(4096);
    let tail_start = n - n.min(4096);
    let mut sample: Vec<usize> = (0..head).collect();
    sample.extend((tail_start..n).filter(|&v| v >= head));
    let read = |first: usize, count: usize| -> Vec<f32> {
        if count == 0 {
            return Vec::new();
        }
        bytemuck::pod_collect_to_vec(
            &skel_gpu::readback::read_buffer(ctx, out, first as u64 * 12, count as u64 * 12)
                .unwrap(),
        )
    };
    let mut got = read(0, head);
    if tail_start >= head {
        got.extend(read(tail_start, n - tail_start));
    } else {
        got.extend(read(head, n - head));
    }
    let pick = |v: &[f32], k: usize| -> Vec<f32> {
        sample
            .iter()
            .flat_map(|&i| v[i * k..i * k + k].to_vec())
            .collect()
    };
    let inf = VertexInfluences {
        per_vertex,
        joints: sample
            .iter()
            .flat_map(|&i| joints[i * 16..i * 16 + per_vertex].to_vec())
            .collect(),
        weights: sample
            .iter()
            .flat_map(|&i| d.weights[i * 16..i * 16 + per_vertex].to_vec())
            .collect(),
    };
    let positions = pick(&d.positions, 3);
    let mut cpu = vec![0.0; positions.len()];
    skin_vertices(&positions, None, Some(&inf), bones, None, &mut cpu, None).unwrap();
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in cpu.chunks_exact(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let diagonal = (0..3)
        .map(|k| (hi[k] - lo[k]).powi(2))
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    cpu.iter()
        .zip(&got)
        .map(|(a, b)| {
            let e = (a - b).abs();
            if e.is_nan() { f32::INFINITY } else { e }
        })
        .fold(0.0, f32::max)
        / diagonal
}

/// Everything the runs share: device, data, bones, rest and output buffers, and influence
/// buffers per (joint set, format) made on first use.
struct Bench {
    ctx: GpuContext,
    o: Options,
    d: Data,
    clustered: Vec<u32>,
    bones: Vec<f32>,
    skeleton: SkeletonGpu,
    rest_p: wgpu::Buffer,
    rest_n: wgpu::Buffer,
    out_p: wgpu::Buffer,
    out_n: wgpu::Buffer,
    joint_buffers: HashMap<(bool, usize, JointFormat), wgpu::Buffer>,
    weight_buffers: HashMap<(usize, WeightFormat), wgpu::Buffer>,
}

/// One timed configuration.
struct Case {
    config: ComputeSkinningConfig,
    tuning: ComputeTuning,
    vertices: u32,
    clustered: bool,
}

impl Bench {
    fn ensure_buffers(&mut self, case: &Case) {
        let storage = wgpu::BufferUsages::STORAGE;
        for s in 0..case.config.variant.influences.sets() as usize {
            let key = (case.clustered, s, case.config.joint_format);
            if !self.joint_buffers.contains_key(&key) {
                let source = if case.clustered {
                    &self.clustered
                } else {
                    &self.d.joints
                };
                let b = buffer(
                    &self.ctx,
                    &joint_bytes(&set(source, s), case.config.joint_format),
                    storage,
                );
                self.joint_buffers.insert(key, b);
            }
            let wkey = (s, case.config.weight_format);
            if !self.weight_buffers.contains_key(&wkey) {
                let b = buffer(
                    &self.ctx,
                    &weight_bytes(&set(&self.d.weights, s), case.config.weight_format),
                    storage,
                );
                self.weight_buffers.insert(wkey, b);
            }
        }
    }

    /// Times `case` once (one round) and checks it on the first round; returns (median, best,
    /// error, bindings).
    fn run(&mut self, case: &Case, check_it: bool) -> (f64, f64, Option<f32>, (u32, u32), u32) {
        self.ensure_buffers(case);
        let config = case.config;
        let sets = config.variant.influences.sets() as usize;
        let joint = |s: usize| {
            self.joint_buffers
                .get(&(case.clustered, s, config.joint_format))
        };
        let weight = |s: usize| self.weight_buffers.get(&(s, config.weight_format));
        let pipeline = ComputeSkinning::with_tuning(&self.ctx, config, case.tuning).unwrap();
        let inputs = ComputeSkinningInputs {
            vertex_count: case.vertices,
            rest_positions: &self.rest_p,
            rest_normals: config.normals.then_some(&self.rest_n),
            joints: std::array::from_fn(|s| (sets > s).then(|| joint(s)).flatten()),
            weights: std::array::from_fn(|s| (sets > s).then(|| weight(s)).flatten()),
            out_positions: &self.out_p,
            out_normals: config.normals.then_some(&self.out_n),
        };
        let bindings: ComputeSkinningBindings = pipeline
            .bind(&self.ctx, &inputs, Some(&self.skeleton), None)
            .unwrap();
        let (median, best) = time_passes(&self.ctx, &self.o, &|encoder, ts| {
            pipeline.encode(encoder, &bindings, ts);
        });
        let error = check_it.then(|| {
            // Zero the output, skin once more, then compare: a configuration that wrote
            // nothing cannot pass on the previous one's results.
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            encoder.clear_buffer(&self.out_p, 0, None);
            pipeline.encode(&mut encoder, &bindings, None);
            self.ctx.queue.submit([encoder.finish()]);
            check(
                &self.ctx,
                &self.d,
                if case.clustered {
                    &self.clustered
                } else {
                    &self.d.joints
                },
                &self.bones,
                config.variant.influences.count() as usize,
                &self.out_p,
                case.vertices as usize,
            )
        });
        (
            median,
            best,
            error,
            bindings.workgroups(),
            bindings.tiles_per_workgroup(),
        )
    }

    /// Runs every case for `rounds` rounds (all cases per round, in order) and reports each.
    fn run_all(&mut self, cases: &[Case], copy_gbps: Option<f64>, what: &str) -> Vec<Value> {
        let rounds = self.o.rounds;
        let mut medians = vec![Vec::new(); cases.len()];
        let mut bests = vec![f64::MAX; cases.len()];
        let mut errors = vec![0.0f32; cases.len()];
        let mut shapes = vec![((0, 0), 0); cases.len()];
        for round in 0..rounds {
            for (i, case) in cases.iter().enumerate() {
                let (median, best, error, workgroups, tiles) = self.run(case, round == 0);
                medians[i].push(median);
                bests[i] = bests[i].min(best);
                if let Some(e) = error {
                    errors[i] = e;
                }
                shapes[i] = (workgroups, tiles);
            }
            eprintln!("{what}: round {round} done");
        }
        eprintln!(
            "\n{what}\n{:>9} infl normals joints formats        tuning                       median ms  G vert/s  B/vert  GB/s  %copy  error",
            "vertices"
        );
        let mut out = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let mut sorted = medians[i].clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            let c = &case.config;
            let per_vertex = c.bytes_per_vertex();
            let gbps = per_vertex as f64 * f64::from(case.vertices) / median / 1e9;
            let share = copy_gbps.map(|copy| gbps / copy);
            eprintln!(
                "{:>9} {:>4} {:<7} {:<9} {:>3}/{:<8} {:<28} {:>9.3}  {:>8.2}  {:>6}  {:>4.0}  {:>5}  {:.1e}",
                case.vertices,
                c.variant.influences.count(),
                c.normals,
                if case.clustered {
                    "clustered"
                } else {
                    "random"
                },
                label(c.joint_format),
                wlabel(c.weight_format),
                tuning_label(&case.tuning),
                median * 1e3,
                f64::from(case.vertices) / median / 1e9,
                per_vertex,
                gbps,
                share.map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0)),
                errors[i]
            );
            out.push(json!({
                "vertices": case.vertices,
                "influences": c.variant.influences.count(),
                "normals": c.normals,
                "joints": if case.clustered { "clustered" } else { "random" },
                "joint_format": label(c.joint_format),
                "weight_format": wlabel(c.weight_format),
                "tuning": tuning_json(&case.tuning),
                "tuning_label": tuning_label(&case.tuning),
                "workgroups": [shapes[i].0.0, shapes[i].0.1],
                "tiles_per_workgroup": shapes[i].1,
                "bytes_per_vertex": per_vertex,
                "median_ms": median * 1e3,
                "round_medians_ms": medians[i].iter().map(|m| m * 1e3).collect::<Vec<_>>(),
                "best_ms": bests[i] * 1e3,
                "vertices_per_second": f64::from(case.vertices) / median,
                "best_vertices_per_second": f64::from(case.vertices) / bests[i],
                "effective_gb_per_second": gbps,
                "share_of_copy_bandwidth": share,
                "max_error_of_diagonal": errors[i],
            }));
        }
        out
    }
}

fn config(
    influences: Influences,
    normals: bool,
    joint_format: JointFormat,
    weight_format: WeightFormat,
) -> ComputeSkinningConfig {
    ComputeSkinningConfig {
        variant: SkinningVariant {
            influences,
            morph: false,
        },
        normals,
        joint_format,
        weight_format,
    }
}

/// The tunings the sweep compares: the baseline (skel's first kernel), each lever alone, the
/// default, and its neighbours.
fn sweep_tunings() -> Vec<ComputeTuning> {
    let t = |bone_cache, tiles, k, skip| ComputeTuning {
        bone_cache,
        tiles_per_workgroup: tiles,
        vertices_per_iteration: k,
        skip_zero_weights: skip,
    };
    use BoneCacheLayout::{AffineRows as A, Columns as C};
    vec![
        ComputeTuning::baseline(),
        t(C, Some(1), 1, false),
        t(C, None, 2, true),
        t(A, Some(1), 1, true),
        t(A, Some(1), 1, false),
        t(A, None, 1, true),
        t(A, None, 1, false),
        ComputeTuning::default(),
        t(A, None, 2, false),
        t(A, None, 4, true),
        t(A, Some(32), 2, true),
    ]
}

fn main() {
    let o = options();
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        ..Default::default()
    })
    .expect("a wgpu adapter");
    let info = ctx.adapter_info.clone();
    eprintln!(
        "adapter {} ({:?}, {:?}), driver {} {}",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    );
    let max_n = o.vertices.iter().copied().chain(o.sweep).max().unwrap_or(1) as usize;
    let started = Instant::now();
    eprintln!("generating {max_n} vertices…");
    let d = data(max_n, o.bones);
    let clustered = o
        .sweep
        .map_or_else(Vec::new, |n| clustered_joints(n as usize, o.bones));
    // Affine bones: a rotation about z and a translation each.
    let bones: Vec<f32> = (0..o.bones)
        .flat_map(|b| {
            let (s, c) = (b as f32 * 0.1).sin_cos();
            [
                c,
                s,
                0.0,
                0.0,
                -s,
                c,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                b as f32 * 0.01,
                0.5,
                -0.25,
                1.0,
            ]
        })
        .collect();
    let skeleton = create_skeleton(
        &ctx,
        JointIndices::U8(&[]),
        &[],
        o.bones,
        &bones,
        None,
        None,
    )
    .unwrap();
    let storage = wgpu::BufferUsages::STORAGE;
    let out_bytes = max_n as u64 * 12;
    let output = |usage| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned out"),
            size: out_bytes.max(4),
            usage: usage | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let mut bench = Bench {
        rest_p: buffer(&ctx, bytemuck::cast_slice(&d.positions), storage),
        rest_n: buffer(&ctx, bytemuck::cast_slice(&d.normals), storage),
        out_p: output(storage),
        out_n: output(storage),
        ctx: ctx.clone(),
        d,
        clustered,
        bones,
        skeleton,
        joint_buffers: HashMap::new(),
        weight_buffers: HashMap::new(),
        o,
    };
    eprintln!("data ready after {:.1} s", started.elapsed().as_secs_f64());

    let copy = (bench.o.copy_mib > 0).then(|| copy_bandwidth(&ctx, &bench.o));
    // The reference: the faster of the two copies (the compute copy on the H200, where
    // copy_buffer_to_buffer measured far below it).
    let copy_gbps = copy.as_ref().and_then(|c| {
        let a = c["copy_buffer_to_buffer_gb_per_second"].as_f64()?;
        let b = c["compute_copy_gb_per_second"].as_f64()?;
        Some(a.max(b))
    });

    let mut table_tuning = if bench.o.baseline {
        ComputeTuning::baseline()
    } else {
        ComputeTuning::default()
    };
    let mut sweep_results = Vec::new();
    if let Some(n) = bench.o.sweep {
        let mut cases = Vec::new();
        for clustered in [false, true] {
            for (jf, wf) in [
                (JointFormat::U32, WeightFormat::F32),
                (JointFormat::U8, WeightFormat::Unorm16),
            ] {
                for tuning in sweep_tunings() {
                    cases.push(Case {
                        config: config(Influences::Four, false, jf, wf),
                        tuning,
                        vertices: n,
                        clustered,
                    });
                }
            }
        }
        sweep_results = bench.run_all(&cases, copy_gbps, "tuning sweep");
        // The fastest tuning for the target: 4 influences, positions, u8/unorm16, random joints.
        let best = cases
            .iter()
            .zip(&sweep_results)
            .filter(|(c, _)| !c.clustered && c.config.joint_format == JointFormat::U8)
            .min_by(|a, b| {
                a.1["median_ms"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b.1["median_ms"].as_f64().unwrap())
            })
            .map(|(c, _)| c.tuning);
        if let (true, Some(best)) = (bench.o.use_sweep, best) {
            eprintln!(
                "table uses the sweep's fastest tuning: {}",
                tuning_label(&best)
            );
            table_tuning = best;
        }
    }

    let formats: &[(JointFormat, WeightFormat)] = match bench.o.formats.as_str() {
        "none" => &[],
        "quick" => &[
            (JointFormat::U32, WeightFormat::F32),
            (JointFormat::U8, WeightFormat::Unorm16),
        ],
        _ => &[
            (JointFormat::U32, WeightFormat::F32),
            (JointFormat::U16, WeightFormat::Unorm16),
            (JointFormat::U8, WeightFormat::Unorm16),
            (JointFormat::U8, WeightFormat::Unorm8),
        ],
    };
    let mut cases = Vec::new();
    for &vertices in &bench.o.vertices {
        for influences in [Influences::Four, Influences::Eight, Influences::Sixteen] {
            for &(jf, wf) in formats {
                // A u8 joint names at most 256 bones, a u16 one 65 536.
                let fits = match jf {
                    JointFormat::U8 => bench.o.bones <= 256,
                    JointFormat::U16 => bench.o.bones <= 65_536,
                    JointFormat::U32 => true,
                };
                if !fits {
                    eprintln!("skipping {} joints: {} bones", label(jf), bench.o.bones);
                    continue;
                }
                for normals in [false, true] {
                    cases.push(Case {
                        config: config(influences, normals, jf, wf),
                        tuning: table_tuning,
                        vertices,
                        clustered: false,
                    });
                }
            }
        }
    }
    let results = if cases.is_empty() {
        Vec::new()
    } else {
        bench.run_all(&cases, copy_gbps, "throughput table")
    };

    let report = json!({
        "benchmark": "skel-gpu compute_throughput",
        "adapter": support::adapter_json(&info),
        "bones": bench.o.bones,
        "iterations": bench.o.iterations,
        "warmup_ms": bench.o.warmup_ms,
        "rounds": bench.o.rounds,
        "timing": if timestamps(&ctx) { "gpu_timestamps" } else { "wall_clock" },
        "copy_bandwidth": copy,
        "table_tuning": tuning_json(&table_tuning),
        "sweep": sweep_results,
        "results": results,
        "seconds": started.elapsed().as_secs_f64(),
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
