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

/// Every saved input of both targets (`load_gltf/` is empty until the loader's first fuzz
/// crash; its inputs then also get a test in `skel-gltf`).
#[test]
fn every_saved_input_runs_clean() {
    let loads = inputs("load_gltf");
    let calls = inputs("controller_api");
    assert!(
        !calls.is_empty(),
        "fixtures/fuzz-regressions/controller_api/ is empty or missing"
    );
    for file in &loads {
        eprintln!("load_gltf regression: {}", file.display());
        skel_fuzz::exercise_asset(&std::fs::read(file).unwrap());
    }
    for file in &calls {
        eprintln!("controller_api regression: {}", file.display());
        skel_fuzz::api::run_bytes(&std::fs::read(file).unwrap());
    }
    for file in &inputs("stored_keys") {
        eprintln!("stored_keys regression: {}", file.display());
        skel_fuzz::stored::stored_keys_bytes(&std::fs::read(file).unwrap());
    }
}
