//! The state machine: triggers, conditions, exit times across loops, fades and their curves,
//! priorities and ties, interruption modes (the fade continues from the frozen pose),
//! zero-duration chains, travel.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{assert_sums_to_one, clips, graph, length, weight};
use skel_graph::{GraphInstance, ParamValue};

const DT: f32 = 1.0 / 60.0;

/// One layer over states A..E (Idle, Walking, Running, Jump, Wave) with `transitions`, bool
/// parameters a..e and triggers t, u.
fn machine(transitions: &str) -> GraphInstance {
    let json = format!(
        r#"{{ "parameters": {{ "a": {{"type": "bool"}}, "b": {{"type": "bool"}}, "c": {{"type": "bool"}},
              "d": {{"type": "bool"}}, "e": {{"type": "bool"}}, "t": {{"type": "trigger"}},
              "u": {{"type": "trigger"}}, "x": {{"type": "float"}} }},
            "layers": [ {{ "name": "base", "entry": "A",
              "states": {{ "A": {{"clip": "Idle"}}, "B": {{"clip": "Walking"}}, "C": {{"clip": "Running"}},
                           "D": {{"clip": "Jump"}}, "E": {{"clip": "Wave"}} }},
              "transitions": [ {transitions} ] }} ] }}"#
    );
    GraphInstance::new(&graph(&json))
}

fn state(i: &GraphInstance) -> &str {
    i.state(0).unwrap()
}

#[test]
fn a_trigger_is_consumed_by_the_first_transition_that_uses_it() {
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"trigger": "t"}], "duration": 0.1},
           {"from": "A", "to": "C", "when": [{"trigger": "t"}], "duration": 0.1},
           {"from": "B", "to": "A", "when": [{"param": "a"}]},
           {"from": "A", "to": "D", "when": [{"trigger": "u"}, {"param": "b"}]}"#,
    );
    let t = i.param_id("t").unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "A", "nothing fires without the trigger");
    i.set_trigger("t").unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "B", "the first declared of the two");
    assert_eq!(i.get(t), Some(ParamValue::Trigger(false)), "consumed");
    i.set_bool("a", true).unwrap();
    for _ in 0..30 {
        i.tick(DT);
    }
    assert_eq!(state(&i), "A", "back, and the trigger does not fire again");
    i.set_bool("a", false).unwrap();
    // A trigger whose transition's other condition is false stays set until it can fire.
    i.set_trigger("u").unwrap();
    for _ in 0..10 {
        i.tick(DT);
    }
    assert_eq!(
        (state(&i), i.get(i.param_id("u").unwrap())),
        ("A", Some(ParamValue::Trigger(true)))
    );
    i.set_bool("b", true).unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "D");
    assert_eq!(
        i.get(i.param_id("u").unwrap()),
        Some(ParamValue::Trigger(false))
    );
}

/// Ticks until the fade ends, checking every tick that the weights sum to 1 and move by at
/// most `max_step`; returns the number of ticks the transition was visible.
fn run_fade(i: &mut GraphInstance, to: &str, max_step: f32) -> usize {
    let mut ticks = 0;
    let mut last = weight(i, 0, to);
    while i.transition(0).is_some() || ticks == 0 {
        i.tick(DT);
        assert_sums_to_one(i, 0);
        let w = weight(i, 0, to);
        assert!(
            (w - last).abs() <= max_step + 1e-5,
            "weight jumped {last} -> {w}"
        );
        last = w;
        ticks += 1;
        assert!(ticks < 10_000);
    }
    ticks
}

#[test]
fn a_fade_is_continuous_sums_to_one_and_lasts_its_duration() {
    for (curve, slope) in [("linear", 1.0), ("smoothstep", 1.5)] {
        let mut i = machine(&format!(
            r#"{{"from": "A", "to": "B", "when": [{{"param": "a"}}], "duration": 0.5, "curve": "{curve}"}}"#
        ));
        i.tick(DT);
        i.set_bool("a", true).unwrap();
        let ticks = run_fade(&mut i, "Walking", slope * DT / 0.5);
        // The transition starts on the tick that sees the condition, and ends 0.5 s later.
        let want = (0.5 / DT).round() as usize;
        assert!(
            ticks.abs_diff(want) <= 1,
            "{curve}: {ticks} ticks, want {want}"
        );
        assert_eq!(clips(&i, 0).len(), 1);
        assert_eq!(weight(&i, 0, "Walking"), 1.0);
    }
    // A normalised duration is a fraction of the source's length: 0.5 × 1 s of Idle.
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"param": "a"}], "duration": 0.5, "duration_mode": "normalized"}"#,
    );
    i.tick(DT);
    i.set_bool("a", true).unwrap();
    let ticks = run_fade(&mut i, "Walking", DT / 0.5);
    assert!(ticks.abs_diff(30) <= 1, "{ticks}");
}

