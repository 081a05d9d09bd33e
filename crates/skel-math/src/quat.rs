//! Quaternion normalisation and interpolation on `[x, y, z, w]` arrays in slices.

use glam::{Quat, Vec4};

/// Normalises the quaternion at `q[offset..offset + 4]` in place.
///
/// A zero (or non-finite) quaternion becomes the identity `[0, 0, 0, 1]`: glTF requires unit
/// rotations, and an identity is the least surprising repair for a degenerate key.
///
/// # Panics
/// When `q` is shorter than `offset + 4`.
#[inline]
pub fn normalize_quat_into(q: &mut [f32], offset: usize) {
    let v = Vec4::new(q[offset], q[offset + 1], q[offset + 2], q[offset + 3]);
    let len_sq = v.length_squared();
    let n = if len_sq > 0.0 && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else {
        Vec4::W
    };
    q[offset..offset + 4].copy_from_slice(&n.to_array());
}

/// Spherical linear interpolation from `a` to `b` by `t ∈ [0, 1]`, along the shorter arc
/// (`b` is negated when `a · b < 0`), written normalised into `out[offset..offset + 4]`.
///
/// Nearly parallel inputs fall back to normalised linear interpolation, which is exact to
/// float precision there and avoids dividing by `sin θ ≈ 0`.
///
/// # Panics
/// When `out` is shorter than `offset + 4`.
#[inline]
pub fn slerp_into(out: &mut [f32], offset: usize, a: [f32; 4], b: [f32; 4], t: f32) {
    let qa = Vec4::from_array(a);
    let mut qb = Vec4::from_array(b);
    let mut cos = qa.dot(qb);
    if cos < 0.0 {
        qb = -qb;
        cos = -cos;
    }
    let r = if cos > 0.9995 {
        qa + (qb - qa) * t
    } else {
        let theta = cos.min(1.0).acos();
        let sin = theta.sin();
        let wa = ((1.0 - t) * theta).sin() / sin;
        let wb = (t * theta).sin() / sin;
        qa * wa + qb * wb
    };
    let len = r.length();
    let n = if len > 0.0 && len.is_finite() {
        r / len
    } else {
        Vec4::W
    };
    out[offset..offset + 4].copy_from_slice(&n.to_array());
}

