//! `skel bench`: how fast the pose pipeline runs for many characters, in numbers other engines
//! can be compared with. The JSON it prints is documented in `docs/bench-json.md`; keep it
//! stable (add fields, never rename or remove).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use skel::anim::{AnimationController, AnimationData, NullSink, PoseSink};
use skel::gpu::{GpuContext, GpuPoseSink, JointIndices, MorphGpu, SkeletonGpu};

use crate::render::{DEFAULT_CHARACTER, DEFAULT_CHARACTER_NAME};

/// Ticks at this rate (forward playback).
const FPS: f32 = 60.0;
/// Untimed frames before measuring (caches, sampler cursors, lazily built GPU state).
const WARMUP_FRAMES: usize = 30;

/// Arguments of `skel bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// A .gltf or .glb file (default: the built-in character).
    pub asset: Option<PathBuf>,
    /// Independent characters ticked per frame (each its own controller and clock over one
    /// shared `Arc<AnimationData>`).
    #[arg(long, default_value_t = 100)]
    pub characters: usize,
    /// Timed frames (at 60 fps of animation time).
    #[arg(long, default_value_t = 600)]
    pub frames: usize,
    /// The clip to play: index or name (default: the first; the rest pose without clips).
    #[arg(long)]
    pub clip: Option<String>,
    /// Skip the GPU upload measurement.
    #[arg(long)]
    pub no_gpu: bool,
    /// Print one JSON object (see docs/bench-json.md) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The JSON `skel bench --json` prints (docs/bench-json.md).
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// Format version of this object.
    pub schema: &'static str,
    /// The asset as given (or the built-in character).
    pub asset: String,
    /// The clip's name, `null` for the rest pose.
    pub clip: Option<String>,
    /// The clip's index, `null` for the rest pose.
    pub clip_index: Option<usize>,
    /// Characters ticked per frame.
    pub characters: usize,
    /// Timed frames.
    pub frames: usize,
    /// Animation frames per second.
    pub fps: f32,
    /// Distinct joint nodes over the asset's skins (its node count when it has no skin).
    pub joints_per_character: usize,
    /// Nodes the hierarchy pass walks per character.
    pub nodes_per_character: usize,
    /// Bone matrices computed per character per frame (joints × skinned meshes using them).
    pub bones_per_character: usize,
    /// Animation channels evaluated per character per frame.
    pub channels_per_character: usize,
    /// Median over frames of (frame time / (characters × joints)), nanoseconds.
    pub ns_per_joint_frame: f64,
    /// Median over frames of (frame time / characters), microseconds.
    pub us_per_character_frame: f64,
    /// Median frame time for all characters, milliseconds.
    pub ms_per_frame: f64,
    /// 10th and 90th percentile frame time, milliseconds.
    pub ms_per_frame_p10: f64,
    /// 90th percentile frame time, milliseconds.
    pub ms_per_frame_p90: f64,
    /// Heap allocations on the ticking thread per frame (all characters), averaged.
    pub allocations_per_frame: f64,
    /// The GPU upload measurement, `null` when skipped.
    pub upload: Option<UploadReport>,
    /// Why the upload was not measured (`null` when it was).
    pub upload_skipped: Option<String>,
    /// `release` or `debug` (debug numbers are not meaningful).
    pub build: &'static str,
    /// skel's version.
    pub skel_version: &'static str,
}

/// The upload part of [`BenchReport`].
#[derive(Debug, Serialize)]
pub struct UploadReport {
    /// Adapter name and backend.
    pub adapter: String,
    /// Median over frames of (upload time / (characters × joints)), nanoseconds.
    pub ns_per_joint_frame: f64,
    /// Median over frames of (upload time / characters), microseconds.
    pub us_per_character_frame: f64,
    /// Median upload time for all characters, milliseconds (write_texture / write_buffer calls
    /// and one submit; the GPU copy itself runs asynchronously).
    pub ms_per_frame: f64,
    /// Bytes handed to the queue per frame.
    pub bytes_per_frame: u64,
    /// Heap allocations on the uploading thread per frame, averaged.
    pub allocations_per_frame: f64,
}

