//! `skel compress`, run as the real binary on CesiumMan: the JSON of docs/bench-json.md, the
//! error held within the bound asked for, a tighter bound costing bytes, both raw
//! accountings, bytes per clip-second (GPU clip set and compressed keys), bad bounds refused,
//! and the readable table.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{shared_asset, skel};
use serde_json::Value;

fn compress(args: &[&str]) -> Value {
    let (ok, stdout, stderr) = skel(args);
    assert!(ok, "skel {args:?} failed: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn compress_json_holds_the_bound_and_counts_both_raw_sizes() {
    let Some(path) = shared_asset("compress_json", "CesiumMan/CesiumMan.glb") else {
        return;
    };
    let path = path.to_str().unwrap();
    let loose = compress(&["compress", path, "--json"]);
    assert_eq!(loose["bound_cm"], 0.01);
    assert_eq!(loose["shell_cm"], 3.0);
    let clips = loose["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 1, "CesiumMan has one clip");
    let c = &clips[0];
    assert_eq!(c["index"], 0);
    assert_eq!(c["bones"], 19, "CesiumMan's skin has 19 joints");
    let (bones, samples) = (c["bones"].as_u64().unwrap(), c["samples"].as_u64().unwrap());
    assert!(samples > 1);
    assert_eq!(
        c["raw_bytes_all_bones"].as_u64().unwrap(),
        bones * samples * 40
    );
    let animated = c["raw_bytes_animated"].as_u64().unwrap();
    let bytes = c["compressed_bytes"].as_u64().unwrap();
    assert!(
        bytes > 0 && bytes < animated,
        "{bytes} compressed of {animated} raw"
    );
    let (max, p99) = (
        c["max_error_cm"].as_f64().unwrap(),
        c["p99_error_cm"].as_f64().unwrap(),
    );
    assert!(
        max > 0.0 && max <= 0.01,
        "max error {max} cm beyond the 0.01 cm bound"
    );
    assert!(p99 <= max);
    assert!(c["build_ms"].as_f64().unwrap() > 0.0);
    // Bytes per clip-second: the GPU clip set's f32 frames against the compressed keys.
    let gpu = c["gpu_bytes_per_second"].as_f64().unwrap();
    let per_second = c["compressed_bytes_per_second"].as_f64().unwrap();
    assert!(
        per_second > 0.0 && gpu > per_second,
        "{gpu} GPU, {per_second} compressed"
    );

    // Ten times tighter: still held, and more bytes.
    let tight = compress(&[
        "compress", path, "--clip", "0", "--bound", "0.001", "--json",
    ]);
    let t = &tight["clips"][0];
    let tight_max = t["max_error_cm"].as_f64().unwrap();
    assert!(
        tight_max <= 0.001,
        "max error {tight_max} cm beyond 0.001 cm"
    );
    assert!(t["compressed_bytes"].as_u64().unwrap() > bytes);
}

#[test]
fn compress_refuses_a_bad_bound_and_prints_a_table() {
    let Some(path) = shared_asset("compress_table", "CesiumMan/CesiumMan.glb") else {
        return;
    };
    let path = path.to_str().unwrap();
    let (ok, _, stderr) = skel(&["compress", path, "--bound", "0"]);
    assert!(!ok && stderr.contains("error"), "{stderr}");
    let (ok, _, stderr) = skel(&["compress", path, "--clip", "no such clip"]);
    assert!(!ok && stderr.contains("no such clip"), "{stderr}");
    let (ok, stdout, stderr) = skel(&["compress", path]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("0.01 cm on a 3 cm shell"), "{stdout}");
    assert_eq!(
        lines.len(),
        3,
        "header, column names and one clip: {stdout}"
    );
    assert!(lines[2].trim_start().starts_with('0'), "{stdout}");
    assert!(
        lines[1].contains("GPU B/s") && lines[1].contains("comp B/s"),
        "{stdout}"
    );
}

/// `--out` on the repository's character (four clips): the file is written, reported, smaller
/// than its source, loads with every clip stored (the command itself checks that they play bit
/// for bit as compressed); a path that cannot be written is an error that leaves no file.
#[test]
fn compress_out_writes_a_smaller_file_that_loads_with_its_clips_stored() {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/default_character.glb");
    let out = skel_test_support::TempFile::new("character.glb", b"");
    let (src, dst) = (source.to_str().unwrap(), out.to_str().unwrap());
    let r = compress(&["compress", src, "--variable", "--out", dst, "--json"]);
    let o = &r["out"];
    assert_eq!(o["path"], dst);
    assert_eq!(o["stored_clips"], 4, "{r}");
    let bytes = std::fs::metadata(&*out).unwrap().len();
    assert_eq!(o["bytes"].as_u64(), Some(bytes));
    assert!(bytes < o["source_bytes"].as_u64().unwrap(), "{o}");
    for c in r["clips"].as_array().unwrap() {
        let stored = c["stored_bytes"].as_u64().unwrap();
        assert!(stored < c["raw_bytes_animated"].as_u64().unwrap(), "{c}");
    }
    let asset = skel::gltf::load_path(&out, &skel::gltf::LoadOptions::default()).unwrap();
    assert!(
        asset
            .animation
            .clips
            .iter()
            .all(|c| c.stored_keys.is_some())
    );
    // `skel info` lists the extension as applied.
    let (ok, stdout, stderr) = skel(&["info", dst]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("SKEL_compressed_animation"), "{stdout}");
    // Without --out: no file, and `out` is null.
    let plain = compress(&["compress", src, "--variable", "--json"]);
    assert!(plain["out"].is_null());
    let nowhere = std::env::temp_dir()
        .join(format!("skel-no-such-dir-{}", std::process::id()))
        .join("x.glb");
    let (ok, _, stderr) = skel(&[
        "compress",
        src,
        "--variable",
        "--out",
        nowhere.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("error"), "{stderr}");
    assert!(!nowhere.exists());
}
