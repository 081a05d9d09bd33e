//! `skel pose --terrain` without a graph: the feet and pelvis the humanoid map finds stand on
//! the ground (the built-in character, CesiumMan and Superhero_Male_FullBody from
//! `../shared/assets`), a mesh ground lifts the foot over its higher part in both
//! handednesses, and an asset without humanoid legs is refused by a message that says so.
//! Each placed pose is compared with the same pose without `--terrain`, so a flag that changed
//! nothing would fail.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use serde_json::Value;

fn repo(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The built-in character's LeftToes and RightToes nodes, and its Hips.
const TOES: [usize; 2] = [18, 22];
const HIPS: usize = 1;
/// How high the toe joints sit above the soles at rest (the built-in character stands on
/// y = 0 with its toe joints at y = 0.03).
const TOE_HEIGHT: f64 = 0.03;

fn node_y(report: &Value, f: usize, n: usize) -> f64 {
    report["frames"][f]["nodes"][n.to_string()][13]
        .as_f64()
        .unwrap()
}

fn lowest_toe(report: &Value, f: usize) -> f64 {
    TOES.map(|n| node_y(report, f, n))
        .into_iter()
        .fold(f64::MAX, f64::min)
}

/// The lowest skinned vertex of frame `f` (y up).
fn lowest_vertex(report: &Value, f: usize) -> f64 {
    report["frames"][f]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| {
            m["positions"]
                .as_array()
                .unwrap()
                .iter()
                .skip(1)
                .step_by(3)
                .map(|y| y.as_f64().unwrap())
        })
        .fold(f64::MAX, f64::min)
}

fn pose(asset: &str, extra: &[&str]) -> Value {
    let mut args = vec!["pose", asset, "--json"];
    args.extend_from_slice(extra);
    common::pose(&args)
}

#[test]
fn terrain_stands_the_built_in_characters_feet_on_a_plane_without_a_graph() {
    let character = repo("fixtures/default_character.glb");
    // The rest pose, and Walk at 0.3 s (the left foot planted, the right one lifted), on a
    // floor raised 8 cm and on one lowered 5 cm, in both handednesses.
    for handedness in ["lh", "rh"] {
        for clip in [None, Some("Walk")] {
            let mut base = vec!["--handedness", handedness, "--times", "0.3"];
            if let Some(clip) = clip {
                base.extend(["--clip", clip]);
            }
            let free = pose(&character, &base);
            let free_toe = lowest_toe(&free, 0);
            let free_hips = node_y(&free, 0, HIPS);
            for (plane, floor) in [("plane:0,1,0,-0.08", 0.08), ("plane:0,1,0,0.05", -0.05)] {
                let mut args = base.clone();
                args.extend(["--terrain", plane]);
                let placed = pose(&character, &args);
                let toe = lowest_toe(&placed, 0);
                let what = format!("{handedness} {clip:?} on {plane}");
                // The planted toe stands on the floor as it stood on y = 0 at rest.
                assert!(
                    (toe - floor - TOE_HEIGHT).abs() < 1e-3,
                    "{what}: lowest toe at {toe}, the floor at {floor}"
                );
                assert!(
                    (toe - free_toe).abs() > 0.04,
                    "{what}: the toe moved only from {free_toe} to {toe}"
                );
                // A raised floor bends the knees; a lowered one drops the pelvis with the feet.
                let hips = node_y(&placed, 0, HIPS);
                let drop = if floor > 0.0 { 0.0 } else { floor };
                assert!(
                    (hips - free_hips - drop).abs() < 1e-3,
                    "{what}: hips at {hips}, {free_hips} without --terrain"
                );
            }
        }
    }
}

#[test]
fn terrain_without_a_graph_places_the_feet_of_real_assets() {
    // CesiumMan walking, and Superhero_Male_FullBody (no clips: the rest pose).
    for (rel, extra) in [
        (
            "CesiumMan/CesiumMan.glb",
            &["--clip", "0", "--times", "0,0.5,1"][..],
        ),
        (
            "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
            &["--times", "0"][..],
        ),
    ] {
        let Some(asset) = common::shared_asset(
            "terrain_without_a_graph_places_the_feet_of_real_assets",
            rel,
        ) else {
            return;
        };
        let asset = asset.display().to_string();
        let free = pose(&asset, extra);
        for (plane, floor) in [("plane:0,1,0,-0.1", 0.1), ("plane:0,1,0,0.1", -0.1)] {
            let mut args = extra.to_vec();
            args.extend(["--terrain", plane]);
            let placed = pose(&asset, &args);
            let frames = placed["frames"].as_array().unwrap().len();
            for f in 0..frames {
                let (was, now) = (lowest_vertex(&free, f), lowest_vertex(&placed, f));
                // The lowest point of the body follows the floor (a sole a clip pushed a
                // centimetre into y = 0 comes out onto the floor, hence the tolerance).
                assert!(
                    (now - was - floor).abs() < 0.015,
                    "{rel} frame {f} on {plane}: lowest vertex {was} -> {now}"
                );
            }
        }
    }
}