/// Runs `skel bench`.
///
/// # Errors
/// A missing or malformed asset, an unknown clip, or a zero count.
pub fn run(args: &BenchArgs) -> Result<(), Box<dyn std::error::Error>> {
    let report = bench(args)?;
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        print_text(&mut out, &report)
    };
    match written {
        // `skel bench | head` closes the pipe early: not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn print_text(out: &mut impl Write, r: &BenchReport) -> std::io::Result<()> {
    writeln!(
        out,
        "skel bench: {} — {} — {} characters × {} joints ({} nodes, {} channels), {} frames at {} fps ({} build)",
        r.asset,
        match (&r.clip, r.clip_index) {
            (Some(name), Some(i)) if name.is_empty() => format!("clip {i} (unnamed)"),
            (Some(name), _) => format!("clip {name:?}"),
            _ => "rest pose".to_owned(),
        },
        r.characters,
        r.joints_per_character,
        r.nodes_per_character,
        r.channels_per_character,
        r.frames,
        r.fps,
        r.build
    )?;
    writeln!(
        out,
        "  CPU pose pipeline: {:.2} ns/joint/frame, {:.3} µs/character/frame, {:.3} ms/frame (p10 {:.3}, p90 {:.3}), {} allocations/frame",
        r.ns_per_joint_frame,
        r.us_per_character_frame,
        r.ms_per_frame,
        r.ms_per_frame_p10,
        r.ms_per_frame_p90,
        r.allocations_per_frame
    )?;
    match (&r.upload, &r.upload_skipped) {
        (Some(u), _) => writeln!(
            out,
            "  GPU upload ({}): {:.2} ns/joint/frame, {:.3} µs/character/frame, {:.3} ms/frame, {} bytes/frame, {} allocations/frame",
            u.adapter,
            u.ns_per_joint_frame,
            u.us_per_character_frame,
            u.ms_per_frame,
            u.bytes_per_frame,
            u.allocations_per_frame
        )?,
        (None, Some(why)) => writeln!(out, "  GPU upload: not measured ({why})")?,
        (None, None) => {}
    }
    if r.build == "debug" {
        writeln!(
            out,
            "  (debug build: use `cargo run --release -p skel-cli -- bench` for real numbers)"
        )?;
    }
    Ok(())
}

/// The value at fraction `q` (0..=1) of sorted `values` (nearest rank).
#[must_use]
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "q in [0, 1] times a frame count"
    )]
    let rank = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    sorted[rank]
}

