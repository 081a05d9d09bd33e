//! `skel play` on the generated walk (`fixtures/root_motion_walk.gltf`: the root walks 1.5 along
//! +z per one-second loop of `Walk`, footstep markers at 0.25 s and 0.75 s): frame times, the
//! accumulated root motion, events, and errors.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use serde_json::Value;
use skel_test_support::TempFile;

fn walk() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/root_motion_walk.gltf"
    )
    .to_owned()
}

/// A layer file holding `json`, removed when the test is done with it.
fn stack(name: &str, json: &str) -> TempFile {
    TempFile::new(name, json)
}

fn play(name: &str, json: &str, seconds: &str, fps: &str) -> Value {
    let file = stack(name, json);
    let (ok, stdout, stderr) = common::skel(&[
        "play",
        &walk(),
        "--layers",
        file.to_str().unwrap(),
        "--seconds",
        seconds,
        "--fps",
        fps,
        "--json",
    ]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

const ROOT: &str = r#""root_motion": {"node": "hips", "translation": "xz", "rotation": "yaw"}"#;

#[test]
fn ten_loops_walk_ten_strides_and_step_ten_times_each_foot() {
    let json = format!(r#"{{"layers": [{{"clip": "Walk"}}], {ROOT}}}"#);
    let report = play("walk.json", &json, "10.1", "60");
    let frames = report["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 606, "round(10.1 × 60) ticks");
    for (i, f) in frames.iter().enumerate() {
        let t = f["t"].as_f64().unwrap();
        assert!((t - (i + 1) as f64 / 60.0).abs() < 1e-9, "frame {i}: t {t}");
    }
    let z = report["root_total"]["translation"][2].as_f64().unwrap();
    assert!((z - 10.1 * 1.5).abs() < 1e-4 * 15.15, "{z}");
    let summed: f64 = frames
        .iter()
        .map(|f| f["root_delta"]["translation"][2].as_f64().unwrap())
        .sum();
    assert!((summed - z).abs() < 1e-3, "deltas add up: {summed} vs {z}");
    let names: Vec<&str> = frames
        .iter()
        .flat_map(|f| f["events"].as_array().unwrap())
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.iter().filter(|n| **n == "step_l").count(), 10);
    assert_eq!(names.iter().filter(|n| **n == "step_r").count(), 10);
    assert_eq!(names[..2], ["step_l", "step_r"], "in time order");
}

#[test]
fn backwards_and_ping_pong() {
    let back = format!(r#"{{"layers": [{{"clip": "Walk", "speed": -1}}], {ROOT}}}"#);
    let report = play("back.json", &back, "2.5", "50");
    let z = report["root_total"]["translation"][2].as_f64().unwrap();
    assert!((z + 2.5 * 1.5).abs() < 1e-4 * 3.75, "{z}");
    // Ping-pong: 1 s there, 1 s back: one period (twice the clip) ends where it began.
    let pp = format!(r#"{{"layers": [{{"clip": "Walk", "loop": "pingpong"}}], {ROOT}}}"#);
    let report = play("pp.json", &pp, "2", "30");
    let z = report["root_total"]["translation"][2].as_f64().unwrap();
    assert!(z.abs() < 1e-4, "{z}");
    let steps = report["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["events"].as_array().unwrap().len())
        .sum::<usize>();
    assert_eq!(steps, 4, "each marker forwards, then backwards");
}

#[test]
fn a_half_and_half_blend_of_walk_and_run_moves_by_the_mean() {
    // Walk: 1.5 per second; Run: 1.5 per half second. Half and half for 2 s: (3 + 6) / 2.
    let json = format!(
        r#"{{"layers": [{{"clip": "Walk", "weight": 0.5}}, {{"clip": "Run", "weight": 0.5}}], {ROOT}}}"#
    );
    let report = play("mix.json", &json, "2", "60");
    let z = report["root_total"]["translation"][2].as_f64().unwrap();
    assert!((z - 4.5).abs() < 1e-3, "{z}");
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let json = r#"{"layers": [{"clip": "Walk"}], "root_motion": {"node": "tail"}}"#;
    let file = stack("bad.json", json);
    let (ok, _, stderr) = common::skel(&["play", &walk(), "--layers", file.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        stderr.contains("root_motion.node") && stderr.contains("\"hips\""),
        "{stderr}"
    );
    let good = stack("good.json", r#"{"layers": [{"clip": "Walk"}]}"#);
    for arg in ["--fps=0", "--seconds=-1", "--fps=nan"] {
        let (ok, _, stderr) =
            common::skel(&["play", &walk(), "--layers", good.to_str().unwrap(), arg]);
        assert!(!ok, "{arg}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn pose_with_root_motion_holds_the_root_in_place() {
    let json = r#"{"layers": [{"clip": "Walk"}], "root_motion": {"node": "hips", "translation": "xz", "rotation": "none"}}"#;
    let file = stack("pose.json", json);
    let layered = common::pose(&[
        "pose",
        &walk(),
        "--layers",
        file.to_str().unwrap(),
        "--times",
        "0.5",
        "--handedness",
        "rh",
        "--json",
    ]);
    let plain = common::pose(&[
        "pose",
        &walk(),
        "--clip",
        "Walk",
        "--times",
        "0.5",
        "--handedness",
        "rh",
        "--json",
    ]);
    let at = |v: &Value| -> Vec<f64> {
        v["frames"][0]["nodes"]["0"].as_array().unwrap()[12..15]
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(at(&plain), [0.0, 0.1, 0.75], "the clip walks");
    let held = at(&layered);
    assert!(
        held[2].abs() < 1e-6 && (held[1] - 0.1).abs() < 1e-6,
        "z held at time 0, the bob kept: {held:?}"
    );
}
