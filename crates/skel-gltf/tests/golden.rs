//! Conformance against `../shared/golden`: for every golden file, pose its asset in glTF's
//! right-handed space at every stored time and compare node world matrices, skin matrices,
//! world-space vertex positions (after morph targets and skinning) and morph weights with
//! what three.js computed (Babylon.js agreed with it to 1e-6 of the model size).
//!
//! Tolerance: positions within 1e-4 × the primitive's bounding-box diagonal over the clip (the
//! README's rule); matrices within 1e-4 × max(1, largest element of the golden matrix); morph
//! weights within 1e-4. Where a `.unitquat.json` variant exists (assets with non-unit rotation
//! keys) it is the reference, since skel normalises rotation keys; the plain file is reported
//! but not held to the tolerance.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skel_anim::Handedness;
use skel_gltf::{CpuPoser, GltfAsset, LoadOptions, load_path};

const TOLERANCE: f64 = 1e-4;

/// Worst errors of one golden file, each already divided by its tolerance scale.
#[derive(Debug, Default, Clone)]
struct Worst {
    /// Position error / bounding-box diagonal.
    positions: f64,
    /// Where it is: primitive key and time.
    positions_at: String,
    /// Matrix error / max(1, |element|).
    matrices: f64,
    /// Morph weight error (absolute).
    weights: f64,
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn matrix_error(golden: &[f64], ours: &[f32]) -> f64 {
    assert_eq!(golden.len(), ours.len(), "matrix lengths differ");
    let mut worst = 0.0f64;
    for (g, o) in golden.chunks(16).zip(ours.chunks(16)) {
        let scale = g.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (a, b) in g.iter().zip(o) {
            worst = worst.max((a - f64::from(*b)).abs() / scale);
        }
    }
    worst
}

fn bbox_diagonal(golden_frames: &[Value], frame_mesh: usize) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for f in golden_frames {
        let p = nums(&f["meshes"][frame_mesh]["positions"]);
        for v in p.chunks(3) {
            for c in 0..3 {
                lo[c] = lo[c].min(v[c]);
                hi[c] = hi[c].max(v[c]);
            }
        }
    }
    let d2: f64 = (0..3).map(|c| (hi[c] - lo[c]).powi(2)).sum();
    d2.sqrt()
}

fn check_file(golden_path: &Path, asset: &GltfAsset, clip: Option<usize>) -> Worst {
    let name = golden_path.display().to_string();
    let golden: Value = serde_json::from_slice(&std::fs::read(golden_path).unwrap()).unwrap();
    let meshes = golden["meshes"].as_array().unwrap();
    let keys: Vec<&str> = meshes.iter().map(|m| m["key"].as_str().unwrap()).collect();
    let ours: Vec<&str> = asset.primitives.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ours, "{name}: mesh primitive keys differ");
    for (m, p) in meshes.iter().zip(&asset.primitives) {
        assert_eq!(
            m["vertexCount"].as_u64().unwrap() as usize,
            p.vertex_count(),
            "{name} {}: vertex count",
            p.key
        );
        assert_eq!(
            m["skinned"].as_bool().unwrap(),
            p.is_skinned(),
            "{name} {}: skinned",
            p.key
        );
        if p.is_skinned() {
            assert_eq!(
                m["skin"].as_u64().map(|s| s as usize),
                p.skin,
                "{name} {}: skin",
                p.key
            );
        }
    }
    let frames = golden["frames"].as_array().unwrap();
    let diagonals: Vec<f64> = (0..meshes.len())
        .map(|i| bbox_diagonal(frames, i))
        .collect();
    let mut poser = CpuPoser::new(asset).unwrap();
    let mut worst = Worst::default();
    for frame in frames {
        let t = frame["t"].as_f64().unwrap() as f32;
        poser.pose(asset, clip, t).unwrap();
        let world = poser.node_world_matrices();
        for (node, m) in frame["nodes"].as_object().unwrap() {
            let n: usize = node.parse().unwrap();
            let err = matrix_error(&nums(m), world[n].as_ref());
            worst.matrices = worst.matrices.max(err);
        }
        for (skin, s) in frame["skins"].as_object().unwrap() {
            let si: usize = skin.parse().unwrap();
            let joints: Vec<usize> = nums(&s["joints"]).iter().map(|&j| j as usize).collect();
            assert_eq!(joints, asset.skins[si].joints, "{name}: skin {si} joints");
            let joint_world: Vec<_> = joints.iter().map(|&j| world[j]).collect();
            let err = matrix_error(&nums(&s["jointWorld"]), bytemuck::cast_slice(&joint_world));
            worst.matrices = worst.matrices.max(err);
            let err = matrix_error(
                &nums(&s["skinMatrices"]),
                bytemuck::cast_slice(poser.skin_matrices(si).unwrap()),
            );
            worst.matrices = worst.matrices.max(err);
        }
        for (i, fm) in frame["meshes"].as_array().unwrap().iter().enumerate() {
            let prim = &asset.primitives[i];
            assert_eq!(fm["key"].as_str().unwrap(), prim.key);
            let ours = poser.positions(i).unwrap();
            let golden_pos = nums(&fm["positions"]);
            let indices: Vec<usize> = match meshes[i].get("sampledIndices") {
                Some(s) => nums(s).iter().map(|&v| v as usize).collect(),
                None => (0..prim.vertex_count()).collect(),
            };
            assert_eq!(
                golden_pos.len(),
                indices.len() * 3,
                "{name} {}: positions",
                prim.key
            );
            let diag = diagonals[i].max(f64::from(f32::EPSILON));
            for (k, &v) in indices.iter().enumerate() {
                for c in 0..3 {
                    let err = (golden_pos[k * 3 + c] - f64::from(ours[v][c])).abs() / diag;
                    if err > worst.positions {
                        worst.positions = err;
                        worst.positions_at =
                            format!("{} vertex {v} t={t} (diagonal {diag:.3})", prim.key);
                    }
                }
            }
            if let Some(w) = fm.get("morphWeights") {
                let golden_w = nums(w);
                let ours_w = poser
                    .morph_weights(
                        prim.morph_binding
                            .expect("golden has weights, we have no binding"),
                    )
                    .unwrap();
                assert_eq!(
                    golden_w.len(),
                    ours_w.len(),
                    "{name} {}: weight count",
                    prim.key
                );
                for (a, b) in golden_w.iter().zip(ours_w) {
                    worst.weights = worst.weights.max((a - f64::from(*b)).abs());
                }
            }
        }
    }
    worst
}

