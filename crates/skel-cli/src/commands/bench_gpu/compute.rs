//! `skel bench gpu compute`: compute-skinning throughput, vertices per second for several vertex
//! counts with 4/8/16 influences, positions only and positions + normals, and compact vertex
//! formats (u8/u16 joints, unorm8/unorm16 weights) next to the skeleton's own u32/f32; the
//! device's copy bandwidth measured in the same run (a buffer-to-buffer copy and a plain
//! compute copy), so that each result can be given as a share of it; and optionally a sweep
//! over [`ComputeTuning`]s.
//!
//! Timing is in [`super::compute_timing`]: per configuration a warm-up, `--iterations` timed
//! dispatches per round, the median per round, and the median of the round medians. Every
//! configuration is checked against `skel_anim::skin_vertices` on its first and last 4096
//! vertices. (This was the `compute_throughput` example of skel-gpu; same data, method and
//! figures.)

use std::collections::HashMap;
use std::io::Write as _;
use std::time::Instant;

use serde::Serialize;
use skel::gpu::{
    ComputeTuning, GpuContext, HeadlessOptions, Influences, JointFormat, JointIndices,
    WeightFormat, create_skeleton,
};

use super::compute_cases::{Bench, Case, Row, TuningReport, config, sweep_tunings, tuning_label};
use super::compute_data::{Data, bone_matrices, buffer, clustered_joints, joint_label};
use super::compute_timing::{CopyBandwidth, Timing, copy_bandwidth, has_timestamps};
use super::report::{AdapterReport, positive_u32, table_out};

/// Arguments of `skel bench gpu compute`.
#[derive(Debug, clap::Args)]
pub(super) struct ComputeArgs {
    /// Vertex counts of the table, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1048576", value_parser = positive_u32)]
    vertices: Vec<u32>,
    /// Bones of the synthetic skeleton (joints are drawn over all of them).
    #[arg(long, default_value_t = 64, value_parser = positive_u32)]
    bones: u32,
    /// Timed dispatches per configuration and round.
    #[arg(long, default_value_t = 20, value_parser = positive_u32)]
    iterations: u32,
    /// Untimed dispatches for at least this many milliseconds before each configuration.
    #[arg(long, default_value_t = 300)]
    warmup_ms: u32,
    /// Rounds over every configuration (the figure is the median of the round medians). Odd,
    /// so that one slow round is outvoted: on the H200 a configuration's first round after
    /// new buffers is sometimes 1.7–5.7× slower, and the median of two keeps the slower one.
    #[arg(long, default_value_t = 3, value_parser = positive_u32)]
    rounds: u32,
    /// Joint/weight formats of the table: `all` (u32/f32, u16/unorm16, u8/unorm16, u8/unorm8),
    /// `quick` (u32/f32 and u8/unorm16) or `none` (no table, e.g. with --sweep alone).
    #[arg(long, default_value = "all", value_parser = ["all", "quick", "none"])]
    formats: String,
    /// Influence counts of the table, comma-separated (4, 8, 16).
    #[arg(long, value_delimiter = ',', default_value = "4,8,16", value_parser = ["4", "8", "16"])]
    influences: Vec<String>,
    /// Streams of the table: `both`, `positions` (positions only) or `normals` (positions +
    /// normals).
    #[arg(long, default_value = "both", value_parser = ["both", "positions", "normals"])]
    streams: String,
    /// Before the table, time the tunings on this many vertices (4 influences, positions,
    /// u32/f32 and u8/unorm16, random and clustered joints).
    #[arg(long, value_parser = positive_u32)]
    sweep: Option<u32>,
    /// Build the table with the sweep's fastest tuning instead of --tuning.
    #[arg(long, requires = "sweep")]
    use_sweep: bool,
    /// Tuning of the table: `default` or `baseline` (skel's first kernel).
    #[arg(long, default_value = "default", value_parser = ["default", "baseline"])]
    tuning: String,
    /// Size in MiB of each copy-bandwidth buffer (0 skips the copy measurement). Shares of
    /// copy bandwidth are of the faster of the two copies.
    #[arg(long, default_value_t = 1024)]
    copy_mib: u64,
    /// Print one JSON object (the tables go to stderr).
    #[arg(long)]
    json: bool,
}

/// What `skel bench gpu compute --json` prints.
#[derive(Debug, Serialize)]
struct ComputeReport {
    schema: &'static str,
    adapter: AdapterReport,
    bones: u32,
    iterations: u32,
    warmup_ms: u32,
    rounds: u32,
    /// `gpu_timestamps` or `wall_clock`.
    timing: &'static str,
    copy_bandwidth: Option<CopyBandwidth>,
    table_tuning: TuningReport,
    sweep: Vec<Row>,
    results: Vec<Row>,
    seconds: f64,
}

/// The joint/weight formats `--formats` names.
fn formats(which: &str) -> &'static [(JointFormat, WeightFormat)] {
    match which {
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
    }
}