/// Distinct joint nodes over every skin binding of `data`.
fn distinct_joints(data: &AnimationData) -> usize {
    let mut seen = vec![false; data.nodes.len()];
    for binding in &data.skeletons {
        for &j in &binding.joints {
            if let Some(s) = seen.get_mut(j) {
                *s = true;
            }
        }
    }
    seen.iter().filter(|&&s| s).count()
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts and nanoseconds far below 2^52"
)]
fn bench(args: &BenchArgs) -> Result<BenchReport, Box<dyn std::error::Error>> {
    if args.characters == 0 || args.frames == 0 {
        return Err("--characters and --frames must be at least 1".into());
    }
    let options = skel::gltf::LoadOptions {
        decode_images: false,
        ..skel::gltf::LoadOptions::default()
    };
    let (asset_name, asset) = match &args.asset {
        Some(path) => {
            if !path.is_file() {
                return Err(format!("no such file: {}", path.display()).into());
            }
            (
                path.display().to_string(),
                skel::gltf::load_path(path, &options)?,
            )
        }
        None => (
            DEFAULT_CHARACTER_NAME.to_owned(),
            skel::gltf::load_slice(DEFAULT_CHARACTER, None, &options)?,
        ),
    };
    let data = Arc::new(asset.animation);
    let clip_index = match &args.clip {
        Some(c) => Some(
            c.parse::<usize>()
                .ok()
                .filter(|&i| i < data.clips.len())
                .or_else(|| data.clip_index(c))
                .ok_or_else(|| {
                    let names: Vec<String> = data
                        .clips
                        .iter()
                        .enumerate()
                        .map(|(i, c)| format!("{i}: {:?}", c.name))
                        .collect();
                    format!(
                        "{asset_name} has no clip {c:?}; its clips are: {}",
                        if names.is_empty() {
                            "none".to_owned()
                        } else {
                            names.join(", ")
                        }
                    )
                })?,
        ),
        None => (!data.clips.is_empty()).then_some(0),
    };
    let joints = match distinct_joints(&data) {
        0 => data.nodes.len(),
        j => j,
    };

    // N independent controllers over one Arc, staggered through the clip: clones of one
    // (`instantiate`), so that they also share its evaluation plan, as a crowd should.
    let mut controllers = skel::anim::instantiate(Arc::clone(&data), clip_index, args.characters)?;
    for (i, c) in controllers.iter_mut().enumerate() {
        c.time = c.duration() * i as f32 / args.characters as f32;
    }
    let delta_ms = 1000.0 / FPS;
    let mut sink = NullSink;
    for _ in 0..WARMUP_FRAMES {
        tick_all(&mut controllers, delta_ms, &mut sink);
    }
    let mut frame_ns = Vec::with_capacity(args.frames);
    let allocations = allocation_counter::measure(|| {
        for _ in 0..args.frames {
            let start = Instant::now();
            tick_all(&mut controllers, delta_ms, &mut sink);
            frame_ns.push(start.elapsed().as_nanos() as f64);
        }
    });
    frame_ns.sort_by(f64::total_cmp);
    let median = percentile(&frame_ns, 0.5);
    let per_joint = (args.characters * joints) as f64;

    let (upload, upload_skipped) = if args.no_gpu {
        (None, Some("--no-gpu".to_owned()))
    } else {
        match GpuContext::new_headless() {
            Ok(ctx) => (
                Some(bench_upload(&ctx, &mut controllers, args.frames, joints)?),
                None,
            ),
            Err(e) => (None, Some(format!("no GPU adapter: {e}"))),
        }
    };

    Ok(BenchReport {
        schema: "skel-bench/1",
        asset: asset_name,
        clip: clip_index
            .and_then(|c| data.clips.get(c))
            .map(|c| c.name.clone()),
        clip_index,
        characters: args.characters,
        frames: args.frames,
        fps: FPS,
        joints_per_character: joints,
        nodes_per_character: data.nodes.len(),
        bones_per_character: data.skeletons.iter().map(|s| s.joints.len()).sum(),
        channels_per_character: clip_index
            .and_then(|c| data.clips.get(c))
            .map_or(0, |c| c.channels.len()),
        ns_per_joint_frame: median / per_joint,
        us_per_character_frame: median / args.characters as f64 / 1000.0,
        ms_per_frame: median / 1e6,
        ms_per_frame_p10: percentile(&frame_ns, 0.1) / 1e6,
        ms_per_frame_p90: percentile(&frame_ns, 0.9) / 1e6,
        allocations_per_frame: allocations.count_total as f64 / args.frames as f64,
        upload,
        upload_skipped,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        skel_version: env!("CARGO_PKG_VERSION"),
    })
}

fn tick_all(controllers: &mut [AnimationController], delta_ms: f32, sink: &mut dyn PoseSink) {
    for c in controllers {
        c.tick(delta_ms, sink);
    }
}

