//! `skel bench gpu crowd`: a crowd of one asset through the facade's crowd API
//! ([`skel::Crowd`]), frame by frame: CPU pose of every instance (rayon), bone upload through
//! the staging ring (CPU time and time until the GPU has copied it), compute skinning of every
//! instance (GPU timestamps when the adapter has them), and heap allocations per frame on this
//! thread. Medians over the timed frames.

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use skel::gpu::{GpuContext, HeadlessOptions};
use skel::{Crowd, CrowdDescriptor, LoadOptions, load_gltf};

use super::compute_timing::{Timing, copy_bandwidth};
use super::crowd_culled::{CullArgs, CullFigures, DirectRun};
use super::crowd_posing::{PoseFigures, PosingArgs, start_instances};
use super::report::{median, rayon_threads};
use crate::render::{DEFAULT_CHARACTER, DEFAULT_CHARACTER_NAME};

/// Arguments of `skel bench gpu crowd`.
#[derive(Debug, clap::Args)]
pub(super) struct CrowdArgs {
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
    #[command(flatten)]
    posing: PosingArgs,
    #[command(flatten)]
    cull: CullArgs,
}

/// What `skel bench gpu crowd --json` prints.
#[derive(Debug, Serialize)]
struct CrowdReport {
    /// What ran, on what, how large.
    #[serde(flatten)]
    run: RunHeader,
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
    /// Heap allocations on this thread over the whole upload frame, last frame: encoder,
    /// `tick`, `upload`, submit and wait (the rest is inside wgpu).
    allocations_per_upload_frame: u64,
    /// Where the crowd was posed and what the pose pass cost (GPU path).
    #[serde(flatten)]
    pose: PoseFigures,
    /// The bone layout, and what culling kept and cost (`--cull`).
    #[serde(flatten)]
    cull: CullFigures,
}

/// The fields every `skel bench gpu crowd` report starts with.
#[derive(Debug, Serialize)]
struct RunHeader {
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
}

impl RunHeader {
    fn of(ctx: &GpuContext, args: &CrowdArgs, asset: String, crowd: &Crowd) -> Self {
        let info = &ctx.adapter_info;
        Self {
            schema: "skel-bench-gpu-crowd/1",
            asset,
            adapter: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            characters: args.characters,
            frames: args.frames,
            skinning: args.skinning.clone(),
            warnings: crowd.warnings().to_vec(),
            vertices_per_character: crowd
                .meshes()
                .iter()
                .map(|m| u64::from(m.vertex_count))
                .sum(),
            bones_per_character: crowd.gpu().bones_per_instance(),
            rayon_threads: rayon_threads(),
        }
    }
}

