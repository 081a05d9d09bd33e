//! `pick` against a brute-force f64 ray-triangle test over the CPU-skinned mesh: random rays
//! aimed at posed characters (through a random point of a random triangle, from random
//! directions) hit the same triangle at the same distance (1e-5 of the box's diagonal); rays
//! that cross the character's box but no triangle miss; bad rays are typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use skel_anim::glam::{DVec3, Vec3};
use skel_gltf::{CharacterBounds, CpuPoser, GltfAsset, LoadOptions, RayError, load_path, pick};

/// Every triangle of the posed asset: (primitive, triangle, corners in f64).
fn triangles(asset: &GltfAsset, poser: &CpuPoser) -> Vec<(usize, usize, [DVec3; 3])> {
    common::posed_triangles(asset, poser, |_| true)
        .into_iter()
        .map(|(p, t, tri)| (p, t, tri.map(|v| v.as_dvec3())))
        .collect()
}

#[test]
fn random_rays_hit_what_brute_force_hits() {
    let Some(shared) = common::shared_dir("random_rays_hit_what_brute_force_hits") else {
        return;
    };
    for name in ["CesiumMan", "Fox", "RiggedFigure"] {
        let file = common::asset_files(&shared.join("assets"))
            .into_iter()
            .find(|f| f.to_string_lossy().contains(name))
            .unwrap();
        let asset = load_path(&file, &LoadOptions::default()).unwrap();
        let bounds = CharacterBounds::new(&asset);
        let mut poser = CpuPoser::new(&asset).unwrap();
        poser.pose(&asset, Some(0), 0.4).unwrap();
        let (min, max) = bounds.world_box(poser.node_world_matrices()).unwrap();
        let diagonal = f64::from((max - min).length());
        let tris = triangles(&asset, &poser);
        let mut runner = TestRunner::new(Config {
            cases: 256,
            ..Config::default()
        });
        let case = (
            0..tris.len(),
            0.05_f64..0.9,
            0.05_f64..0.9,
            -1.0_f64..1.0,
            -1.0_f64..1.0,
            -1.0_f64..1.0,
        );
        runner
            .run(&case, |(t, u, v, dx, dy, dz)| {
                let (u, v) = if u + v > 0.95 {
                    (u / 2.0, v / 2.0)
                } else {
                    (u, v)
                };
                let [a, b, c] = tris[t].2;
                let aim = a + (b - a) * u + (c - a) * v;
                let d = DVec3::new(dx, dy, dz).normalize_or(DVec3::Z);
                // Not grazing the aimed triangle (there a distance is ill-conditioned in any
                // precision).
                let normal = (b - a).cross(c - a).normalize_or_zero();
                prop_assume!(normal.dot(d).abs() > 0.05);
                let (o32, d32) = ((aim - d * (2.0 * diagonal)).as_vec3(), d.as_vec3());
                let got = pick(&asset, &poser, Some((min, max)), o32, d32)
                    .unwrap()
                    .expect("a ray through a triangle hits");
                // The reference casts the same (f32) ray.
                let (o, d) = (o32.as_dvec3(), d32.as_dvec3().normalize());
                // Brute force: the nearest triangle in f64.
                let (best, at) = tris
                    .iter()
                    .filter_map(|(p, t, tri)| {
                        skel_test_support::ray_triangle(o, d, *tri).map(|h| ((*p, *t), h))
                    })
                    .min_by(|x, y| x.1.total_cmp(&y.1))
                    .unwrap();
                let tolerance = 1e-5 * diagonal;
                // Nor a hit whose distance f32 cannot hold to the tolerance: the triangle
                // hit's edges are differences of f32 positions, so its distance is off by
                // about ε |o − a| κ / cos, κ = |e1| |e2| / |e1 × e2| (a sliver's is large), cos
                // the ray's angle to its normal. A sliver (κ 38.6) hit at cos 0.37 from 4.1 m
                // away was 2.1e-5 off, over the 2.05e-5 allowed.
                let [ba, bb, bc] = tris
                    .iter()
                    .find(|(p, t, _)| (*p, *t) == best)
                    .map(|(_, _, tri)| *tri)
                    .unwrap();
                let (e1, e2) = (bb - ba, bc - ba);
                let n = e1.cross(e2);
                let condition = e1.length() * e2.length() / n.length() / n.normalize().dot(d).abs();
                prop_assume!(condition <= 20.0);
                prop_assert!(
                    (f64::from(got.distance) - at).abs() <= tolerance,
                    "{name}: distance {} against {at}",
                    got.distance
                );
                // The same triangle, unless two lie within the tolerance (an edge shared).
                if (got.primitive, got.triangle) != best {
                    let ours = tris
                        .iter()
                        .find(|(p, t, _)| (*p, *t) == (got.primitive, got.triangle))
                        .and_then(|(_, _, tri)| skel_test_support::ray_triangle(o, d, *tri));
                    prop_assert!(
                        ours.is_some_and(|h| (h - at).abs() <= tolerance),
                        "{name}: triangle {:?} against {best:?}",
                        (got.primitive, got.triangle)
                    );
                }
                Ok(())
            })
            .unwrap();
        // A ray that crosses the box above the head misses every triangle.
        let over = Vec3::new(
            (min.x + max.x) / 2.0,
            max.y - 1e-3 * (max.y - min.y),
            max.z + 1.0,
        );
        let missed = pick(&asset, &poser, Some((min, max)), over, Vec3::NEG_Z).unwrap();
        let brute = tris.iter().any(|(_, _, tri)| {
            skel_test_support::ray_triangle(over.as_dvec3(), DVec3::NEG_Z, *tri).is_some()
        });
        assert_eq!(missed.is_some(), brute, "{name}: over the head");
        // Outside the box: no hit, without reading a triangle.
        let away = pick(&asset, &poser, Some((min, max)), max + Vec3::ONE, Vec3::X).unwrap();
        assert_eq!(away, None);
        // Bad rays.
        for (o, d, e) in [
            (Vec3::NAN, Vec3::X, RayError::NotFinite),
            (Vec3::ZERO, Vec3::INFINITY, RayError::NotFinite),
            (Vec3::ZERO, Vec3::ZERO, RayError::ZeroDirection),
        ] {
            assert_eq!(pick(&asset, &poser, None, o, d), Err(e));
        }
    }
}
