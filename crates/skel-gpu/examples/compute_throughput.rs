//! Compute-skinning throughput: vertices per second for N vertices with 4/8 influences,
//! positions only and positions + normals, and compact vertex formats (u8/u16 joints,
//! unorm8/unorm16 weights) next to the skeleton's own u32/f32. Prints one JSON document.
//!
//! Timing is GPU timestamps around each dispatch when the adapter has `TIMESTAMP_QUERY`, wall
//! clock per submitted-and-waited batch otherwise (the JSON says which). Every configuration is
//! also checked against `skel_anim::skin_vertices` on a sample of vertices.
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run --release -p skel-gpu --example compute_throughput -- \
//!     --vertices 16777216 --bones 64 --iterations 30
//! ```
//! Options: `--vertices N` (default 1 048 576), `--bones B` (64), `--iterations I` timed
//! dispatches per round (20), `--warmup-ms W` of untimed dispatches before each round (300:
//! GPUs idle at low clocks between configurations), `--rounds R` sweeps over every
//! configuration (2; the spread between rounds says how far to trust a difference), `--quick`
//! (only the u32/f32 and u8/unorm16 formats).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program: fail loudly"
)]

use std::time::Instant;

use serde_json::json;
use skel_anim::{VertexInfluences, skin_vertices};
use skel_gpu::{
    ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, GpuContext, HeadlessOptions,
    Influences, JointFormat, JointIndices, SkinningVariant, WeightFormat, create_skeleton,
};

struct Options {
    vertices: u32,
    bones: u32,
    iterations: u32,
    warmup_ms: u32,
    rounds: u32,
    quick: bool,
}

fn options() -> Options {
    let mut o = Options {
        vertices: 1 << 20,
        bones: 64,
        iterations: 20,
        warmup_ms: 300,
        rounds: 2,
        quick: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .and_then(|v| v.parse::<u32>().ok())
                .expect("a number after the option")
        };
        match arg.as_str() {
            "--vertices" => o.vertices = value(),
            "--bones" => o.bones = value(),
            "--iterations" => o.iterations = value().max(1),
            "--warmup-ms" => o.warmup_ms = value(),
            "--rounds" => o.rounds = value().max(1),
            "--quick" => o.quick = true,
            other => panic!("unknown option {other}"),
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

/// Synthetic mesh data: positions, normals, 8 joints and weights per vertex (the first 4 are
/// the 4-influence set), weights multiples of 1/255 (at most 63/255, so 4 sum to ≤ 1) so that
/// unorm8 and unorm16 represent them exactly and every format skins the same values.
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
        joints: Vec::with_capacity(n * 8),
        weights: Vec::with_capacity(n * 8),
    };
    for _ in 0..n {
        for _ in 0..3 {
            d.positions.push(rng.next() * 2.0 - 1.0);
        }
        d.normals.extend([0.0, 0.0, 1.0]);
        for _ in 0..8 {
            d.joints
                .push(((rng.next() * bones as f32) as u32).min(bones - 1));
            d.weights.push((rng.next() * 63.0).round() / 255.0);
        }
    }
    d
}

/// Influence set `set` (0 or 1) of the 8 stored per vertex.
fn set<T: Copy>(values: &[T], set: usize) -> Vec<T> {
    values
        .chunks_exact(8)
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

/// Seconds per dispatch: per-dispatch GPU timestamps (median, best) or wall clock.
fn time_dispatches(
    ctx: &GpuContext,
    pipeline: &ComputeSkinning,
    bindings: &skel_gpu::ComputeSkinningBindings,
    o: &Options,
) -> (f64, f64) {
    // Warm up by time, not by count: a GPU that idled while the CPU prepared the next
    // configuration needs a while at full load before its clocks are back.
    let start = Instant::now();
    let mut warm = 0;
    while warm < 3 || start.elapsed().as_millis() < u128::from(o.warmup_ms) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..4 {
            pipeline.encode(&mut encoder, bindings, None);
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        warm += 4;
    }
    if ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
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
            pipeline.encode(
                &mut encoder,
                bindings,
                Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * i),
                    end_of_pass_write_index: Some(2 * i + 1),
                }),
            );
        }
        encoder.resolve_query_set(&queries, 0..count, &resolve, 0);
        ctx.queue.submit([encoder.finish()]);
        let ticks: Vec<u64> = bytemuck::cast_slice(
            &skel_gpu::readback::read_buffer(ctx, &resolve, 0, u64::from(count) * 8).unwrap(),
        )
        .to_vec();
        let period = f64::from(ctx.queue.get_timestamp_period()) * 1e-9;
        let mut secs: Vec<f64> = ticks
            .chunks_exact(2)
            .map(|t| t[1].saturating_sub(t[0]) as f64 * period)
            .collect();
        secs.sort_by(f64::total_cmp);
        (secs[secs.len() / 2], secs[0])
    } else {
        let mut secs = Vec::with_capacity(o.iterations as usize);
        for _ in 0..o.iterations {
            let start = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pipeline.encode(&mut encoder, bindings, None);
            ctx.queue.submit([encoder.finish()]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
            secs.push(start.elapsed().as_secs_f64());
        }
        secs.sort_by(f64::total_cmp);
        (secs[secs.len() / 2], secs[0])
    }
}

