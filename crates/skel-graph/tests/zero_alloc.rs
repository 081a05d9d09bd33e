//! Ticking an instance allocates nothing: every graph shape (blend spaces of each mode under
//! each sync, fades, interruptions, zero-duration chains, travel, triggers), thousands of
//! ticks with the parameters moving.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::graph;
use skel_graph::{GraphInstance, ParamValue};

fn allocations_during(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

const GRAPH: &str = r#"{
  "parameters": { "x": {"type": "float"}, "y": {"type": "float"}, "jump": {"type": "trigger"},
                  "wave": {"type": "bool"}, "n": {"type": "int"} },
  "layers": [
    { "name": "base", "entry": "move",
      "states": {
        "move": { "blend_1d": { "parameter": "x", "sync": "markers", "points": [
                  {"clip": "Walking", "at": 0}, {"clip": "Running", "at": 1}, {"clip": "Strafe", "at": 2} ] } },
        "tri": { "blend_2d": { "parameters": ["x", "y"], "mode": "triangles", "sync": "normalized", "points": [
                  {"clip": "Idle", "at": [0, 0]}, {"clip": "Walking", "at": [0, 1]}, {"clip": "Running", "at": [1, 0]},
                  {"clip": "Strafe", "at": [-1, 0]}, {"clip": "Back", "at": [0, -1]} ] } },
        "cart": { "blend_2d": { "parameters": ["x", "y"], "mode": "cartesian", "points": [
                  {"clip": "Idle", "at": [0, 0]}, {"clip": "Walking", "at": [0, 1]}, {"clip": "Running", "at": [1, 0]} ] } },
        "dir": { "speed_parameter": "y", "blend_2d": { "parameters": ["x", "y"], "mode": "directional", "points": [
                  {"clip": "Idle", "at": [0, 0]}, {"clip": "Walking", "at": [0, 1]}, {"clip": "Running", "at": [1, 0]},
                  {"clip": "Strafe", "at": [-1, 0]}, {"clip": "Back", "at": [0, -1]} ] } },
        "jump": { "clip": "Jump", "loop": "once" } },
      "transitions": [
        { "from": "any", "to": "jump", "when": [{"trigger": "jump"}], "duration": 0.1, "interrupt": "source", "sync": "normalized" },
        { "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2, "interrupt": "destination", "sync": "markers" },
        { "from": "move", "to": "tri", "when": [{"param": "n", "op": "==", "value": 1}], "duration": 0.3, "interrupt": "source_then_destination" },
        { "from": "tri", "to": "cart", "when": [{"param": "n", "op": "==", "value": 2}] },
        { "from": "cart", "to": "dir", "when": [{"param": "n", "op": ">=", "value": 3}], "duration": 0.2, "curve": "smoothstep" },
        { "from": "dir", "to": "move", "when": [{"param": "n", "op": "==", "value": 0}], "duration": 0.5, "duration_mode": "normalized", "interrupt": "destination_then_source" },
        { "from": "dir", "to": "dir", "when": [{"param": "n", "op": "==", "value": 4}], "duration": 0.2, "interrupt": "source", "ordered": true } ] },
    { "name": "wave", "weight": 0.8, "mask": { "include": ["arm"] }, "entry": "off",
      "states": { "off": { "empty": true }, "on": { "clip": "Wave", "loop": "ping_pong" } },
      "transitions": [
        { "from": "off", "to": "on", "when": [{"param": "wave"}], "duration": 0.25, "interrupt": "source" },
        { "from": "on", "to": "off", "when": [{"param": "wave", "op": "==", "value": false}], "duration": 0.25, "interrupt": "source" } ] },
    { "name": "add", "mode": "additive", "entry": "a",
      "states": { "a": { "clip": "Back", "speed": -1.5 } } } ] }"#;

#[test]
fn the_counter_sees_allocations() {
    let n = allocations_during(|| {
        let v = std::hint::black_box(vec![1.0_f32; 64]);
        drop(v);
    });
    assert!(n > 0);
}

#[test]
fn ticking_allocates_nothing() {
    let g = graph(GRAPH);
    let mut i = GraphInstance::new(&g);
    let (x, y, n, jump, wave) = ["x", "y", "n", "jump", "wave"]
        .map(|p| i.param_id(p).unwrap())
        .into();
    let mut states_seen = std::collections::HashSet::new();
    let mut interruptions = 0;
    let mut frames = Vec::with_capacity(4000);
    let count = allocations_during(|| {
        for f in 0..4000_u32 {
            let t = f as f32 / 60.0;
            i.set(x, ParamValue::Float(1.5 * (t * 0.7).sin())).unwrap();
            i.set(y, ParamValue::Float((t * 1.3).cos())).unwrap();
            i.set(n, ParamValue::Int(((f / 97) % 5) as i32)).unwrap();
            i.set(wave, ParamValue::Bool((f / 41) % 2 == 0)).unwrap();
            if f % 53 == 0 {
                i.set(jump, ParamValue::Trigger(true)).unwrap();
            }
            if f % 701 == 0 {
                i.travel_to(0, (f as usize / 701) % 5);
            }
            let before = i.transition(0).map(|t| t.to.len());
            i.tick(if f % 13 == 0 { 0.0 } else { 1.0 / 60.0 });
            let after = i.transition(0).map(|t| t.to.len());
            frames.push((
                i.state_index(0).unwrap(),
                before.is_some() && after.is_some() && i.clips(0).any(|c| c.frozen),
            ));
        }
    });
    assert_eq!(count, 0, "allocations while ticking");
    for (s, frozen) in frames {
        states_seen.insert(s);
        interruptions += usize::from(frozen);
    }
    assert_eq!(states_seen.len(), 5, "every state visited");
    assert!(interruptions > 0, "some fade was interrupted");
}