/// Real GPU skeletons and morph buffers for one character (one vertex each: the upload cost
/// depends on bones and targets, not on vertices).
fn character_gpu(
    ctx: &GpuContext,
    data: &AnimationData,
    controller: &AnimationController,
) -> Result<(Vec<SkeletonGpu>, Vec<MorphGpu>), Box<dyn std::error::Error>> {
    let mut skeletons = Vec::with_capacity(data.skeletons.len());
    for (b, binding) in data.skeletons.iter().enumerate() {
        let bones = controller.bone_matrices(b).unwrap_or(&[]);
        skeletons.push(skel::gpu::create_skeleton(
            ctx,
            JointIndices::U32(&[0, 0, 0, 0]),
            &[1.0, 0.0, 0.0, 0.0],
            u32::try_from(binding.joints.len())?,
            bones,
            None,
            None,
        )?);
    }
    let mut morphs = Vec::with_capacity(data.morph_bindings.len());
    for binding in &data.morph_bindings {
        let targets = skel::anim::MorphTargets {
            target_count: binding.target_count(),
            positions: vec![0.0; binding.target_count() * 3],
            normals: Vec::new(),
        };
        morphs.push(skel::gpu::create_morph(
            ctx,
            &targets,
            1,
            &binding.default_weights,
        )?);
    }
    Ok((skeletons, morphs))
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts and nanoseconds far below 2^52"
)]
fn bench_upload(
    ctx: &GpuContext,
    controllers: &mut [AnimationController],
    frames: usize,
    joints: usize,
) -> Result<UploadReport, Box<dyn std::error::Error>> {
    let Some(data) = controllers.first().map(|c| Arc::clone(c.data())) else {
        return Err("no characters".into());
    };
    let mut gpu = Vec::with_capacity(controllers.len());
    for c in controllers.iter() {
        gpu.push(character_gpu(ctx, &data, c)?);
    }
    // What one frame hands to the queue: every bone texture and morph weight upload.
    let bytes_per_frame: u64 = gpu
        .iter()
        .map(|(skeletons, morphs)| {
            skeletons
                .iter()
                .map(|s| u64::from(s.bone_count()) * 64)
                .sum::<u64>()
                + morphs.iter().map(MorphGpu::weight_upload_len).sum::<u64>()
        })
        .sum();
    let delta_ms = 1000.0 / FPS;
    let upload = |controllers: &mut [AnimationController],
                  gpu: &mut [(Vec<SkeletonGpu>, Vec<MorphGpu>)]| {
        for (c, (skeletons, morphs)) in controllers.iter().zip(gpu.iter_mut()) {
            let mut sink = GpuPoseSink::new(&ctx.queue, skeletons, morphs);
            for b in 0..data.skeletons.len() {
                if let Some(m) = c.bone_matrices(b) {
                    sink.bone_matrices(b, m);
                }
            }
            for b in 0..data.morph_bindings.len() {
                if let Some(w) = c.morph_weights(b) {
                    sink.morph_weights(b, w);
                }
            }
        }
        ctx.queue.submit([]);
    };
    for _ in 0..WARMUP_FRAMES {
        tick_all(controllers, delta_ms, &mut NullSink);
        upload(controllers, &mut gpu);
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    }
    let mut frame_ns = Vec::with_capacity(frames);
    let mut allocations = 0;
    for _ in 0..frames {
        tick_all(controllers, delta_ms, &mut NullSink);
        let mut elapsed = 0.0;
        let info = allocation_counter::measure(|| {
            let start = Instant::now();
            upload(controllers, &mut gpu);
            elapsed = start.elapsed().as_nanos() as f64;
        });
        allocations += info.count_total;
        frame_ns.push(elapsed);
        // Let the GPU drain outside the timed part so staging memory does not pile up.
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    }
    frame_ns.sort_by(f64::total_cmp);
    let median = percentile(&frame_ns, 0.5);
    Ok(UploadReport {
        adapter: format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend),
        ns_per_joint_frame: median / (controllers.len() * joints) as f64,
        us_per_character_frame: median / controllers.len() as f64 / 1000.0,
        ms_per_frame: median / 1e6,
        bytes_per_frame,
        allocations_per_frame: allocations as f64 / frames as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_use_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 0.5), 3.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 5.0);
        assert_eq!(percentile(&v, 0.9), 5.0);
        assert_eq!(percentile(&[7.0, 9.0], 0.5), 9.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
