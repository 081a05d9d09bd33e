//! `skel bench gpu draw`: vertex-shader skinning of a crowd, N copies of one skinned glTF
//! character drawn with one instanced, indexed draw per frame, offscreen ([`super::draw_scene`]).
//! Every character has its own bones: one bone texture (a [`SkeletonGpu`] of N × J bones, the
//! "atlas") holds all of them. Each frame uploads every character's bone matrices with one
//! batched write, then draws.
//!
//! Reported: GPU time of the render pass (timestamps), frames per second from it, skinned
//! vertices per second (N × the mesh's vertices / pass time), the wall-clock time of a whole
//! frame (upload + draw, submitted and waited for); and the GPU time of the same instanced draw
//! without skinning (every character in one pre-posed pose, no bone reads), which says how much
//! of the frame is skinning and how much the draw itself. (This was the `crowd_throughput`
//! example of skel-gpu; same scene and figures.)

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use glam::{Mat4, Vec3};
use serde::Serialize;
use skel::gltf::{CpuPoser, LoadOptions, load_path, load_slice};
use skel::gpu::{GpuContext, HeadlessOptions, JointIndices, SkeletonGpu, create_skeleton};

use super::draw_scene::{Scene, SceneDesc};
use super::report::{AdapterReport, median, positive_u32, table_out};
use crate::render::{DEFAULT_CHARACTER, DEFAULT_CHARACTER_NAME};

type Error = Box<dyn std::error::Error>;

