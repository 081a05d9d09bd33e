#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! Graphs through the bindings' Rust side: an animator a graph drives poses what skel-graph's
//! own `GraphPlayer` poses for the same parameters, its buffers stay where they are, and every
//! misuse (a bad file, an unknown parameter, a value of another kind, clips played on a graph,
//! parameters set on clips) is a typed error that changes nothing.

use std::path::Path;
use std::sync::Arc;

use skel_anim::glam::{Mat4, Vec3};
use skel_anim::{Handedness, Player, RecordingSink, Rig};
use skel_graph::{Graph, GraphPlayer};
use skel_js::{Animator, Asset, JsApiError};

fn character() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/default_character.glb");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Walking to running on `speed`, a wave on a trigger (inertialized in, faded out), and a
/// boolean and an integer that gate the wave.
const GRAPH: &str = r#"{
  "parameters": {
    "speed": {"type": "float", "default": 1},
    "wave": {"type": "trigger"},
    "allowed": {"type": "bool", "default": true},
    "mood": {"type": "int"},
    "look": {"type": "vec3", "default": [0, 1, 2]}
  },
  "layers": [ { "name": "base", "entry": "move",
    "states": {
      "move": { "blend_1d": { "parameter": "speed", "sync": "normalized",
                "points": [ {"clip": "Walk", "at": 1}, {"clip": "Run", "at": 3} ] } },
      "wave": { "clip": "Wave", "loop": "once" } },
    "transitions": [
      { "from": "move", "to": "wave", "when": [{"trigger": "wave"}, {"param": "allowed"}],
        "duration": 0.2, "blend": "inertialize" },
      { "from": "wave", "to": "move", "exit_time": 0.9, "duration": 0.3 } ] } ] }"#;

fn mats(floats: &[f32]) -> Vec<Mat4> {
    floats.chunks_exact(16).map(Mat4::from_cols_slice).collect()
}

/// A frame's parameter changes, applied the same way to both sides.
fn drive(frame: usize, set: &mut dyn FnMut(&str, f32)) {
    match frame {
        10 => set("speed", 2.5),
        30 => set("wave", 0.0),
        100 => set("speed", 1.2),
        _ => {}
    }
}

#[test]
fn a_graph_animator_poses_what_the_graph_player_poses() {
    let bytes = character();
    let asset = Asset::from_bytes(&bytes, Handedness::RightHanded).unwrap();
    let graph = asset.compile_graph(GRAPH).unwrap();
    let mut animator = graph.animator().unwrap();

    let mut options = skel_gltf::LoadOptions::with_handedness(Handedness::RightHanded);
    options.decode_images = false;
    let data = skel_gltf::load_slice(&bytes, None, &options)
        .unwrap()
        .animation;
    let rig = Rig::new(Arc::new(data)).unwrap();
    let reference = Graph::from_json(GRAPH, &rig).unwrap();
    let mut player = GraphPlayer::new(&reference, Player::new(&rig)).unwrap();
    let mut sink = RecordingSink::default();

    let before = animator.bone_matrices(0).unwrap().as_ptr();
    let mut states = Vec::new();
    for frame in 0..240 {
        drive(frame, &mut |name, v| {
            if name == "wave" {
                animator.set_trigger(name).unwrap();
                player.instance_mut().set_trigger(name).unwrap();
            } else {
                animator.set_float(name, v).unwrap();
                player.instance_mut().set_float(name, v).unwrap();
            }
        });
        animator.tick(1.0 / 60.0);
        player.tick(1.0 / 60.0, &mut sink);
        let ours = animator.bone_matrices(0).unwrap();
        assert!(ours.iter().all(|v| v.is_finite()), "frame {frame}");
        assert_eq!(mats(ours), sink.bone_matrices[0], "frame {frame}");
        assert_eq!(animator.state(0), player.instance().state(0));
        states.push(animator.state(0).unwrap().to_owned());
    }
    assert_eq!(
        mats(animator.world_matrices()),
        player.player_mut().world_matrices()
    );
    // The trigger took the wave and the exit time brought it back; the buffers never moved.
    assert!(states[40..60].iter().all(|s| s == "wave"), "{states:?}");
    assert_eq!(states.last().map(String::as_str), Some("move"));
    assert_eq!(animator.bone_matrices(0).unwrap().as_ptr(), before);
    // The graph poses differently from the clip alone: the check above could fail.
    let mut walking = asset.animator();
    walking
        .play(asset.clip_named("Walk").unwrap(), true)
        .unwrap();
    walking.tick(239.0 / 60.0);
    assert_ne!(
        walking.bone_matrices(0).unwrap(),
        animator.bone_matrices(0).unwrap()
    );
}

#[test]
fn graph_parameters_and_files_refuse_what_they_do_not_have() {
    let asset = Asset::from_bytes(&character(), Handedness::RightHanded).unwrap();
    let graph = asset.compile_graph(GRAPH).unwrap();
    let kinds = graph.parameters();
    assert_eq!(
        kinds,
        [
            ("speed", "float"),
            ("wave", "trigger"),
            ("allowed", "bool"),
            ("mood", "int"),
            ("look", "vec3")
        ]
        .map(|(n, k)| (n.to_owned(), k.to_owned()))
    );
    let mut animator = graph.animator().unwrap();
    let pose = animator.bone_matrices(0).unwrap().to_vec();
    let message = |e: JsApiError| e.to_string();

    // Every kind is set by its own call, and refused by another's.
    animator.set_int("mood", 3).unwrap();
    animator.set_bool("allowed", false).unwrap();
    animator.set_vec3("look", Vec3::new(1.0, 2.0, 3.0)).unwrap();
    for e in [
        animator.set_float("mood", 1.0).unwrap_err(),
        animator.set_bool("speed", true).unwrap_err(),
        animator.set_trigger("allowed").unwrap_err(),
        animator.set_vec3("speed", Vec3::ONE).unwrap_err(),
        animator.set_float("sped", 1.0).unwrap_err(),
    ] {
        assert!(matches!(e, JsApiError::Graph(_)), "{e}");
    }
    assert!(message(animator.set_float("sped", 1.0).unwrap_err()).contains("sped"));
    // Clips are the graph's to choose.
    assert!(matches!(
        animator.play(0, true),
        Err(JsApiError::GraphDriven)
    ));
    assert!(matches!(animator.stop(), Err(JsApiError::GraphDriven)));
    // None of it moved the pose.
    assert_eq!(animator.bone_matrices(0).unwrap(), pose.as_slice());

    // An animator that plays clips has no parameters.
    let mut clips: Animator = asset.animator();
    let e = clips.set_float("speed", 1.0).unwrap_err();
    assert!(
        matches!(&e, JsApiError::NotAGraph { name } if name == "speed"),
        "{e}"
    );
    assert_eq!(clips.state(0), None);

    // Bad files: not JSON, an unknown clip, a state that is not there; the path is named.
    for (json, says) in [
        ("{", "graph"),
        (&GRAPH.replace("\"Run\"", "\"Sprint\""), "Sprint"),
        (
            &GRAPH.replace("\"entry\": \"move\"", "\"entry\": \"fly\""),
            "fly",
        ),
    ] {
        let e = asset.compile_graph(json).unwrap_err();
        assert!(matches!(e, JsApiError::Graph(_)), "{e}");
        assert!(message(e).contains(says), "{json}");
    }
}
