//! Inertialized transitions on a real asset, RobotExpressive: `"from": "any"` transitions with
//! `"blend": "inertialize"` switch idle → run, then run → jump interrupted by jump → idle
//! inside the blend time. World joint positions sampled at 240 Hz move no more in one step
//! than the clips do on their own, their velocity is continuous (per-step change of velocity
//! within twice the clips' own largest), and after the blend time the pose is the
//! destination's. The same graph with cuts jumps, so the checks can fail.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::glam::Vec3;
use skel_anim::{LayerDesc, LoopMode, NullSink, Player, Rig};
use skel_gltf::{LoadOptions, load_path};
use skel_graph::{Graph, GraphPlayer};

const HZ: f32 = 240.0;
const H: f32 = 1.0 / HZ;
/// Unreal's default blend time is 0.2 s; the robot's idle and run differ by up to a metre at
/// the hands, whose offset then moves at most about 1.9 m / 0.3 s ≈ 6 m/s, less than its run.
const BLEND: f32 = 0.3;

fn graph_json(blend: &str, duration: f32) -> String {
    format!(
        r#"{{
  "parameters": {{ "state": {{"type": "int", "default": 0}} }},
  "layers": [ {{ "name": "base", "entry": "idle",
    "states": {{ "idle": {{"clip": "Idle"}}, "run": {{"clip": "Running"}},
                 "jump": {{"clip": "Jump", "loop": "once"}} }},
    "transitions": [
      {{ "from": "any", "to": "idle", "when": [{{"param": "state", "op": "==", "value": 0}}],
         "duration": {duration}, "blend": "{blend}" }},
      {{ "from": "any", "to": "run", "when": [{{"param": "state", "op": "==", "value": 1}}],
         "duration": {duration}, "blend": "{blend}" }},
      {{ "from": "any", "to": "jump", "when": [{{"param": "state", "op": "==", "value": 2}}],
         "duration": {duration}, "blend": "{blend}" }} ] }} ] }}"#
    )
}

fn robot(test: &str) -> Option<Arc<Rig>> {
    let path = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")?;
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    Some(Rig::new(Arc::new(load_path(&path, &opts).unwrap().animation)).unwrap())
}

fn positions(player: &mut Player) -> Vec<Vec3> {
    player
        .world_matrices()
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

/// Largest per-step move and per-step change of velocity over a trail of positions.
fn bounds(trail: &[Vec<Vec3>]) -> (f32, f32) {
    let (mut step, mut accel) = (0.0_f32, 0.0_f32);
    for k in 1..trail.len() {
        for (j, p) in trail[k].iter().enumerate() {
            step = step.max((*p - trail[k - 1][j]).length());
            if k >= 2 {
                let a = *p - 2.0 * trail[k - 1][j] + trail[k - 2][j];
                accel = accel.max(a.length());
            }
        }
    }
    (step, accel)
}

/// A clip played alone from its start to just before its end (not across its loop).
fn clip_trail(rig: &Arc<Rig>, name: &str) -> Vec<Vec<Vec3>> {
    let clip = rig.clip_index(name).unwrap();
    let length = rig.clip_duration(clip).unwrap();
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(clip).loop_mode(LoopMode::Once))
        .unwrap();
    let mut trail = vec![];
    for _ in 0..((length * HZ) as usize).saturating_sub(1) {
        p.tick(H, &mut NullSink);
        trail.push(positions(&mut p));
    }
    trail
}

/// The graph played at 240 Hz with `state` set at the given seconds; positions every step
/// from `from` seconds on.
fn play(rig: &Arc<Rig>, json: &str, plan: &[(f32, i32)], from: f32, until: f32) -> Vec<Vec<Vec3>> {
    let graph = Graph::from_json(json, rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(rig)).unwrap();
    let mut trail = vec![];
    let mut next = 0;
    for k in 0..(until * HZ).round() as usize {
        let now = k as f32 * H;
        if next < plan.len() && now >= plan[next].0 - 1e-6 {
            gp.instance_mut().set_int("state", plan[next].1).unwrap();
            next += 1;
        }
        gp.tick(H, &mut NullSink);
        if now >= from {
            trail.push(positions(gp.player_mut()));
        }
    }
    trail
}

