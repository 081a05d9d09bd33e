//! Morph weights reach Bevy's `MorphWeights`: a fixture whose clip animates morph weights
//! plays through the plugin, and the `MorphWeights` component bevy's glTF loader put on the
//! mesh node holds the weights skel's own CPU `Player` samples at the same time (1e-6).

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::mesh::morph::MorphWeights;
use bevy::prelude::*;
use skel_bevy::anim::{LayerDesc, NullSink, Player};
use skel_bevy::{SkelMorph, SkelPlayer};

/// Plays `clip` of fixture `file` for `frames` frames; returns skel's weights at the layer's
/// time and those of the mesh node's `MorphWeights`.
fn weights_after(file: &str, clip: &str, frames: usize) -> (Vec<f32>, Vec<f32>) {
    let rig = common::rig(&common::fixture(file));
    let mut app = common::app(&common::fixture(""));
    let character = common::spawn(&mut app, file, SkelPlayer::new().with_layer(clip));
    common::run_until_bound(&mut app, character);
    common::step(&mut app, frames);
    let time = common::layer_time(&app, character);

    let mut reference = Player::new(&rig);
    reference
        .add_layer(LayerDesc::new(rig.clip_index(clip).unwrap()))
        .unwrap();
    reference.layer_mut(0).unwrap().clock_mut().seek(time);
    reference.evaluate(&mut NullSink);
    let want = reference.morph_weights(0).unwrap().to_vec();

    let mut q = app.world_mut().query::<(&SkelMorph, &MorphWeights)>();
    let driven: Vec<_> = q
        .iter(app.world())
        .filter(|(m, _)| m.character == character)
        .collect();
    assert_eq!(driven.len(), 1, "one morphing mesh node is driven");
    assert_eq!(driven[0].0.binding, 0);
    (want, driven[0].1.weights().to_vec())
}

#[test]
fn animated_morph_weights_reach_bevy_morph_weights() {
    for (file, clip, frames) in [
        ("morph_animation.gltf", "Morph", 23),
        ("sparse_morph.gltf", "Pulse", 31),
    ] {
        let (want, got) = weights_after(file, clip, frames);
        println!("{file} {clip}: skel {want:?}, MorphWeights {got:?}");
        // Premise: the weights moved away from the mesh's defaults (zeros).
        assert!(
            want.iter().any(|w| w.abs() > 1e-2),
            "{file}: the clip leaves the weights at rest: {want:?}"
        );
        assert_eq!(want.len(), got.len(), "{file}");
        for (w, g) in want.iter().zip(&got) {
            assert!((w - g).abs() <= 1e-6, "{file}: {got:?} vs skel's {want:?}");
        }
    }
}
