//! `skel pick`, run as the real binary, against the library's `pick` on the same pose: the
//! same triangle and distance; a ray past the character is `"hit": null`; a ray without a
//! direction is refused with a message.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::skel;
use serde_json::Value;
use skel::anim::Handedness;
use skel::anim::glam::Vec3;
use skel::gltf::{CpuPoser, LoadOptions, load_path, pick};

fn character() -> String {
    format!(
        "{}/../../crates/skel/assets/default_character.glb",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn a_ray_at_the_character_hits_what_the_library_hits() {
    let path = character();
    let args = [
        "pick",
        &path,
        "--clip",
        "0",
        "--time",
        "0.5",
        "--ray",
        "0.05,1.3,5,0,0,-1",
        "--handedness",
        "rh",
        "--json",
    ];
    let (ok, stdout, stderr) = skel(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let options = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    let asset = load_path(path.as_ref(), &options).unwrap();
    let mut poser = CpuPoser::new(&asset).unwrap();
    poser.pose(&asset, Some(0), 0.5).unwrap();
    let want = pick(&asset, &poser, None, Vec3::new(0.05, 1.3, 5.0), Vec3::NEG_Z)
        .unwrap()
        .expect("the library hits the character");
    let hit = &out["hit"];
    assert_eq!(hit["primitive"], want.primitive);
    assert_eq!(hit["triangle"], want.triangle);
    assert!((hit["distance"].as_f64().unwrap() - f64::from(want.distance)).abs() < 1e-5);

    // Over the head: nothing.
    let (ok, stdout, _) = skel(&["pick", &path, "--ray", "0,10,5,0,0,-1", "--json"]);
    assert!(ok);
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["hit"], Value::Null);

    // No direction: refused, with the reason.
    let (ok, _, stderr) = skel(&["pick", &path, "--ray", "0,1,5,0,0,0"]);
    assert!(!ok);
    assert!(stderr.contains("direction is zero"), "{stderr}");
    let (ok, _, stderr) = skel(&["pick", &path, "--ray", "0,1,5"]);
    assert!(!ok);
    assert!(stderr.contains("six numbers"), "{stderr}");
}
