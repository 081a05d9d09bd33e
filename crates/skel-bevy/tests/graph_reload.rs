//! A graph file that changes while characters play it: they are bound again with the new
//! graph on the next frame (posed as skel's own `GraphPlayer` with that graph, from its entry
//! state); a change that does not compile leaves the last pose and a typed error, and the next
//! good change binds again.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::anim::{NullSink, Player};
use skel_bevy::graph::{Graph, GraphPlayer};
use skel_bevy::{SkelBevyError, SkelBindError, SkelGraph, SkelGraphFile, SkelPlayer};

/// A one-state graph playing `clip`.
fn one_state(clip: &str) -> String {
    format!(
        r#"{{ "layers": [ {{ "name": "base", "entry": "only",
              "states": {{ "only": {{ "clip": "{clip}" }} }} }} ] }}"#
    )
}

/// Replaces the graph asset's contents (bevy sends `AssetEvent::Modified`, as its file
/// watcher does for an edited file).
fn replace(app: &mut App, handle: &Handle<SkelGraphFile>, text: &str) {
    let mut files = app.world_mut().resource_mut::<Assets<SkelGraphFile>>();
    *files.get_mut(handle).unwrap() = SkelGraphFile::from_json(text).unwrap();
}

/// The clip the character's base layer plays.
fn playing(app: &App, character: Entity) -> Option<usize> {
    let player = app.world().get::<SkelPlayer>(character)?.player()?;
    player
        .layers()
        .iter()
        .filter(|l| l.effective_weight() > 0.0)
        .map(skel_bevy::anim::Layer::clip)
        .next()
}

#[test]
fn a_changed_graph_file_rebinds_its_characters() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let (idle, wave) = (
        rig.clip_index("Idle").unwrap(),
        rig.clip_index("Wave").unwrap(),
    );
    let mut app = common::app(&common::fixture(""));
    let handle = app
        .world_mut()
        .resource_mut::<Assets<SkelGraphFile>>()
        .add(SkelGraphFile::from_json(&one_state("Idle")).unwrap());
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        SkelGraph::new(handle.clone()),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 10);
    assert_eq!(playing(&app, character), Some(idle));

    // The edit: the same frame binds again with the new graph, poses its entry state at 0
    // and advances by the frame's step; `k` frames later it is skel's player after k + 1
    // ticks.
    replace(&mut app, &handle, &one_state("Wave"));
    let k = 17;
    common::step(&mut app, 1 + k);
    assert!(app.world().get::<SkelBindError>(character).is_none());
    assert_eq!(playing(&app, character), Some(wave));
    let graph = Graph::from_json(&one_state("Wave"), &rig).unwrap();
    let mut reference = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    for _ in 0..=k {
        reference.tick(common::STEP, &mut NullSink);
    }
    let world: Vec<Mat4> = reference
        .player_mut()
        .world_matrices()
        .iter()
        .map(common::mat)
        .collect();
    let (worst, tol) = common::worst_joint_difference(&mut app, character, Mat4::IDENTITY, &world);
    println!(
        "after the edit, worst joint vs skel's player with the new graph {worst:e} (tol {tol:e})"
    );
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");

    // A change that does not fit the rig: typed error, last pose kept.
    replace(&mut app, &handle, &one_state("NoSuchClip"));
    app.update();
    let error = format!(
        "{:?}",
        app.world().get::<SkelBindError>(character).unwrap().0
    );
    assert!(error.starts_with("Graph"), "{error}");
    assert!(error.contains("NoSuchClip"), "{error}");
    let kept = common::transforms_under(&mut app, character);
    common::step(&mut app, 10);
    assert_eq!(
        kept,
        common::transforms_under(&mut app, character),
        "joints moved"
    );
    assert!(matches!(
        app.world().get::<SkelBindError>(character).unwrap().0,
        SkelBevyError::Graph(_)
    ));

    // The next good change binds again.
    replace(&mut app, &handle, &one_state("Idle"));
    common::step(&mut app, 3);
    assert!(app.world().get::<SkelBindError>(character).is_none());
    assert_eq!(playing(&app, character), Some(idle));
    assert_ne!(
        kept,
        common::transforms_under(&mut app, character),
        "joints still"
    );
}
