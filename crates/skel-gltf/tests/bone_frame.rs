//! The controller poses in its own frame (the first skinned mesh at its rest place) and turns
//! that into bone matrices with one product per bone; this checks, on every shared asset, clip
//! and a spread of times, in both handednesses, that its bone matrices are the spec's
//! `inverse(meshWorld) · jointWorld · inverseBind` computed in f64 from the world matrices it
//! reports.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use glam::DMat4;
use skel_anim::{AnimationController, Handedness, RecordingSink};
use skel_gltf::{LoadOptions, load_path};

fn mat(m: &[f32]) -> DMat4 {
    DMat4::from_cols_array(&std::array::from_fn(|i| f64::from(m[i])))
}

#[test]
fn bone_matrices_match_the_world_matrices_on_every_asset() {
    let Some(shared) = common::shared_dir("bone_matrices_match_the_world_matrices_on_every_asset")
    else {
        return;
    };
    let mut checked = 0;
    let mut worst = 0.0f64;
    let mut dirs: Vec<_> = std::fs::read_dir(shared.join("assets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for path in dirs.iter().flat_map(|d| {
        let mut files: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|f| f.unwrap().path())
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")))
            .collect();
        files.sort();
        files
    }) {
        for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
            let opts = LoadOptions {
                handedness,
                decode_images: false,
            };
            let asset = load_path(&path, &opts).unwrap();
            let data = Arc::new(asset.animation);
            if data.skeletons.is_empty() {
                continue;
            }
            let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
            let clips: Vec<Option<usize>> = std::iter::once(None)
                .chain((0..data.clips.len()).map(Some))
                .collect();
            for clip in clips {
                let duration = clip.map_or(0.0, |c| data.clips[c].duration());
                for step in 0..=8 {
                    #[expect(clippy::cast_precision_loss, reason = "small step counts")]
                    let t = duration * step as f32 / 8.0;
                    let mut sink = RecordingSink::default();
                    controller.evaluate_at(clip, t, &mut sink).unwrap();
                    let world = controller.world_matrices().to_vec();
                    for (b, binding) in data.skeletons.iter().enumerate() {
                        let inv_mesh = world[binding.mesh_node].as_dmat4().inverse();
                        for (i, &joint) in binding.joints.iter().enumerate() {
                            let ibm = mat(&binding.inverse_bind_matrices[i * 16..][..16]);
                            let want = inv_mesh * world[joint].as_dmat4() * ibm;
                            let got = sink.bone_matrices[b][i].to_cols_array();
                            let scale = want
                                .to_cols_array()
                                .iter()
                                .fold(1.0f64, |m, x| m.max(x.abs()));
                            let err = want
                                .to_cols_array()
                                .iter()
                                .zip(got)
                                .fold(0.0f64, |m, (w, g)| m.max((w - f64::from(g)).abs()))
                                / scale;
                            worst = worst.max(err);
                            assert!(
                                err <= 1e-5,
                                "{} {handedness:?} clip {clip:?} t {t}: binding {b} bone {i} off by {err:e}",
                                path.display()
                            );
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} poses checked, worst relative error {worst:e}");
    assert!(checked > 100, "only {checked} poses checked");
}
