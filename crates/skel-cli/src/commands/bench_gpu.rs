//! `skel bench gpu crowd`: a crowd of one asset through the facade's crowd API
//! ([`skel::Crowd`]), frame by frame: CPU pose of every instance (rayon), bone upload through
//! the staging ring (CPU time and time until the GPU has copied it), compute skinning of every
//! instance (GPU timestamps when the adapter has them), and heap allocations per frame on this
//! thread. Medians over the timed frames.
//!
//! Parsed on its own (`main.rs` hands it the arguments after `bench gpu`), so that `skel bench`
//! keeps its positional asset argument.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use serde::Serialize;
use skel::gpu::{GpuContext, HeadlessOptions};
use skel::{Crowd, CrowdDescriptor, LoadOptions, load_gltf};

use crate::render::{DEFAULT_CHARACTER, DEFAULT_CHARACTER_NAME};

/// GPU benchmarks of skel (one JSON object with --json).
#[derive(Debug, Parser)]
#[command(name = "skel bench gpu")]
pub struct BenchGpuCli {
    #[command(subcommand)]
    command: BenchGpuCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BenchGpuCommand {
    /// A crowd of one asset: pose, bone upload, compute skinning, allocations per frame.
    Crowd(CrowdArgs),
}

/// Arguments of `skel bench gpu crowd`.
#[derive(Debug, clap::Args)]
struct CrowdArgs {
    /// A .gltf or .glb file (default: the built-in character).
    asset: Option<PathBuf>,
    /// Instances in the crowd.
    #[arg(long, default_value_t = 1000)]
    characters: u32,
    /// Timed frames (after 10 untimed ones).
    #[arg(long, default_value_t = 60)]
    frames: usize,
    /// Skinning method of the compute path: `linear` or `dq` (dual quaternions).
    #[arg(long, default_value = "linear", value_parser = ["linear", "dq"])]
    skinning: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// What `skel bench gpu crowd --json` prints.
#[derive(Debug, Serialize)]
struct CrowdReport {
    schema: &'static str,
    asset: String,
    adapter: String,
    backend: String,
    driver: String,
    driver_info: String,
    characters: u32,
    frames: usize,
    /// The skinning method asked for, and what each mesh got (fallbacks in `warnings`).
    skinning: String,
    warnings: Vec<String>,
    vertices_per_character: u64,
    bones_per_character: u32,
    rayon_threads: usize,
    /// Median CPU time of `Crowd::tick` (every instance posed).
    pose_ms: f64,
    /// Median CPU time of `Crowd::upload` (copy into the staging slot, record the copies).
    upload_cpu_ms: f64,
    /// Median time from the start of `upload` until the GPU has run the copies.
    upload_total_ms: f64,
    /// Median GPU time of the crowd's compute pass (timestamps), or `null` without them.
    skin_gpu_ms: Option<f64>,
    /// Median wall time of submitting the compute pass and waiting for it.
    skin_wall_ms: f64,
    /// Skinned vertices per second by the GPU time (or the wall time without timestamps).
    gvertices_per_s: f64,
    /// Heap allocations on this thread in `tick` + `upload`, last frame.
    allocations_per_frame: u64,
}

/// Runs `skel bench gpu …` with `args` (the words after `gpu`).
///
/// # Errors
/// Parsing errors come back as one line, clap's first (printed by the caller; `--help` is
/// printed and is not an error); loading, GPU and crowd errors as they are.
pub fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let words = std::iter::once("skel bench gpu".to_owned()).chain(args.iter().cloned());
    let cli = match BenchGpuCli::try_parse_from(words) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            return Ok(());
        }
        // One line: clap's first (the rule broken and the word), then where help is.
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first.trim_start_matches("error: ").trim_end();
            return Err(format!("{first} (see `skel bench gpu --help`)").into());
        }
    };
    match cli.command {
        BenchGpuCommand::Crowd(a) => crowd(&a),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn crowd(args: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY,
        ..HeadlessOptions::default()
    })?;
    let (asset, name) = match &args.asset {
        Some(p) => (
            load_gltf(&ctx, p.as_path(), &LoadOptions::default())?,
            p.display().to_string(),
        ),
        None => (
            load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default())?,
            DEFAULT_CHARACTER_NAME.to_owned(),
        ),
    };
    let clip = (!asset.animation.clips.is_empty()).then_some(0);
    let mut crowd = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: args.characters,
            clip,
            skinning: if args.skinning == "dq" {
                skel::SkinningMethod::DualQuaternion
            } else {
                skel::SkinningMethod::Linear
            },
            ..CrowdDescriptor::default()
        },
    )?;
    for (i, p) in crowd.players.iter_mut().enumerate() {
        p.seek(i as f32 * 0.013);
    }
    let vertices: u64 = crowd
        .meshes()
        .iter()
        .map(|m| u64::from(m.vertex_count))
        .sum();
    let timestamps = ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let queries = timestamps.then(|| {
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench gpu crowd"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench gpu crowd timestamps"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        (set, resolve)
    });
    let period = f64::from(ctx.queue.get_timestamp_period());
    let wait = || {
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    };
    let (mut pose, mut upload_cpu, mut upload_total, mut skin_gpu, mut skin_wall) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut allocations = 0;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for frame in 0..10 + args.frames {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        let t0 = Instant::now();
        let counted = allocation_counter::measure(|| crowd.tick(1.0 / 60.0)).count_total;
        let pose_ms = ms(t0);
        let t1 = Instant::now();
        let mut result = Ok(());
        let counted = counted
            + allocation_counter::measure(|| result = crowd.upload(&ctx, &mut encoder)).count_total;
        result?;
        let upload_cpu_ms = ms(t1);
        ctx.queue.submit([encoder.finish()]);
        wait();
        let upload_total_ms = ms(t1);
        let t2 = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        crowd.skin_timed(
            &mut encoder,
            queries
                .as_ref()
                .map(|(set, _)| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
        );
        if let Some((set, resolve)) = &queries {
            encoder.resolve_query_set(set, 0..2, resolve, 0);
        }
        ctx.queue.submit([encoder.finish()]);
        wait();
        let skin_wall_ms = ms(t2);
        if frame < 10 {
            continue;
        }
        if let Some((_, resolve)) = &queries {
            let bytes = skel::gpu::readback::read_buffer(&ctx, resolve, 0, 16)?;
            let t: Vec<u64> = bytemuck_u64(&bytes);
            skin_gpu.push(t[1].saturating_sub(t[0]) as f64 * period / 1e6);
        }
        pose.push(pose_ms);
        upload_cpu.push(upload_cpu_ms);
        upload_total.push(upload_total_ms);
        skin_wall.push(skin_wall_ms);
        allocations = counted;
    }
    let skin_gpu_ms = (!skin_gpu.is_empty()).then(|| median(&mut skin_gpu));
    let skin_wall_ms = median(&mut skin_wall);
    let total = vertices * u64::from(args.characters);
    let info = &ctx.adapter_info;
    let report = CrowdReport {
        schema: "skel-bench-gpu-crowd/1",
        asset: name,
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        characters: args.characters,
        frames: args.frames,
        skinning: args.skinning.clone(),
        warnings: crowd.warnings().to_vec(),
        vertices_per_character: vertices,
        bones_per_character: crowd.gpu().bones_per_instance(),
        rayon_threads: rayon_threads(),
        pose_ms: median(&mut pose),
        upload_cpu_ms: median(&mut upload_cpu),
        upload_total_ms: median(&mut upload_total),
        skin_gpu_ms,
        skin_wall_ms,
        gvertices_per_s: total as f64 / (skin_gpu_ms.unwrap_or(skin_wall_ms) * 1e-3) / 1e9,
        allocations_per_frame: allocations,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let r = &report;
        println!(
            "skel bench gpu crowd: {} x {} ({} vertices, {} bones each)",
            r.characters, r.asset, r.vertices_per_character, r.bones_per_character
        );
        println!(
            "adapter: {} ({}, {} {})",
            r.adapter, r.backend, r.driver, r.driver_info
        );
        println!("skinning: {}", r.skinning);
        for w in &r.warnings {
            println!("warning: {w}");
        }
        println!(
            "pose (CPU, {} threads): {:.3} ms",
            r.rayon_threads, r.pose_ms
        );
        println!(
            "bone upload: {:.3} ms CPU, {:.3} ms until copied",
            r.upload_cpu_ms, r.upload_total_ms
        );
        match r.skin_gpu_ms {
            Some(g) => println!(
                "compute skinning: {g:.3} ms GPU ({:.3} ms wall), {:.2} G vertices/s",
                r.skin_wall_ms, r.gvertices_per_s
            ),
            None => println!(
                "compute skinning: {:.3} ms wall (no timestamps), {:.2} G vertices/s",
                r.skin_wall_ms, r.gvertices_per_s
            ),
        }
        println!(
            "allocations per frame (tick + upload, this thread): {}",
            r.allocations_per_frame
        );
    }
    Ok(())
}

fn bytemuck_u64(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
