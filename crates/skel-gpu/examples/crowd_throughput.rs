//! Vertex-shader skinning of a crowd: N copies of one skinned glTF character (CesiumMan by
//! default) drawn with one instanced, indexed draw per frame, offscreen. Every character has
//! its own bones: one bone texture (a [`SkeletonGpu`] of N × J bones, the "atlas") holds all
//! of them, and the vertex shader offsets the mesh's joint indices by `instance_index × J`.
//! Each frame uploads every character's bone matrices with one batched write, then draws.
//! Prints one JSON document on stdout and a summary on stderr.
//!
//! Reported: GPU time of the render pass (timestamps), frames per second from it, skinned
//! vertices per second (N × the mesh's vertices / pass time), and the wall-clock time of a
//! whole frame (upload + draw, submitted and waited for); and, for comparison, the GPU time of
//! the same instanced draw without skinning (every character in one pre-posed pose, no bone
//! reads), which says how much of the frame is skinning and how much the draw itself.
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run --release -p skel-gpu --example crowd_throughput -- \
//!     --characters 10000
//! ```
//! Options: `--asset PATH` (default `../shared/assets/CesiumMan/CesiumMan.glb` beside the
//! workspace), `--characters N` (10 000), `--frames F` timed frames (60), `--warmup-ms W`
//! (500), `--width W --height H` of the target (1920 × 1080), `--poses P` distinct poses
//! spread over the first clip (32), `--ppm PATH` to save the last frame.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program: fail loudly"
)]

mod support;

const USAGE: &str = "usage: crowd_throughput [--asset FILE] [--characters N] [--frames F] [--warmup-ms MS] [--width W] [--height H] [--poses P] [--ppm FILE]";

use std::path::PathBuf;
use std::time::Instant;

use glam::{Mat4, Vec3};
use serde_json::json;
use skel_gltf::{CpuPoser, LoadOptions};
use skel_gpu::{
    FragmentBindings, GpuContext, HeadlessOptions, JointIndices, ShaderFragment, create_skeleton,
};

struct Options {
    asset: PathBuf,
    characters: u32,
    frames: u32,
    warmup_ms: u32,
    width: u32,
    height: u32,
    poses: u32,
    ppm: Option<PathBuf>,
}

fn options() -> Options {
    let mut o = Options {
        asset: PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/assets/CesiumMan/CesiumMan.glb"
        )),
        characters: 10_000,
        frames: 60,
        warmup_ms: 500,
        width: 1920,
        height: 1080,
        poses: 32,
        ppm: None,
    };
    let mut cli = support::Cli::new(USAGE);
    while let Some(arg) = cli.next_option() {
        match arg.as_str() {
            "--asset" => o.asset = cli.value::<PathBuf>(&arg),
            "--characters" => o.characters = cli.value::<u32>(&arg).max(1),
            "--frames" => o.frames = cli.value::<u32>(&arg).max(1),
            "--warmup-ms" => o.warmup_ms = cli.value::<u32>(&arg),
            "--width" => o.width = cli.value::<u32>(&arg).max(1),
            "--height" => o.height = cli.value::<u32>(&arg).max(1),
            "--poses" => o.poses = cli.value::<u32>(&arg).max(1),
            "--ppm" => o.ppm = Some(cli.value::<PathBuf>(&arg)),
            other => cli.fail(&format!("unknown option {other}")),
        }
    }
    o
}

/// The user half of the shader, composed after the 4-influence skinning fragment (group 1).
const CROWD_WGSL: &str = r"
struct Frame {
    view_proj: mat4x4<f32>,
    // x: characters per grid row, y: spacing, z: bones per character.
    grid: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) instance: u32,
    input: VertexIn,
    influences: SkelInfluences,
) -> VertexOut {
    // This character's bones start at instance × bones-per-character in the shared texture.
    let first_bone = instance * u32(frame.grid.z);
    let skinned = skel_skin(vertex_index, input.position, input.normal,
                            influences.joints0 + vec4<u32>(first_bone), influences.weights0);
    let per_row = u32(frame.grid.x);
    let place = vec3<f32>(f32(instance % per_row), 0.0, f32(instance / per_row)) * frame.grid.y;
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(skinned.position + place, 1.0);
    out.normal = skinned.normal;
    return out;
}

