//! Sync: a `normalized` space keeps every clip at one normalised time, advancing at
//! `1 / Σ wᵢ·Lᵢ`; a `markers` space keeps every follower at its leader's marker phase; a
//! transition with marker sync starts the destination at the source's phase.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{clips, graph, length};
use proptest::prelude::*;
use skel_graph::GraphInstance;

fn space(sync: &str, clips: &[(&str, f32)]) -> GraphInstance {
    let points: Vec<String> = clips
        .iter()
        .map(|(c, at)| format!(r#"{{"clip": "{c}", "at": {at}}}"#))
        .collect();
    GraphInstance::new(&graph(&format!(
        r#"{{ "parameters": {{ "x": {{"type": "float"}}, "go": {{"type": "bool"}} }},
             "layers": [ {{ "name": "base", "entry": "move",
               "states": {{ "move": {{ "blend_1d": {{ "parameter": "x", "sync": "{sync}", "points": [{}] }} }},
                            "run": {{ "clip": "Running" }} }},
               "transitions": [ {{ "from": "move", "to": "run", "when": [{{"param": "go"}}],
                                  "duration": 0.3, "sync": "markers" }} ] }} ] }}"#,
        points.join(", ")
    )))
}

/// The markers of the test rig's clips, by name.
fn markers(clip: &str) -> Vec<(f32, &'static str)> {
    match clip {
        "Walking" => vec![(0.1, "foot_l"), (0.7, "foot_r")],
        "Running" => vec![(0.2, "foot_l"), (0.6, "foot_r")],
        "Strafe" => vec![(0.5, "foot_l"), (1.3, "foot_r")],
        _ => vec![],
    }
}

/// Reference marker phase in f64: the foot marker at or before `t` (wrapping) and the
/// fraction of the way to the next one.
fn phase(clip: &str, t: f32) -> (&'static str, f64) {
    let m = markers(clip);
    let len = f64::from(length(clip));
    let t = f64::from(t);
    let (a, ta) = match m.iter().rev().find(|(mt, _)| f64::from(*mt) <= t) {
        Some(&(mt, n)) => (n, f64::from(mt)),
        None => (m[m.len() - 1].1, f64::from(m[m.len() - 1].0) - len),
    };
    let next = m
        .iter()
        .find(|(mt, _)| f64::from(*mt) > ta)
        .map_or(f64::from(m[0].0) + len, |(mt, _)| f64::from(*mt));
    (a, (t - ta) / (next - ta))
}

fn assert_same_phase(a: (&str, f64), b: (&str, f64), what: &str) {
    let (fa, fb) = (a.1.rem_euclid(1.0), b.1.rem_euclid(1.0));
    let wrapped = (fa - fb).abs().min(1.0 - (fa - fb).abs());
    assert!(
        // At a marker the pair changes name; the fraction is 0 or 1 there.
        wrapped < 1e-3 && (a.0 == b.0 || !(1e-3..=1.0 - 1e-3).contains(&fa)),
        "{what}: {a:?} vs {b:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn normalized_members_share_one_normalised_time_advancing_at_the_weighted_rate(
        xs in prop::collection::vec(0.0_f32..4.0, 1..40),
        dt in 0.001_f32..0.1,
    ) {
        let lens = [("Idle", 0.0), ("Walking", 1.5), ("Running", 4.0)];
        let mut i = space("normalized", &lens);
        let mut progress = 0.0_f64;
        for x in xs {
            i.set_float("x", x).unwrap();
            // The rate follows the weights of this tick.
            let w = |a: f32, b: f32, at: f32| ((at - a) / (b - a)).clamp(0.0, 1.0);
            let (wi, ww, wr) = if x <= 1.5 {
                (1.0 - w(0.0, 1.5, x), w(0.0, 1.5, x), 0.0)
            } else {
                (0.0, 1.0 - w(1.5, 4.0, x), w(1.5, 4.0, x))
            };
            let l_eff = f64::from(wi * length("Idle") + ww * length("Walking") + wr * length("Running"));
            progress += f64::from(dt) / l_eff;
            i.tick(dt);
            for (name, _, time) in clips(&i, 0) {
                let want = progress.rem_euclid(1.0);
                let got = f64::from(time / length(&name));
                let d = (got - want).abs();
                prop_assert!(d < 1e-4 || (1.0 - d) < 1e-4, "{}: {} vs {}", name, got, want);
            }
        }
    }

    #[test]
    fn marker_followers_keep_their_leaders_phase(
        xs in prop::collection::vec(0.0_f32..2.0, 1..60),
        dt in 0.005_f32..0.05,
    ) {
        let mut i = space("markers", &[("Walking", 0.0), ("Running", 1.0), ("Strafe", 2.0)]);
        for x in xs {
            i.set_float("x", x).unwrap();
            i.tick(dt);
            let c = clips(&i, 0);
            let leader = c.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
            let lead = phase(&leader.0, leader.2);
            for f in &c {
                assert_same_phase(phase(&f.0, f.2), lead, &format!("{} follows {}", f.0, leader.0));
            }
        }
    }
}

#[test]
fn a_marker_synced_transition_starts_at_the_sources_phase() {
    for ticks in [7, 20, 33, 50] {
        let mut i = space("none", &[("Walking", 0.0), ("Strafe", 1.0)]);
        for _ in 0..ticks {
            i.tick(1.0 / 60.0);
        }
        let walk = clips(&i, 0)[0].clone();
        i.set_bool("go", true).unwrap();
        i.tick(0.0);
        i.tick(1e-6);
        let run = clips(&i, 0).into_iter().find(|c| c.0 == "Running").unwrap();
        assert_same_phase(
            phase("Running", run.2),
            phase("Walking", walk.2),
            "Running from Walking",
        );
    }
}

#[test]
fn a_normalized_transition_starts_at_the_sources_normalised_time() {
    let mut i = GraphInstance::new(&graph(
        r#"{ "parameters": { "go": {"type": "bool"} },
             "layers": [ { "name": "base", "entry": "walk",
               "states": { "walk": { "clip": "Walking" }, "run": { "clip": "Running" } },
               "transitions": [ { "from": "walk", "to": "run", "when": [{"param": "go"}],
                                  "duration": 0.3, "sync": "normalized", "offset": 0.9 } ] } ] }"#,
    ));
    for _ in 0..50 {
        i.tick(1.0 / 60.0);
    }
    let walk = clips(&i, 0)[0].clone();
    i.set_bool("go", true).unwrap();
    i.tick(0.0);
    i.tick(1e-6);
    let run = clips(&i, 0).into_iter().find(|c| c.0 == "Running").unwrap();
    let (a, b) = (walk.2 / length("Walking"), run.2 / length("Running"));
    assert!(
        (a - b).abs() < 1e-4,
        "walk at {a}, run starts at {b} (the offset is ignored)"
    );
}
