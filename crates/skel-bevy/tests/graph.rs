//! `SkelGraph`: a graph file loaded as a Bevy asset drives the character exactly as skel's
//! own `GraphPlayer` does for the same graph, parameters and times (every joint's
//! `GlobalTransform` against skel's world matrix, 1e-5 of the joints' bounding diagonal; the
//! states visited, frame by frame); a bad graph file is a typed error and moves nothing.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::path::Path;

use bevy::prelude::*;
use skel_bevy::anim::{NullSink, Player};
use skel_bevy::graph::{Graph, GraphInstance, GraphPlayer};
use skel_bevy::{SkelGraph, SkelGraphFile, SkelPlayer};

/// A parameter change, made before the update of a given frame.
#[derive(Clone, Copy)]
enum Set {
    Float(&'static str, f32),
    Bool(&'static str, bool),
    Trigger(&'static str),
}

fn apply(graph: &mut GraphInstance, set: Set) {
    match set {
        Set::Float(name, v) => graph.set_float(name, v).unwrap(),
        Set::Bool(name, v) => graph.set_bool(name, v).unwrap(),
        Set::Trigger(name) => graph.set_trigger(name).unwrap(),
    }
}

/// Plays graph file `graph` on model `glb` through the plugin for `frames` steps with the
/// parameter `script` (frame, change), and the same on skel's `GraphPlayer`; compares every
/// frame's states and the final joint transforms. Returns the base layer's states visited.
fn check(glb: &Path, graph: &Path, frames: usize, script: &[(usize, Set)]) -> Vec<String> {
    let (root, rel) = common::asset_root(&[glb, graph]);
    let mut app = common::app(&root);
    let server = app.world().resource::<AssetServer>().clone();
    let file = server.load::<SkelGraphFile>(rel[1].clone());
    let character = common::spawn(&mut app, &rel[0], SkelGraph::new(file));
    common::run_until_bound(&mut app, character);

    let rig = common::rig(glb);
    let text = std::fs::read_to_string(graph).unwrap();
    let compiled = Graph::from_json(&text, &rig).unwrap();
    let mut reference = GraphPlayer::new(&compiled, Player::new(&rig)).unwrap();
    // The bind frame already ticked the plugin's graph once, by that frame's step.
    let dt = |app: &App| app.world().resource::<Time>().delta_secs();
    reference.tick(dt(&app), &mut NullSink);

    let layers = compiled.layer_count();
    let mut visited: Vec<String> = Vec::new();
    for frame in 0..frames {
        for &(_, set) in script.iter().filter(|(f, _)| *f == frame) {
            let mut player = app.world_mut().get_mut::<SkelPlayer>(character).unwrap();
            apply(player.graph_mut().unwrap(), set);
            apply(reference.instance_mut(), set);
        }
        app.update();
        reference.tick(dt(&app), &mut NullSink);
        let ours = app
            .world()
            .get::<SkelPlayer>(character)
            .unwrap()
            .graph()
            .unwrap();
        for layer in 0..layers {
            assert_eq!(
                ours.state(layer),
                reference.instance().state(layer),
                "frame {frame} layer {layer}"
            );
        }
        let state = ours.state(0).unwrap().to_owned();
        if visited.last() != Some(&state) {
            visited.push(state);
        }
    }

    let world: Vec<Mat4> = reference
        .player_mut()
        .world_matrices()
        .iter()
        .map(common::mat)
        .collect();
    let (worst, tol) = common::worst_joint_difference(&mut app, character, Mat4::IDENTITY, &world);
    println!(
        "{}: states {visited:?}, worst joint difference {worst:e} (tolerance {tol:e})",
        rel[0]
    );
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
    visited
}

#[test]
fn built_in_character_graph_matches_skel() {
    let visited = check(
        &common::fixture("default_character.glb"),
        &common::graph_file("default_character.json"),
        120,
        &[
            (0, Set::Float("speed", 1.0)),
            (30, Set::Float("speed", 3.0)),
            (50, Set::Bool("waving", true)),
            (80, Set::Float("speed", 1.0)),
        ],
    );
    assert_eq!(visited, ["move", "run", "move"]);
}

#[test]
fn robot_expressive_graph_matches_skel() {
    let test = "robot_expressive_graph_matches_skel";
    let Some(glb) = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")
    else {
        return;
    };
    let visited = check(
        &glb,
        &common::graph_file("robot_expressive.json"),
        130,
        &[
            (0, Set::Float("speed", 2.0)),
            (30, Set::Trigger("jump")),
            (40, Set::Bool("waving", true)),
            (100, Set::Float("speed", 4.0)),
        ],
    );
    assert_eq!(visited, ["move", "jump", "move"]);
}

/// The built-in character with graph file text `graph`, both in a fresh asset folder.
fn with_graph_text(name: &str, graph: &str) -> (common::TempDir, App, Entity) {
    let dir = common::TempDir::new(name);
    std::fs::copy(
        common::fixture("default_character.glb"),
        dir.0.join("character.glb"),
    )
    .unwrap();
    std::fs::write(dir.0.join("graph.json"), graph).unwrap();
    let mut app = common::app(&dir.0);
    let server = app.world().resource::<AssetServer>().clone();
    let file = server.load::<SkelGraphFile>("graph.json");
    let character = common::spawn(&mut app, "character.glb", SkelGraph::new(file));
    (dir, app, character)
}

#[test]
fn malformed_graph_file_is_a_load_error() {
    let (_dir, app, character) = with_graph_text("malformed", r#"{ "layers": [ { "name": 3"#);
    let e = common::failed_untouched(app, character);
    assert!(e.starts_with("GraphLoad"), "{e}");
}

#[test]
fn graph_naming_an_unknown_clip_is_a_graph_error() {
    let graph = r#"{ "layers": [ { "name": "base", "entry": "a",
        "states": { "a": { "clip": "NoSuchClip" } } } ] }"#;
    let (_dir, app, character) = with_graph_text("unknown_clip", graph);
    let e = common::failed_untouched(app, character);
    assert!(e.starts_with("Graph("), "{e}");
    assert!(e.contains("NoSuchClip"), "{e}");
}

#[derive(Resource, Default)]
struct Seen(Vec<String>);

#[test]
fn graph_root_motion_and_events_match_skel() {
    let path = common::fixture("root_motion_walk.gltf");
    let text = r#"{ "layers": [ { "name": "base", "entry": "walk",
        "states": { "walk": { "clip": "Walk" } } } ] }"#;
    let mut app = common::app(&common::fixture(""));
    app.init_resource::<Seen>();
    app.add_observer(|e: On<skel_bevy::SkelEvent>, mut seen: ResMut<Seen>| {
        seen.0.push(e.name.to_string());
    });
    let file = app
        .world_mut()
        .resource_mut::<Assets<SkelGraphFile>>()
        .add(SkelGraphFile::from_json(text).unwrap());
    let character = common::spawn(
        &mut app,
        "root_motion_walk.gltf",
        (
            Transform::default(),
            SkelGraph::new(file),
            skel_bevy::SkelRootMotion::ground("hips"),
        ),
    );
    common::run_until_bound(&mut app, character);

    // skel's own: the same graph and root motion, the same steps, its events counted.
    let rig = common::rig(&path);
    let mut player = Player::new(&rig);
    player
        .set_root_motion(Some(skel_bevy::anim::RootMotion {
            node: rig.node_index("hips").unwrap(),
            translation: [true, false, true],
            yaw: false,
        }))
        .unwrap();
    let graph = Graph::from_json(text, &rig).unwrap();
    let mut reference = GraphPlayer::new(&graph, player).unwrap();
    let mut events: Vec<String> = Vec::new();
    let dt = |app: &App| app.world().resource::<Time>().delta_secs();
    let mut tick = |reference: &mut GraphPlayer, dt: f32| {
        reference.tick_with_events(dt, &mut NullSink, &mut |e| events.push(e.name.to_owned()));
    };
    tick(&mut reference, dt(&app));
    for _ in 0..150 {
        app.update();
        tick(&mut reference, dt(&app));
    }
    let total = reference.player().root_motion_total();
    let want = Vec3::from_array(total.translation.to_array());
    let moved = app.world().get::<Transform>(character).unwrap().translation;
    assert!(want.length() > 0.1, "the clip extracts no motion: {want}");
    assert!(
        (moved - want).length() < 1e-4 * want.length().max(1.0),
        "{moved} vs {want}"
    );
    let seen = &app.world().resource::<Seen>().0;
    assert!(!events.is_empty(), "no marker passed");
    assert_eq!(*seen, events);
}
