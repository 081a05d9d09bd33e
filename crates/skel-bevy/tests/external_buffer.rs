//! A `.gltf` whose buffer is an external `.bin` (`fixtures/two_skins.gltf` + `two_skins.bin`)
//! binds: the plugin reads the `.bin` through bevy's asset reader, beside the `.gltf`, and the
//! joints then follow skel's own player of the same file at the same time.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::SkelPlayer;

#[test]
fn a_gltf_with_an_external_bin_binds_and_plays() {
    let path = common::fixture("two_skins.gltf");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("\"two_skins.bin\""),
        "the fixture's buffer is not external"
    );
    let rig = common::rig(&path);
    let clip = rig.clip_index("Both").unwrap();

    let mut app = common::app(&common::fixture(""));
    let character = common::spawn(
        &mut app,
        "two_skins.gltf",
        SkelPlayer::new().with_layer("Both"),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 25);
    let time = common::layer_time(&app, character);
    assert!(time > 0.0, "the clip did not advance");
    let world = common::clip_world(&rig, clip, time);
    assert_ne!(
        world,
        common::clip_world(&rig, clip, 0.0),
        "the clip moves nothing"
    );
    let (worst, tol) = common::worst_joint_difference(&mut app, character, Mat4::IDENTITY, &world);
    println!("two_skins.gltf Both t={time}: worst joint difference {worst:e} (tolerance {tol:e})");
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
}
