//! A character that cannot be bound gets a typed error (logged through Bevy), its joints
//! keep their transforms, and nothing panics.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::{SkelBevyError, SkelBindError, SkelJoint, SkelLayer, SkelPlayer, SkelRig};

/// Every Transform under `root`, in hierarchy order.
fn transforms_under(app: &mut App, root: Entity) -> Vec<Transform> {
    let world = app.world();
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Some(t) = world.get::<Transform>(e) {
            out.push(*t);
        }
        if let Some(c) = world.get::<Children>(e) {
            stack.extend(c.iter());
        }
    }
    out
}

/// Runs until the error appears, checks nothing moves afterwards, returns the error.
fn failed_untouched(mut app: App, character: Entity) -> String {
    common::run_until(&mut app, |w| w.get::<SkelBindError>(character).is_some());
    let before = transforms_under(&mut app, character);
    assert!(before.len() > 10, "the scene did not spawn");
    common::step(&mut app, 20);
    assert_eq!(
        before,
        transforms_under(&mut app, character),
        "joints moved"
    );
    let mut q = app.world_mut().query::<&SkelJoint>();
    assert_eq!(q.iter(app.world()).count(), 0, "joints were bound");
    assert!(!app.world().get::<SkelPlayer>(character).unwrap().is_bound());
    format!(
        "{:?}",
        app.world().get::<SkelBindError>(character).unwrap().0
    )
}

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