/// Runs `skel bench gpu compute`.
pub(super) fn run(args: &ComputeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        ..Default::default()
    })?;
    let adapter = AdapterReport::new(&ctx.adapter_info);
    let mut out = table_out(args.json);
    writeln!(out, "skel bench gpu compute\n{}", adapter.line())?;
    let started = Instant::now();
    let max_n = args
        .vertices
        .iter()
        .copied()
        .chain(args.sweep)
        .max()
        .unwrap_or(1);
    // Positions and outputs are 12 bytes a vertex; a storage binding must hold them.
    let out_bytes = u64::from(max_n) * 12;
    if out_bytes > ctx.limits.max_storage_buffer_binding_size {
        return Err(format!(
            "{max_n} vertices need {out_bytes}-byte buffers; this device binds at most {}",
            ctx.limits.max_storage_buffer_binding_size
        )
        .into());
    }
    eprintln!("generating {max_n} vertices…");
    let data = Data::new(max_n as usize, args.bones);
    let clustered = args
        .sweep
        .map_or_else(Vec::new, |n| clustered_joints(n as usize, args.bones));
    let bones = bone_matrices(args.bones);
    let skeleton = create_skeleton(
        &ctx,
        JointIndices::U8(&[]),
        &[],
        args.bones,
        &bones,
        None,
        None,
    )?;
    let storage = wgpu::BufferUsages::STORAGE;
    let output = || {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned out"),
            size: out_bytes.max(4),
            usage: storage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let timing = Timing {
        iterations: args.iterations,
        warmup_ms: args.warmup_ms,
    };
    let mut bench = Bench {
        rest_p: buffer(&ctx, bytemuck::cast_slice(&data.positions), storage),
        rest_n: buffer(&ctx, bytemuck::cast_slice(&data.normals), storage),
        out_p: output(),
        out_n: output(),
        ctx: ctx.clone(),
        timing,
        rounds: args.rounds,
        data,
        clustered,
        bones,
        skeleton,
        joint_buffers: HashMap::new(),
        weight_buffers: HashMap::new(),
    };
    eprintln!("data ready after {:.1} s", started.elapsed().as_secs_f64());

    let copy = if args.copy_mib > 0 {
        let c = copy_bandwidth(&ctx, timing, args.copy_mib)?;
        writeln!(
            out,
            "copy bandwidth over {} MiB: copy_buffer_to_buffer {:.0} GB/s, compute copy {:.0} GB/s",
            args.copy_mib, c.copy_buffer_to_buffer_gb_per_second, c.compute_copy_gb_per_second
        )?;
        Some(c)
    } else {
        None
    };
    let copy_gbps = copy.as_ref().map(CopyBandwidth::best_gb_per_second);

    let mut table_tuning = if args.tuning == "baseline" {
        ComputeTuning::baseline()
    } else {
        ComputeTuning::default()
    };
    let mut sweep = Vec::new();
    if let Some(n) = args.sweep {
        let mut cases = Vec::new();
        for clustered in [false, true] {
            for &(jf, wf) in formats("quick") {
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
        sweep = bench.run_all(&cases, copy_gbps, "tuning sweep", &mut out)?;
        // The fastest tuning for the target: 4 influences, positions, u8/unorm16, random joints.
        let best = cases
            .iter()
            .zip(&sweep)
            .filter(|(c, _)| !c.clustered && c.config.joint_format == JointFormat::U8)
            .min_by(|a, b| a.1.median_ms.total_cmp(&b.1.median_ms))
            .map(|(c, _)| c.tuning);
        if let (true, Some(best)) = (args.use_sweep, best) {
            writeln!(
                out,
                "table uses the sweep's fastest tuning: {}",
                tuning_label(&best)
            )?;
            table_tuning = best;
        }
    }

    let normals: &[bool] = match args.streams.as_str() {
        "positions" => &[false],
        "normals" => &[true],
        _ => &[false, true],
    };
    let mut cases = Vec::new();
    for &vertices in &args.vertices {
        for influences in [Influences::Four, Influences::Eight, Influences::Sixteen] {
            if !args.influences.contains(&influences.count().to_string()) {
                continue;
            }
            for &(jf, wf) in formats(&args.formats) {
                // A u8 joint names at most 256 bones, a u16 one 65 536.
                let fits = match jf {
                    JointFormat::U8 => args.bones <= 256,
                    JointFormat::U16 => args.bones <= 65_536,
                    JointFormat::U32 => true,
                };
                if !fits {
                    eprintln!("skipping {} joints: {} bones", joint_label(jf), args.bones);
                    continue;
                }
                for &normals in normals {
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
        bench.run_all(&cases, copy_gbps, "throughput table", &mut out)?
    };
    let report = ComputeReport {
        schema: "skel-bench-gpu-compute/1",
        adapter,
        bones: args.bones,
        iterations: args.iterations,
        warmup_ms: args.warmup_ms,
        rounds: args.rounds,
        timing: if has_timestamps(&ctx) {
            "gpu_timestamps"
        } else {
            "wall_clock"
        },
        copy_bandwidth: copy,
        table_tuning: TuningReport::new(&table_tuning),
        sweep,
        results,
        seconds: started.elapsed().as_secs_f64(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}
