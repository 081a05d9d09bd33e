//! Shared by the integration tests: where the shared assets and golden files are (and the
//! SKEL_REQUIRE_ASSETS rule), and a small glTF writer.
#![allow(dead_code, reason = "each test file uses a different part")]

pub mod builder;

use std::path::{Path, PathBuf};

/// `../shared` beside the repository when it holds `assets/` and `golden/`; otherwise
/// `None` after a skip (`skel_test_support::shared`).
///
/// # Panics
/// When a folder is missing and `SKEL_REQUIRE_ASSETS=1`.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    skel_test_support::shared(test, "assets")?;
    skel_test_support::shared(test, "golden")?;
    Some(skel_test_support::shared_root())
}

/// Every glTF file of `../shared/assets`, one per folder, in name order.
pub fn asset_files(assets: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(assets)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
        .iter()
        .filter_map(|folder| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "glb" || x == "gltf"))
                .collect();
            files.sort();
            files.into_iter().next()
        })
        .collect()
}