#[test]
fn the_destination_starts_at_the_offset() {
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"param": "a"}], "duration": 0.2, "offset": 0.25}"#,
    );
    i.set_bool("a", true).unwrap();
    i.tick(DT);
    assert_eq!(weight(&i, 0, "Walking"), 0.0, "a fade starts at weight 0");
    i.tick(DT);
    let walking = clips(&i, 0).into_iter().find(|c| c.0 == "Walking").unwrap();
    assert!(
        (walking.2 - (0.25 * length("Walking") + DT)).abs() < 1e-5,
        "{walking:?}"
    );
}

/// The tick (from 1) on which state `to` is entered, with condition `a` set before tick
/// `set_at`.
fn exit_tick(transition: &str, set_at: usize, to: &str) -> Option<usize> {
    let mut i = machine(transition);
    for n in 1..=600 {
        if n == set_at {
            i.set_bool("a", true).unwrap();
        }
        i.tick(DT);
        if state(&i) == to {
            return Some(n);
        }
    }
    None
}

#[test]
fn exit_times_are_crossed_within_one_tick_across_loops() {
    // Walking lasts 1.2 s. Below 1, re-armed every loop: with the condition true from 2 s
    // (normalised 1.67), the next crossing of 0.5 is at normalised 2.5: 3 s.
    let below = r#"{"from": "A", "to": "B", "duration": 0.1}, {"from": "B", "to": "C", "exit_time": 0.5, "when": [{"param": "a"}], "duration": 0.1}"#;
    let n = exit_tick(below, 1, "B").unwrap();
    assert_eq!(n, 1);
    // Ticks count from B's entry on tick 1.
    let n = exit_tick(below, 121, "C").unwrap();
    let want = 1 + (3.0 / DT).round() as usize;
    assert!(n.abs_diff(want) <= 1, "{n} vs {want}");
    // At or above 1, checked once: 1.5 × 1.2 s = 1.8 s after entry, and never again.
    let once = r#"{"from": "A", "to": "B", "duration": 0.1}, {"from": "B", "to": "C", "exit_time": 1.5, "when": [{"param": "a"}], "duration": 0.1}"#;
    let n = exit_tick(once, 2, "C").unwrap();
    let want = 1 + (1.8 / DT).round() as usize;
    assert!(n.abs_diff(want) <= 1, "{n} vs {want}");
    assert_eq!(
        exit_tick(once, 150, "C"),
        None,
        "the condition came true after 1.5"
    );
    // Without conditions, on the exit time alone; a clip that plays once keeps counting.
    let bare = r#"{"from": "A", "to": "D", "exit_time": 2.0, "duration": 0.1}"#;
    let n = exit_tick(bare, 1, "D").unwrap();
    assert!(n.abs_diff((2.0 / DT).round() as usize) <= 1, "{n}");
}

#[test]
fn priorities_go_lowest_first_and_ties_to_the_first_declared() {
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"param": "a"}], "priority": 1, "duration": 0.1},
           {"from": "A", "to": "C", "when": [{"param": "a"}], "priority": 0, "duration": 0.1},
           {"from": "A", "to": "D", "when": [{"param": "a"}], "priority": 0, "duration": 0.1}"#,
    );
    i.set_bool("a", true).unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "C", "priority 0, declared before D");
    // `any` transitions take part in the same order.
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"param": "a"}], "priority": 2, "duration": 0.1},
           {"from": "any", "to": "E", "when": [{"param": "a"}], "priority": 1, "duration": 0.1}"#,
    );
    i.set_bool("a", true).unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "E");
    // An `any` transition does not restart the state it leads to.
    for _ in 0..60 {
        i.tick(DT);
        assert!(i.transition(0).is_none_or(|t| t.from == "A"));
    }
    assert_eq!(state(&i), "E");
}

#[test]
fn zero_duration_transitions_chain_within_one_tick() {
    let mut i = machine(
        r#"{"from": "A", "to": "B", "when": [{"param": "a"}]},
           {"from": "B", "to": "C", "when": [{"param": "a"}]},
           {"from": "C", "to": "D", "when": [{"param": "a"}], "duration": 0.3}"#,
    );
    i.set_bool("a", true).unwrap();
    i.tick(DT);
    assert_eq!(state(&i), "D");
    let t = i.transition(0).unwrap();
    assert_eq!((t.from, t.to), ("C", "D"));
    i.tick(DT);
    assert_eq!(
        clips(&i, 0)
            .iter()
            .map(|c| c.0.as_str())
            .collect::<Vec<_>>(),
        ["Running", "Jump"]
    );
}

#[test]
fn travel_follows_the_cheapest_path_and_teleports_without_one() {
    let mut i = machine(
        r#"{"from": "A", "to": "B", "duration": 0.1, "when": [{"param": "e"}]},
           {"from": "B", "to": "C", "duration": 0.1, "when": [{"param": "e"}]},
           {"from": "A", "to": "C", "duration": 0.1, "cost": 5, "when": [{"param": "e"}]},
           {"from": "C", "to": "D", "duration": 0.1, "cost": 1, "when": [{"param": "e"}]}"#,
    );
    i.travel("base", "D").unwrap();
    let mut seen = vec![state(&i).to_owned()];
    for _ in 0..60 {
        i.tick(DT);
        if seen.last().map(String::as_str) != Some(state(&i)) {
            seen.push(state(&i).to_owned());
        }
    }
    assert_eq!(
        seen,
        ["A", "B", "C", "D"],
        "conditions are ignored on the way"
    );
    assert!(i.transition(0).is_none());
    // E has no transition into it: a cut.
    i.travel("base", "E").unwrap();
    assert_eq!(state(&i), "E");
    assert!(i.transition(0).is_none());
    assert_eq!(weight(&i, 0, "Wave"), 1.0);
    assert!(i.travel("base", "F").is_err());
    assert!(i.travel("top", "A").is_err());
}

