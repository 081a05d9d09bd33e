//! A GPU-culled crowd's skinning is dispatched indirectly from the visible list's count
//! (`skel_gpu::CrowdDispatch`): on a real adapter (lavapipe in CI), the scene's crowd culled
//! against an orthographic view of all but one column and skinned in two chunks writes, for
//! every visible slot (in both chunks), the
//! very floats the same crowd skinned without culling writes for that slot's instance, and
//! nothing into the slots past the count (fresh buffers stay zero).
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::glam::{Mat4, Vec3};
use skel::gpu::{GpuContext, readback};
use skel::{AssetContainer, Crowd};

mod common;
use common::gpu;
#[path = "crowd/scene.rs"]
mod scene;
use scene::{Scene, paused_gpu_crowd, scene};

/// The scene's GPU-posed crowd, paused at staggered times, with or without the GPU cull,
/// skinned in chunks of `chunk_slots` slots of its largest mesh (64: the most that keeps the
/// built-in character's morph deltas in one binding).
fn crowd(
    ctx: &GpuContext,
    asset: &AssetContainer,
    placements: &[Mat4],
    cull: bool,
    chunk_slots: u64,
) -> Crowd {
    let largest = asset
        .meshes
        .iter()
        .map(|m| u64::from(m.vertex_count))
        .max()
        .unwrap();
    let time = |i: u32| 0.05 + 0.11 * i as f32;
    paused_gpu_crowd(
        ctx,
        asset,
        placements,
        time,
        cull,
        Some(chunk_slots * largest * 12),
    )
}

fn floats(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<f32> {
    readback::read_buffer_as(ctx, buffer, 0, (buffer.size() / 4) as usize).unwrap()
}

#[test]
fn a_culled_crowd_skins_its_visible_slots_as_the_whole_crowd_does() {
    let Some(ctx) = gpu("GPU-culled crowd skinning, indirect") else {
        return;
    };
    let Scene {
        asset, placements, ..
    } = scene(&ctx);
    // An orthographic view of everything but the grid's last column (x = 16 sizes; the others
    // stand 2 sizes apart from x = 0): 72 of 81 kept, past the first chunk's 64 slots.
    let (lo, hi) = skel::render::rest_bounds(&asset);
    let size = (hi - lo).max_element();
    let view_projection = Mat4::orthographic_rh(-4.0 * size, 15.0 * size, -50.0, 50.0, 1.0, 3.0e3)
        * Mat4::from_translation(Vec3::new(0.0, 0.0, -1.0e3));
    let n = placements.len();
    let mut culled = crowd(&ctx, &asset, &placements, true, 64);
    let mut whole = crowd(&ctx, &asset, &placements, false, 64);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    culled.upload(&ctx, &mut encoder).unwrap();
    culled
        .encode_cull(&ctx, &mut encoder, view_projection)
        .unwrap();
    culled.skin(&mut encoder);
    whole.upload(&ctx, &mut encoder).unwrap();
    whole.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let list: Vec<u32> =
        readback::read_buffer_as(&ctx, culled.gpu().instances_buffer(), 0, n + 1).unwrap();
    let kept = list[0] as usize;
    assert!(64 < kept && kept < n, "{kept} of {n} kept");
    let mut chunks = 0;
    for (a, b) in culled.meshes().iter().zip(whole.meshes()) {
        chunks += a.skin_chunks();
        let per = a.vertex_count as usize * 3;
        let (got, want) = (
            floats(&ctx, a.skinned_positions.as_ref().unwrap()),
            floats(&ctx, b.skinned_positions.as_ref().unwrap()),
        );
        for (slot, &instance) in list[1..=kept].iter().enumerate() {
            let i = instance as usize;
            assert!(
                got[slot * per..(slot + 1) * per] == want[i * per..(i + 1) * per],
                "slot {slot} (instance {i}) differs from the whole crowd's"
            );
        }
        assert!(
            got[kept * per..n * per].iter().all(|&x| x == 0.0),
            "a slot past the count was written"
        );
    }
    assert!(
        chunks > culled.meshes().len(),
        "{chunks} chunks: not chunked"
    );
}