/// Runs `skel bench gpu crowd`.
pub(super) fn run(args: &CrowdArgs) -> Result<(), Box<dyn std::error::Error>> {
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
            // The direct path skins the bone buffer it poses into (crowd_culled).
            compute: !args.posing.no_skin
                && !args
                    .cull
                    .direct(matches!(args.posing.posing(), skel::Posing::Gpu(_))),
            posing: args.posing.posing(),
            max_chunk_bytes: args.posing.chunk_bytes(),
            boxes_in_tick: args.cull.bounds == "tick",
            ..CrowdDescriptor::default()
        },
    )?;
    let instances = start_instances(&ctx, &mut crowd, asset.animation.clips.len(), &args.posing)?;
    let mut figures = PoseFigures::of(&crowd, &args.posing);
    let on_gpu_boxes = args.cull.bounds == "pose" || args.cull.bounds == "seen";
    if on_gpu_boxes && !args.cull.cull {
        return Err(format!("--bounds {} needs --cull", args.cull.bounds).into());
    }
    let cpu_cull = args.cull.cull && !crowd.posed_on_gpu();
    if cpu_cull && on_gpu_boxes {
        return Err(format!("--bounds {} needs --posing gpu", args.cull.bounds).into());
    }
    if crowd.posed_on_gpu() && args.cull.bounds == "tick" {
        return Err("--bounds tick needs --posing cpu".into());
    }
    if args.cull.direct(crowd.posed_on_gpu()) {
        if !crowd.posed_on_gpu() {
            return Err("--bone-layout 3x4 and --pose-group need --posing gpu".into());
        }
        let options = skel::gltf::LoadOptions {
            decode_images: false,
            ..skel::gltf::LoadOptions::with_handedness(LoadOptions::default().handedness)
        };
        let source = match &args.asset {
            Some(p) => skel::gltf::load_path(p, &options)?,
            None => skel::gltf::load_slice(DEFAULT_CHARACTER, None, &options)?,
        };
        let desc = skel::gpu::GpuCrowdPoseDescriptor {
            layout: args.posing.pose_layout(),
            max_chunk_bytes: args.posing.chunk_bytes(),
        };
        let method = if args.skinning == "dq" {
            skel::SkinningMethod::DualQuaternion
        } else {
            skel::SkinningMethod::Linear
        };
        let run = super::crowd_culled::run(
            &ctx,
            &asset,
            &source,
            &crowd,
            &instances,
            &desc,
            (args.frames, args.posing.no_skin, method),
            &args.cull,
        )?;
        return report_direct(&ctx, args, name, &crowd, figures, run);
    }
    let on_gpu = crowd.posed_on_gpu();
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
            count: 4,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench gpu crowd timestamps"),
            // The pose pass's pair at 256 (QUERY_RESOLVE_BUFFER_ALIGNMENT).
            size: 272,
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
    let (mut pose_gpu, mut upload_bytes) = (Vec::new(), 0u64);
    // `--cull` on a CPU-posed crowd: the bench's camera and grid, culled after each tick.
    let in_view = (f64::from(args.characters) * args.cull.in_view).round() as u32;
    let placements = super::crowd_culled::placements(args.characters, in_view, args.cull.scatter);
    let view_projection = super::crowd_culled::view_projection();
    let mut cull_cpu = Vec::new();
    let uploaded = |crowd: &Crowd| crowd.gpu_pose().map_or(0, |p| p.uploaded_bytes());
    let (mut allocations, mut allocations_whole) = (0, 0);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for frame in 0..10 + args.frames {
        let (mut counted, mut pose_ms, mut upload_cpu_ms, mut upload_total_ms) = (0, 0.0, 0.0, 0.0);
        let mut cull_cpu_ms = 0.0;
        let mut result: Result<(), skel::SkelError> = Ok(());
        // The whole upload frame, encoder to wait; nothing in it allocates of its own.
        let whole = allocation_counter::measure(|| {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            let t0 = Instant::now();
            counted = allocation_counter::measure(|| crowd.tick(1.0 / 60.0)).count_total;
            pose_ms = ms(t0);
            if cpu_cull {
                let t = Instant::now();
                counted += allocation_counter::measure(|| {
                    result = crowd.cull(view_projection, &placements).map(|_| ());
                })
                .count_total;
                cull_cpu_ms = ms(t);
            }
            let t1 = Instant::now();
            let pose_writes = queries.as_ref().filter(|_| on_gpu).map(|(set, _)| {
                wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(2),
                    end_of_pass_write_index: Some(3),
                }
            });
            let before = uploaded(&crowd);
            counted += allocation_counter::measure(|| {
                if result.is_ok() {
                    result = crowd.upload_timed(&ctx, &mut encoder, pose_writes);
                }
            })
            .count_total;
            upload_cpu_ms = ms(t1);
            upload_bytes = if on_gpu {
                uploaded(&crowd) - before
            } else {
                crowd.gpu().matrix_count() as u64 * 64 + (crowd.visible().len() as u64 + 1) * 4
            };
            if let Some((set, resolve)) = queries.as_ref().filter(|_| on_gpu) {
                encoder.resolve_query_set(set, 2..4, resolve, 256);
            }
            ctx.queue.submit([encoder.finish()]);
            wait();
            upload_total_ms = ms(t1);
        })
        .count_total;
        result?;
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
            let t: Vec<u64> = skel::gpu::readback::read_buffer_as(&ctx, resolve, 0, 34)?;
            skin_gpu.push(t[1].saturating_sub(t[0]) as f64 * period / 1e6);
            if on_gpu {
                pose_gpu.push(t[33].saturating_sub(t[32]) as f64 * period / 1e6);
            }
        }
        pose.push(pose_ms);
        cull_cpu.push(cull_cpu_ms);
        upload_cpu.push(upload_cpu_ms);
        upload_total.push(upload_total_ms);
        skin_wall.push(skin_wall_ms);
        allocations = counted;
        allocations_whole = whole;
    }
    let skin_gpu_ms = (!skin_gpu.is_empty() && !args.posing.no_skin).then(|| median(&mut skin_gpu));
    if args.posing.copy_mib > 0 {
        let timing = Timing {
            iterations: 20,
            warmup_ms: 200,
        };
        figures.copy_bandwidth = Some(copy_bandwidth(&ctx, timing, args.posing.copy_mib)?);
    }
    figures.finish((!pose_gpu.is_empty()).then(|| median(&mut pose_gpu)));
    figures.upload_bytes_per_frame = upload_bytes;
    let fixed = crowd.gpu_pose().map_or(0, |p| p.params_bytes_per_frame());
    figures.upload_bytes_per_character =
        upload_bytes.saturating_sub(fixed) as f64 / f64::from(args.characters);
    let skin_wall_ms = median(&mut skin_wall);
    let total = vertices * u64::from(args.characters);
    let report = CrowdReport {
        run: RunHeader::of(&ctx, args, name, &crowd),
        pose_ms: median(&mut pose),
        upload_cpu_ms: median(&mut upload_cpu),
        upload_total_ms: median(&mut upload_total),
        skin_gpu_ms,
        skin_wall_ms,
        gvertices_per_s: total as f64 / (skin_gpu_ms.unwrap_or(skin_wall_ms) * 1e-3) / 1e9,
        allocations_per_frame: allocations,
        allocations_per_upload_frame: allocations_whole,
        pose: figures,
        cull: if cpu_cull {
            let cull_ms = median(&mut cull_cpu);
            let bones = f64::from(args.characters) * f64::from(crowd.gpu().bones_per_instance());
            CullFigures {
                bone_layout: "4x4".to_owned(),
                pose_group: skel::gpu::POSE_WORKGROUP_SIZE,
                cull: true,
                // "cpu": boxed by `Crowd::cull`; "tick": by `Crowd::tick` (`boxes_in_tick`).
                bounds: Some(args.cull.bounds.replace("cull", "cpu")),
                placed_in_view: Some(in_view),
                visible: Some(crowd.visible_count()),
                cull_cpu_ms: Some(cull_ms),
                cull_cpu_ns_per_bone: Some(cull_ms * 1e6 / bones.max(1.0)),
                ..CullFigures::default()
            }
        } else {
            CullFigures {
                bone_layout: "4x4".to_owned(),
                pose_group: skel::gpu::POSE_WORKGROUP_SIZE,
                ..CullFigures::default()
            }
        },
    };
    print(&report, args.json)
}

