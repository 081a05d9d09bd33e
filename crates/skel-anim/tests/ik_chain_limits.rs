//! Chain IK limits, frames and weights: random limits (cones, hinges, Euler boxes) measured
//! from random rest rotations are never exceeded, checked by this file's own reading of each
//! rule in f64; corrections do not depend on the model frame; weights are clamped.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod ik_chain_support;

use glam::{Affine3A, DQuat, EulerRot, Quat, Vec3};
use ik_chain_support::{
    chain, lengths_kept, models_f32, on_one_line, positions, quat, rotation, solve, target, unit,
};
use proptest::prelude::*;
use skel_anim::ik::{ChainIk, ChainSolver, JointLimit};

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random limits (cones, hinges, Euler boxes, free joints) measured from random rest
    /// rotations, a pose that may start outside them, random targets and poles: after FABRIK or
    /// CCD every joint but the tip is inside its limit (checked in f64 on the applied f32
    /// pose, 1e-4 rad), and bone lengths are kept.
    #[test]
    fn limits_are_never_exceeded(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                 reach in 0.02..1.5f64, ccd in any::<bool>(),
                                 pole in prop::option::of(prop::array::uniform3(-1.0..1.0f64)),
                                 specs in prop::collection::vec(limit(), 8),
                                 rests in prop::collection::vec(prop::array::uniform4(-1.0..1.0f64), 8)) {
        let target = target(&c, dir, reach);
        let limits = &specs[..c.n];
        let rest: Vec<Quat> = rests[..c.n].iter().map(|r| quat(*r)).collect();
        let from_rest: Vec<Quat> = (0..c.n).map(|j| rest[j].inverse() * rotation(&c.trs, j + 1)).collect();
        let ik = ChainIk {
            solver: if ccd { ChainSolver::Ccd } else { ChainSolver::Fabrik },
            target,
            pole: pole.map(|p| unit(p).as_vec3()),
            iterations: 12,
            ..ChainIk::default()
        };
        let (_, trs) = solve(&c, &ik, limits, &from_rest);
        for j in 0..c.n - 1 {
            let relative = (rest[j].inverse() * rotation(&trs, j + 1)).as_dquat().normalize();
            let excess = outside(&limits[j], relative);
            prop_assert!(excess <= 1e-4, "joint {j}: {:?} exceeded by {excess} rad", limits[j]);
        }
        lengths_kept(&c, &positions(&trs, c.n))?;
    }

    /// The same chain posed in two model frames related by a random affine map (rotation,
    /// uniform scale, mirror, translation), target and pole mapped with it: the same
    /// corrections, for every solver.
    #[test]
    fn corrections_do_not_depend_on_the_model_frame(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                                    reach in 0.2..1.5f64, solver in 0usize..3,
                                                    pole in prop::array::uniform3(-1.0..1.0f64),
                                                    r in prop::array::uniform4(-1.0..1.0f64),
                                                    t in prop::array::uniform3(-5.0..5.0f32),
                                                    scale in 0.5..2.0f32, mirror in any::<bool>()) {
        let target = target(&c, dir, reach);
        prop_assume!(!on_one_line(&c, target));
        let s = if mirror { Vec3::new(scale, -scale, scale) } else { Vec3::splat(scale) };
        let b = Affine3A::from_scale_rotation_translation(s, quat(r), Vec3::from_array(t));
        let ik = ChainIk {
            solver: [ChainSolver::Fabrik, ChainSolver::Ccd, ChainSolver::CcdThreeJs][solver],
            target,
            pole: Some(unit(pole).as_vec3()),
            iterations: 6,
            tolerance: 0.0,
            ..ChainIk::default()
        };
        let models = models_f32(&c);
        let moved: Vec<Affine3A> = models.iter().map(|m| b * *m).collect();
        let framed = ChainIk {
            target: b.transform_point3(target),
            pole: ik.pole.map(|p| b.transform_vector3(p)),
            ..ik
        };
        let mut one = vec![Quat::IDENTITY; c.n];
        let mut two = vec![Quat::IDENTITY; c.n];
        ik.solve(&models, &[], &mut one).unwrap();
        framed.solve(&moved, &[], &mut two).unwrap();
        for j in 0..c.n {
            prop_assert!(one[j].angle_between(two[j]) <= 1e-3, "joint {j}: {} vs {}", one[j], two[j]);
        }
    }

    /// Weight 0 changes nothing; weights above 1 are 1.
    #[test]
    fn weight_is_clamped(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                         reach in 0.2..1.5f64, ccd in any::<bool>()) {
        let target = target(&c, dir, reach);
        let ik = ChainIk { solver: if ccd { ChainSolver::Ccd } else { ChainSolver::Fabrik }, target, ..ChainIk::default() };
        let models = models_f32(&c);
        let mut out = vec![Quat::NAN; c.n];
        let s = ChainIk { weight: 0.0, ..ik }.solve(&models, &[], &mut out).unwrap();
        prop_assert!(out.iter().all(|q| *q == Quat::IDENTITY));
        prop_assert_eq!(s.iterations, 0);
        let mut full = vec![Quat::NAN; c.n];
        ik.solve(&models, &[], &mut full).unwrap();
        ChainIk { weight: 5.0, ..ik }.solve(&models, &[], &mut out).unwrap();
        prop_assert_eq!(out, full);
    }
}