#[test]
fn inertialized_transitions_do_not_jump() {
    let Some(rig) = robot("inertialized_transitions_do_not_jump") else {
        return;
    };
    let mut inside = (0.0_f32, 0.0_f32);
    for name in ["Idle", "Running", "Jump"] {
        let (s, a) = bounds(&clip_trail(&rig, name));
        inside = (inside.0.max(s), inside.1.max(a));
    }
    // Idle → run at 1 s; run → jump at 2 s, interrupted by jump → idle at 2.1 s.
    let plan = [(1.0, 1), (2.0, 2), (2.1, 0)];
    let trail = play(&rig, &graph_json("inertialize", BLEND), &plan, 0.9, 3.0);
    let across = bounds(&trail);
    println!("inside the clips: {inside:?}; across the switches: {across:?}");
    assert!(across.0 <= inside.0, "step {} > {}", across.0, inside.0);
    assert!(
        across.1 <= 2.0 * inside.1,
        "accel {} > 2 × {}",
        across.1,
        inside.1
    );

    // A cut: a cross-fade shorter than a step (a zero-duration cycle of `any` transitions is
    // refused when the graph is compiled).
    let cut = bounds(&play(
        &rig,
        &graph_json("crossfade", H / 10.0),
        &plan,
        0.9,
        3.0,
    ));
    println!("cut: {cut:?}");
    assert!(cut.0 > 2.0 * inside.0, "the cut moved only {}", cut.0);
}

#[test]
fn after_the_blend_time_the_pose_is_the_destination() {
    let Some(rig) = robot("after_the_blend_time_the_pose_is_the_destination") else {
        return;
    };
    // Idle → run at 1 s: from 1 s + the blend time on, the run plays alone from its start.
    let trail = play(
        &rig,
        &graph_json("inertialize", BLEND),
        &[(1.0, 1)],
        0.0,
        1.6,
    );
    let mut alone = Player::new(&rig);
    alone
        .add_layer(LayerDesc::new(rig.clip_index("Running").unwrap()))
        .unwrap();
    let first = (1.0 * HZ).round() as usize;
    let size = trail[0].iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    });
    let diagonal = (size.1 - size.0).length();
    let mut checked = 0;
    for (k, shown) in trail.iter().enumerate().skip(first) {
        // The switch's tick shows the run at its start.
        if k == first {
            alone.evaluate(&mut NullSink);
        } else {
            alone.tick(H, &mut NullSink);
        }
        let t = (k - first) as f32 * H;
        let gap = shown
            .iter()
            .zip(positions(&mut alone))
            .map(|(a, b)| (*a - b).length())
            .fold(0.0, f32::max);
        if t > BLEND + 1e-4 {
            assert!(
                gap <= 1e-5 * diagonal,
                "{t} s after the switch the pose is {gap} from the run (diagonal {diagonal})"
            );
            checked += 1;
        } else if k == first {
            assert!(gap > 1e-3 * diagonal, "the switch showed the run at once");
        }
    }
    assert!(checked > 50);
}

#[test]
fn an_unknown_blend_is_an_error_with_its_path() {
    let Some(rig) = robot("an_unknown_blend_is_an_error_with_its_path") else {
        return;
    };
    let err = Graph::from_json(&graph_json("teleport", 0.2), &rig).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("layers[0].transitions[0].blend"),
        "no path in: {text}"
    );
}

/// `graphs/robot_reacts.json` switching through its five states at 240 Hz (every 0.5 s):
/// the states shown, and the poses' largest step per tick.
fn play_reacting_robot(rig: &Arc<Rig>, text: &str) -> (Vec<String>, f32) {
    let graph = Graph::from_json(text, rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(rig)).unwrap();
    let (mut shown, mut trail) = (vec![], vec![]);
    for k in 0..(3.0 * HZ) as usize {
        if k % 120 == 60 {
            gp.instance_mut()
                .set_int("state", (k / 120 % 5) as i32)
                .unwrap();
        }
        gp.tick(H, &mut NullSink);
        shown.push(gp.instance().state(0).unwrap().to_owned());
        let p = positions(gp.player_mut());
        assert!(p.iter().all(|v| v.is_finite()));
        trail.push(p);
    }
    (shown, bounds(&trail).0)
}

#[test]
fn the_reacting_robot_graph_plays_every_state_without_a_jump() {
    let Some(rig) = robot("the_reacting_robot_graph_plays_every_state_without_a_jump") else {
        return;
    };
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/robot_reacts.json"
    ))
    .unwrap();
    let (shown, step) = play_reacting_robot(&rig, &text);
    for state in ["idle", "walk", "run", "dance", "jump"] {
        assert!(shown.iter().any(|s| s == state), "{state} never played");
    }
    // The same file with every transition a cut (a fade shorter than one tick: a zero
    // duration is refused for `from: any` cycles): the switches jump.
    let mut cuts = text.clone();
    for d in ["0.2", "0.3", "0.4"] {
        cuts = cuts.replace(
            &format!("\"duration\": {d}, \"blend\": \"inertialize\""),
            "\"duration\": 0.001, \"blend\": \"crossfade\"",
        );
    }
    assert!(!cuts.contains("inertialize"), "every transition made a cut");
    let (_, cut_step) = play_reacting_robot(&rig, &cuts);
    println!("largest step per tick: inertialized {step}, cuts {cut_step}");
    assert!(
        step < 0.5 * cut_step,
        "inertialized {step} against cuts {cut_step}"
    );
}
