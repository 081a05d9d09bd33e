//! `"mirror": true` on a state or a blend-space point plays the rig's mirrored clip
//! (`"<clip>.mirror"`, baked by `AnimationData::append_mirrored_clips`): on the built-in
//! character the graph's pose equals the baked clip played alone; a graph that mirrors a clip
//! the rig lacks is an error naming the path and what to do; `GraphDef::mirrored_clips` lists
//! what to bake.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::{AnimationData, LayerDesc, MirrorMap, NullSink, Player, Rig};
use skel_gltf::{LoadOptions, load_path};
use skel_graph::{Graph, GraphDef, GraphPlayer};

const GRAPH: &str = r#"{
  "parameters": { "x": {"type": "float"} },
  "layers": [ { "name": "base", "entry": "left",
    "states": {
      "left": { "clip": "Walk", "mirror": true },
      "mixed": { "blend_1d": { "parameter": "x", "points": [
        {"clip": "Walk", "at": 0}, {"clip": "Wave", "at": 1, "mirror": true} ] } } } } ] }"#;

fn character() -> AnimationData {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/default_character.glb"
    );
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    load_path(std::path::Path::new(path), &opts)
        .unwrap()
        .animation
}

#[test]
fn a_mirrored_state_plays_the_baked_mirror_clip() {
    let def = GraphDef::from_json(GRAPH).unwrap();
    assert_eq!(def.mirrored_clips(), ["Walk", "Wave"]);
    let mut data = character();
    let map = MirrorMap::from_names(&data).unwrap();
    let wanted: Vec<usize> = def
        .mirrored_clips()
        .iter()
        .map(|name| data.clips.iter().position(|c| c.name == *name).unwrap())
        .collect();
    let added = data.append_mirrored_clips(&map, &wanted).unwrap();
    let rig = Rig::new(Arc::new(data)).unwrap();
    let graph = Graph::compile(&def, &rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    let mut alone = Player::new(&rig);
    alone.add_layer(LayerDesc::new(added[0])).unwrap();
    for _ in 0..40 {
        gp.tick(1.0 / 60.0, &mut NullSink);
        alone.tick(1.0 / 60.0, &mut NullSink);
    }
    let a = gp.player_mut().world_matrices().to_vec();
    let b = alone.world_matrices().to_vec();
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x.w_axis - y.w_axis).length())
        .fold(0.0, f32::max);
    assert!(
        worst < 1e-5,
        "the mirrored state is {worst} from the baked clip"
    );
    // And it is not the unmirrored walk.
    let mut plain = Player::new(&rig);
    plain.add_layer(LayerDesc::new(0)).unwrap();
    for _ in 0..40 {
        plain.tick(1.0 / 60.0, &mut NullSink);
    }
    let c = plain.world_matrices().to_vec();
    let apart = a
        .iter()
        .zip(&c)
        .map(|(x, y)| (x.w_axis - y.w_axis).length())
        .fold(0.0, f32::max);
    assert!(apart > 1e-3, "mirrored and plain walks agree ({apart})");
}

#[test]
fn mirroring_a_clip_the_rig_lacks_is_an_error_naming_the_path() {
    let rig = Rig::new(Arc::new(character())).unwrap();
    let err = Graph::from_json(GRAPH, &rig).unwrap_err().to_string();
    assert!(err.contains("layers[0].states.left.clip"), "{err}");
    assert!(
        err.contains("Walk.mirror") && err.contains("append_mirrored_clips"),
        "{err}"
    );
    let bad = GRAPH.replace(
        r#""left": { "clip": "Walk", "mirror": true }"#,
        r#""left": { "empty": true, "mirror": true }"#,
    );
    let err = Graph::from_json(&bad, &rig).unwrap_err().to_string();
    assert!(err.contains("layers[0].states.left.mirror"), "{err}");
}
