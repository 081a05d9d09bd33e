//! Layers on one player: the built-in character walks (blend layer), waves with its upper body
//! only (a masked blend layer), and breathes on top of both (an additive layer), then
//! cross-fades back to the plain walk.
//!
//! `cargo run -p skel --example layers`

use std::sync::Arc;

use skel::anim::{FadeSync, LayerDesc, Mask, NullSink, Player, Reference, Rig};
use skel::gltf::{LoadOptions, load_slice};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let asset = load_slice(skel::DEFAULT_CHARACTER, None, &LoadOptions::default())?;
    // Compile the asset once; every player of it shares the rig.
    let rig = Rig::new(Arc::new(asset.animation))?;
    let clip = |name: &str| rig.clip_index(name).ok_or(format!("no clip {name:?}"));
    let node = |name: &str| rig.node_index(name).ok_or(format!("no node {name:?}"));
    let (walk, wave) = (clip("Walk")?, clip("Wave")?);

    let mut player = Player::new(&rig);
    // 1. The walk, everywhere.
    player.add_layer(LayerDesc::new(walk))?;
    // 2. The wave on the upper body only (the chest's subtree), the neck at a quarter.
    let upper_body = Mask::default()
        .include([node("Chest")?])
        .joint_weight(node("Neck")?, 0.25);
    player.add_layer(LayerDesc::new(wave).mask(upper_body))?;
    // 3. The wave's motion relative to its own first frame, added at 30 % on top (an additive
    //    layer: what moves in the clip moves a little more, whatever plays below).
    let relative_to_start = Reference {
        clip: None,
        time: 0.0,
    };
    player.add_layer(LayerDesc::new(wave).weight(0.3).additive(relative_to_start))?;

    let hand = node("RightHand")?;
    let foot = node("LeftFoot")?;
    // Where a node is: the translation of its world matrix (a glam::Mat4).
    let at = |player: &mut Player, n: usize| {
        let p = player.world_matrices()[n].w_axis;
        format!("[{:+.3}, {:+.3}, {:+.3}]", p.x, p.y, p.z)
    };
    for frame in 0..90 {
        // Your sink uploads bone matrices and morph weights (skel::MeshPoseSink on the GPU).
        player.tick(1.0 / 60.0, &mut NullSink);
        if frame % 30 == 0 {
            println!(
                "frame {frame:2}: hand {}, foot {}",
                at(&mut player, hand),
                at(&mut player, foot)
            );
        }
    }
    // Back to the plain walk over half a second: every blend layer ramps out, a new walk in.
    player.crossfade_to(walk, 0.5, FadeSync::Phase)?;
    for _ in 0..40 {
        player.tick(1.0 / 60.0, &mut NullSink);
    }
    let blends = player
        .layers()
        .iter()
        .filter(|l| l.mode() == skel::anim::LayerMode::Blend)
        .count();
    println!(
        "after the fade: {} layers ({blends} blend), hand {}",
        player.layers().len(),
        at(&mut player, hand)
    );
    Ok(())
}
