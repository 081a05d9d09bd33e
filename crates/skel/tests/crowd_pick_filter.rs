//! `CrowdPicker`'s joint-group test before skinning (`skel_gltf::PickFilter`) changes the work,
//! never the answer: on a grid of characters at different times, rays through every pixel of a
//! small view give the same hit (instance,
//! primitive, triangle, distance, bit for bit) with the test on and off, and on the built-in
//! character the test skins fewer than half as many instances (the counts are printed).
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use skel::gpu::glam::{Mat4, Quat, Vec3, Vec4};
use skel::render::rest_bounds;
use skel::{CrowdPicker, PickWork, load_gltf};

mod common;
use common::{gpu, paused_crowd};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");

fn add(a: PickWork, b: PickWork) -> PickWork {
    PickWork {
        boxes_entered: a.boxes_entered + b.boxes_entered,
        considered: a.considered + b.considered,
        skinned: a.skinned + b.skinned,
    }
}

#[test]
fn the_joint_group_test_skins_fewer_instances_and_answers_the_same() {
    let Some(ctx) = gpu("crowd picking, joint groups") else {
        return;
    };
    for file in ["default_character.glb", "two_skins.gltf"] {
        let path = Path::new(FIXTURES).join(file);
        let container = load_gltf(&ctx, &path, &Default::default()).unwrap();
        let (side, n) = (6_u32, 36_u32);
        let crowd = paused_crowd(&ctx, &container, n, |i| 0.07 * i as f32);
        let (lo, hi) = rest_bounds(&container);
        let size = (hi - lo).max_element();
        // A grid, every other character turned, packed a little closer than two widths.
        let placements: Vec<Mat4> = (0..n)
            .map(|i| {
                let at = Vec3::new((i % side) as f32, 0.0, (i / side) as f32) * 1.6 * size;
                Mat4::from_rotation_translation(Quat::from_rotation_y(0.4 * (i % 2) as f32), at)
            })
            .collect();
        let mut on = CrowdPicker::new(&container);
        let mut off = CrowdPicker::new(&container);
        off.set_filtering(false);
        let (mut work_on, mut work_off, mut hits) =
            (PickWork::default(), PickWork::default(), 0_u32);
        // A camera above one corner looking across the grid; 48 × 36 pixels.
        let middle = (lo + hi) * 0.5;
        let eye = Vec3::new(-2.0 * size, middle.y + 1.5 * size, -2.0 * size);
        let target = Vec3::new(2.5, 0.0, 2.5) * 1.6 * size + Vec3::Y * middle.y;
        let view = Mat4::look_at_rh(eye, target, Vec3::Y);
        let inverse = (Mat4::perspective_rh(0.9, 4.0 / 3.0, 0.05, 100.0 * size) * view).inverse();
        let mut rays: Vec<(Vec3, Vec3)> = Vec::new();
        for y in 0..36 {
            for x in 0..48 {
                let ndc = |z: f32| {
                    let p = inverse
                        * Vec4::new(
                            (x as f32 + 0.5) / 24.0 - 1.0,
                            1.0 - (y as f32 + 0.5) / 18.0,
                            z,
                            1.0,
                        );
                    p.truncate() / p.w
                };
                let (near, far) = (ndc(0.0), ndc(1.0));
                rays.push((near, far - near));
            }
        }
        for (k, (origin, dir)) in rays.into_iter().enumerate() {
            let a = on
                .pick(&crowd, &container, &placements, origin, dir)
                .unwrap();
            let b = off
                .pick(&crowd, &container, &placements, origin, dir)
                .unwrap();
            assert_eq!(
                a, b,
                "{file}: ray {k} answered otherwise with the joint groups"
            );
            hits += u32::from(a.is_some());
            work_on = add(work_on, on.work());
            work_off = add(work_off, off.work());
        }
        println!(
            "{file}: {n} characters, 1728 pixel rays, {hits} hits; boxes entered {}, considered \
             {} / {}, skinned {} with the joint groups, {} without",
            work_on.boxes_entered,
            work_on.considered,
            work_off.considered,
            work_on.skinned,
            work_off.skinned
        );
        assert!(hits > 50, "{file}: only {hits} hits");
        assert_eq!(work_on.boxes_entered, work_off.boxes_entered);
        assert_eq!(work_on.considered, work_off.considered);
        assert!(work_on.skinned <= work_off.skinned);
        // The built-in character's groups are small beside its box (arms, legs, head); the
        // two-skin fixture is two short strips, each one group about as large as its box.
        if file == "default_character.glb" {
            assert!(
                2 * work_on.skinned < work_off.skinned,
                "{file}: the joint groups saved too little ({work_on:?} against {work_off:?})"
            );
        }
    }
}
