//! The culling tests' scene: a 9 × 9 grid of the built-in character and a camera that sees
//! part of it.
#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::Path;

use skel::gpu::glam::{Mat4, Vec3, Vec4};
use skel::gpu::{GpuContext, PoseInstance, PoseLayout};
use skel::render::{BACKGROUND, Camera, CrowdRenderer, OffscreenTarget, rest_bounds};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing, load_gltf};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");

/// A 9 × 9 grid of the built-in character, spaced by twice its rest size, and a camera low
/// over one corner looking along a diagonal: some of the grid in view, some not.
pub struct Scene {
    pub asset: AssetContainer,
    pub placements: Vec<Mat4>,
    pub view_projection: Mat4,
    pub camera: Camera,
}

pub const SIDE: u32 = 9;

pub fn scene(ctx: &GpuContext) -> Scene {
    let path = Path::new(FIXTURES).join("default_character.glb");
    let asset = load_gltf(ctx, &path, &LoadOptions::default()).unwrap();
    let (
        placements,
        Grid {
            eye,
            view,
            projection,
        },
    ) = grid(&asset, SIDE);
    let inverse = view.inverse();
    let camera = Camera {
        view,
        projection,
        eye,
        right: inverse.x_axis.truncate(),
        up: inverse.y_axis.truncate(),
        back: inverse.z_axis.truncate(),
    };
    Scene {
        asset,
        placements,
        view_projection: camera.view_projection(),
        camera,
    }
}

/// The camera of [`grid`].
pub struct Grid {
    pub eye: Vec3,
    pub view: Mat4,
    pub projection: Mat4,
}

/// `side × side` placements of `asset`, spaced by twice its rest size, and a camera low over
/// one corner looking along a diagonal: some of the grid in view, some not.
pub fn grid(asset: &AssetContainer, side: u32) -> (Vec<Mat4>, Grid) {
    let (lo, hi) = rest_bounds(asset);
    let size = (hi - lo).max_element();
    let placements = (0..side * side)
        .map(|i| {
            let (x, z) = ((i % side) as f32, (i / side) as f32);
            Mat4::from_translation(Vec3::new(x, 0.0, z) * 2.0 * size)
        })
        .collect();
    let eye = Vec3::new(-1.0, 0.6, -1.0) * size;
    let view = Mat4::look_at_rh(eye, Vec3::new(3.0, 0.2, 5.0) * size, Vec3::Y);
    let projection = Mat4::perspective_rh(0.7, 1.0, 0.05 * size, 12.0 * size);
    (
        placements,
        Grid {
            eye,
            view,
            projection,
        },
    )
}

/// A crowd of `asset` posed on the GPU (a matrix per bone), one instance per placement, each
/// paused at `time(i)` of clip 0 and ticked once; placed, and culled on the GPU, when `cull`;
/// skinned in chunks of at most `max_chunk_bytes` (`None`: the descriptor's default).
pub fn paused_gpu_crowd(
    ctx: &GpuContext,
    asset: &AssetContainer,
    placements: &[Mat4],
    time: impl Fn(u32) -> f32,
    cull: bool,
    max_chunk_bytes: Option<u64>,
) -> Crowd {
    paused_gpu_crowd_posed(
        ctx,
        asset,
        placements,
        time,
        cull,
        max_chunk_bytes,
        PoseLayout::PerBone,
    )
}

/// [`paused_gpu_crowd`] posed with `layout`.
pub fn paused_gpu_crowd_posed(
    ctx: &GpuContext,
    asset: &AssetContainer,
    placements: &[Mat4],
    time: impl Fn(u32) -> f32,
    cull: bool,
    max_chunk_bytes: Option<u64>,
    layout: PoseLayout,
) -> Crowd {
    let n = u32::try_from(placements.len()).unwrap();
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances: n,
            clip: Some(0),
            posing: Posing::Gpu(layout),
            gpu_cull: cull,
            max_chunk_bytes,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    let playback: Vec<PoseInstance> = (0..n)
        .map(|i| PoseInstance::new(0, time(i)).speed(0.0))
        .collect();
    crowd.set_instances(ctx, 0, &playback).unwrap();
    if cull {
        crowd.set_placements(ctx, placements).unwrap();
    }
    crowd.tick(0.0);
    crowd
}

/// Whether `p` placed by `placement` lies in the frustum of `view_projection`.
pub fn in_view(view_projection: Mat4, placement: &Mat4, p: Vec3) -> bool {
    let c: Vec4 = view_projection * placement.transform_point3(p).extend(1.0);
    c.x.abs() <= c.w && c.y.abs() <= c.w && c.z >= 0.0 && c.z <= c.w
}

/// Draws `crowd` (already uploaded and skinned) with `renderer` and reads the picture back;
/// `place`: record the renderer's placing pass first.
pub fn picture(
    ctx: &GpuContext,
    asset: &AssetContainer,
    renderer: &CrowdRenderer,
    target: &OffscreenTarget,
    place: bool,
) -> Vec<u8> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    if place {
        renderer.place(&mut encoder);
    }
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(target.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            ..Default::default()
        });
        renderer.draw(asset, &mut pass);
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    target.read_rgba(&ctx.device, &mut rgba).unwrap();
    rgba
}