prop_compose! {
    /// A free joint, a cone, a hinge or an Euler box with random axes and ranges.
    fn limit()(kind in 0usize..4, axis in prop::array::uniform3(-1.0..1.0f64),
               a in -3.1..3.1f32, b in -3.1..3.1f32, swing in 0.0..3.1f32,
               lo in prop::array::uniform3(-3.1..3.1f32), hi in prop::array::uniform3(-3.1..3.1f32)) -> JointLimit {
        let axis = unit(axis).as_vec3();
        let (min, max) = (a.min(b), a.max(b));
        match kind {
            0 => JointLimit::Free,
            1 => JointLimit::Cone { axis, max_swing: swing, min_twist: min, max_twist: max },
            2 => JointLimit::Hinge { axis, min, max },
            _ => {
                // y is an arcsine: its range lies in -π/2..=π/2 (validate refuses others).
                let (lo, hi) = (Vec3::from_array(lo), Vec3::from_array(hi));
                let y = Vec3::new(1.0, 0.48, 1.0);
                JointLimit::Euler { min: lo.min(hi) * y, max: lo.max(hi) * y }
            }
        }
    }
}

/// How far (radians) `relative` is outside `limit`, by this file's own reading of the rules.
fn outside(limit: &JointLimit, relative: DQuat) -> f64 {
    let q = if relative.w < 0.0 {
        -relative
    } else {
        relative
    };
    let twist = |axis: Vec3| {
        let a = axis.as_dvec3().normalize();
        (a, 2.0 * a.dot(q.xyz()).atan2(q.w))
    };
    let range = |v: f64, lo: f32, hi: f32| (f64::from(lo) - v).max(v - f64::from(hi)).max(0.0);
    match *limit {
        JointLimit::Free => 0.0,
        JointLimit::Cone {
            axis,
            max_swing,
            min_twist,
            max_twist,
        } => {
            let (a, _) = twist(axis);
            let swing = a.angle_between(q * a);
            // The twist left once the swing (the arc taking the axis where it points) is undone.
            let rest = DQuat::from_rotation_arc(q * a, a) * q;
            let rest = if rest.w < 0.0 { -rest } else { rest };
            let t = 2.0 * a.dot(rest.xyz()).atan2(rest.w);
            (swing - f64::from(max_swing)).max(0.0) + range(t, min_twist, max_twist)
        }
        JointLimit::Hinge { axis, min, max } => {
            let (a, angle) = twist(axis);
            let off_axis = (q.xyz() - a * a.dot(q.xyz())).length() * 2.0;
            off_axis + range(angle, min, max)
        }
        JointLimit::Euler { min, max } => {
            let (x, y, z) = q.to_euler(EulerRot::XYZ);
            let centre = (min + max).as_dvec3() * 0.5;
            let wrap = |v: f64, c: f64| {
                c + (v - c + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                    - std::f64::consts::PI
            };
            range(wrap(x, centre.x), min.x, max.x)
                + range(wrap(y, centre.y), min.y, max.y)
                + range(wrap(z, centre.z), min.z, max.z)
        }
    }
}

/// Each rule of the input is a typed error naming what broke it, and leaves the output alone.
#[test]
fn bad_input_is_a_typed_error() {
    use skel_anim::AnimError;
    let mut m = [Affine3A::IDENTITY; 4];
    for i in 1..4 {
        m[i] = m[i - 1] * Affine3A::from_translation(Vec3::Y);
    }
    let ik = ChainIk::default();
    let mut out = [Quat::NAN; 4];
    let count = |got| matches!(got, Err(AnimError::IkJointCount { .. }));
    assert!(count(ik.solve(&m[..1], &[], &mut out[..1])));
    assert!(count(ik.solve(
        &[Affine3A::IDENTITY; 17],
        &[],
        &mut [Quat::IDENTITY; 17]
    )));
    assert!(matches!(
        ik.solve(&m, &[JointLimit::Free; 2], &mut out),
        Err(AnimError::LengthMismatch {
            what: "IK chain limits",
            expected: 4,
            got: 2
        })
    ));
    assert!(matches!(
        ik.solve(&m, &[], &mut out[..3]),
        Err(AnimError::LengthMismatch {
            what: "IK chain corrections",
            ..
        })
    ));
    let nan = ChainIk {
        target: Vec3::NAN,
        ..ik
    };
    assert!(matches!(
        nan.solve(&m, &[], &mut out),
        Err(AnimError::NotFiniteValue {
            what: "IK chain target",
            ..
        })
    ));
    let bad = [
        JointLimit::Free,
        JointLimit::Hinge {
            axis: Vec3::ZERO,
            min: 0.0,
            max: 1.0,
        },
        JointLimit::Free,
        JointLimit::Free,
    ];
    assert!(matches!(
        ik.solve(&m, &bad, &mut out),
        Err(AnimError::IkBadLimit { joint: 1, .. })
    ));
    let backwards = JointLimit::Cone {
        axis: Vec3::Y,
        max_swing: 1.0,
        min_twist: 0.5,
        max_twist: -0.5,
    };
    assert!(matches!(
        backwards.validate(3),
        Err(AnimError::IkBadLimit { joint: 3, .. })
    ));
    let folded = [m[0], m[1], m[1], m[3]];
    assert!(matches!(
        ik.solve(&folded, &[], &mut out),
        Err(AnimError::IkDegenerate { .. })
    ));
    assert!(
        out.iter().all(|q| q.is_nan()),
        "errors leave the output alone"
    );
    // A target on the root: a result, no NaN.
    let s = ChainIk {
        target: Vec3::ZERO,
        pole: Some(Vec3::Z),
        ..ik
    }
    .solve(&m, &[], &mut out)
    .unwrap();
    assert!(s.distance.is_finite() && out.iter().all(|q| q.is_finite()));
}
