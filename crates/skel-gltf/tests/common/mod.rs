//! Shared by the integration tests: where the shared assets and golden files are (and the
//! SKEL_REQUIRE_ASSETS rule), a small glTF writer, and the triangles of a posed asset.
#![allow(dead_code, reason = "each test file uses a different part")]

pub mod builder;

use std::path::{Path, PathBuf};

use skel_anim::glam::Vec3;
use skel_gltf::{CpuPoser, GltfAsset, PrimitiveData, PrimitiveMode};

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

/// Every triangle of the posed asset's triangle-list primitives that `keep` lets in:
/// (primitive, triangle, its three corners from `poser`'s last pose).
pub fn posed_triangles(
    asset: &GltfAsset,
    poser: &CpuPoser,
    keep: impl Fn(&PrimitiveData) -> bool,
) -> Vec<(usize, usize, [Vec3; 3])> {
    let mut out = Vec::new();
    for (p, prim) in asset.primitives.iter().enumerate() {
        if prim.mode != PrimitiveMode::Triangles || !keep(prim) {
            continue;
        }
        let pos = poser.positions(p).unwrap();
        let n = prim.indices.as_ref().map_or(prim.vertex_count(), Vec::len) / 3;
        for t in 0..n {
            let ix = |k: usize| {
                prim.indices
                    .as_ref()
                    .map_or(3 * t + k, |i| i[3 * t + k] as usize)
            };
            out.push((p, t, [0, 1, 2].map(|k| pos[ix(k)])));
        }
    }
    out
}
