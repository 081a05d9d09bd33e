//! Every asset in `../shared/assets` loads without error, in both handednesses, with its
//! images decoded where the files exist.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use skel_anim::Handedness;
use skel_gltf::{ImageSlot, LoadOptions, load_path};

#[test]
fn every_shared_asset_loads() {
    let Some(shared) = common::shared_dir("every_shared_asset_loads") else {
        return;
    };
    let mut loaded = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(shared.join("assets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext != "gltf" && ext != "glb" {
                continue;
            }
            for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
                let opts = LoadOptions {
                    handedness,
                    decode_images: handedness == Handedness::LeftHanded,
                };
                let asset = load_path(&path, &opts)
                    .unwrap_or_else(|e| panic!("{} failed to load: {e}", path.display()));
                assert!(
                    !asset.primitives.is_empty(),
                    "{}: no primitives",
                    path.display()
                );
                for p in &asset.primitives {
                    if let Some(inf) = &p.influences {
                        for w in inf.weights.chunks(inf.per_vertex) {
                            let sum: f32 = w.iter().sum();
                            assert!(
                                (sum - 1.0).abs() < 1e-5,
                                "{} {}: weights sum {sum}",
                                path.display(),
                                p.key
                            );
                        }
                    }
                }
                let failed: Vec<_> = asset
                    .images
                    .iter()
                    .filter_map(|i| match i {
                        ImageSlot::Failed { reason } => Some(reason.clone()),
                        _ => None,
                    })
                    .collect();
                eprintln!(
                    "{}: {} nodes, {} primitives, {} skins, {} clips, images failed: {failed:?}",
                    path.display(),
                    asset.nodes.len(),
                    asset.primitives.len(),
                    asset.skins.len(),
                    asset.animation.clips.len()
                );
            }
            loaded += 1;
        }
    }
    assert!(loaded >= 19, "only {loaded} assets found");
}
