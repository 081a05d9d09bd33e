//! A crowd of the built-in character (or of any glTF file): every instance posed into one bone
//! array, uploaded in one copy, skinned in one compute dispatch per mesh; one in four culled.
//! Meshes with up to 16 influences per vertex (`JOINTS_0..3`) skin on the GPU as they are;
//! more are reduced to the 16 largest when loaded (`skel info` counts those vertices).
//!
//! `cargo run -p skel --example crowd --features rayon -- 1000`
//! `cargo run -p skel --example crowd -- 100 fixtures/sixteen_influences.glb` (16 influences)
#![allow(clippy::print_stdout, reason = "an example prints what it did")]

use skel::gpu::{GpuContext, readback::read_buffer};
use skel::{Crowd, CrowdDescriptor, LoadOptions, load_gltf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let instances: u32 = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 100,
    };
    let ctx = match GpuContext::new_headless() {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("no GPU adapter, nothing to show: {e}");
            return Ok(());
        }
    };
    let asset = match std::env::args().nth(2) {
        Some(path) => load_gltf(&ctx, std::path::Path::new(&path), &LoadOptions::default())?,
        None => load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default())?,
    };
    let walk = (asset.clip_index("Walk")).or((!asset.animation.clips.is_empty()).then_some(0));
    let mut crowd = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances,
            clip: walk,
            ..CrowdDescriptor::default()
        },
    )?;
    // Each character starts at its own point of the clip; every fourth is off screen.
    for (i, player) in crowd.players.iter_mut().enumerate() {
        player.seek(i as f32 * 0.037);
        player.set_visible(i % 4 != 3);
    }

    for _ in 0..3 {
        crowd.tick(1.0 / 60.0); // poses the visible players (rayon with the feature)
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        crowd.upload(&ctx, &mut encoder)?; // one copy for every bone of every instance
        crowd.skin(&mut encoder); // one dispatch per mesh for every visible instance
        ctx.queue.submit([encoder.finish()]);
    }

    // A renderer would now draw each primitive once with `instances: 0..visible_count()`,
    // reading `skel_crowd_skinned(instance_index, vertex_index)` (skel::gpu::crowd_vertex_wgsl).
    let mesh = &crowd.meshes()[0];
    let first = read_buffer(
        &ctx,
        mesh.skinned_positions.as_ref().ok_or("compute is off")?,
        0,
        12,
    )?;
    let p: Vec<f32> = first
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    println!(
        "{} of {} instances drawn, {} vertices each ({} influences per vertex), {} bone matrices each; instance {}'s first vertex at {p:?}",
        crowd.visible_count(),
        instances,
        mesh.vertex_count,
        mesh.influences,
        crowd.gpu().bones_per_instance(),
        crowd.visible()[0],
    );
    Ok(())
}
