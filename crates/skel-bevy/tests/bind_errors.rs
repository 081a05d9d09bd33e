//! A character that cannot be bound gets a typed error (logged through Bevy), its joints
//! keep their transforms, and nothing panics.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::{SkelBevyError, SkelLayer, SkelPlayer, SkelRig};

use common::failed_untouched;

#[test]
fn rig_of_another_model_is_a_missing_joint() {
    let mut app = common::app(&common::fixture(""));
    let bytes = std::fs::read(common::fixture("root_motion_walk.gltf")).unwrap();
    let other = SkelRig::from_bytes(&bytes).unwrap();
    let handle = app.world_mut().resource_mut::<Assets<SkelRig>>().add(other);
    let player = SkelPlayer::new()
        .with_layer(SkelLayer::clip("Walk"))
        .with_rig(handle);
    let character = common::spawn(&mut app, "default_character.glb", player);
    let e = failed_untouched(app, character);
    assert!(e.starts_with("MissingJoint"), "{e}");
}

#[test]
fn unknown_clip_is_a_typed_error() {
    let mut app = common::app(&common::fixture(""));
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("NoSuchClip"));
    let character = common::spawn(&mut app, "default_character.glb", player);
    let e = failed_untouched(app, character);
    assert!(e.starts_with("NoSuchClip"), "{e}");
}

#[test]
fn malformed_rig_file_is_a_load_error() {
    let mut app = common::app(&common::fixture(""));
    let player = SkelPlayer::new()
        .with_layer(SkelLayer::clip("Walk"))
        .with_rig_file("malformed/bad_magic.glb");
    let character = common::spawn(&mut app, "default_character.glb", player);
    let e = failed_untouched(app, character);
    assert!(e.starts_with("RigLoad"), "{e}");
}

#[test]
fn malformed_bytes_are_a_gltf_error() {
    let bytes = std::fs::read(common::fixture("malformed/bad_magic.glb")).unwrap();
    let e = SkelRig::from_bytes(&bytes).unwrap_err();
    assert!(matches!(e, SkelBevyError::Gltf(_)), "{e}");
}
