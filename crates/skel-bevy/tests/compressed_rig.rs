//! Files whose clips skel stored compressed (`skel compress --out`, here written in the test by
//! `skel_gltf::write_compressed_glb`): a rig read from one drives a scene bevy spawned from the
//! source file (through `SkelPlayer::with_rig`), and such a file spawned directly, which bevy's
//! glTF loader refuses (an unknown required extension), is respawned from the plugin's copy
//! of it and plays. The joints follow the compressed clip as skel plays it, within 1e-5 of the
//! model's size.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use skel_bevy::anim::{Compression, KeyFormat, Rig, RigOptions};
use skel_bevy::{SkelLayer, SkelPlayer, SkelRig};

/// The built-in character with every clip stored compressed (variable-rate keys), as the
/// bytes of a `.glb`.
fn compressed_character() -> Vec<u8> {
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
    skel_gltf::write_compressed_glb(&bytes, path.parent(), &stored).unwrap()
}

#[test]
fn a_compressed_file_spawned_directly_plays() {
    let file = compressed_character();
    let text = String::from_utf8_lossy(&file);
    assert!(
        text.contains(&format!(
            "\"extensionsRequired\":[\"{}\"]",
            skel_gltf::COMPRESSED_ANIMATION
        )),
        "the file does not require skel's extension"
    );
    let dir = common::TempDir::new("compressed-spawn");
    std::fs::write(dir.0.join("compressed.glb"), &file).unwrap();
    let rig = common::rig(&dir.0.join("compressed.glb"));
    let walk = rig.clip_index("Walk").unwrap();
    assert!(rig.data().clips[walk].stored_keys.is_some());

    let mut app = common::app(&dir.0);
    let character = common::spawn(
        &mut app,
        "compressed.glb",
        SkelPlayer::new().with_layer("Walk"),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 29);
    let time = common::layer_time(&app, character);
    assert!(time > 0.0, "the clip did not advance");
    let world = common::clip_world(&rig, walk, time);
    let (worst, tol) = common::worst_joint_difference(&mut app, character, Mat4::IDENTITY, &world);
    println!(
        "compressed.glb spawned, Walk t={time}: worst difference {worst:e} (tolerance {tol:e})"
    );
    assert!(worst <= tol, "worst difference {worst} over {tol}");
}

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
