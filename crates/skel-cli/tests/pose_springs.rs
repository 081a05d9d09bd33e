//! `skel pose` and `skel play` on the VRM fixtures (`fixtures/vrm/`, `cargo xtask fixtures`):
//! the spring bones run by default, at their fixed 1/60 s step whatever `--fps` says, and
//! `--no-springs` gives the clip's pose. The fixtures carry no clip, so one test adds a clip
//! that swings the avatar's root (`Armature`) to a copy of a fixture.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::PathBuf;

use serde_json::{Value, json};
use skel_test_support::TempFile;
use skel_test_support::glb::Glb;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vrm")
        .join(name)
        .display()
        .to_string()
}

/// Node `n`'s world position in frame `f` of a `skel pose --json` report.
fn position(report: &Value, f: usize, n: &str) -> [f64; 3] {
    let m = &report["frames"][f]["nodes"][n];
    [12, 13, 14].map(|i| m[i].as_f64().unwrap())
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn node_keys(report: &Value) -> Vec<String> {
    report["frames"][0]["nodes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// The largest distance between the same node in frame `f` of two reports.
fn worst(a: &Value, b: &Value, f: usize) -> f64 {
    node_keys(a)
        .iter()
        .map(|n| distance(position(a, f, n), position(b, f, n)))
        .fold(0.0, f64::max)
}

/// A copy of `name` with a 2 s clip `Sway` that moves the root node `Armature` 0.5 m along x
/// and back, and turns it 60° about y on the way (linear keys every 0.25 s).
fn with_swaying_root(name: &str) -> TempFile {
    let mut glb = Glb::parse(&std::fs::read(fixture(name)).unwrap());
    let root = glb.node("Armature");
    let rest = glb.json["nodes"][root]["translation"]
        .as_array()
        .map_or([0.0; 3], |t| {
            [0, 1, 2].map(|i| t[i].as_f64().unwrap() as f32)
        });
    let times: Vec<f32> = (0..=8).map(|k| k as f32 * 0.25).collect();
    let sway = |t: f32| (std::f32::consts::PI * t).sin();
    let translations: Vec<f32> = times
        .iter()
        .flat_map(|&t| [rest[0] + 0.5 * sway(t), rest[1], rest[2]])
        .collect();
    let rotations: Vec<f32> = times
        .iter()
        .flat_map(|&t| {
            let half = 0.5 * std::f32::consts::FRAC_PI_3 * sway(t);
            [0.0, half.sin(), 0.0, half.cos()]
        })
        .collect();
    let input = glb.push_accessor(&times, "SCALAR");
    let translation = glb.push_accessor(&translations, "VEC3");
    let rotation = glb.push_accessor(&rotations, "VEC4");
    glb.json["animations"] = json!([{
        "name": "Sway",
        "samplers": [
            {"input": input, "output": translation, "interpolation": "LINEAR"},
            {"input": input, "output": rotation, "interpolation": "LINEAR"}
        ],
        "channels": [
            {"sampler": 0, "target": {"node": root, "path": "translation"}},
            {"sampler": 1, "target": {"node": root, "path": "rotation"}}
        ]
    }]);
    TempFile::new(&format!("sway_{name}"), glb.to_bytes())
}

/// The spring joints' nodes named by the report.
fn spring_joints(report: &Value) -> Vec<String> {
    report["springs"]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap().to_string())
        .collect()
}

#[test]
fn a_swaying_root_swings_the_hair_and_no_springs_gives_the_clips_pose() {
    // v1_minimal's hair takes every default: no gravity, so it rests where it stands until
    // the root moves.
    let file = with_swaying_root("v1_minimal.vrm");
    let path = file.display().to_string();
    let times = "0,0.5,1,1.5";
    let sprung = common::pose(&["pose", &path, "--clip", "Sway", "--times", times, "--json"]);
    let clip = common::pose(&[
        "pose",
        &path,
        "--clip",
        "Sway",
        "--times",
        times,
        "--no-springs",
        "--json",
    ]);
    assert!(
        clip.get("springs").is_none(),
        "--no-springs reports no springs"
    );
    let joints = spring_joints(&sprung);
    assert!(!joints.is_empty());
    // At time 0 nothing has moved yet: the springs rest on the clip's first pose.
    assert!(
        worst(&sprung, &clip, 0) < 1e-6,
        "{}",
        worst(&sprung, &clip, 0)
    );
    // The root moved 0.5 m: the hair trails behind the clip's pose by centimetres.
    let swing = worst(&sprung, &clip, 2);
    assert!(swing > 0.01, "the hair did not swing: {swing} m");
    // Only the nodes at and below the springs differ.
    let root = position(&clip, 2, "0");
    assert!(distance(position(&sprung, 2, "0"), root) < 1e-6);
    // --no-springs is the clip's pose: at 0.5 s the root stands 0.5 m to the side (x is
    // mirrored in the default left-handed world).
    let moved = position(&clip, 1, "0");
    assert!((moved[0].abs() - 0.5).abs() < 1e-4, "{moved:?}");
}

#[test]
fn the_spring_pose_at_two_seconds_does_not_depend_on_the_display_rate() {
    let file = with_swaying_root("v1_hair.vrm");
    let path = file.display().to_string();
    let at = |fps: &str| {
        common::pose(&[
            "pose", &path, "--clip", "Sway", "--times", "0.5,2", "--fps", fps, "--json",
        ])
    };
    let reference = at("60");
    let joints = spring_joints(&reference);
    let clip = common::pose(&[
        "pose",
        &path,
        "--clip",
        "Sway",
        "--times",
        "0.5,2",
        "--no-springs",
        "--json",
    ]);
    assert!(
        worst(&reference, &clip, 1) > 0.01,
        "the hair hangs off the clip's pose"
    );
    for fps in ["24", "30", "144", "240"] {
        let other = at(fps);
        assert_eq!(other["springs"]["fps"].as_f64(), fps.parse().ok());
        // 0.5 s and 2 s are whole numbers of 1/60 s steps and of every one of these frames:
        // the same steps on the same poses (the clocks' sums of frame times differ in the
        // last bits only).
        for f in 0..2 {
            let d = worst(&other, &reference, f);
            eprintln!("{fps} Hz, frame {f}: {d:e} m from 60 Hz");
            assert!(d < 2e-5, "{fps} Hz, frame {f}: {d} m from 60 Hz");
        }
    }
    // Stepping the springs at the display rate instead (what three-vrm does) would differ: the
    // same command with springs off differs by centimetres, and the joints moved.
    assert!(!joints.is_empty());
}

#[test]
fn a_rate_off_the_step_grid_stays_within_half_a_degree() {
    let file = with_swaying_root("v1_hair.vrm");
    let path = file.display().to_string();
    let at = |fps: &str, times: &str| {
        common::pose(&[
            "pose", &path, "--clip", "Sway", "--times", times, "--fps", fps, "--json",
        ])
    };
    // 1.01 s is no whole number of 1/60 s steps: the frame shows the step before it, which
    // every rate took on the same pose.
    let reference = at("60", "1.01");
    let joints = spring_joints(&reference);
    for fps in ["24", "90", "144"] {
        let other = at(fps, "1.01");
        for n in &joints {
            let (a, b) = (position(&reference, 0, n), position(&other, 0, n));
            assert!(distance(a, b) < 1e-4, "{fps} Hz node {n}");
        }
    }
}

#[test]
fn times_in_any_order_replay_from_zero() {
    let file = with_swaying_root("v1_hair.vrm");
    let path = file.display().to_string();
    let forward = common::pose(&[
        "pose", &path, "--clip", "Sway", "--times", "1,1.5", "--json",
    ]);
    let back = common::pose(&[
        "pose", &path, "--clip", "Sway", "--times", "1.5,1", "--json",
    ]);
    let d = worst(&forward, &json!({"frames": [back["frames"][1]]}), 0);
    assert!(d < 1e-6, "1 s after 1.5 s: {d} m");
}

#[test]
fn play_prints_the_spring_joints_per_frame() {
    let layers = TempFile::new("sway_layers.json", r#"{"layers": [{"clip": "Sway"}]}"#);
    let file = with_swaying_root("v1_minimal.vrm");
    let (ok, stdout, stderr) = common::skel(&[
        "play",
        &file.display().to_string(),
        "--layers",
        &layers.display().to_string(),
        "--seconds",
        "1",
        "--fps",
        "30",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let nodes = report["spring_nodes"].as_array().unwrap();
    let frames = report["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 30);
    let first = frames[0]["springs"].as_array().unwrap();
    let last = frames[14]["springs"].as_array().unwrap();
    assert_eq!(first.len(), nodes.len());
    // The root swung 0.5 m in the first half second: some joint moved by centimetres.
    let moved = first
        .iter()
        .zip(last)
        .map(|(a, b)| {
            let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
            (0..3)
                .map(|i| (a[i].as_f64().unwrap() - b[i].as_f64().unwrap()).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max);
    assert!(moved > 0.01, "{moved}");
}

#[test]
fn a_graph_drives_the_clip_and_the_springs_run_after_it() {
    let file = with_swaying_root("v1_hair.vrm");
    let path = file.display().to_string();
    let graph = TempFile::new(
        "sway_graph.json",
        r#"{"layers": [{"name": "body", "entry": "sway", "states": {"sway": {"clip": "Sway"}}}]}"#,
    );
    let graph = graph.display().to_string();
    let pose = |extra: &[&str]| {
        let mut args = vec!["pose", path.as_str(), "--graph", graph.as_str()];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--times", "0.5,1", "--json"]);
        common::pose(&args)
    };
    let sprung = pose(&[]);
    let plain = pose(&["--no-springs"]);
    assert!(!spring_joints(&sprung).is_empty());
    assert!(plain.get("springs").is_none());
    // The graph moved the root as the clip does; the springs swing off the graph's pose.
    let moved = position(&plain, 0, "0");
    assert!((moved[0].abs() - 0.5).abs() < 1e-4, "{moved:?}");
    let swing = worst(&sprung, &plain, 0);
    assert!(
        swing > 0.01,
        "the hair did not swing under the graph: {swing} m"
    );
    // The same springs as the clip played on its own (one state, no fade).
    let clip = common::pose(&[
        "pose", &path, "--clip", "Sway", "--times", "0.5,1", "--json",
    ]);
    for f in 0..2 {
        let d = worst(&sprung, &clip, f);
        assert!(d < 1e-4, "frame {f}: graph {d} m from the clip");
    }
}

#[test]
fn a_vrma_clip_plays_on_a_vrm_avatar() {
    let avatar = fixture("v1_hair.vrm");
    let walk = fixture("walk.vrma");
    let report = common::pose(&[
        "pose",
        &avatar,
        "--vrma",
        &walk,
        "--clip",
        "walk",
        "--times",
        "0,0.5",
        "--json",
        "--no-springs",
    ]);
    // The avatar walks: its bones are elsewhere half a second in.
    let moved = worst(&report, &report_frame(&report, 1), 0);
    assert!(moved > 0.01, "the walk moved no node more than {moved} m");
    // Without the file there is no clip of that name.
    let (ok, _, stderr) = common::skel(&["pose", &avatar, "--clip", "walk", "--times", "0.5"]);
    assert!(!ok, "{stderr}");
    // A file that is not a .vrma is an error naming it.
    let (ok, _, stderr) = common::skel(&[
        "pose", &avatar, "--vrma", &avatar, "--clip", "walk", "--times", "0.5",
    ]);
    assert!(!ok && stderr.contains("--vrma"), "{stderr}");
}

/// A report whose frame 0 is frame `f` of `report`.
fn report_frame(report: &Value, f: usize) -> Value {
    json!({ "frames": [report["frames"][f].clone()] })
}
