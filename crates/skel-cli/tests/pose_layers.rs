//! `skel pose --layers` against what three.js r187's AnimationMixer computes for eight layer
//! stacks (`../shared/golden-layers`: additive layers with default and explicit references, a
//! negative additive weight, complementary and excluding masks, a masked additive layer, weights
//! summing below 1), and the file's error messages.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::PathBuf;

use serde_json::Value;
use skel_test_support::TempFile;

fn golden_root() -> PathBuf {
    common::shared_root().join("golden-layers")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Worst error of `mine` against `golden`, in units of the golden README's tolerances:
/// positions 1e-4 × extent, matrices 1e-5 × max(1, extent, max |element|), morph weights 1e-5.
fn worst(mine: &Value, golden: &Value, extent: f64) -> f64 {
    let mut worst: f64 = 0.0;
    let frames = golden["frames"].as_array().unwrap();
    assert_eq!(mine["frames"].as_array().unwrap().len(), frames.len());
    for (fm, fg) in mine["frames"].as_array().unwrap().iter().zip(frames) {
        let matrix = |a: &Value, b: &Value| {
            let (a, b) = (numbers(a), numbers(b));
            let scale = b.iter().fold(extent.max(1.0), |m, x| m.max(x.abs()));
            common::max_diff(&a, &b) / (1e-5 * scale)
        };
        for (k, g) in fg["nodes"].as_object().unwrap() {
            worst = worst.max(matrix(&fm["nodes"][k], g));
        }
        for (k, g) in fg["skins"].as_object().unwrap() {
            for field in ["jointWorld", "skinMatrices"] {
                let (a, b) = (numbers(&fm["skins"][k][field]), numbers(&g[field]));
                for (ca, cb) in a.chunks(16).zip(b.chunks(16)) {
                    let scale = cb.iter().fold(extent.max(1.0), |m, x| m.max(x.abs()));
                    worst = worst.max(common::max_diff(ca, cb) / (1e-5 * scale));
                }
            }
        }
        for mg in fg["meshes"].as_array().unwrap() {
            let mm = fm["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["key"] == mg["key"])
                .expect("every golden mesh is posed");
            let d = common::max_diff(&numbers(&mm["positions"]), &numbers(&mg["positions"]));
            worst = worst.max(d / (1e-4 * extent));
            if let Some(w) = mg.get("morphWeights").filter(|w| !w.is_null()) {
                let d = common::max_diff(&numbers(&mm["morphWeights"]), &numbers(w));
                worst = worst.max(d / 1e-5);
            }
        }
    }
    worst
}

#[test]
fn every_golden_layer_stack_is_within_tolerance() {
    let index = golden_root().join("index.json");
    if common::shared_asset("golden layers", "Fox/Fox.glb").is_none()
        || skel_test_support::shared("golden layers", "golden-layers/index.json").is_none()
    {
        return;
    }
    let index: Value = serde_json::from_str(&std::fs::read_to_string(index).unwrap()).unwrap();
    let entries = index["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 8, "the README lists eight cases");
    let shared = common::shared_root();
    for e in entries {
        let (model, case) = (e["model"].as_str().unwrap(), e["case"].as_str().unwrap());
        let args: Vec<String> = e["skelPose"]["argv"]
            .as_array()
            .unwrap()
            .iter()
            .skip(1)
            .map(|a| {
                let a = a.as_str().unwrap();
                a.strip_prefix("../shared/").map_or_else(
                    || a.to_owned(),
                    |rest| shared.join(rest).display().to_string(),
                )
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mine = common::pose(&args);
        let extent = e["modelExtent"].as_f64().unwrap();
        // Where a rotation gets two or more blend values, three.js's running slerp and our
        // normalised sum differ by design; the `.nlerp` golden is the same stack blended our
        // way (the README's "The .nlerp.json variants").
        let nlerp = golden_root().join(format!("{model}/{case}.nlerp.json"));
        let file = if nlerp.is_file() {
            nlerp
        } else {
            golden_root().join(format!("{model}/{case}.json"))
        };
        let golden: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let w = worst(&mine, &golden, extent);
        eprintln!(
            "{model} {case}: worst {w:.3} of the tolerance ({})",
            file.display()
        );
        assert!(
            w <= 1.0,
            "{model} {case}: {w} × the tolerance ({})",
            file.display()
        );
    }
}

/// A layer file holding `json`, removed when the test is done with it.
fn stack_file(name: &str, json: &str) -> TempFile {
    TempFile::new(name, json)
}

/// Runs `skel pose Fox --layers <json>`: the error line on failure.
fn pose_error(name: &str, json: &str) -> Option<String> {
    let fox = common::shared_asset("layer file errors", "Fox/Fox.glb")?;
    let file = stack_file(name, json);
    let (ok, _, stderr) = common::skel(&[
        "pose",
        fox.to_str().unwrap(),
        "--layers",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(!ok, "{name}: a bad stack must fail");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    Some(stderr)
}

#[test]
fn bad_stacks_get_one_error_naming_the_field() {
    let cases: [(&str, &str, &[&str]); 8] = [
        ("empty", r#"{"layers": []}"#, &["layers", "empty"]),
        (
            "unknown-clip",
            r#"{"layers": [{"clip": "Jog"}]}"#,
            &["layers[0].clip", "\"Jog\"", "\"Survey\"", "\"Run\""],
        ),
        (
            "clip-index",
            r#"{"layers": [{"clip": 7}]}"#,
            &["layers[0].clip", "no clip 7"],
        ),
        (
            "unknown-node",
            r#"{"layers": [{"clip": 0}, {"clip": 1, "mask": {"include": ["b_Nope"]}}]}"#,
            &["layers[1].mask.include[0]", "\"b_Nope\"", "b_Root_00"],
        ),
        (
            "unknown-field",
            r#"{"layers": [{"clip": 0, "wieght": 1}]}"#,
            &["wieght"],
        ),
        (
            "reference-on-blend",
            r#"{"layers": [{"clip": 0, "reference": {"time": 0}}]}"#,
            &["layers[0].reference", "additive"],
        ),
        (
            "joint-weight-range",
            r#"{"layers": [{"clip": 0, "mask": {"joint_weights": {"b_Root_00": 2}}}]}"#,
            &["mask.joint_weights.b_Root_00", "0..=1"],
        ),
        (
            "mask-selects-nothing",
            r#"{"layers": [{"clip": 0, "mask": {"include": ["b_Hip_01"], "exclude": ["b_Hip_01"]}}]}"#,
            &["selects no node"],
        ),
    ];
    for (name, json, needles) in cases {
        let Some(err) = pose_error(name, json) else {
            return;
        };
        assert_eq!(err.trim().lines().count(), 1, "{name}: one line: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{name}: {needle:?} not in {err:?}");
        }
    }
}

fn node_position(pose: &Value, node: usize) -> [f64; 3] {
    let m = pose["frames"][0]["nodes"][node.to_string()]
        .as_array()
        .unwrap();
    [12, 13, 14].map(|i| m[i].as_f64().unwrap())
}

#[test]
fn ik_in_the_stack_file_reaches_a_world_target() {
    let Some(fox) = common::shared_asset("layer ik", "Fox/Fox.glb") else {
        return;
    };
    let fox = fox.to_str().unwrap().to_owned();
    // Fox nodes: b_LeftLeg01_015 = 18, b_LeftLeg02_016 = 19, b_LeftFoot01_017 = 20.
    let pose = |file: &TempFile| {
        common::pose(&[
            "pose",
            &fox,
            "--layers",
            file.to_str().unwrap(),
            "--times",
            "0.2",
            "--handedness",
            "lh",
            "--json",
        ])
    };
    let plain = pose(&stack_file(
        "walk.json",
        r#"{"layers": [{"clip": "Walk"}]}"#,
    ));
    let (hip, knee, foot) = (
        node_position(&plain, 18),
        node_position(&plain, 19),
        node_position(&plain, 20),
    );
    let dist = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    let chain = dist(hip, knee) + dist(knee, foot);
    let target: Vec<f64> = (0..3).map(|i| hip[i] + 0.8 * (foot[i] - hip[i])).collect();
    let json = format!(
        r#"{{"layers": [{{"clip": "Walk"}}], "ik": [{{"kind": "two_bone", "start": "b_LeftLeg01_015",
            "mid": "b_LeftLeg02_016", "end": "b_LeftFoot01_017", "target": [{}, {}, {}], "pole": [0, 0, 1]}}]}}"#,
        target[0], target[1], target[2]
    );
    let solved = pose(&stack_file("ik.json", &json));
    let reached = node_position(&solved, 20);
    let miss = dist(reached, [target[0], target[1], target[2]]);
    assert!(miss <= 1e-4 * chain, "missed by {miss} (chain {chain})");
    // A chain that is not parent → child → grandchild is one error line naming the field.
    let bad = r#"{"layers": [{"clip": "Walk"}], "ik": [{"kind": "two_bone", "start": "b_LeftFoot01_017",
        "mid": "b_LeftLeg02_016", "end": "b_LeftLeg01_015", "target": [0, 0, 0]}]}"#;
    let Some(err) = pose_error("bad-ik.json", bad) else {
        return;
    };
    assert!(err.contains("ik[0]"), "{err}");
}
