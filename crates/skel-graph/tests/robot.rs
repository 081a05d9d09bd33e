//! The graph of the format's reference on a real asset: RobotExpressive
//! (`../shared/assets/RobotExpressive`): Idle/Walking/Running by speed under normalised sync,
//! Jump on a trigger and back on its exit time, Wave on the right arm only.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::glam::Mat4;
use skel_anim::{NullSink, Player, Rig};
use skel_gltf::{LoadOptions, load_path};
use skel_graph::{Graph, GraphPlayer};

const GRAPH: &str = r#"{
  "parameters": { "speed": {"type": "float", "default": 0}, "jump": {"type": "trigger"},
                  "waving": {"type": "bool"} },
  "layers": [
    { "name": "base", "entry": "move",
      "states": {
        "move": { "blend_1d": { "parameter": "speed", "sync": "normalized",
                  "points": [ {"clip": "Idle", "at": 0}, {"clip": "Walking", "at": 1.5},
                              {"clip": "Running", "at": 4} ] } },
        "jump": { "clip": "Jump", "loop": "once" } },
      "transitions": [
        { "from": "move", "to": "jump", "when": [{"trigger": "jump"}], "duration": 0.1 },
        { "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 } ] },
    { "name": "wave", "mode": "override", "weight": 1, "mask": { "include": ["Shoulder.R"] },
      "entry": "off",
      "states": { "off": { "empty": true }, "on": { "clip": "Wave" } },
      "transitions": [
        { "from": "off", "to": "on", "when": [{"param": "waving", "op": "==", "value": true}],
          "duration": 0.25, "interrupt": "source" },
        { "from": "on", "to": "off", "when": [{"param": "waving", "op": "==", "value": false}],
          "duration": 0.25, "interrupt": "source" } ] } ] }"#;

const DT: f32 = 1.0 / 60.0;

fn robot(test: &str) -> Option<Arc<Rig>> {
    let path = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")?;
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    Some(Rig::new(Arc::new(load_path(&path, &opts).unwrap().animation)).unwrap())
}

/// Every node strictly below `root` (by name), and the nodes outside its subtree.
fn split(rig: &Rig, root: &str) -> (Vec<usize>, Vec<usize>) {
    let nodes = &rig.data().nodes;
    let root = rig.node_index(root).unwrap();
    let under = |mut n: usize| loop {
        if n == root {
            return true;
        }
        match nodes[n].parent {
            Some(p) => n = p,
            None => return false,
        }
    };
    (0..nodes.len()).partition(|&n| under(n))
}

#[test]
fn the_robot_walks_jumps_and_waves() {
    let Some(rig) = robot("the_robot_walks_jumps_and_waves") else {
        return;
    };
    let graph = Graph::from_json(GRAPH, &rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    let mut states = vec![];
    for n in 0..600 {
        let t = n as f32 * DT;
        let i = gp.instance_mut();
        i.set_float("speed", (t * 1.5).min(4.0)).unwrap();
        if n == 200 {
            i.set_trigger("jump").unwrap();
        }
        gp.tick(DT, &mut NullSink);
        let i = gp.instance();
        if states.last() != Some(&i.state(0).unwrap().to_owned()) {
            states.push(i.state(0).unwrap().to_owned());
        }
        let sum: f32 = i.clips(0).map(|c| c.weight).sum();
        assert!((sum - 1.0).abs() < 1e-5, "tick {n}: {sum}");
        assert!(
            gp.player()
                .bone_matrices(0)
                .unwrap()
                .iter()
                .all(Mat4::is_finite)
        );
    }
    assert_eq!(states, ["move", "jump", "move"]);
    let clips: Vec<&str> = gp.instance().clips(0).map(|c| c.name).collect();
    assert_eq!(clips, ["Running"], "at speed 4 the run plays alone");
}

#[test]
fn the_wave_moves_the_right_arm_only() {
    let Some(rig) = robot("the_wave_moves_the_right_arm_only") else {
        return;
    };
    let graph = Graph::from_json(GRAPH, &rig).unwrap();
    let mut still = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    let mut waving = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    waving.instance_mut().set_bool("waving", true).unwrap();
    for _ in 0..40 {
        still.tick(DT, &mut NullSink);
        waving.tick(DT, &mut NullSink);
    }
    assert_eq!(
        waving
            .instance()
            .clips(1)
            .map(|c| c.name)
            .collect::<Vec<_>>(),
        ["Wave"]
    );
    assert_eq!(waving.instance().layer_weight(1), 1.0);
    let (arm, rest) = split(&rig, "Shoulder.R");
    let a = still.player_mut().world_matrices().to_vec();
    let b = waving.player_mut().world_matrices().to_vec();
    // The two players may pose by different passes (a player whose upper groups are silent
    // takes the four-node one): the same pose within f32 rounding of translations of ~3 units.
    for n in rest {
        assert!(
            a[n].abs_diff_eq(b[n], 1e-4),
            "node {} moved",
            rig.data().nodes[n].name
        );
    }
    let moved = arm
        .iter()
        .filter(|&&n| !a[n].abs_diff_eq(b[n], 1e-3))
        .count();
    assert!(moved > 3, "only {moved} arm nodes moved");
}

#[test]
fn the_robot_ticks_without_allocating() {
    let Some(rig) = robot("the_robot_ticks_without_allocating") else {
        return;
    };
    let graph = Graph::from_json(GRAPH, &rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(&rig)).unwrap();
    gp.tick(DT, &mut NullSink);
    let count = allocation_counter::measure(|| {
        for n in 0..300 {
            let i = gp.instance_mut();
            i.set_float("speed", (n as f32 * 0.05).sin() * 2.0 + 2.0)
                .unwrap();
            i.set_bool("waving", (n / 20) % 2 == 0).unwrap();
            if n % 90 == 0 {
                i.set_trigger("jump").unwrap();
            }
            gp.tick(DT, &mut NullSink);
        }
    })
    .count_total;
    assert_eq!(count, 0);
}
