//! A crowd of the built-in character (or of any glTF file): every instance posed into one bone
//! array, uploaded in one copy, skinned in one compute dispatch per mesh; one in four culled.
//! Meshes with up to 16 influences per vertex (`JOINTS_0..3`) skin on the GPU as they are;
//! more are reduced to the 16 largest when loaded (`skel info` counts those vertices).
//!
//!
//! Then the same crowd posed on the GPU (`Posing::Gpu`): each character's clip, phase and speed
//! written once, the GPU advancing every playhead; the near half posed every frame, the far half
//! every 4th frame with the reduced joint set (levels of detail: a staggered update rate, and
//! the bones of the first three levels only, the others following their nearest kept ancestor);
//! one character's pose read back without waiting.
//!
//! `cargo run -p skel --example crowd --features rayon -- 1000`
//! `cargo run -p skel --example crowd -- 100 fixtures/sixteen_influences.glb` (16 influences)
#![allow(clippy::print_stdout, reason = "an example prints what it did")]

use skel::gpu::{GpuContext, PoseInstance, PoseLayout, readback::read_buffer};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing, load_gltf};

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
    gpu_posed(&ctx, &asset, instances, walk)
}

/// The crowd posed on the GPU with two levels of detail; prints what came back.
fn gpu_posed(
    ctx: &GpuContext,
    asset: &AssetContainer,
    instances: u32,
    clip: Option<usize>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances,
            clip,
            posing: Posing::Gpu(PoseLayout::PerBone),
            ..CrowdDescriptor::default()
        },
    )?;
    // The far characters' joint set: the bones of the first three levels of the hierarchy.
    let set = crowd.gpu_clip_set().ok_or("posed on the GPU")?;
    let levels = set.node_levels();
    let keep: Vec<bool> = set
        .bone_nodes
        .iter()
        .map(|&node| levels[node as usize] < 3)
        .collect();
    crowd.set_reduced_joints(ctx, &keep)?;
    let clip = u16::try_from(clip.unwrap_or(0))?;
    let playback: Vec<PoseInstance> = (0..instances)
        .map(|i| {
            let near = i < instances / 2;
            PoseInstance::new(clip, i as f32 * 0.037)
                .speed(0.9 + (i % 5) as f32 * 0.05)
                .update_every(if near { 1 } else { 4 })
                .reduced(!near)
        })
        .collect();
    crowd.set_instances(ctx, 0, &playback)?; // once; nothing per character per frame after
    crowd.request_pose_readback(&[0]);
    let mut readback = None;
    for _ in 0..4 {
        crowd.tick(1.0 / 60.0); // only remembers dt: the GPU advances the playheads
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        crowd.upload(ctx, &mut encoder)?; // the pose pass: advance, sample, hierarchy, bones
        crowd.skin(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        if let Some((_, bones)) = crowd.pose_readback(ctx) {
            readback = bones.first().map(|m| m.w_axis.truncate());
        }
    }
    let pose = crowd.gpu_pose().ok_or("posed on the GPU")?;
    println!(
        "GPU-posed: {} instances in {} chunk(s), {} bytes uploaded per frame whatever the count; \
         instance 0's first bone read back at {readback:?}",
        crowd.gpu().instance_count(),
        pose.chunk_count(),
        pose.params_bytes_per_frame(),
    );
    Ok(())
}
