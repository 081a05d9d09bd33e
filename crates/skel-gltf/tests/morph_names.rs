//! Morph target names: `mesh.name` and `mesh.extras.targetNames` per morph binding, in the
//! bindings' order; a list that does not fit the targets is ignored (extras are free-form).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::builder::Builder;
use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{GltfAsset, LoadOptions, load_path, load_slice};

/// Two mesh nodes in the opposite order of their meshes: node 0 instances mesh 1 (two targets,
/// `names1` as its extras), node 1 mesh 0 (one target, `names0`).
fn two_meshes(names0: Value, names1: Value) -> GltfAsset {
    let mut b = Builder::default();
    let pos = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let delta = b.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3");
    let prim = |n: usize| json!({"attributes": {"POSITION": pos}, "targets": vec![json!({"POSITION": delta}); n]});
    let doc = json!({
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "face", "mesh": 1}, {"name": "body", "mesh": 0}],
        "meshes": [
            {"name": "BodyMesh", "primitives": [prim(1)], "extras": names0},
            {"primitives": [prim(2)], "extras": names1}
        ]
    });
    load_slice(
        &b.gltf(doc),
        None,
        &LoadOptions::with_handedness(Handedness::RightHanded),
    )
    .unwrap()
}

#[test]
fn names_follow_the_morph_bindings() {
    let asset = two_meshes(
        json!({"targetNames": ["fat"], "author": "someone"}),
        json!({"targetNames": ["smile", "blink"]}),
    );
    let bindings: Vec<usize> = asset
        .animation
        .morph_bindings
        .iter()
        .map(|m| m.node)
        .collect();
    assert_eq!(bindings, [0, 1]);
    let names: Vec<(&str, Option<Vec<String>>)> = asset
        .morph_names
        .iter()
        .map(|m| (m.mesh.as_str(), m.targets.clone()))
        .collect();
    assert_eq!(
        names,
        [
            ("", Some(vec!["smile".to_owned(), "blink".to_owned()])),
            ("BodyMesh", Some(vec!["fat".to_owned()])),
        ]
    );
}

#[test]
fn lists_that_do_not_fit_are_ignored() {
    for (bad0, bad1) in [
        (json!({}), json!({"targetNames": ["only one"]})),
        (json!("text"), json!({"targetNames": ["a", 2]})),
        (json!({"targetNames": "fat"}), json!([1, 2])),
    ] {
        let asset = two_meshes(bad0, bad1);
        assert_eq!(asset.morph_names.len(), 2);
        assert!(asset.morph_names.iter().all(|m| m.targets.is_none()));
    }
}

#[test]
fn robot_expressive_head_has_named_targets() {
    let Some(path) = skel_test_support::shared_asset(
        "robot_expressive_head_has_named_targets",
        "RobotExpressive/RobotExpressive.glb",
    ) else {
        return;
    };
    let asset = load_path(&path, &LoadOptions::default()).unwrap();
    assert_eq!(
        asset.morph_names.len(),
        asset.animation.morph_bindings.len()
    );
    let head = asset
        .animation
        .morph_bindings
        .iter()
        .position(|m| asset.animation.nodes[m.node].name == "Head")
        .unwrap();
    assert_eq!(asset.morph_names[head].mesh, "Head");
    assert_eq!(
        asset.morph_names[head].targets.as_deref().unwrap(),
        ["Angry", "Surprised", "Sad"]
    );
}