// The same draw without skinning: pre-posed positions (one pose for everyone), no bone reads.
// Its time is what the draw costs on this GPU before any skinning work.
@vertex
fn vs_posed(
    @builtin(instance_index) instance: u32,
    input: VertexIn,
) -> VertexOut {
    let per_row = u32(frame.grid.x);
    let place = vec3<f32>(f32(instance % per_row), 0.0, f32(instance / per_row)) * frame.grid.y;
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(input.position + place, 1.0);
    out.normal = input.normal;
    return out;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(input.normal);
    let light = abs(dot(n, normalize(vec3<f32>(0.3, 1.0, 0.5)))) * 0.8 + 0.2;
    return vec4<f32>(vec3<f32>(light), 1.0);
}
";

fn vertex_buffer(ctx: &GpuContext, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: skel_gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&b, 0, bytes);
    b
}

/// The pixels of an `Rgba8Unorm` texture, rows padded to the copy alignment.
fn read_rgba8(ctx: &GpuContext, texture: &wgpu::Texture) -> Vec<u8> {
    let size = texture.size();
    let row = (size.width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(row) * u64::from(size.height),
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(size.height),
            },
        },
        size,
    );
    ctx.queue.submit([encoder.finish()]);
    let bytes = skel_gpu::readback::read_buffer(ctx, &staging, 0, staging.size()).unwrap();
    bytes
        .chunks_exact(row as usize)
        .flat_map(|r| r[..size.width as usize * 4].to_vec())
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let o = options();
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        optional_features: wgpu::Features::TIMESTAMP_QUERY,
        ..Default::default()
    })
    .expect("a wgpu adapter");
    let info = ctx.adapter_info.clone();
    eprintln!(
        "adapter {} ({:?}, {:?}), driver {} {}",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    );

    let asset = skel_gltf::load_path(
        &o.asset,
        &LoadOptions {
            decode_images: false,
            ..LoadOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("cannot load {}: {e}", o.asset.display()));
    let (index, primitive) = asset
        .primitives
        .iter()
        .enumerate()
        .find(|(_, p)| p.is_skinned())
        .expect("a skinned primitive");
    let skin = primitive.skin.expect("a skin");
    let influences = primitive.gpu_influences().expect("influences");
    let vertex_count = primitive.vertex_count();
    let normals = primitive
        .normals
        .clone()
        .unwrap_or_else(|| [0.0, 1.0, 0.0].repeat(vertex_count));
    let indices: Vec<u32> = primitive
        .indices
        .clone()
        .unwrap_or_else(|| (0..vertex_count as u32).collect());

    // P poses spread over the first clip; character c plays pose c mod P.
    let mut poser = CpuPoser::new(&asset).unwrap();
    let clip = (!asset.animation.clips.is_empty()).then_some(0);
    let duration = clip.map_or(0.0, |c| asset.animation.clips[c].duration());
    let mut poses = Vec::new();
    let mut posed: Vec<f32> = Vec::new();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in 0..o.poses {
        poser
            .pose(&asset, clip, duration * p as f32 / o.poses as f32)
            .unwrap();
        poses.push(poser.skin_matrices(skin).unwrap().to_vec());
        if p == 0 {
            posed = poser.positions(index).unwrap().to_vec();
        }
        for v in poser.positions(index).unwrap().chunks_exact(3) {
            lo = lo.min(Vec3::from_slice(v));
            hi = hi.max(Vec3::from_slice(v));
        }
    }
    let bones_per_character = (poses[0].len() / 16) as u32;
    let n = o.characters;
    let atlas: Vec<f32> = (0..n)
        .flat_map(|c| poses[(c % o.poses) as usize].iter().copied())
        .collect();
    let mut crowd = create_skeleton(
        &ctx,
        JointIndices::U32(&influences.joints0),
        &influences.weights0,
        n * bones_per_character,
        &atlas,
        None,
        None,
    )
    .unwrap();
    eprintln!(
        "{n} × {} ({vertex_count} vertices, {} triangles, {bones_per_character} bones): bone texture {:?}",
        o.asset.file_name().unwrap().to_string_lossy(),
        indices.len() / 3,
        crowd.bone_texture_layout()
    );

    // A grid on the ground plane, seen from above at an angle.
    let extent = hi - lo;
    let spacing = extent.x.max(extent.z).max(extent.y * 0.5) * 1.2;
    let per_row = (f64::from(n).sqrt().ceil() as u32).max(1);
    let side = per_row as f32 * spacing;
    let center = Vec3::new(side * 0.5, (lo.y + hi.y) * 0.5, side * 0.5);
    let eye = center + Vec3::new(0.0, side * 0.8, side * 0.9);
    let view_proj = Mat4::perspective_rh(
        0.8,
        o.width as f32 / o.height as f32,
        side * 0.05,
        side * 4.0,
    ) * Mat4::look_at_rh(eye, center, Vec3::Y);
    let mut frame_data = view_proj.to_cols_array().to_vec();
    frame_data.extend([per_row as f32, spacing, bones_per_character as f32, 0.0]);
    let frame_uniform = vertex_buffer(
        &ctx,
        bytemuck::cast_slice(&frame_data),
        wgpu::BufferUsages::UNIFORM,
    );

    let fragment = ShaderFragment::for_skeleton(
        &crowd,
        false,
        FragmentBindings {
            group: 1,
            first_binding: 0,
            first_location: 2,
        },
    );
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd"),
            source: wgpu::ShaderSource::Wgsl(fragment.compose(CROWD_WGSL).into()),
        });
    let frame_layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
    let skin_layout = fragment
        .create_bind_group_layout(&ctx, wgpu::ShaderStages::VERTEX)
        .unwrap();
    let layout = ctx
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&frame_layout), Some(&skin_layout)],
            immediate_size: 0,
        });
    let color_format = wgpu::TextureFormat::Rgba8Unorm;
    let depth_format = wgpu::TextureFormat::Depth32Float;
    let mut buffers = vec![
        wgpu::VertexBufferLayout {
            array_stride: 12,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &[wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 0,
            }],
        },
        wgpu::VertexBufferLayout {
            array_stride: 12,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &[wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 1,
            }],
        },
    ];
    buffers.extend(fragment.influence_vertex_buffer_layouts());
    let all_buffers: Vec<_> = buffers.into_iter().map(Some).collect();
    let make_pipeline = |entry: &str, buffers: &[Option<wgpu::VertexBufferLayout<'_>>]| {
        ctx.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("crowd"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: depth_format,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(color_format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
    };
    let pipeline = make_pipeline("vs_main", &all_buffers);
    let posed_pipeline = make_pipeline("vs_posed", &all_buffers[..2]);
    let frame_bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &frame_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: frame_uniform.as_entire_binding(),
        }],
    });
    let skin_bind = fragment
        .create_bind_group(&ctx, &skin_layout, Some(&crowd), None)
        .unwrap();
    let target = |format, usage| {
        ctx.device
            .create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: o.width,
                    height: o.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
            .create_view(&Default::default())
    };
    let color = target(
        color_format,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth = target(depth_format, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let storage = wgpu::BufferUsages::VERTEX;
    let positions = vertex_buffer(&ctx, bytemuck::cast_slice(&primitive.positions), storage);
    let normal_buffer = vertex_buffer(&ctx, bytemuck::cast_slice(&normals), storage);
    let posed_buffer = vertex_buffer(&ctx, bytemuck::cast_slice(&posed), storage);
    let index_buffer = vertex_buffer(
        &ctx,
        bytemuck::cast_slice(&indices),
        wgpu::BufferUsages::INDEX,
    );
    let has_timestamps = ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let queries = has_timestamps.then(|| {
        ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });

    // One frame: upload every character's bones (one batched write), draw, wait.
    // skinned: upload + skinned draw; otherwise the posed draw alone.
    let frame = |crowd: &mut skel_gpu::SkeletonGpu,
                 skinned: bool,
                 timed: bool|
     -> (f64, f64, Option<f64>) {
        let start = Instant::now();
        if skinned {
            assert!(crowd.write_bone_matrices(&ctx.queue, &atlas));
        }
        let upload = start.elapsed().as_secs_f64();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.2,
                            g: 0.25,
                            b: 0.3,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: queries.as_ref().filter(|_| timed).map(|q| {
                    wgpu::RenderPassTimestampWrites {
                        query_set: q,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &frame_bind, &[]);
            pass.set_bind_group(1, &skin_bind, &[]);
            pass.set_vertex_buffer(1, normal_buffer.slice(..));
            if skinned {
                pass.set_pipeline(&pipeline);
                pass.set_vertex_buffer(0, positions.slice(..));
                fragment
                    .set_influence_vertex_buffers(&mut pass, 2, crowd)
                    .unwrap();
            } else {
                pass.set_pipeline(&posed_pipeline);
                pass.set_vertex_buffer(0, posed_buffer.slice(..));
            }
            pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..indices.len() as u32, 0, 0..n);
        }
        if let (Some(q), true) = (&queries, timed) {
            encoder.resolve_query_set(q, 0..2, &resolve, 0);
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        let wall = start.elapsed().as_secs_f64();
        let gpu = (timed && has_timestamps).then(|| {
            let t: Vec<u64> = bytemuck::pod_collect_to_vec(
                &skel_gpu::readback::read_buffer(&ctx, &resolve, 0, 16).unwrap(),
            );
            t[1].saturating_sub(t[0]) as f64 * f64::from(ctx.queue.get_timestamp_period()) * 1e-9
        });
        (upload, wall, gpu)
    };

    let warm = Instant::now();
    let mut warm_frames = 0;
    while warm_frames < 2 || warm.elapsed().as_millis() < u128::from(o.warmup_ms) {
        frame(&mut crowd, true, false);
        warm_frames += 1;
    }
    // The posed draw first (its picture is overwritten by the skinned frames below).
    let mut posed_gpus = Vec::new();
    for _ in 0..o.frames.div_ceil(2) {
        posed_gpus.extend(frame(&mut crowd, false, true).2);
    }
    let (mut uploads, mut walls, mut gpus) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..o.frames {
        let (upload, wall, gpu) = frame(&mut crowd, true, true);
        uploads.push(upload);
        walls.push(wall);
        gpus.extend(gpu);
    }
    // Something was drawn: characters are grey (r = g = b), the background is not.
    let pixels = read_rgba8(&ctx, color.texture());
    let covered = pixels
        .chunks_exact(4)
        .filter(|p| p[0] == p[1] && p[1] == p[2])
        .count() as f64
        / f64::from(o.width * o.height);
    if let Some(path) = &o.ppm {
        let mut ppm = format!("P6 {} {} 255\n", o.width, o.height).into_bytes();
        ppm.extend(pixels.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
        std::fs::write(path, ppm).unwrap();
    }

    let draw = (!gpus.is_empty()).then(|| median(gpus.clone()));
    let posed_draw = (!posed_gpus.is_empty()).then(|| median(posed_gpus.clone()));
    let wall = median(walls.clone());
    let upload = median(uploads.clone());
    let skinned = f64::from(n) * vertex_count as f64;
    eprintln!(
        "{n} characters: render pass {} ms → {} fps, {} G skinned vertices/s; whole frame (upload + draw + wait) {:.3} ms → {:.1} fps; upload call {:.3} ms; {:.0}% of pixels covered",
        draw.map_or("-".to_owned(), |d| format!("{:.3}", d * 1e3)),
        draw.map_or("-".to_owned(), |d| format!("{:.1}", 1.0 / d)),
        draw.map_or("-".to_owned(), |d| format!("{:.2}", skinned / d / 1e9)),
        wall * 1e3,
        1.0 / wall,
        upload * 1e3,
        covered * 100.0
    );
    eprintln!(
        "the same draw without skinning (pre-posed positions, no bone reads): {} ms → {} fps",
        posed_draw.map_or("-".to_owned(), |d| format!("{:.3}", d * 1e3)),
        posed_draw.map_or("-".to_owned(), |d| format!("{:.1}", 1.0 / d)),
    );
    let report = json!({
        "benchmark": "skel-gpu crowd_throughput",
        "adapter": support::adapter_json(&info),
        "asset": o.asset.file_name().map(|f| f.to_string_lossy().into_owned()),
        "characters": n,
        "vertices_per_character": vertex_count,
        "triangles_per_character": indices.len() / 3,
        "bones_per_character": bones_per_character,
        "bone_texture": [crowd.bone_texture_layout().width, crowd.bone_texture_layout().height],
        "target": [o.width, o.height],
        "frames": o.frames,
        "warmup_frames": warm_frames,
        "timing": if has_timestamps { "gpu_timestamps" } else { "wall_clock" },
        "render_pass_ms_median": draw.map(|d| d * 1e3),
        "render_pass_ms": gpus.iter().map(|d| d * 1e3).collect::<Vec<_>>(),
        "fps_render_pass": draw.map(|d| 1.0 / d),
        "posed_render_pass_ms_median": posed_draw.map(|d| d * 1e3),
        "posed_fps_render_pass": posed_draw.map(|d| 1.0 / d),
        "skinned_vertices_per_second": draw.map(|d| skinned / d),
        "frame_wall_ms_median": wall * 1e3,
        "fps_whole_frame": 1.0 / wall,
        "upload_call_ms_median": upload * 1e3,
        "upload_bytes_per_frame": atlas.len() * 4,
        "pixels_covered": covered,
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