#[test]
fn poses_match_the_golden_files() {
    let Some(shared) = common::shared_dir("poses_match_the_golden_files") else {
        return;
    };
    let golden_dir = shared.join("golden");
    let index: Value =
        serde_json::from_slice(&std::fs::read(golden_dir.join("index.json")).unwrap()).unwrap();
    let entries = index.as_array().unwrap();
    let files: Vec<&str> = entries
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    let mut assets: HashMap<PathBuf, GltfAsset> = HashMap::new();
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    let mut failures = Vec::new();
    let mut per_asset: Vec<(String, Worst)> = Vec::new();
    for entry in entries {
        let file = entry["file"].as_str().unwrap();
        let asset_path = golden_dir.join(entry["asset"].as_str().unwrap());
        let clip = entry["clip"].as_u64().map(|c| c as usize);
        let asset = assets.entry(asset_path.clone()).or_insert_with(|| {
            load_path(&asset_path, &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", asset_path.display()))
        });
        let worst = check_file(&golden_dir.join(file), asset, clip);
        let superseded = files.contains(&file.replace(".json", ".unitquat.json").as_str());
        eprintln!(
            "{file:34} positions {:.2e} of diagonal at {}, matrices {:.2e}, weights {:.2e}{}",
            worst.positions,
            worst.positions_at,
            worst.matrices,
            worst.weights,
            if superseded {
                "  (non-unit keys: reference is the .unitquat.json file)"
            } else {
                ""
            }
        );
        if superseded {
            continue;
        }
        if worst.positions > TOLERANCE || worst.matrices > TOLERANCE || worst.weights > TOLERANCE {
            failures.push(format!("{file}: {worst:?}"));
        }
        let model = file.split('/').next().unwrap().to_owned();
        match per_asset.iter_mut().find(|(m, _)| *m == model) {
            Some((_, w)) => {
                if worst.positions > w.positions {
                    w.positions = worst.positions;
                    w.positions_at.clone_from(&worst.positions_at);
                }
                w.matrices = w.matrices.max(worst.matrices);
                w.weights = w.weights.max(worst.weights);
            }
            None => per_asset.push((model, worst)),
        }
    }
    eprintln!("worst per asset (positions as a fraction of the bounding-box diagonal):");
    for (model, w) in &per_asset {
        eprintln!("  {model:26} {:.2e}  ({})", w.positions, w.positions_at);
    }
    assert!(
        per_asset.len() >= 19,
        "only {} assets have golden files",
        per_asset.len()
    );
    assert!(
        failures.is_empty(),
        "outside tolerance:\n{}",
        failures.join("\n")
    );
}
