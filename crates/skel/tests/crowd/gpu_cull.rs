//! The GPU culling tests' frame and readbacks: a paused GPU-posed crowd of the scene, one frame
//! recorded (pose, cull, skin, place), the visible list and boxes read back, the picture drawn.
#![allow(dead_code, reason = "each test binary uses a subset")]

use skel::gpu::glam::{Mat4, Vec3, Vec4};
use skel::gpu::{GpuContext, readback};
use skel::render::{CrowdRenderer, OffscreenTarget};
use skel::{AssetContainer, Crowd};

use super::scene::paused_gpu_crowd;

/// Instance `i`'s time in clip 0 (as the CPU culling tests pose it).
pub fn time_of(i: u32) -> f32 {
    0.07 + 0.13 * i as f32
}

/// A paused GPU-posed crowd of the scene with the GPU cull, placed.
pub fn gpu_crowd(ctx: &GpuContext, asset: &AssetContainer, placements: &[Mat4]) -> Crowd {
    paused_gpu_crowd(ctx, asset, placements, time_of, true, None)
}

/// One frame: pose, cull against `view_projection` (unless `None`), skin, place; submitted.
pub fn frame(
    ctx: &GpuContext,
    crowd: &mut Crowd,
    renderer: Option<&CrowdRenderer>,
    view_projection: Option<Mat4>,
) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(ctx, &mut encoder).unwrap();
    if let Some(vp) = view_projection {
        crowd.encode_cull(ctx, &mut encoder, vp).unwrap();
    }
    crowd.skin(&mut encoder);
    if let Some(r) = renderer {
        r.place(&mut encoder);
    }
    ctx.queue.submit([encoder.finish()]);
}

/// The visible list the crowd skins from: its instances, sorted.
pub fn listed(ctx: &GpuContext, crowd: &Crowd) -> Vec<u32> {
    let n = crowd.gpu().instance_count() as usize;
    let list: Vec<u32> =
        readback::read_buffer_as(ctx, crowd.gpu().instances_buffer(), 0, n + 1).unwrap();
    let mut kept = list[1..=list[0] as usize].to_vec();
    kept.sort_unstable();
    kept
}

/// Whether the box `min..max` is kept by the cull's rule: no plane has the box's corner
/// farthest along its normal outside it.
pub fn box_kept(planes: &[Vec4; 6], min: Vec3, max: Vec3) -> bool {
    planes.iter().all(|p| {
        let n = p.truncate();
        let corner = Vec3::select(n.cmpge(Vec3::ZERO), max, min);
        n.dot(corner) + p.w >= 0.0
    })
}

/// Every instance's box (min, max) as the crowd's GPU cull left it.
pub fn gpu_boxes(ctx: &GpuContext, crowd: &Crowd) -> Vec<(Vec3, Vec3)> {
    let cull = crowd.gpu_cull().unwrap();
    let n = crowd.gpu().instance_count() as usize;
    let boxes: Vec<Vec4> = readback::read_buffer_as(ctx, cull.boxes_buffer(), 0, 2 * n).unwrap();
    boxes
        .chunks_exact(2)
        .map(|b| (b[0].truncate(), b[1].truncate()))
        .collect()
}

/// Draws the crowd (already skinned and placed) and reads the picture back.
pub fn picture(
    ctx: &GpuContext,
    asset: &AssetContainer,
    renderer: &CrowdRenderer,
    target: &OffscreenTarget,
) -> Vec<u8> {
    super::scene::picture(ctx, asset, renderer, target, false)
}

pub fn differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count()
}