/// Arguments of `skel bench gpu draw`.
#[derive(Debug, clap::Args)]
pub(super) struct DrawArgs {
    /// A .gltf or .glb file (default: the built-in character); its first skinned primitive is
    /// drawn.
    asset: Option<PathBuf>,
    /// Characters in the crowd.
    #[arg(long, default_value_t = 10_000, value_parser = positive_u32)]
    characters: u32,
    /// Timed frames (and half as many of the draw without skinning).
    #[arg(long, default_value_t = 60, value_parser = positive_u32)]
    frames: u32,
    /// Untimed frames for at least this many milliseconds first.
    #[arg(long, default_value_t = 500)]
    warmup_ms: u32,
    /// Width of the offscreen target.
    #[arg(long, default_value_t = 1920, value_parser = positive_u32)]
    width: u32,
    /// Height of the offscreen target.
    #[arg(long, default_value_t = 1080, value_parser = positive_u32)]
    height: u32,
    /// Distinct poses spread over the first clip (character c plays pose c mod P).
    #[arg(long, default_value_t = 32, value_parser = positive_u32)]
    poses: u32,
    /// Save the last frame as a binary PPM picture.
    #[arg(long)]
    ppm: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// What `skel bench gpu draw --json` prints.
#[derive(Debug, Serialize)]
struct DrawReport {
    schema: &'static str,
    adapter: AdapterReport,
    asset: String,
    characters: u32,
    vertices_per_character: usize,
    triangles_per_character: usize,
    bones_per_character: u32,
    bone_texture: [u32; 2],
    target: [u32; 2],
    frames: u32,
    warmup_frames: u32,
    /// `gpu_timestamps` or `wall_clock`.
    timing: &'static str,
    render_pass_ms_median: Option<f64>,
    render_pass_ms: Vec<f64>,
    fps_render_pass: Option<f64>,
    posed_render_pass_ms_median: Option<f64>,
    posed_fps_render_pass: Option<f64>,
    skinned_vertices_per_second: Option<f64>,
    frame_wall_ms_median: f64,
    fps_whole_frame: f64,
    upload_call_ms_median: f64,
    upload_bytes_per_frame: usize,
    /// Share of the target's pixels covered by characters (grey, where the background is not).
    pixels_covered: f64,
}

/// Runs `skel bench gpu draw`.
pub(super) fn run(args: &DrawArgs) -> Result<(), Error> {
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY,
        ..Default::default()
    })?;
    let adapter = AdapterReport::new(&ctx.adapter_info);
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    let (asset, name) = match &args.asset {
        Some(p) => (load_path(p, &opts)?, p.display().to_string()),
        None => (
            load_slice(DEFAULT_CHARACTER, None, &opts)?,
            DEFAULT_CHARACTER_NAME.to_owned(),
        ),
    };
    let (index, primitive) = asset
        .primitives
        .iter()
        .enumerate()
        .find(|(_, p)| p.is_skinned())
        .ok_or_else(|| format!("{name} has no skinned primitive"))?;
    let skin = primitive.skin.ok_or("a skinned primitive without a skin")?;
    let influences = primitive
        .gpu_influences()
        .ok_or("a skinned primitive without influences")?;
    let vertex_count = primitive.vertex_count();
    let normals = primitive
        .normals
        .clone()
        .unwrap_or_else(|| [0.0, 1.0, 0.0].repeat(vertex_count));
    let indices: Vec<u32> = match &primitive.indices {
        Some(i) => i.clone(),
        None => (0..u32::try_from(vertex_count)?).collect(),
    };

    // P poses spread over the first clip; character c plays pose c mod P.
    let mut poser = CpuPoser::new(&asset)?;
    let clip = (!asset.animation.clips.is_empty()).then_some(0);
    let duration = clip.map_or(0.0, |c| asset.animation.clips[c].duration());
    let mut poses = Vec::new();
    let mut posed: Vec<Vec3> = Vec::new();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in 0..args.poses {
        poser.pose(&asset, clip, duration * p as f32 / args.poses as f32)?;
        poses.push(
            poser
                .skin_matrices(skin)
                .ok_or("no skin matrices after posing")?
                .to_vec(),
        );
        let positions = poser.positions(index).ok_or("no posed positions")?;
        if p == 0 {
            posed = positions.to_vec();
        }
        for &v in positions {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    let bones_per_character = u32::try_from(poses[0].len())?;
    let n = args.characters;
    let atlas: Vec<Mat4> = (0..n)
        .flat_map(|c| poses[(c % args.poses) as usize].iter().copied())
        .collect();
    let skeleton: SkeletonGpu = create_skeleton(
        &ctx,
        JointIndices::U32(&influences.joints0),
        &influences.weights0,
        n.checked_mul(bones_per_character)
            .ok_or("too many bones for one texture")?,
        &atlas,
        None,
        None,
    )?;
    let layout = skeleton.bone_texture_layout();
    let mut out = table_out(args.json);
    writeln!(out, "skel bench gpu draw\n{}", adapter.line())?;
    writeln!(
        out,
        "{n} × {name} ({vertex_count} vertices, {} triangles, {bones_per_character} bones): bone texture {} × {}",
        indices.len() / 3,
        layout.width,
        layout.height
    )?;
    let scene = Scene::new(
        &ctx,
        &SceneDesc {
            positions: &primitive.positions,
            normals: &normals,
            posed: &posed,
            indices: &indices,
            bounds: (lo, hi),
            characters: n,
            bones_per_character,
            width: args.width,
            height: args.height,
        },
        &skeleton,
    )?;

    let warm = Instant::now();
    let mut warm_frames = 0;
    while warm_frames < 2 || warm.elapsed().as_millis() < u128::from(args.warmup_ms) {
        scene.frame(&ctx, &skeleton, &atlas, (true, false))?;
        warm_frames += 1;
    }
    // The posed draw first (its picture is overwritten by the skinned frames below).
    let mut posed_gpus = Vec::new();
    for _ in 0..args.frames.div_ceil(2) {
        posed_gpus.extend(scene.frame(&ctx, &skeleton, &atlas, (false, true))?.2);
    }
    let (mut uploads, mut walls, mut gpus) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.frames {
        let (upload, wall, gpu) = scene.frame(&ctx, &skeleton, &atlas, (true, true))?;
        uploads.push(upload);
        walls.push(wall);
        gpus.extend(gpu);
    }
    if let Some(e) = ctx.take_uncaptured_error() {
        return Err(format!("wgpu: {e}").into());
    }
    // Something was drawn: characters are grey (r = g = b), the background is not.
    let pixels = scene.pixels(&ctx)?;
    let covered = pixels
        .chunks_exact(4)
        .filter(|p| p[0] == p[1] && p[1] == p[2])
        .count() as f64
        / (f64::from(args.width) * f64::from(args.height));
    if let Some(path) = &args.ppm {
        let mut ppm = format!("P6 {} {} 255\n", args.width, args.height).into_bytes();
        ppm.extend(pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
        std::fs::write(path, ppm).map_err(|e| format!("{}: {e}", path.display()))?;
    }

    let draw = (!gpus.is_empty()).then(|| median(&mut gpus.clone()));
    let posed_draw = (!posed_gpus.is_empty()).then(|| median(&mut posed_gpus));
    let wall = median(&mut walls);
    let upload = median(&mut uploads);
    let skinned = f64::from(n) * vertex_count as f64;
    let ms = |d: Option<f64>| d.map_or_else(|| "-".to_owned(), |d| format!("{:.3}", d * 1e3));
    let fps = |d: Option<f64>| d.map_or_else(|| "-".to_owned(), |d| format!("{:.1}", 1.0 / d));
    writeln!(
        out,
        "render pass {} ms ({} fps), {} G skinned vertices/s; whole frame (upload + draw + wait) {:.3} ms ({:.1} fps); upload call {:.3} ms; {:.0}% of pixels covered",
        ms(draw),
        fps(draw),
        draw.map_or_else(|| "-".to_owned(), |d| format!("{:.2}", skinned / d / 1e9)),
        wall * 1e3,
        1.0 / wall,
        upload * 1e3,
        covered * 100.0
    )?;
    writeln!(
        out,
        "the same draw without skinning (pre-posed positions, no bone reads): {} ms ({} fps)",
        ms(posed_draw),
        fps(posed_draw),
    )?;
    let report = DrawReport {
        schema: "skel-bench-gpu-draw/1",
        adapter,
        asset: name,
        characters: n,
        vertices_per_character: vertex_count,
        triangles_per_character: indices.len() / 3,
        bones_per_character,
        bone_texture: [layout.width, layout.height],
        target: [args.width, args.height],
        frames: args.frames,
        warmup_frames: warm_frames,
        timing: if draw.is_some() {
            "gpu_timestamps"
        } else {
            "wall_clock"
        },
        render_pass_ms_median: draw.map(|d| d * 1e3),
        render_pass_ms: gpus.iter().map(|d| d * 1e3).collect(),
        fps_render_pass: draw.map(|d| 1.0 / d),
        posed_render_pass_ms_median: posed_draw.map(|d| d * 1e3),
        posed_fps_render_pass: posed_draw.map(|d| 1.0 / d),
        skinned_vertices_per_second: draw.map(|d| skinned / d),
        frame_wall_ms_median: wall * 1e3,
        fps_whole_frame: 1.0 / wall,
        upload_call_ms_median: upload * 1e3,
        upload_bytes_per_frame: atlas.len() * 64,
        pixels_covered: covered,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}
