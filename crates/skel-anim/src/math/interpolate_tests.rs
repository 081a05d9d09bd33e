//! The interpolation and composition arithmetic against f64 and scalar references: slerp
//! weights, normalisation, compose and the affine products.

use super::*;
use glam::{Quat, Vec3};

/// `sin(tθ) / sin θ` in f64.
fn exact(cos: f64, t: f64) -> f64 {
    let theta = cos.acos();
    if theta < 1e-12 {
        return t;
    }
    (t * theta).sin() / theta.sin()
}

#[test]
fn polynomial_weights_match_slerp_over_their_whole_range() {
    // cos from 0.9 to 1 and t from 0 to 1 on a fine grid: the worst error of either weight
    // is within 2e-7 (the series' own truncation is below 5e-8; the rest is f32 rounding).
    let mut worst = 0.0_f64;
    for i in 0..=400 {
        let cos = 0.9 + 0.1 * f64::from(i) / 400.0;
        for j in 0..=200 {
            let t = f64::from(j) / 200.0;
            #[expect(clippy::cast_possible_truncation, reason = "test grid in f32 range")]
            let (wa, wb) = slerp_weights(cos as f32, t as f32);
            let ea = exact(f64::from(cos as f32), 1.0 - t);
            let eb = exact(f64::from(cos as f32), t);
            worst = worst
                .max((f64::from(wa) - ea).abs())
                .max((f64::from(wb) - eb).abs());
        }
    }
    assert!(worst < 2e-7, "worst weight error {worst:e}");
}

#[test]
fn polynomial_slerp_matches_glam_slerp_on_key_pairs() {
    let mut worst = 0.0_f32;
    for i in 0..2000 {
        let f = i as f32;
        let axis = Vec3::new(f.sin(), (f * 0.7).cos(), 0.4).normalize();
        let a = Quat::from_axis_angle(axis, f * 0.013);
        // Up to 0.9 rad (of rotation) between keys: both sides of the polynomial's range.
        let b =
            a * Quat::from_axis_angle(Vec3::new(axis.z, axis.x, axis.y), 0.9 * (f * 0.37).sin());
        let t = (f * 0.618).fract();
        let ours = slerp(Vec4::from(a), Vec4::from(b), t);
        let reference = Vec4::from(a.slerp(b, t));
        worst = worst.max((ours - reference).abs().max_element());
    }
    assert!(worst < 1e-6, "worst component error {worst:e}");
}

#[test]
fn four_lane_slerp_gives_the_scalar_bits() {
    let mut lanes_checked = 0;
    for i in 0..500 {
        let f = i as f32;
        let quat = |k: f32| {
            let axis = Vec3::new((f + k).sin(), (f * 0.3 + k).cos(), 0.2).normalize();
            Vec4::from(Quat::from_axis_angle(axis, (f * 0.77 + k) % 6.0))
        };
        let a = [quat(0.0), quat(1.0), quat(2.0), quat(3.0)];
        // Near and far pairs, some on opposite hemispheres (negated).
        let b = [
            quat(0.05),
            -quat(1.3),
            quat(2.0 + 0.01 * (f % 7.0)),
            -quat(3.9),
        ];
        let s = Vec4::new((f * 0.618).fract(), (f * 0.31).fract(), 0.0, 1.0);
        let copy = BVec4A::new(i % 5 == 0, false, i % 3 == 0, false);
        let four = slerp4(a, b, s, copy);
        for lane in 0..4 {
            let scalar = if copy.test(lane) {
                normalize_quat(a[lane])
            } else {
                slerp(a[lane], b[lane], s[lane])
            };
            assert_eq!(
                four[lane].to_array().map(f32::to_bits),
                scalar.to_array().map(f32::to_bits),
                "pair {i} lane {lane}"
            );
            lanes_checked += 1;
        }
    }
    assert_eq!(lanes_checked, 2000);
}