/// A → B over 1 s with `interrupt`, and transitions A → D (declared before) and A → E (after),
/// B → C, each on its own bool.
fn interruptible(interrupt: &str, ordered: bool) -> GraphInstance {
    machine(&format!(
        r#"{{"from": "A", "to": "D", "when": [{{"param": "d"}}], "duration": 0.5}},
           {{"from": "A", "to": "B", "when": [{{"param": "b"}}], "duration": 1.0, "interrupt": "{interrupt}", "ordered": {ordered}}},
           {{"from": "A", "to": "E", "when": [{{"param": "e"}}], "duration": 0.5}},
           {{"from": "B", "to": "C", "when": [{{"param": "c"}}], "duration": 0.5}}"#
    ))
}

/// Starts A → B, ticks 0.3 s, sets `bools`, ticks once; returns the state and the clips of
/// the tick before and after.
fn interrupt_with(
    interrupt: &str,
    ordered: bool,
    bools: &[&str],
) -> (GraphInstance, Vec<(String, f32, f32)>) {
    let mut i = interruptible(interrupt, ordered);
    i.set_bool("b", true).unwrap();
    i.tick(DT);
    i.set_bool("b", false).unwrap();
    for _ in 0..18 {
        i.tick(DT);
    }
    assert_eq!(i.transition(0).unwrap().to, "B");
    let before = clips(&i, 0);
    for b in bools {
        i.set_bool(b, true).unwrap();
    }
    i.tick(DT);
    (i, before)
}

#[test]
fn each_interruption_mode_lets_the_right_transitions_in() {
    let cases: [(&str, bool, &[&str], &str); 10] = [
        ("none", false, &["c", "d", "e"], "B"),
        ("source", false, &["c"], "B"),
        ("source", false, &["e"], "E"),
        ("destination", false, &["e", "d"], "B"),
        ("destination", false, &["c"], "C"),
        ("source_then_destination", false, &["c", "e"], "E"),
        ("destination_then_source", false, &["c", "e"], "C"),
        ("source", true, &["e"], "B"),
        ("source", true, &["d"], "D"),
        ("source_then_destination", true, &["e", "c"], "C"),
    ];
    for (mode, ordered, bools, want) in cases {
        let (i, _) = interrupt_with(mode, ordered, bools);
        assert_eq!(state(&i), want, "{mode} ordered={ordered} with {bools:?}");
    }
}

#[test]
fn an_interrupted_fade_continues_from_the_frozen_pose() {
    let (mut i, before) = interrupt_with("destination", false, &["c"]);
    let t = i.transition(0).unwrap();
    assert_eq!((t.from, t.to), ("B", "C"));
    // On the tick of the interruption, the clips on screen before it, frozen at their times
    // and weights: nothing moves.
    let after = clips(&i, 0);
    assert_eq!(after, before);
    assert!(i.clips(0).all(|c| c.frozen));
    // Then the new fade takes one tick's worth from the frozen pose.
    i.tick(DT);
    let frozen: Vec<_> = i.clips(0).filter(|c| c.frozen).collect();
    assert_eq!(frozen.len(), before.len());
    let c = DT / 0.5;
    for (f, b) in frozen.iter().zip(&before) {
        assert_eq!((f.name, f.time), (b.0.as_str(), b.2), "frozen at its time");
        assert!(
            (f.weight - b.1 * (1.0 - c)).abs() < 1e-5,
            "{} {} {}",
            f.name,
            f.weight,
            b.1
        );
    }
    assert!((weight(&i, 0, "Running") - c).abs() < 1e-5);
    assert_sums_to_one(&i, 0);
    // The frozen clips do not move; the fade to C completes.
    run_fade(&mut i, "Running", DT / 0.5);
    assert_eq!(clips(&i, 0).len(), 1);
    // A state fading into itself also starts from the frozen pose.
    let mut i = machine(r#"{"from": "A", "to": "A", "when": [{"trigger": "t"}], "duration": 0.5}"#);
    for _ in 0..20 {
        i.tick(DT);
    }
    let before = clips(&i, 0);
    i.set_trigger("t").unwrap();
    i.tick(DT);
    i.tick(DT);
    let frozen: Vec<_> = i.clips(0).filter(|c| c.frozen).collect();
    assert_eq!((frozen.len(), frozen[0].time), (1, before[0].2));
    let fresh = i.clips(0).find(|c| !c.frozen).unwrap();
    assert!(
        (fresh.time - DT).abs() < 1e-6,
        "the state restarts: {}",
        fresh.time
    );
}
