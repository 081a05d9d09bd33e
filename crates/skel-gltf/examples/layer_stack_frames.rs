//! Ticks N characters of one asset for F frames at 60 fps, each playing one clip or a
//! three-layer stack (blend base + masked blend + additive), for instruction counts by
//! difference (`valgrind --tool=cachegrind --cache-sim=no`, two runs differing only in F).
//!
//! `cargo run --release -p skel-gltf --example layer_stack_frames -- ASSET controller|single|three|masked|additive N F`
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a measuring tool")]

use std::sync::Arc;

use skel_anim::{LayerDesc, Mask, NullSink, Player, Reference, Rig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, asset, mode, n, frames] = args.as_slice() else {
        eprintln!(
            "usage: layer_stack_frames ASSET controller|single|three|masked|additive CHARACTERS FRAMES"
        );
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("CHARACTERS");
    let frames: usize = frames.parse().expect("FRAMES");
    let asset = skel_gltf::load_path(std::path::Path::new(asset), &Default::default()).unwrap();
    let data = Arc::new(asset.animation);
    let clips = data.clips.len();
    // The base clip: the longest (Fox "Survey" is not the first).
    let base = (0..clips)
        .max_by(|&a, &b| {
            data.clips[a]
                .duration()
                .total_cmp(&data.clips[b].duration())
        })
        .unwrap();
    let other = (base + 1) % clips;
    let joints = data
        .skeletons
        .first()
        .map_or(data.nodes.len(), |s| s.joints.len());
    if mode == "controller" {
        // The seed's controller (an adapter over a one-layer player today).
        let rig = Rig::with_kernels(Arc::clone(&data), kernels()).unwrap();
        let mut c = skel_anim::AnimationController::from_rig(&rig);
        c.set_clip(Some(base)).unwrap();
        let d = data.clips[base].duration();
        let mut crowd: Vec<_> = (0..n)
            .map(|i| {
                let mut c = c.clone();
                c.time = d * i as f32 / n as f32;
                c
            })
            .collect();
        for _ in 0..=frames {
            for c in &mut crowd {
                c.tick(1000.0 / 60.0, &mut NullSink);
            }
        }
        println!("{joints}");
        return;
    }
    let rig = Rig::with_kernels(Arc::clone(&data), kernels()).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(base)).unwrap();
    // `three`: a masked blend over the middle joint's subtree, and an additive layer;
    // `masked` and `additive`: the base with one of them (what each layer costs).
    if mode == "three" || mode == "masked" {
        let upper = data.skeletons[0].joints[joints / 2];
        player
            .add_layer(
                LayerDesc::new(other)
                    .weight(0.7)
                    .mask(Mask::default().include([upper])),
            )
            .unwrap();
    }
    if mode == "three" || mode == "additive" {
        player
            .add_layer(
                LayerDesc::new(other)
                    .weight(0.5)
                    .additive(Reference::default()),
            )
            .unwrap();
    }
    let mut crowd: Vec<Player> = (0..n)
        .map(|i| {
            let mut p = player.clone();
            for layer in p.layers_mut() {
                let d = layer.clock().to();
                layer.clock_mut().seek(d * i as f32 / n as f32);
            }
            p
        })
        .collect();
    // Warm-up: one frame.
    for p in &mut crowd {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    for _ in 0..frames {
        for p in &mut crowd {
            p.tick(1.0 / 60.0, &mut NullSink);
        }
    }
    println!("{joints}");
}

/// `SKEL_KERNELS=baseline` keeps the baseline (SSE2) kernels, for A/B runs.
fn kernels() -> skel_anim::CpuKernels {
    if std::env::var_os("SKEL_KERNELS").is_some_and(|v| v == "baseline") {
        skel_anim::CpuKernels::Baseline
    } else {
        skel_anim::CpuKernels::Detect
    }
}