#[test]
fn four_node_compose_gives_the_scalar_bits() {
    for i in 0..200 {
        let f = i as f32;
        let lane = |k: f32| {
            let q = Quat::from_euler(glam::EulerRot::XYZ, f * 0.1 + k, f * 0.2 - k, 0.3 * k);
            (
                Vec4::new(f + k, -k, 0.5 * f, 7.0),
                Vec4::from(q),
                Vec4::new(1.0 + 0.1 * k, 0.5 + 0.01 * f, 2.0, 9.0),
            )
        };
        let lanes = [lane(0.0), lane(1.0), lane(2.0), lane(3.0)];
        let four = compose4(
            &lanes.map(|l| l.0),
            &lanes.map(|l| l.1),
            &lanes.map(|l| l.2),
        );
        for (m, (t, q, s)) in four.iter().zip(lanes) {
            let scalar = compose(t, q, s);
            for (a, b) in m.iter().zip(&scalar) {
                assert_eq!(
                    a.to_array().map(f32::to_bits),
                    b.to_array().map(f32::to_bits)
                );
            }
        }
    }
}

#[test]
fn newton_rescaling_is_as_good_as_dividing_near_unit_length() {
    // Across the whole band (and just past it, where the division takes over) the result
    // is unit length and parallel to the input within f32 rounding.
    for i in -100..=100 {
        let scale = (1.0 + f64::from(i) * 1.05e-6).sqrt();
        #[expect(clippy::cast_possible_truncation, reason = "test values")]
        let q = Vec4::new(0.1, -0.7, 0.3, 0.64).normalize() * scale as f32;
        let n = normalize_quat(q);
        let exact = q.as_dvec4().normalize();
        let err = (n.as_dvec4() - exact).abs().max_element();
        assert!(err < 2e-7, "scale² {}: off by {err}", scale * scale);
    }
    assert_eq!(normalize_quat(Vec4::new(0.0, 0.0, 2.0, 0.0)), Vec4::Z);
    assert_eq!(normalize_quat(Vec4::ZERO), Vec4::W);
}

#[test]
fn slerp_takes_the_short_way_and_repairs_degenerate_input() {
    let a = Vec4::from(Quat::from_rotation_y(0.2));
    let b = -Vec4::from(Quat::from_rotation_y(0.4));
    let mid = slerp(a, b, 0.5);
    let expected = Vec4::from(Quat::from_rotation_y(0.3));
    assert!(
        (mid - expected).abs().max_element() < 1e-6,
        "{mid} vs {expected}"
    );
    assert_eq!(normalize_quat(Vec4::ZERO), Vec4::W);
    assert_eq!(normalize_quat(Vec4::splat(f32::NAN)), Vec4::W);
}

#[test]
fn compose_and_affine_products_match_glam() {
    let t = Vec3::new(1.0, -2.0, 0.5);
    let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
    let s = Vec3::new(1.5, 0.5, 2.0);
    let ours = compose(t.extend(0.0), Vec4::from(q), s.extend(0.0));
    let glam_m = Mat4::from_scale_rotation_translation(s, q, t);
    let cols = [glam_m.x_axis, glam_m.y_axis, glam_m.z_axis, glam_m.w_axis];
    for (a, b) in ours.iter().zip(&cols) {
        assert!((*a - *b).abs().max_element() < 1e-6);
    }
    assert!(is_affine(&ours));
    let other = compose(
        Vec4::new(0.1, 0.2, 0.3, 0.0),
        Vec4::from(q.inverse()),
        Vec4::ONE,
    );
    let affine = mul_affine(&ours, &other);
    let full = mul_full(&ours, &other);
    for (a, b) in affine.iter().zip(&full) {
        assert!((*a - *b).abs().max_element() < 1e-6);
    }
    assert!(is_affine(&affine));
    let mut buf = [0.0_f32; 16];
    store(&mut buf, &affine);
    assert_eq!(load(&buf), affine);
    let mut projective = full;
    projective[0].w = 0.5;
    assert!(!is_affine(&projective));
}