/// The report of the direct path (`--bone-layout 3x4`, `--cull`): the pose pass's CPU time is
/// `prepare` (the per-frame uniforms); nothing else is uploaded; skinning's wall time is the
/// whole frame's (one submission).
fn report_direct(
    ctx: &GpuContext,
    args: &CrowdArgs,
    name: String,
    crowd: &Crowd,
    mut figures: PoseFigures,
    run: DirectRun,
) -> Result<(), Box<dyn std::error::Error>> {
    figures.pose_chunks = run.pose_chunks;
    figures.pose_bytes_written = run.bone_bytes_per_frame / u64::from(figures.lod.max(1));
    if args.posing.copy_mib > 0 {
        let timing = Timing {
            iterations: 20,
            warmup_ms: 200,
        };
        figures.copy_bandwidth = Some(copy_bandwidth(ctx, timing, args.posing.copy_mib)?);
    }
    figures.finish(run.pose_gpu_ms);
    figures.upload_bytes_per_frame = run.upload_bytes_per_frame;
    let run_header = RunHeader::of(ctx, args, name, crowd);
    let total = run_header.vertices_per_character * u64::from(args.characters);
    let report = CrowdReport {
        run: run_header,
        pose_ms: run.prepare_cpu_ms,
        upload_cpu_ms: 0.0,
        upload_total_ms: 0.0,
        skin_gpu_ms: run.skin_gpu_ms,
        skin_wall_ms: run.frame_wall_ms,
        gvertices_per_s: run
            .skin_gpu_ms
            .map_or(0.0, |ms| total as f64 / (ms * 1e-3) / 1e9),
        allocations_per_frame: 0,
        allocations_per_upload_frame: 0,
        pose: figures,
        cull: run.figures,
    };
    print(&report, args.json)
}

