//! skel's decoders and poser against the peer tools on real characters: gltfpack's default
//! (`KHR_mesh_quantization` + `KHR_texture_transform`) and `-cc` (`EXT_meshopt_compression`)
//! outputs and glTF-Transform's Draco output of CesiumMan, Fox and RobotExpressive.
//!
//! ```sh
//! (cd scripts/peer/compressed && npm ci) && bash scripts/peer/compressed/shared_variants.sh /tmp/skel-peer-variants
//! cargo run --release -p skel-gltf --example peer_variants -- /tmp/skel-peer-variants [THREE_GOLDENS]
//! ```
//!
//! `THREE_GOLDENS` (default: `scripts/peer/compressed/goldens/three`) names another folder of
//! three.js goldens in the same format, e.g. ones written with a patched three.
//!
//! For each variant, one JSON line (`"check": "decode+original"`): (1) decoding against
//! glTF-Transform ([`decode`]), (2) the pose against skel's pose of the original file and
//! (3) the UVs after the texture transform against the original's ([`original`]). For each
//! file, original and variants, and each clip with a three.js golden, one JSON line
//! (`"check": "three"`): (4) skel's pose of that file against three.js r187's pose of the same
//! file ([`three`]), with `pass` = every error within 1e-4 of the diagonal. Exits with 1 when a
//! three check fails or cannot run. Never in CI (the variants are copies of the shared assets).

mod decode;
mod original;
mod three;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{GltfAsset, LoadOptions, load_path};

fn load(path: &Path) -> GltfAsset {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_json(path: &Path) -> Option<Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
}

/// Checks (1)–(3) of a variant against its original.
fn versus_original(original: &GltfAsset, asset: &GltfAsset, file: &str, goldens: &Path) {
    let golden = read_json(&goldens.join(format!("{file}.json"))).unwrap_or(Value::Null);
    let decode = decode::decoding(asset, &golden);
    let uv = original::uv_error(original, asset);
    let pose = original::pose_error(original, asset);
    let row = json!({
        "check": "decode+original",
        "variant": file,
        "decode_worst_relative": decode.as_ref().ok(),
        "decode_error": decode.as_ref().err(),
        "pose_at_rest_of_diagonal": pose.0,
        "pose_in_clips_of_diagonal": pose.1,
        "uv_worst": uv.map(|u| u.0),
        "uv_worst_steps": uv.map(|u| u.1),
    });
    println!("{row}");
}

/// Check (4) of every clip of `file` with a three.js golden; whether all of them pass. Where
/// three_goldens.mjs wrote `<file>.<clip>.unitquat.json` (three with the rotation keys
/// normalised, as skel normalises them), that golden must pass; the plain one is printed
/// beside it for the record (three keeps gltfpack's non-unit int16 keys).
fn versus_three(asset: &GltfAsset, file: &str, three_dir: &Path, label: &str) -> bool {
    let mut all = true;
    let mut any = false;
    for clip in 0.. {
        let plain = three_dir.join(format!("{file}.{clip}.json"));
        if !plain.exists() {
            break;
        }
        any = true;
        let unitquat = three_dir.join(format!("{file}.{clip}.unitquat.json"));
        let required = if unitquat.exists() { &unitquat } else { &plain };
        for path in [&unitquat, &plain] {
            if !path.exists() {
                continue;
            }
            let kind = if path == &unitquat {
                "unitquat"
            } else {
                "plain"
            };
            let row = read_json(path)
                .ok_or_else(|| format!("{}: unreadable", path.display()))
                .and_then(|golden| three::compare(asset, file, &golden));
            let pass = row
                .as_ref()
                .is_ok_and(|r| r["pass"].as_bool() == Some(true));
            if path == required {
                all &= pass;
            }
            let mut row = row.unwrap_or_else(|e| {
                json!({"check": "three", "file": file, "clip": clip, "error": e, "pass": false})
            });
            row["goldens"] = json!(label);
            row["golden"] = json!(kind);
            row["required"] = json!(path == required);
            println!("{row}");
        }
    }
    if !any {
        eprintln!("{file}: no three.js golden");
    }
    all && any
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "/tmp/skel-peer-variants".into()),
    );
    let goldens = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/peer/compressed/goldens"
    ));
    // The three.js goldens: the committed ones unless a second argument names another folder.
    let (three_dir, label) = std::env::args().nth(2).map_or_else(
        || {
            (
                goldens.join("three"),
                "scripts/peer/compressed/goldens/three".to_owned(),
            )
        },
        |d| (PathBuf::from(&d), d),
    );
    let mut pass = true;
    for name in ["CesiumMan", "Fox", "RobotExpressive"] {
        let original = load(&dir.join(format!("{name}.glb")));
        pass &= versus_three(&original, name, &three_dir, &label);
        for variant in ["gltfpack", "gltfpack_cc", "draco"] {
            let file = format!("{name}_{variant}");
            let asset = load(&dir.join(format!("{file}.glb")));
            versus_original(&original, &asset, &file, &goldens);
            pass &= versus_three(&asset, &file, &three_dir, &label);
        }
    }
    if !pass {
        eprintln!(
            "three.js check: some file is off by more than {:e} of the diagonal",
            three::TOLERANCE
        );
        std::process::exit(1);
    }
}
