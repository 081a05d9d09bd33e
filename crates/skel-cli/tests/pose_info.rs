//! `skel pose --json` and `skel info`, run as the real binary. The pose output is compared
//! with a golden file of `../shared/golden` (same shape, same numbers within the conformance
//! tolerance); left-handed output must be the right-handed one mirrored in x.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::PathBuf;

use common::{max_diff, skel};
use serde_json::Value;

/// `../shared` when it holds `assets/` and `golden/`; otherwise `None` after a skip.
fn shared_dir(test: &str) -> Option<PathBuf> {
    skel_test_support::shared(test, "assets")?;
    skel_test_support::shared(test, "golden")?;
    Some(common::shared_root())
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Runs `skel pose` on `model` like the golden file `golden` and compares everything.
fn compare_with_golden(shared: &std::path::Path, golden_file: &str) {
    let golden: Value =
        serde_json::from_slice(&std::fs::read(shared.join("golden").join(golden_file)).unwrap())
            .unwrap();
    let asset = shared.join(
        golden["asset"]
            .as_str()
            .unwrap()
            .trim_start_matches("shared/"),
    );
    // Times as the golden file prints them (f64 text of f32 values): parsed as f32 they hit
    // the keys exactly.
    let times: Vec<String> = golden["times"]
        .as_array()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    let clip = golden["clip"]["index"].as_u64().unwrap().to_string();
    let asset = asset.to_str().unwrap();
    let (ok, stdout, stderr) = skel(&[
        "pose",
        asset,
        "--clip",
        &clip,
        "--times",
        &times.join(","),
        "--handedness",
        "rh",
        "--json",
    ]);
    assert!(ok, "skel pose failed: {stderr}");
    let ours: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(ours["format"], "peer-ref-golden/1");
    assert_eq!(nums(&ours["times"]).len(), times.len());
    let keys = |v: &Value| -> Vec<String> {
        v["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["key"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(keys(&ours), keys(&golden));
    for field in [
        "node",
        "mesh",
        "primitive",
        "skinned",
        "vertexCount",
        "skin",
        "joints",
    ] {
        for (a, b) in ours["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .zip(golden["meshes"].as_array().unwrap())
        {
            assert_eq!(a.get(field), b.get(field), "meshes[].{field}");
        }
    }
    let frames = ours["frames"].as_array().unwrap();
    let golden_frames = golden["frames"].as_array().unwrap();
    assert_eq!(frames.len(), golden_frames.len());
    let mut worst = 0.0f64;
    for (f, g) in frames.iter().zip(golden_frames) {
        assert_eq!(
            f["t"].as_f64().unwrap() as f32,
            g["t"].as_f64().unwrap() as f32
        );
        for (node, m) in g["nodes"].as_object().unwrap() {
            worst = worst.max(max_diff(&nums(&f["nodes"][node]), &nums(m)));
        }
        for (skin, s) in g["skins"].as_object().unwrap() {
            for field in ["joints", "jointWorld", "skinMatrices"] {
                worst = worst.max(max_diff(&nums(&f["skins"][skin][field]), &nums(&s[field])));
            }
        }
        // The frame's world box holds every vertex, ours and the golden file's (three.js's).
        let (min, max) = (nums(&f["bounds"]["min"]), nums(&f["bounds"]["max"]));
        assert_eq!(
            (min.len(), max.len()),
            (3, 3),
            "{golden_file}: bounds {}",
            f["bounds"]
        );
        let slack = 1e-4 * (0..3).map(|i| max[i] - min[i]).fold(0.0, f64::max);
        for m in f["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .chain(g["meshes"].as_array().unwrap())
        {
            for p in nums(&m["positions"]).chunks_exact(3) {
                assert!(
                    (0..3).all(|i| p[i] >= min[i] - slack && p[i] <= max[i] + slack),
                    "{golden_file}: vertex {p:?} outside {min:?}..{max:?}"
                );
            }
        }
        for (m, gm) in f["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .zip(g["meshes"].as_array().unwrap())
        {
            assert_eq!(m["key"], gm["key"]);
            worst = worst.max(max_diff(&nums(&m["positions"]), &nums(&gm["positions"])));
            assert_eq!(
                m.get("morphWeights").is_some(),
                gm.get("morphWeights").is_some()
            );
        }
    }
    // SimpleSkin is about 3 units across: 1e-4 of its diagonal is 3e-4.
    assert!(worst < 3e-4, "{golden_file}: worst difference {worst}");
}

#[test]
fn pose_json_matches_a_golden_file() {
    let Some(shared) = shared_dir("pose_json_matches_a_golden_file") else {
        return;
    };
    compare_with_golden(&shared, "SimpleSkin/0.unitquat.json");
}

#[test]
fn left_handed_pose_is_the_right_handed_one_mirrored() {
    let Some(shared) = shared_dir("left_handed_pose_is_the_right_handed_one_mirrored") else {
        return;
    };
    let asset = shared.join("assets/CesiumMan/CesiumMan.glb");
    let asset = asset.to_str().unwrap();
    let run = |h: &str| -> Value {
        let (ok, stdout, stderr) = skel(&[
            "pose",
            asset,
            "--clip",
            "0",
            "--times",
            "0.5",
            "--handedness",
            h,
            "--json",
        ]);
        assert!(ok, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let rh = run("rh");
    let lh = run("lh");
    let p_rh = nums(&rh["frames"][0]["meshes"][0]["positions"]);
    let p_lh = nums(&lh["frames"][0]["meshes"][0]["positions"]);
    assert!(
        p_rh.iter().any(|&x| x.abs() > 0.1),
        "x must matter for this test"
    );
    for (a, b) in p_rh.chunks(3).zip(p_lh.chunks(3)) {
        assert!(
            (a[0] + b[0]).abs() < 1e-5 && (a[1] - b[1]).abs() < 1e-5 && (a[2] - b[2]).abs() < 1e-5
        );
    }
}

#[test]
fn info_lists_skins_meshes_and_clips() {
    let Some(shared) = shared_dir("info_lists_skins_meshes_and_clips") else {
        return;
    };
    let asset = shared.join("assets/quad_skin/quad_skin.glb");
    let (ok, stdout, stderr) = skel(&["info", asset.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("skin 0"), "{stdout}");
    // 12 influences fit the 16-influence GPU path whole (padded): nothing is reduced.
    assert!(
        stdout.contains("12 influences per vertex (3 set(s)), GPU path 16\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("largest"), "{stdout}");
    // More than 16: the vertices that lose weights are counted, per mesh.
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/sixteen_influences.glb"
    );
    let (ok, stdout, stderr) = skel(&["info", fixture]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("20 influences per vertex (5 set(s)), GPU path 16"),
        "{stdout}"
    );
    assert!(
        stdout.contains("6 of 16 vertices have more than 16 non-zero weights"),
        "{stdout}"
    );
    let asset = shared.join("assets/Fox/Fox.glb");
    let (ok, stdout, _) = skel(&["info", asset.to_str().unwrap()]);
    assert!(ok);
    assert!(stdout.contains("24 joints"), "{stdout}");
    assert_eq!(stdout.matches("  clip ").count(), 3, "{stdout}");
    assert!(stdout.contains("\"Survey\""), "{stdout}");
}

#[test]
fn info_lists_what_a_vrm_holds() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/vrm/v1_constraints.vrm"
    );
    let (ok, stdout, stderr) = skel(&["info", fixture]);
    assert!(ok, "{stderr}");
    for line in [
        "vrm: VRMC_vrm 1.0, avatar \"v1_constraints\"",
        "  humanoid: 19 bones",
        "  spring bones: 1 springs (0 in a center's space), 2 joints, 0 colliders in 0 groups",
        "  constraint: node 23 \"forearmTwist\" follows node 10 \"leftHand\" (roll, weight 0.5)",
        "  constraint: node 25 \"rotationCopy\" follows node 9 \"leftLowerArm\" (rotation, weight 0.7)",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in:\n{stdout}"
        );
    }
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/vrm/v0_branching.vrm"
    );
    let (ok, stdout, stderr) = skel(&["info", fixture]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("vrm: VRM 0.x (0.0)"), "{stdout}");
    assert!(
        stdout.contains("24 joints, 2 colliders in 2 groups"),
        "{stdout}"
    );
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let Some(shared) = shared_dir("bad_arguments_fail_with_a_message") else {
        return;
    };
    let asset = shared.join("assets/Fox/Fox.glb");
    let asset = asset.to_str().unwrap();
    let (ok, _, stderr) = skel(&["pose", asset, "--clip", "Dance", "--times", "0", "--json"]);
    assert!(!ok);
    assert!(stderr.contains("--clip \"Dance\""), "{stderr}");
    let (ok, _, stderr) = skel(&["pose", asset, "--times", "0,abc"]);
    assert!(!ok);
    assert!(stderr.contains("\"abc\""), "{stderr}");
    let (ok, _, stderr) = skel(&["info", "/nonexistent.glb"]);
    assert!(!ok);
    assert!(stderr.contains("/nonexistent.glb"), "{stderr}");
}

/// A file with a pointer channel on a material colour and an untargeted channel: `skel info`
/// lists the extension with what skel does, the property track, and the skipped channel with
/// its JSON path (gltf-json alone refuses such a file: "missing field `node`").
#[test]
fn info_lists_extensions_property_tracks_and_skipped_channels() {
    // Times 0, 1 and two RGBA colours, little-endian f32.
    let floats: [f32; 10] = [0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0];
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let data = base64_encode(&bytes);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"extensionsUsed":["KHR_animation_pointer"],
        "nodes":[{{}}],"scenes":[{{"nodes":[0]}}],"materials":[{{}}],
        "buffers":[{{"byteLength":40,"uri":"data:application/octet-stream;base64,{data}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":32}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
          {{"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}}],
        "animations":[{{"samplers":[{{"input":0,"output":1}}],"channels":[
          {{"sampler":0,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":
            {{"pointer":"/materials/0/pbrMetallicRoughness/baseColorFactor"}}}}}}}},
          {{"sampler":0,"target":{{"path":"rotation"}}}}]}}]}}"#
    );
    let dir = std::env::temp_dir().join(format!("skel-info-pointer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pointer.gltf");
    std::fs::write(&path, json).unwrap();
    let (ok, stdout, stderr) = skel(&["info", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("KHR_animation_pointer: applied"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "property track: Material { material: 0, field: BaseColorFactor } (Float(4))"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped:\n  animations[0].channels[1]: no target node"),
        "{stdout}"
    );
}

fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