/// Normalised linear interpolation along the shorter arc: cheaper than [`slerp_into`] and within
/// a small angular error of it for the short key intervals of sampled animation.
///
/// # Panics
/// When `out` is shorter than `offset + 4`.
#[inline]
pub fn nlerp_into(out: &mut [f32], offset: usize, a: [f32; 4], b: [f32; 4], t: f32) {
    let qa = Quat::from_array(a);
    let mut qb = Quat::from_array(b);
    if qa.dot(qb) < 0.0 {
        qb = -qb;
    }
    let v = Vec4::from(qa) + (Vec4::from(qb) - Vec4::from(qa)) * t;
    let len = v.length();
    let n = if len > 0.0 && len.is_finite() {
        v / len
    } else {
        Vec4::W
    };
    out[offset..offset + 4].copy_from_slice(&n.to_array());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unit_quat() -> impl Strategy<Value = [f32; 4]> {
        prop::array::uniform4(-1.0_f32..1.0)
            .prop_filter("non-degenerate", |q| {
                q.iter().map(|v| v * v).sum::<f32>() > 0.01
            })
            .prop_map(|q| {
                let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
                q.map(|v| v / n)
            })
    }

    fn dot(a: [f32; 4], b: [f32; 4]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// Shoemake's slerp in f64 along the short arc: the reference the f32 code must match.
    fn slerp_f64(a: [f32; 4], b: [f32; 4], t: f32) -> [f64; 4] {
        let a = a.map(f64::from);
        let mut b = b.map(f64::from);
        let t = f64::from(t);
        let mut cos: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        if cos < 0.0 {
            b = b.map(|v| -v);
            cos = -cos;
        }
        let theta = cos.min(1.0).acos();
        if theta < 1e-9 {
            return a;
        }
        let (wa, wb) = (
            ((1.0 - t) * theta).sin() / theta.sin(),
            (t * theta).sin() / theta.sin(),
        );
        [0, 1, 2, 3].map(|i| wa * a[i] + wb * b[i])
    }

    /// A unit quaternion within about `max_angle` radians (of quaternion angle) of `q`: the
    /// nearly parallel inputs that take the lerp fallback.
    fn near(q: [f32; 4], nudge: [f32; 4], max_angle: f32) -> [f32; 4] {
        let mut p = [0.0_f32; 4];
        for i in 0..4 {
            p[i] = q[i] + nudge[i] * max_angle;
        }
        let n = dot(p, p).sqrt();
        p.map(|v| v / n)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn slerp_is_unit_and_takes_the_short_path(a in unit_quat(), b in unit_quat(), t in 0.0_f32..=1.0) {
            let mut out = [0.0_f32; 4];
            slerp_into(&mut out, 0, a, b, t);
            let len = dot(out, out).sqrt();
            prop_assert!((len - 1.0).abs() < 1e-5);
            // The short path: the angle from a to out is at most t times the (short) angle
            // from a to b, plus float slack.
            let full = dot(a, b).abs().min(1.0).acos();
            let part = dot(a, out).abs().min(1.0).acos();
            prop_assert!(part <= t * full + 2e-3, "part {part} full {full} t {t}");
            // On the short arc every point is within 90° (of quaternion angle) of a.
            prop_assert!(dot(out, a) >= -1e-6, "out {out:?} left a's hemisphere");
        }

        #[test]
        fn slerp_matches_f64_reference(a in unit_quat(), b in unit_quat(), t in 0.0_f32..=1.0) {
            let mut out = [0.0_f32; 4];
            slerp_into(&mut out, 0, a, b, t);
            let reference = slerp_f64(a, b, t);
            for i in 0..4 {
                prop_assert!((f64::from(out[i]) - reference[i]).abs() < 1e-5,
                    "component {i}: {out:?} vs {reference:?}");
            }
        }

        #[test]
        fn slerp_of_nearly_parallel_inputs_matches_f64_reference(
            a in unit_quat(),
            nudge in prop::array::uniform4(-1.0_f32..1.0),
            flip in any::<bool>(),
            t in 0.0_f32..=1.0,
        ) {
            // At most 0.02 apart (4D distance ≈ angle): cos > 0.9998 > 0.9995 takes the
            // normalised-lerp branch.
            let mut b = near(a, nudge, 0.01);
            if flip {
                b = b.map(|v| -v);
            }
            let mut out = [0.0_f32; 4];
            slerp_into(&mut out, 0, a, b, t);
            let reference = slerp_f64(a, b, t);
            for i in 0..4 {
                prop_assert!((f64::from(out[i]) - reference[i]).abs() < 1e-5,
                    "component {i}: {out:?} vs {reference:?}");
            }
        }

        #[test]
        fn nlerp_is_unit_and_stays_near_slerp(a in unit_quat(), nudge in prop::array::uniform4(-1.0_f32..1.0), flip in any::<bool>(), t in 0.0_f32..=1.0) {
            // Short key intervals (up to ~0.2 rad apart), where nlerp is used instead of slerp.
            let mut b = near(a, nudge, 0.1);
            if flip {
                b = b.map(|v| -v);
            }
            let mut out = [0.0_f32; 4];
            nlerp_into(&mut out, 0, a, b, t);
            prop_assert!((dot(out, out).sqrt() - 1.0).abs() < 1e-5);
            let reference = slerp_f64(a, b, t);
            for i in 0..4 {
                prop_assert!((f64::from(out[i]) - reference[i]).abs() < 2e-3,
                    "component {i}: {out:?} vs {reference:?}");
            }
        }

        #[test]
        fn slerp_hits_endpoints(a in unit_quat(), b in unit_quat()) {
            let mut out = [0.0_f32; 4];
            slerp_into(&mut out, 0, a, b, 0.0);
            for i in 0..4 { prop_assert!((out[i] - a[i]).abs() < 1e-5); }
            slerp_into(&mut out, 0, a, b, 1.0);
            let sign = if dot(a, b) < 0.0 { -1.0 } else { 1.0 };
            for i in 0..4 { prop_assert!((out[i] - sign * b[i]).abs() < 1e-4); }
        }

        #[test]
        fn normalize_gives_unit_length(q in prop::array::uniform4(-100.0_f32..100.0)) {
            let mut buf = [0.0_f32; 6];
            buf[2..6].copy_from_slice(&q);
            normalize_quat_into(&mut buf, 2);
            let len = dot([buf[2], buf[3], buf[4], buf[5]], [buf[2], buf[3], buf[4], buf[5]]).sqrt();
            prop_assert!((len - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn zero_quaternion_normalises_to_identity() {
        let mut q = [0.0_f32; 4];
        normalize_quat_into(&mut q, 0);
        assert_eq!(q, [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn nlerp_is_unit() {
        let mut out = [0.0_f32; 4];
        nlerp_into(&mut out, 0, [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0], 0.5);
        let len = dot(out, out).sqrt();
        assert!((len - 1.0).abs() < 1e-6);
    }
}
