//! `ChainSolver::CcdThreeJs` against three.js's `CCDIKSolver` (0.187.0): the goldens in
//! `tests/golden/three_ccd/` hold chains (rest local transforms, hinge `limitation`s and
//! `rotationMin` / `rotationMax` boxes), targets, iteration counts and `maxAngle`s, and what
//! three.js solved: every joint's local rotation and world position. skel solves the same
//! chains and must agree within 1e-4. `scripts/peer/three-ik` writes the goldens (node, never
//! in CI); this test needs no node.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use glam::{Affine3A, DAffine3, Quat, Vec3};
use serde_json::Value;
use skel_anim::ik::{ChainIk, ChainSolver, JointLimit};

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn vec3(v: &Value) -> Vec3 {
    Vec3::from_slice(&floats(v))
}

fn quat(v: &Value) -> Quat {
    Quat::from_slice(&floats(v))
}

/// One golden file: its chain solved for each target, compared joint by joint.
fn check(path: &Path) -> usize {
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let joints = golden["joints"].as_array().unwrap();
    let locals: Vec<(Vec3, Quat)> = joints
        .iter()
        .map(|j| (vec3(&j["translation"]), quat(&j["rotation"])))
        .collect();
    let limits: Vec<JointLimit> = joints
        .iter()
        .map(|j| {
            if let Some(axis) = j.get("hinge") {
                let pi = std::f32::consts::PI;
                JointLimit::Hinge {
                    axis: vec3(axis),
                    min: -pi,
                    max: pi,
                }
            } else if let Some(min) = j.get("euler_min") {
                JointLimit::Euler {
                    min: vec3(min),
                    max: vec3(&j["euler_max"]),
                }
            } else {
                JointLimit::Free
            }
        })
        .collect();
    let mut models: Vec<Affine3A> = Vec::new();
    for (t, r) in &locals {
        let local = Affine3A::from_rotation_translation(*r, *t);
        models.push(models.last().map_or(local, |p| *p * local));
    }
    // three.js limits bound the local rotation itself: the rest reference is the identity.
    let from_rest: Vec<Quat> = locals.iter().map(|(_, r)| *r).collect();
    let solves = golden["solves"].as_array().unwrap();
    for (s, solve) in solves.iter().enumerate() {
        let ik = ChainIk {
            solver: ChainSolver::CcdThreeJs,
            target: vec3(&solve["target"]),
            iterations: golden["iterations"].as_u64().unwrap() as u32,
            tolerance: 0.0,
            max_step: golden["max_angle"]
                .as_f64()
                .map_or(std::f32::consts::PI, |a| a as f32),
            ..ChainIk::default()
        };
        let mut corrections = vec![Quat::IDENTITY; locals.len()];
        ik.solve_from_rest(&models, &limits, &from_rest, &mut corrections)
            .unwrap();
        let mut world = DAffine3::IDENTITY;
        let want_rotations = solve["local_rotations"].as_array().unwrap();
        let want_positions = solve["world_positions"].as_array().unwrap();
        for (j, ((t, r), c)) in locals.iter().zip(&corrections).enumerate() {
            let got = (*r * *c).normalize();
            let want = quat(&want_rotations[j]);
            // The angle between the two rotations, in f64 (f32's acos near 1 is too coarse).
            let (g, w) = (got.as_dquat().normalize(), want.as_dquat().normalize());
            let angle = 2.0 * g.dot(w).abs().min(1.0).acos();
            assert!(
                angle <= 1e-4,
                "{} solve {s} joint {j}: rotation {got} against three.js's {want}",
                path.display()
            );
            let local = DAffine3::from_rotation_translation(got.as_dquat(), t.as_dvec3());
            world = if j == 0 { local } else { world * local };
            let want = vec3(&want_positions[j]).as_dvec3();
            let off = (world.translation - want).length();
            assert!(
                off <= 1e-4,
                "{} solve {s} joint {j}: {} against three.js's {want} ({off})",
                path.display(),
                world.translation
            );
        }
    }
    solves.len()
}

#[test]
fn ccd_three_js_mode_matches_three_js() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/three_ccd");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 6, "the six cases of scripts/peer/three-ik");
    let solved: usize = files.iter().map(|f| check(f)).sum();
    assert_eq!(solved, 18);
}
