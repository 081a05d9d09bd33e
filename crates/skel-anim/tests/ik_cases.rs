//! IK solvers on hand-made chains: the documented degenerate cases (target on the start
//! joint, zero-length bones and axes, singular and non-finite input, pole along the target),
//! straight chains bending to the pole, a hinge given against the current bend, the chain
//! check, the apply functions' index checks, and zero allocations. (`ik.rs` holds the
//! property tests.)

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, Quat, Vec3};
use skel_anim::{
    AimIk, AnimError, AnimationData, NodeRest, R_OFF, TRS_STRIDE, TwoBoneIk, TwoBoneSolution,
    apply_correction, check_chain, model_matrix, model_matrix_from_trs,
};

/// A straight chain along -y: start at 2, mid at 1, end at 0 (unit bones), and a bent one.
fn leg(bent: bool) -> [Affine3A; 3] {
    let start = Affine3A::from_translation(Vec3::new(0.0, 2.0, 0.0));
    let knee = if bent {
        Vec3::new(0.0, -1.0, 0.0)
    } else {
        Vec3::NEG_Y
    };
    let mid = start * Affine3A::from_translation(knee);
    let foot = if bent {
        Vec3::new(0.0, -0.6, 0.8)
    } else {
        Vec3::NEG_Y
    };
    [start, mid, mid * Affine3A::from_translation(foot)]
}

#[test]
fn target_on_start_joint_folds_without_turning() {
    let [s, m, e] = leg(true);
    let ik = TwoBoneIk {
        target: s.translation.into(),
        pole: Vec3::Z,
        ..TwoBoneIk::default()
    };
    let sol = ik.solve(&s, &m, &e).unwrap();
    assert!(!sol.reached);
    assert_eq!(sol.start_correction, Quat::IDENTITY);
    // Equal bones fold completely: the end comes back onto the start joint.
    let end = m * Affine3A::from_quat(sol.mid_correction) * m.inverse() * e;
    assert!((Vec3::from(end.translation) - Vec3::from(s.translation)).length() < 1e-5);
}

#[test]
fn zero_length_bones_and_axes_are_errors() {
    let [s, m, _] = leg(false);
    let ik = TwoBoneIk::default();
    for (a, b, c) in [(s, s, m), (s, m, m)] {
        assert!(matches!(
            ik.solve(&a, &b, &c),
            Err(AnimError::IkDegenerate { .. })
        ));
    }
    let [s, m, e] = leg(false);
    let zero_axis = TwoBoneIk {
        mid_axis: Some(Vec3::ZERO),
        ..ik
    };
    assert!(matches!(
        zero_axis.solve(&s, &m, &e),
        Err(AnimError::IkDegenerate { .. })
    ));
    let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
    assert!(matches!(
        ik.solve(&flat, &m, &e),
        Err(AnimError::IkDegenerate { .. })
    ));
    let aim = AimIk {
        forward: Vec3::ZERO,
        ..AimIk::default()
    };
    assert!(matches!(aim.solve(&s), Err(AnimError::IkDegenerate { .. })));
}

