//! `CrowdDescriptor::boxes_in_tick` on a real adapter (lavapipe in CI): the boxes `Crowd::tick`
//! keeps are the boxes `Crowd::instance_box` makes from the bone array, bit for bit, frame after
//! frame, for a real asset (CesiumMan, a Z-up export whose joints are boxed in its mesh node's
//! frame) and the fixtures with morph targets and two skeletons; and `Crowd::cull` keeps the
//! same instances with the kept boxes as without them, hidden players included.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`; without `../shared`: SKIP, or
//! fail when `SKEL_REQUIRE_ASSETS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use skel::gpu::GpuContext;
use skel::gpu::glam::{Mat4, Vec3};
use skel::{AssetContainer, Crowd, CrowdDescriptor, load_gltf};
use skel_test_support::shared_asset;

mod common;
use common::gpu;
#[path = "crowd/scene.rs"]
mod scene;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");

/// Instances on a side of the grid.
const SIDE: u32 = 8;

/// A crowd of `asset` on an 8 × 8 grid, instance `i` started at its own time (so that every
/// instance has its own pose every frame), with or without boxes made in `tick`.
fn crowd(ctx: &GpuContext, asset: &AssetContainer, boxes_in_tick: bool) -> Crowd {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances: SIDE * SIDE,
            compute: false,
            boxes_in_tick,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    for (i, player) in crowd.players.iter_mut().enumerate() {
        player.seek(0.05 + 0.11 * i as f32);
    }
    crowd
}

/// The grid's placements and a camera that sees some of it (the culling tests' scene).
fn grid_and_camera(asset: &AssetContainer) -> (Vec<Mat4>, Mat4) {
    let (placements, camera) = scene::grid(asset, SIDE);
    (placements, camera.projection * camera.view)
}

/// A box's bits, so that `-0.0` against `0.0` or one NaN against another is told apart.
fn bits(b: Option<(Vec3, Vec3)>) -> Option<[u32; 6]> {
    b.map(|(lo, hi)| {
        let [a, b, c] = lo.to_array();
        let [d, e, f] = hi.to_array();
        [a, b, c, d, e, f].map(f32::to_bits)
    })
}

/// CesiumMan from `../shared` and the fixtures with morph targets and two skeletons.
fn assets(test: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = ["default_character.glb", "two_skins.gltf"]
        .into_iter()
        .map(|f| Path::new(FIXTURES).join(f))
        .collect();
    paths.extend(shared_asset(test, "CesiumMan/CesiumMan.glb"));
    paths
}

#[test]
fn boxes_made_in_tick_are_the_boxes_of_the_bone_array_and_cull_the_same() {
    let test = "crowd boxes in tick";
    let Some(ctx) = gpu(test) else {
        return;
    };
    for path in assets(test) {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let asset = load_gltf(&ctx, &path, &Default::default()).unwrap();
        let (placements, view_projection) = grid_and_camera(&asset);
        let mut plain = crowd(&ctx, &asset, false);
        let mut boxed = crowd(&ctx, &asset, true);
        let n = plain.players.len();
        // Before any tick both stand at the rest pose.
        for i in 0..n {
            assert_eq!(
                bits(boxed.instance_box(i)),
                bits(plain.instance_box(i)),
                "{file}: instance {i} before the first tick"
            );
        }
        let (mut kept_some, mut culled_some, mut moved) = (false, false, 0);
        let mut last = plain.instance_box(0);
        for frame in 0..8 {
            // Hidden players keep their matrices and so their boxes; one shown again between
            // tick and cull is culled by the box of the matrices it was last posed with.
            for c in [&mut plain, &mut boxed] {
                c.players[5].set_visible(frame % 3 != 1);
                c.players[9].set_visible(!(2..=4).contains(&frame));
            }
            plain.tick(0.07);
            boxed.tick(0.07);
            if frame == 3 {
                plain.players[9].set_visible(true);
                boxed.players[9].set_visible(true);
            }
            assert_eq!(
                plain.bone_array(),
                boxed.bone_array(),
                "{file}: frame {frame}"
            );
            for i in 0..n {
                let made = plain.instance_box(i);
                assert!(made.is_some(), "{file}: instance {i} has no box");
                assert_eq!(
                    bits(boxed.instance_box(i)),
                    bits(made),
                    "{file}: frame {frame}, instance {i}: kept box against the bone array's"
                );
            }
            moved += usize::from(plain.instance_box(0) != last);
            last = plain.instance_box(0);
            let kept = plain.cull(view_projection, &placements).unwrap();
            assert_eq!(
                boxed.cull(view_projection, &placements).unwrap(),
                kept,
                "{file}: frame {frame}"
            );
            assert_eq!(boxed.visible(), plain.visible(), "{file}: frame {frame}");
            if frame == 2 || frame == 4 {
                assert!(
                    !boxed.visible().contains(&9),
                    "{file}: frame {frame}: hidden"
                );
            }
            kept_some |= kept > 0;
            culled_some |= (kept as usize) < n - 2;
        }
        // The checks could see a box that lags a frame or came from another instance.
        assert_eq!(moved, 8, "{file}: the box stays");
        assert!(
            kept_some && culled_some,
            "{file}: the camera sees all or nothing"
        );
    }
}
