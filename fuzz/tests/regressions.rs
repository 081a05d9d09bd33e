//! Replays every saved fuzz input under `fixtures/fuzz-regressions/<target>/` through its
//! target's harness: an input that once crashed must now run clean. `cargo xtask fuzz` runs this
//! before fuzzing; the crates each crash belonged to carry their own readable regression tests.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/fuzz-regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn saved_load_gltf_inputs_run_clean() {
    for file in inputs("load_gltf") {
        eprintln!("load_gltf regression: {}", file.display());
        skel_fuzz::exercise_asset(&std::fs::read(&file).unwrap());
    }
}

#[test]
fn saved_controller_api_inputs_run_clean() {
    let files = inputs("controller_api");
    assert!(
        !files.is_empty(),
        "fixtures/fuzz-regressions/controller_api/ is empty or missing"
    );
    for file in files {
        eprintln!("controller_api regression: {}", file.display());
        skel_fuzz::api::run_bytes(&std::fs::read(&file).unwrap());
    }
}
