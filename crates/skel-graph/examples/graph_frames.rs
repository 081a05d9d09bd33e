//! Ticks N RobotExpressive characters for F frames at 60 fps driven by a locomotion graph (a
//! 2D `directional` blend space of five clips + an override layer with a masked two-state
//! machine), or with the same poses set by hand on the player's layer groups, for instruction
//! counts by difference (`valgrind --tool=cachegrind --cache-sim=no`, two runs differing only in
//! F). See `docs/bench-graph.md`.
//!
//! `cargo run --release -p skel-graph --example graph_frames -- ROBOT.glb graph|instance|hand N F`
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a measuring tool")]

use std::sync::Arc;

use skel_anim::glam::Vec2;
use skel_anim::{GroupDesc, LayerDesc, Mask, NullSink, Player, Rig};
use skel_graph::{BlendSpace2d, Graph, GraphPlayer, Mode2d};

const GRAPH: &str = r#"{
  "parameters": { "vx": {"type": "float"}, "vy": {"type": "float"}, "wave": {"type": "bool"} },
  "layers": [
    { "name": "locomotion", "entry": "move",
      "states": { "move": { "blend_2d": { "parameters": ["vx", "vy"], "mode": "directional", "points": [
        {"clip": "Idle", "at": [0, 0]}, {"clip": "Walking", "at": [0, 1]}, {"clip": "Running", "at": [0, 2]},
        {"clip": "Dance", "at": [1, 0]}, {"clip": "Punch", "at": [-1, 0]} ] } } } },
    { "name": "wave", "mask": { "include": ["Shoulder.R"] }, "entry": "off",
      "states": { "off": { "empty": true }, "on": { "clip": "Wave" } },
      "transitions": [
        { "from": "off", "to": "on", "when": [{"param": "wave"}], "duration": 0.25, "interrupt": "source" },
        { "from": "on", "to": "off", "when": [{"param": "wave", "op": "==", "value": false}], "duration": 0.25, "interrupt": "source" } ] } ] }"#;

const CLIPS: [&str; 5] = ["Idle", "Walking", "Running", "Dance", "Punch"];
const POINTS: [Vec2; 5] = [
    Vec2::ZERO,
    Vec2::new(0.0, 1.0),
    Vec2::new(0.0, 2.0),
    Vec2::new(1.0, 0.0),
    Vec2::new(-1.0, 0.0),
];
const DT: f32 = 1.0 / 60.0;
const FADE: f32 = 0.25;

/// Character `i`'s velocity and wave switch at time `t` (the same in both modes).
fn inputs(i: usize, t: f32) -> (Vec2, bool) {
    let phase = i as f32 * 0.37 + t * 0.5;
    let v = Vec2::new(phase.cos(), 1.0 + phase.sin());
    (v, ((t + i as f32 * 0.11) / 2.0) as usize % 2 == 1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, asset, mode, n, frames] = args.as_slice() else {
        eprintln!("usage: graph_frames ROBOT.glb graph|instance|hand CHARACTERS FRAMES");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("CHARACTERS");
    let frames: usize = frames.parse().expect("FRAMES");
    let asset = skel_gltf::load_path(std::path::Path::new(asset), &Default::default()).unwrap();
    let rig = Rig::new(Arc::new(asset.animation)).unwrap();
    let joints = rig.data().skeletons[0].joints.len();
    match mode.as_str() {
        "graph" => graph(&rig, n, frames, true),
        "instance" => graph(&rig, n, frames, false),
        "hand" => hand(&rig, n, frames),
        _ => panic!("mode: graph, instance or hand"),
    }
    println!("{joints}");
}

/// `pose`: through the player; otherwise the graph's logic alone (the instance's tick).
fn graph(rig: &Arc<Rig>, n: usize, frames: usize, pose: bool) {
    let graph = Graph::from_json(GRAPH, rig).unwrap();
    let one = GraphPlayer::new(&graph, Player::new(rig)).unwrap();
    let mut crowd: Vec<GraphPlayer> = (0..n).map(|_| one.clone()).collect();
    let (vx, vy, wave) = {
        let i = one.instance();
        let id = |p| i.param_id(p).unwrap();
        (id("vx"), id("vy"), id("wave"))
    };
    for f in 0..=frames {
        let t = f as f32 * DT;
        for (i, c) in crowd.iter_mut().enumerate() {
            let (v, w) = inputs(i, t);
            let inst = c.instance_mut();
            inst.set(vx, skel_graph::ParamValue::Float(v.x)).unwrap();
            inst.set(vy, skel_graph::ParamValue::Float(v.y)).unwrap();
            inst.set(wave, skel_graph::ParamValue::Bool(w)).unwrap();
            if pose {
                c.tick(DT, &mut NullSink);
            } else {
                inst.tick(DT);
            }
        }
    }
}

/// The application's own logic over the player: the same weights computed with the same
/// blend rule, a linear fade of the wave group by hand.
fn hand(rig: &Arc<Rig>, n: usize, frames: usize) {
    let mut player = Player::new(rig);
    let base = player.add_group(GroupDesc::new()).unwrap();
    for name in CLIPS {
        let clip = rig.clip_index(name).unwrap();
        player
            .add_layer(LayerDesc::new(clip).weight(0.0).group(base))
            .unwrap();
    }
    let arm = rig.node_index("Shoulder.R").unwrap();
    let top = player
        .add_group(
            GroupDesc::new()
                .weight(0.0)
                .mask(Mask::default().include([arm])),
        )
        .unwrap();
    let wave = rig.clip_index("Wave").unwrap();
    player.add_layer(LayerDesc::new(wave).group(top)).unwrap();
    let mut crowd: Vec<(Player, f32)> = (0..n).map(|_| (player.clone(), 0.0)).collect();
    let space = BlendSpace2d::new(Mode2d::Directional, &POINTS).unwrap();
    let mut w = [0.0_f32; 5];
    for f in 0..=frames {
        let t = f as f32 * DT;
        for (i, (p, fade)) in crowd.iter_mut().enumerate() {
            let (v, on) = inputs(i, t);
            space.weights(v, &mut w);
            for (layer, &wi) in p.layers_mut()[..5].iter_mut().zip(&w) {
                layer.set_weight(wi);
            }
            let step = DT / FADE;
            *fade = if on {
                (*fade + step).min(1.0)
            } else {
                (*fade - step).max(0.0)
            };
            p.set_group_weight(top, *fade).unwrap();
            p.tick(DT, &mut NullSink);
        }
    }
}