#[test]
fn non_finite_inputs_are_named() {
    let [s, m, e] = leg(true);
    let cases = [
        (
            TwoBoneIk {
                target: Vec3::new(0.0, f32::NAN, 0.0),
                ..TwoBoneIk::default()
            },
            "IK target",
        ),
        (
            TwoBoneIk {
                pole: Vec3::splat(f32::INFINITY),
                ..TwoBoneIk::default()
            },
            "IK pole",
        ),
        (
            TwoBoneIk {
                weight: f32::NAN,
                ..TwoBoneIk::default()
            },
            "IK weight",
        ),
        (
            TwoBoneIk {
                soften: f32::NEG_INFINITY,
                ..TwoBoneIk::default()
            },
            "IK soften",
        ),
    ];
    for (ik, name) in cases {
        match ik.solve(&s, &m, &e) {
            Err(AnimError::NotFiniteValue { what, .. }) => assert_eq!(what, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let nan_matrix = Affine3A::from_translation(Vec3::NAN);
    assert!(matches!(
        TwoBoneIk::default().solve(&nan_matrix, &m, &e),
        Err(AnimError::NotFiniteValue { .. })
    ));
    let aim = AimIk {
        target: Vec3::NAN,
        ..AimIk::default()
    };
    assert!(matches!(
        aim.solve(&s),
        Err(AnimError::NotFiniteValue {
            what: "aim target",
            ..
        })
    ));
}

#[test]
fn pole_parallel_to_target_still_reaches() {
    let [s, m, e] = leg(true);
    let target = Vec3::new(0.0, 0.8, 0.3);
    let ik = TwoBoneIk {
        target,
        pole: target - Vec3::from(s.translation),
        ..TwoBoneIk::default()
    };
    let sol = ik.solve(&s, &m, &e).unwrap();
    let s2 = s * Affine3A::from_quat(sol.start_correction);
    let m2 = s2 * (s.inverse() * m) * Affine3A::from_quat(sol.mid_correction);
    let e2 = m2 * (m.inverse() * e);
    assert!((Vec3::from(e2.translation) - target).length() < 1e-5);
}

#[test]
fn straight_chain_bends_towards_the_pole() {
    for pole in [Vec3::Z, Vec3::NEG_Z, Vec3::X, Vec3::new(-1.0, 0.0, 1.0)] {
        let [s, m, e] = leg(false);
        let target = Vec3::new(0.0, 0.6, 0.0);
        let ik = TwoBoneIk {
            target,
            pole,
            ..TwoBoneIk::default()
        };
        let sol = ik.solve(&s, &m, &e).unwrap();
        assert!(sol.reached);
        let s2 = s * Affine3A::from_quat(sol.start_correction);
        let m2 = s2 * (s.inverse() * m) * Affine3A::from_quat(sol.mid_correction);
        let e2 = m2 * (m.inverse() * e);
        assert!((Vec3::from(e2.translation) - target).length() < 1e-5);
        let knee = Vec3::from(m2.translation);
        assert!(
            knee.normalize().dot(pole.normalize()) > 0.0,
            "{pole}: knee at {knee}"
        );
        assert!(knee.cross(pole).y.abs() < 1e-5, "{pole}: knee at {knee}");
    }
}

#[test]
fn bend_axis_opens_the_joint() {
    let [s, m, e] = leg(true);
    let axis = TwoBoneIk::bend_axis(&s, &m, &e).unwrap();
    assert!(TwoBoneIk::bend_axis(&leg(false)[0], &leg(false)[1], &leg(false)[2]).is_none());
    // A small positive turn about it moves the end away from the start joint.
    let turned = m * Affine3A::from_axis_angle(axis, 0.01) * m.inverse() * e;
    let d0 = (Vec3::from(e.translation) - Vec3::from(s.translation)).length();
    let d1 = (Vec3::from(turned.translation) - Vec3::from(s.translation)).length();
    assert!(d1 > d0);
}

#[test]
fn check_chain_wants_parent_and_child() {
    let data = AnimationData {
        nodes: vec![
            NodeRest::new("hip", None),
            NodeRest::new("knee", Some(0)),
            NodeRest::new("foot", Some(1)),
            NodeRest::new("toe", Some(2)),
        ],
        ..AnimationData::default()
    };
    check_chain(&data, 0, 1, 2).unwrap();
    check_chain(&data, 1, 2, 3).unwrap();
    assert_eq!(
        check_chain(&data, 0, 2, 3),
        Err(AnimError::IkNotAChain {
            node: 2,
            expected: 0,
            parent: Some(1)
        })
    );
    assert_eq!(
        check_chain(&data, 0, 1, 3),
        Err(AnimError::IkNotAChain {
            node: 3,
            expected: 1,
            parent: Some(2)
        })
    );
    assert!(matches!(
        check_chain(&data, 0, 1, 9),
        Err(AnimError::BadNode { node: 9, .. })
    ));
}

#[test]
fn apply_checks_indices_and_never_writes_nan() {
    let mut trs = vec![0.0_f32; 2 * TRS_STRIDE]; // zero quaternions: not usable rotations
    let q = Quat::from_rotation_y(0.5);
    apply_correction(&mut trs, 1, q).unwrap();
    assert_eq!(Quat::from_slice(&trs[TRS_STRIDE + R_OFF..]), q);
    assert!(matches!(
        apply_correction(&mut trs, 2, q),
        Err(AnimError::LengthMismatch { .. })
    ));
    let sol = TwoBoneSolution {
        start_correction: q,
        mid_correction: q,
        reached: true,
    };
    let before = trs.clone();
    assert!(sol.apply(&mut trs, 0, 5).is_err());
    assert_eq!(trs, before, "nothing written when an index is out of range");
    let world = [glam::Mat4::ZERO; 2];
    assert!(model_matrix(&world, 1).is_ok());
    assert!(model_matrix(&world, 2).is_err());
}

#[test]
fn solving_and_applying_allocate_nothing() {
    let [s, m, e] = leg(true);
    let ik = TwoBoneIk {
        target: Vec3::new(0.3, 0.7, 0.4),
        pole: Vec3::Z,
        ..TwoBoneIk::default()
    };
    let aim = AimIk {
        target: Vec3::new(1.0, 2.0, 3.0),
        ..AimIk::default()
    };
    let mut trs = vec![0.0_f32; 3 * TRS_STRIDE];
    let world: Vec<glam::Mat4> = [s, m, e].iter().map(|a| glam::Mat4::from(*a)).collect();
    let count = allocation_counter::measure(|| {
        for _ in 0..10 {
            let (s, m, e) = (
                model_matrix(&world, 0).unwrap(),
                model_matrix(&world, 1).unwrap(),
                model_matrix(&world, 2).unwrap(),
            );
            ik.solve(&s, &m, &e).unwrap().apply(&mut trs, 0, 1).unwrap();
            aim.solve(&e).unwrap().apply(&mut trs, 2).unwrap();
        }
    })
    .count_total;
    assert_eq!(count, 0);
}

#[test]
fn hinge_against_the_bend_flips_the_knee_to_the_pole() {
    let [s, m, e] = leg(true);
    let axis = TwoBoneIk::bend_axis(&s, &m, &e).unwrap();
    let target = Vec3::new(0.2, 0.7, 0.3);
    for (mid_axis, pole) in [(axis, Vec3::Z), (-axis, Vec3::Z), (-axis, Vec3::NEG_Z)] {
        let ik = TwoBoneIk {
            target,
            pole,
            mid_axis: Some(mid_axis),
            ..TwoBoneIk::default()
        };
        let sol = ik.solve(&s, &m, &e).unwrap();
        let s2 = s * Affine3A::from_quat(sol.start_correction);
        let m2 = s2 * (s.inverse() * m) * Affine3A::from_quat(sol.mid_correction);
        let e2 = m2 * (m.inverse() * e);
        assert!((Vec3::from(e2.translation) - target).length() < 1e-5);
        let start = Vec3::from(s.translation);
        let t = (target - start).normalize();
        let p = pole.reject_from(t).normalize();
        let knee = Vec3::from(m2.translation) - start;
        assert!(
            t.cross(p).dot(knee).abs() < 1e-5 && p.dot(knee) > 0.0,
            "{mid_axis} {pole}"
        );
        // The hinge still opens the joint after the solve: a positive turn about it moves the
        // end away from the start joint.
        let opened = m2 * Affine3A::from_axis_angle(mid_axis, 0.01) * m2.inverse() * e2;
        assert!(
            (Vec3::from(opened.translation) - start).length() > (target - start).length(),
            "{mid_axis}"
        );
    }
}

#[test]
fn parent_walk_composes_locals_and_checks_indices() {
    let data = AnimationData {
        nodes: vec![
            NodeRest::new("hip", None),
            NodeRest::new("knee", Some(0)),
            NodeRest::new("foot", Some(1)),
        ],
        ..AnimationData::default()
    };
    let mut trs = vec![0.0_f32; 3 * TRS_STRIDE];
    let locals = [
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_x(0.4),
            Vec3::new(1.0, 2.0, 3.0),
        ),
        Affine3A::from_rotation_translation(Quat::from_rotation_z(-0.7), Vec3::NEG_Y),
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.2), Vec3::new(0.0, -1.0, 0.5)),
    ];
    for (node, local) in locals.iter().enumerate() {
        let (s, r, t) = local.to_scale_rotation_translation();
        let rec = &mut trs[node * TRS_STRIDE..];
        rec[..3].copy_from_slice(&t.to_array());
        rec[R_OFF..R_OFF + 4].copy_from_slice(&r.to_array());
        rec[7..10].copy_from_slice(&s.to_array());
    }
    let root = Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let walked = model_matrix_from_trs(&data, &trs, 2, &root).unwrap();
    let expected = root * locals[0] * locals[1] * locals[2];
    assert!(
        walked.abs_diff_eq(expected, 1e-5),
        "{walked:?} vs {expected:?}"
    );
    assert!(matches!(
        model_matrix_from_trs(&data, &trs, 3, &root),
        Err(AnimError::BadNode { node: 3, .. })
    ));
    assert!(matches!(
        model_matrix_from_trs(&data, &trs[..TRS_STRIDE], 0, &root),
        Err(AnimError::LengthMismatch { .. })
    ));
}
