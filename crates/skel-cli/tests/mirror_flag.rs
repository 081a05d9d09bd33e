//! `--mirror` on `skel pose` and `skel play`, and a graph's `"mirror": true` through the real
//! binary on the built-in character (a symmetric rest about x = 0 in glTF's space): the
//! mirrored Wave puts the left hand at the reflection of where the plain Wave puts the right
//! hand, and a graph state playing Wave mirrored poses as `--mirror` does.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use serde_json::Value;

fn repo(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Node `n`'s world translation at the first time of a `skel pose --json` report.
fn position(report: &Value, node: usize) -> [f64; 3] {
    let m = report["frames"][0]["nodes"][node.to_string()]
        .as_array()
        .unwrap();
    [12, 13, 14].map(|i| m[i].as_f64().unwrap())
}

fn pose(extra: &[&str]) -> Value {
    let character = repo("fixtures/default_character.glb");
    let mut args = vec![
        "pose",
        &character,
        "--handedness",
        "rh",
        "--times",
        "0.4",
        "--json",
    ];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = common::skel(&args);
    assert!(ok, "skel {args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// LeftHand and RightHand of the built-in character.
const LEFT_HAND: usize = 10;
const RIGHT_HAND: usize = 14;

#[test]
fn mirror_makes_the_left_hand_wave() {
    let plain = pose(&["--clip", "Wave"]);
    let mirrored = pose(&["--clip", "Wave", "--mirror"]);
    let right = position(&plain, RIGHT_HAND);
    let left = position(&mirrored, LEFT_HAND);
    let reflected = [-right[0], right[1], right[2]];
    let gap = (0..3)
        .map(|i| (left[i] - reflected[i]).abs())
        .fold(0.0, f64::max);
    assert!(
        gap < 1e-5,
        "left hand {left:?}, reflected right hand {reflected:?}"
    );
    // The plain left hand is elsewhere: the check can fail.
    let still = position(&plain, LEFT_HAND);
    let apart = (0..3)
        .map(|i| (still[i] - reflected[i]).abs())
        .fold(0.0, f64::max);
    assert!(
        apart > 1e-2,
        "the plain Wave already moves the left hand there"
    );
}

#[test]
fn a_graph_state_plays_its_clip_mirrored() {
    let graph = std::env::temp_dir().join(format!("skel-mirror-graph-{}.json", std::process::id()));
    std::fs::write(
        &graph,
        r#"{ "layers": [ { "name": "base", "entry": "wave",
             "states": { "wave": { "clip": "Wave", "mirror": true } } } ] }"#,
    )
    .unwrap();
    let g = graph.display().to_string();
    let by_graph = pose(&["--graph", &g]);
    let by_flag = pose(&["--clip", "Wave", "--mirror"]);
    std::fs::remove_file(&graph).ok();
    for node in [LEFT_HAND, RIGHT_HAND] {
        let (a, b) = (position(&by_graph, node), position(&by_flag, node));
        let gap = (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
        assert!(gap < 1e-5, "node {node}: graph {a:?}, --mirror {b:?}");
    }
}