#[test]
fn terrain_refuses_assets_without_humanoid_legs_by_name() {
    let character = repo("fixtures/default_character.glb");
    // A malformed ground is refused before anything is posed.
    for (terrain, says) in [
        ("plane:0,0,0,1", "--terrain \"plane:0,0,0,1\""),
        ("plane:0,1,0", "four numbers"),
        ("mesh:nowhere.glb", "nowhere"),
    ] {
        let (ok, _, stderr) =
            common::skel(&["pose", &character, "--terrain", terrain, "--times", "0"]);
        assert!(!ok && stderr.contains(says), "{terrain}: {stderr}");
    }
    // Fox stands on four legs; RobotExpressive's legs have no joint the map calls a foot.
    for (rel, says) in [
        ("Fox/Fox.glb", "this asset has none: not a humanoid"),
        (
            "RobotExpressive/RobotExpressive.glb",
            "finds no LeftFoot joint",
        ),
    ] {
        let Some(asset) =
            common::shared_asset("terrain_refuses_assets_without_humanoid_legs_by_name", rel)
        else {
            return;
        };
        let asset = asset.display().to_string();
        let (ok, stdout, stderr) =
            common::skel(&["pose", &asset, "--terrain", "plane:0,1,0,0", "--times", "0"]);
        assert!(
            !ok && stderr.contains(says) && !stderr.contains("panicked"),
            "{rel}: {stdout}\n{stderr}"
        );
    }
    // A crowd has no foot placement: refused, not ignored (before any device is opened).
    let (ok, _, stderr) = common::skel(&[
        "render",
        "--crowd",
        "4",
        "--terrain",
        "plane:0,1,0,0",
        "--out",
        &std::env::temp_dir()
            .join("skel-crowd-terrain")
            .display()
            .to_string(),
    ]);
    assert!(!ok && stderr.contains("--terrain"), "{stderr}");
}

/// A `.glb` of two level plates: `x` in -1..0 at height `low_x`, `x` in 0..1 at `high_x`
/// (glTF's right-handed space), `z` in -1..1.
fn two_plates(low_x: f32, high_x: f32) -> Vec<u8> {
    let mut positions = Vec::new();
    let mut indices: Vec<u16> = Vec::new();
    for (x0, x1, y) in [(-1.0_f32, 0.0_f32, low_x), (0.0, 1.0, high_x)] {
        let base = (positions.len() / 3) as u16;
        for (x, z) in [(x0, -1.0_f32), (x1, -1.0), (x1, 1.0), (x0, 1.0)] {
            positions.extend([x, y, z]);
        }
        indices.extend([0, 2, 1, 0, 3, 2].map(|i| base + i));
    }
    let mut bin: Vec<u8> = positions.iter().flat_map(|v| v.to_le_bytes()).collect();
    let index_offset = bin.len();
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let top = low_x.max(high_x);
    let json = serde_json::json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": index_offset},
            {"buffer": 0, "byteOffset": index_offset, "byteLength": indices.len() * 2}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": positions.len() / 3,
             "type": "VEC3", "min": [-1.0, low_x.min(high_x), -1.0], "max": [1.0, top, 1.0]},
            {"bufferView": 1, "componentType": 5123, "count": indices.len(), "type": "SCALAR"}
        ]
    });
    skel::gltf::pack_glb(&serde_json::to_vec(&json).unwrap(), &bin).unwrap()
}

#[test]
fn a_mesh_terrain_lifts_the_foot_over_its_higher_plate_in_both_handednesses() {
    let character = repo("fixtures/default_character.glb");
    // The character's right side is glTF's -x: the plate there is 12 cm high, the other 0.
    let plates = skel_test_support::TempFile::new("plates.glb", two_plates(0.12, 0.0));
    let terrain = format!("mesh:{}", plates.display());
    for handedness in ["lh", "rh"] {
        let placed = pose(
            &character,
            &[
                "--handedness",
                handedness,
                "--times",
                "0",
                "--terrain",
                &terrain,
            ],
        );
        let [left, right] = TOES.map(|n| node_y(&placed, 0, n));
        // A left-handed world mirrors the mesh as it mirrors the character: the same foot.
        assert!(
            (right - 0.12 - TOE_HEIGHT).abs() < 1e-3 && (left - TOE_HEIGHT).abs() < 1e-3,
            "{handedness}: left toe at {left}, right toe at {right}"
        );
    }
}