/// Prints `report` as text, or as one JSON object.
fn print(report: &CrowdReport, json: bool) -> Result<(), Box<dyn std::error::Error>> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        let r = report;
        println!(
            "skel bench gpu crowd: {} x {} ({} vertices, {} bones each)",
            r.run.characters, r.run.asset, r.run.vertices_per_character, r.run.bones_per_character
        );
        println!(
            "adapter: {} ({}, {} {})",
            r.run.adapter, r.run.backend, r.run.driver, r.run.driver_info
        );
        println!("skinning: {}", r.run.skinning);
        for w in &r.run.warnings {
            println!("warning: {w}");
        }
        let f = &r.pose;
        match f.pose_gpu_ms {
            Some(g) => println!(
                "pose (GPU, {}{}, lod {}): {g:.3} ms, {:.1} GB/s of bone matrices; CPU {:.3} ms",
                f.layout.as_deref().unwrap_or("?"),
                if f.blend { ", 2-clip blend" } else { "" },
                f.lod,
                f.pose_gb_per_s.unwrap_or(0.0),
                r.pose_ms
            ),
            None => println!(
                "pose (CPU, {} threads): {:.3} ms",
                r.run.rayon_threads, r.pose_ms
            ),
        }
        println!(
            "upload: {:.3} ms CPU, {:.3} ms until copied; {} bytes per frame, {:.1} per character",
            r.upload_cpu_ms,
            r.upload_total_ms,
            f.upload_bytes_per_frame,
            f.upload_bytes_per_character
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
            "allocations per frame (tick + upload, this thread): {} ({} with encoder, submit and wait)",
            r.allocations_per_frame, r.allocations_per_upload_frame
        );
        let c = &r.cull;
        println!(
            "bones: {} ({} bytes written per frame), pose workgroups of {} threads",
            c.bone_layout, f.pose_bytes_written, c.pose_group
        );
        if let (Some(ms), Some(ns)) = (c.cull_cpu_ms, c.cull_cpu_ns_per_bone) {
            println!(
                "cull (CPU, Crowd::cull, bounds {}): {} of {} visible ({} placed in view); {ms:.3} ms, {ns:.2} ns per bone",
                c.bounds.as_deref().unwrap_or("cpu"),
                c.visible.unwrap_or(0),
                r.run.characters,
                c.placed_in_view.unwrap_or(0),
            );
        } else if c.cull {
            println!(
                "cull (boxes by the {} pass): {} of {} visible ({} placed in view); {:.3} ms GPU, pose + cull {:.3} ms GPU, frame {:.3} ms GPU",
                c.bounds.as_deref().unwrap_or("cull"),
                c.visible.unwrap_or(0),
                r.run.characters,
                c.placed_in_view.unwrap_or(0),
                c.cull_gpu_ms.unwrap_or(0.0),
                c.pose_cull_gpu_ms.unwrap_or(0.0),
                c.frame_gpu_ms.unwrap_or(0.0)
            );
        }
    }
    Ok(())
}