/// Largest error of `sample` skinned vertices against the CPU reference, relative to the
/// bounding box diagonal of the sample.
fn check(
    ctx: &GpuContext,
    d: &Data,
    bones: &[f32],
    per_vertex: usize,
    out: &wgpu::Buffer,
    n: usize,
) -> f32 {
    let sample: Vec<usize> = (0..1000).map(|i| i * n / 1000).chain([n - 1]).collect();
    let gpu: Vec<f32> =
        bytemuck::cast_slice(&skel_gpu::readback::read_buffer(ctx, out, 0, n as u64 * 12).unwrap())
            .to_vec();
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
            .flat_map(|&i| d.joints[i * 8..i * 8 + per_vertex].to_vec())
            .collect(),
        weights: sample
            .iter()
            .flat_map(|&i| d.weights[i * 8..i * 8 + per_vertex].to_vec())
            .collect(),
    };
    let positions = pick(&d.positions, 3);
    let mut cpu = vec![0.0; positions.len()];
    skin_vertices(&positions, None, Some(&inf), bones, None, &mut cpu, None).unwrap();
    let got = pick(&gpu, 3);
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
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max)
        / diagonal
}

fn main() {
    let o = options();
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY,
        ..Default::default()
    })
    .expect("a wgpu adapter");
    let n = o.vertices as usize;
    eprintln!("generating {n} vertices…");
    let d = data(n, o.bones);
    // 64 affine bones: a rotation about z and a translation each.
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
    let rest_p = buffer(&ctx, bytemuck::cast_slice(&d.positions), storage);
    let rest_n = buffer(&ctx, bytemuck::cast_slice(&d.normals), storage);
    let out_p = buffer(
        &ctx,
        &vec![0; n * 12],
        storage | wgpu::BufferUsages::COPY_SRC,
    );
    let out_n = buffer(&ctx, &vec![0; n * 12], storage);

    let formats: &[(JointFormat, WeightFormat)] = if o.quick {
        &[
            (JointFormat::U32, WeightFormat::F32),
            (JointFormat::U8, WeightFormat::Unorm16),
        ]
    } else {
        &[
            (JointFormat::U32, WeightFormat::F32),
            (JointFormat::U16, WeightFormat::Unorm16),
            (JointFormat::U8, WeightFormat::Unorm16),
            (JointFormat::U8, WeightFormat::Unorm8),
        ]
    };
    let timing = if ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        "gpu_timestamps"
    } else {
        "wall_clock"
    };
    // Buffers per format, made once; every round sweeps all configurations in the same order.
    let mut configs = Vec::new();
    for influences in [Influences::Four, Influences::Eight] {
        for &(joint_format, weight_format) in formats {
            // A u8 joint names at most 256 bones, a u16 one 65 536.
            let max_bones = match joint_format {
                JointFormat::U8 => 256,
                JointFormat::U16 => 65_536,
                JointFormat::U32 => u32::MAX,
            };
            if o.bones > max_bones {
                eprintln!(
                    "skipping {} joints: {} bones do not fit",
                    label(joint_format),
                    o.bones
                );
                continue;
            }
            for normals in [false, true] {
                configs.push(ComputeSkinningConfig {
                    variant: SkinningVariant {
                        influences,
                        morph: false,
                    },
                    normals,
                    joint_format,
                    weight_format,
                });
            }
        }
    }
    let sets_for = |config: &ComputeSkinningConfig| -> Vec<(wgpu::Buffer, wgpu::Buffer)> {
        (0..config.variant.influences.sets() as usize)
            .map(|s| {
                (
                    buffer(
                        &ctx,
                        &joint_bytes(&set(&d.joints, s), config.joint_format),
                        storage,
                    ),
                    buffer(
                        &ctx,
                        &weight_bytes(&set(&d.weights, s), config.weight_format),
                        storage,
                    ),
                )
            })
            .collect()
    };
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut bests = vec![f64::MAX; configs.len()];
    let mut errors = vec![0.0f32; configs.len()];
    let mut workgroups = vec![(0, 0); configs.len()];
    for round in 0..o.rounds {
        for (i, config) in configs.iter().enumerate() {
            let sets = sets_for(config);
            let pipeline = ComputeSkinning::new(&ctx, *config).unwrap();
            let inputs = ComputeSkinningInputs {
                vertex_count: o.vertices,
                rest_positions: &rest_p,
                rest_normals: config.normals.then_some(&rest_n),
                joints: [sets.first().map(|s| &s.0), sets.get(1).map(|s| &s.0)],
                weights: [sets.first().map(|s| &s.1), sets.get(1).map(|s| &s.1)],
                out_positions: &out_p,
                out_normals: config.normals.then_some(&out_n),
            };
            let bindings = pipeline.bind(&ctx, &inputs, Some(&skeleton), None).unwrap();
            let (median, best) = time_dispatches(&ctx, &pipeline, &bindings, &o);
            medians[i].push(median);
            bests[i] = bests[i].min(best);
            workgroups[i] = bindings.workgroups();
            if round == 0 {
                errors[i] = check(
                    &ctx,
                    &d,
                    &bones,
                    config.variant.influences.count() as usize,
                    &out_p,
                    n,
                );
            }
            eprintln!(
                "round {round}: {} infl, {}/{}, normals {}: {:.3} ms median, {:.1} M vertices/s",
                config.variant.influences.count(),
                label(config.joint_format),
                wlabel(config.weight_format),
                config.normals,
                median * 1e3,
                f64::from(o.vertices) / median / 1e6
            );
        }
    }
    let mut results = Vec::new();
    eprintln!(
        "\ninfl formats        normals  median ms  (rounds)            G vert/s  GB/s   error"
    );
    for (i, config) in configs.iter().enumerate() {
        let mut sorted = medians[i].clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let bytes = config.bytes_per_vertex() as f64 * f64::from(o.vertices);
        eprintln!(
            "{}    {:>3}/{:<8} {:<7}  {:>8.3}  {:<20} {:>7.2}  {:>5.0}  {:.1e}",
            config.variant.influences.count(),
            label(config.joint_format),
            wlabel(config.weight_format),
            config.normals,
            median * 1e3,
            format!(
                "{:.3?}",
                medians[i].iter().map(|m| m * 1e3).collect::<Vec<_>>()
            ),
            f64::from(o.vertices) / median / 1e9,
            bytes / median / 1e9,
            errors[i]
        );
        results.push(json!({
            "influences": config.variant.influences.count(),
            "normals": config.normals,
            "joint_format": label(config.joint_format),
            "weight_format": wlabel(config.weight_format),
            "bytes_per_vertex": config.bytes_per_vertex(),
            "workgroups": [workgroups[i].0, workgroups[i].1],
            "median_ms": median * 1e3,
            "round_medians_ms": medians[i].iter().map(|m| m * 1e3).collect::<Vec<_>>(),
            "best_ms": bests[i] * 1e3,
            "vertices_per_second": f64::from(o.vertices) / median,
            "best_vertices_per_second": f64::from(o.vertices) / bests[i],
            "effective_gb_per_second": bytes / median / 1e9,
            "max_error_of_diagonal": errors[i],
        }));
    }
    let info = &ctx.adapter_info;
    let report = json!({
        "benchmark": "skel-gpu compute_throughput",
        "adapter": {
            "name": info.name,
            "backend": format!("{:?}", info.backend),
            "device_type": format!("{:?}", info.device_type),
            "driver": info.driver,
            "driver_info": info.driver_info,
        },
        "vertices": o.vertices,
        "bones": o.bones,
        "iterations": o.iterations,
        "warmup_ms": o.warmup_ms,
        "rounds": o.rounds,
        "timing": timing,
        "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
