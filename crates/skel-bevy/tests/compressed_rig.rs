//! A rig read from a file whose clips skel stored compressed (`skel compress --out`) drives a
//! scene bevy spawned from the source file: bevy's loader refuses the compressed file itself
//! (an unknown required extension), so the scene comes from the source and the rig, through
//! `SkelPlayer::with_rig`, from the compressed file. The joints follow the compressed clip as
//! skel plays it, within 1e-5 of the model's size.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use skel_bevy::anim::{Compression, KeyFormat, Rig, RigOptions};
use skel_bevy::{SkelLayer, SkelPlayer, SkelRig};

#[test]
fn a_rig_from_a_compressed_file_drives_the_source_scene() {
    let path = common::fixture("default_character.glb");
    let source = common::rig(&path);
    let options = RigOptions {
        compression: Some(Compression {
            keys: KeyFormat::Variable,
            ..Compression::default()
        }),
        ..RigOptions::default()
    };
    let compressed = Rig::with_options(Arc::clone(source.data()), &options).unwrap();
    let stored: Vec<_> = (0..source.data().clips.len())
        .map(|c| compressed.stored_keys(c).unwrap())
        .collect();
    let bytes = std::fs::read(&path).unwrap();
    let file = skel_gltf::write_compressed_glb(&bytes, path.parent(), &stored).unwrap();
    let rig = SkelRig::from_bytes(&file).unwrap();
    let walk = rig.rig().clip_index("Walk").unwrap();
    assert!(rig.rig().data().clips[walk].stored_keys.is_some());

    let mut app = common::app(&common::fixture(""));
    let handle = app
        .world_mut()
        .resource_mut::<Assets<SkelRig>>()
        .add(rig.clone());
    let player = SkelPlayer::new()
        .with_layer(SkelLayer::clip("Walk"))
        .with_rig(handle);
    let character = common::spawn(&mut app, "default_character.glb", player);
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 29);
    let time = common::layer_time(&app, character);
    assert!(time > 0.0, "the clip did not advance");
    let world = common::clip_world(rig.rig(), walk, time);
    let (worst, tol) = common::worst_joint_difference(&mut app, character, Mat4::IDENTITY, &world);
    assert!(worst <= tol, "worst difference {worst} over {tol}");
    println!("compressed Walk t={time}: worst difference {worst:e} (tolerance {tol:e})");
    // The compressed clip is not the source's: the test would not tell them apart otherwise.
    assert_ne!(
        common::clip_world(&source, walk, time),
        world,
        "compression changed nothing"
    );
}
