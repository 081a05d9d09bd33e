//! A full-body operation on the built-in character: both feet asked below their reach pull
//! the pelvis down and land on their targets; an effector weighted 0 by its parameter leaves
//! the clip's pose.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::glam::Vec3;
use skel_anim::{NullSink, Player, Rig};
use skel_gltf::{LoadOptions, load_path};
use skel_graph::{Graph, GraphPlayer};

const GRAPH: &str = r#"{
  "parameters": { "left": {"type": "vec3"}, "right": {"type": "vec3"},
                  "knees": {"type": "vec3", "default": [0, 0, 1]}, "on": {"type": "float", "default": 1} },
  "layers": [ { "name": "base", "entry": "idle", "states": { "idle": { "clip": "Idle" } },
    "operations": [ { "ik": "full_body", "pelvis": "Hips", "spine": ["Spine", "Chest"],
      "max_pelvis_offset": 0.4,
      "effectors": {
        "left_foot": { "joints": ["LeftUpLeg", "LeftLeg", "LeftFoot"], "target": "left", "pole": "knees", "weight": "on" },
        "right_foot": { "joints": ["RightUpLeg", "RightLeg", "RightFoot"], "target": "right", "pole": "knees", "weight": "on" } } } ] } ] }"#;

fn rig() -> Arc<Rig> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/default_character.glb"
    );
    let opts = LoadOptions {
        handedness: skel_anim::Handedness::RightHanded,
        decode_images: false,
    };
    let data = load_path(std::path::Path::new(path), &opts)
        .unwrap()
        .animation;
    Rig::new(Arc::new(data)).unwrap()
}

#[test]
fn feet_below_reach_pull_the_pelvis_down_onto_their_targets() {
    let rig = rig();
    let node = |name: &str| rig.node_index(name).unwrap();
    let graph = Graph::from_json(GRAPH, &rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    // Where the clip puts the feet and the hips, with the operation weighted 0.
    gp.instance_mut().set_float("on", 0.0).unwrap();
    gp.tick(0.0, &mut NullSink);
    let world = gp.player_mut().world_matrices().to_vec();
    let at = |n: usize| world[n].w_axis.truncate();
    let (left, right, hips) = (
        at(node("LeftFoot")),
        at(node("RightFoot")),
        at(node("Hips")),
    );
    // Both feet 0.15 lower than the clip has them: out of the straight legs' reach.
    let drop = Vec3::new(0.0, -0.15, 0.0);
    gp.instance_mut().set_vec3("left", left + drop).unwrap();
    gp.instance_mut().set_vec3("right", right + drop).unwrap();
    gp.instance_mut().set_float("on", 1.0).unwrap();
    gp.tick(0.0, &mut NullSink);
    let solved = gp.player_mut().world_matrices().to_vec();
    let at = |n: usize| solved[n].w_axis.truncate();
    for (foot, target) in [("LeftFoot", left + drop), ("RightFoot", right + drop)] {
        let miss = (at(node(foot)) - target).length();
        assert!(miss < 1e-3, "{foot} is {miss} from its target");
    }
    let lowered = hips.y - at(node("Hips")).y;
    assert!(lowered > 0.05, "the pelvis moved down by only {lowered}");
}

#[test]
fn the_gallery_graph_compiles_and_every_operation_moves_the_pose() {
    let rig = rig();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/ik_gallery.json"
    ))
    .unwrap();
    let graph = Graph::from_json(&text, &rig).unwrap();
    let pose = |weight: Option<&str>| {
        let mut gp = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
        if let Some(w) = weight {
            gp.instance_mut().set_float(w, 1.0).unwrap();
        }
        gp.tick(0.0, &mut NullSink);
        gp.player_mut().world_matrices().to_vec()
    };
    let still = pose(None);
    for w in ["two_bone", "fabrik", "ccd", "look", "body"] {
        let moved = pose(Some(w))
            .iter()
            .zip(&still)
            .map(|(a, b)| (a.w_axis - b.w_axis).length() + (a.z_axis - b.z_axis).length())
            .fold(0.0, f32::max);
        assert!(moved > 1e-2, "{w} moved nothing ({moved})");
    }
}
