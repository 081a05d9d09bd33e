//! Column-major 4×4 matrices stored as 16 `f32` at an offset in a slice.

use glam::{Mat4, Quat, Vec3};

/// The 4×4 identity matrix, column-major.
pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// The handedness matrix `diag(-1, 1, 1, 1)`: mirrors x to turn glTF's right-handed space into
/// the left-handed space of the seed engine (Babylon-compatible). Pre-multiplied onto the world
/// matrix of every root node in the default left-handed mode.
pub const RH_TO_LH: [f32; 16] = [
    -1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// Reads the matrix at `src[offset..offset + 16]`.
///
/// # Panics
/// When `src` is shorter than `offset + 16`.
#[inline]
#[must_use]
pub fn load_mat4(src: &[f32], offset: usize) -> Mat4 {
    let m: &[f32; 16] = src[offset..offset + 16]
        .try_into()
        .unwrap_or_else(|_| unreachable!("a 16-element range converts to [f32; 16]"));
    Mat4::from_cols_array(m)
}

/// Writes `m` to `dst[offset..offset + 16]`.
///
/// # Panics
/// When `dst` is shorter than `offset + 16`.
#[inline]
pub fn store_mat4(dst: &mut [f32], offset: usize, m: &Mat4) {
    dst[offset..offset + 16].copy_from_slice(&m.to_cols_array());
}

/// Writes `T · R · S` (translation, rotation quaternion `[x, y, z, w]`, scale) into
/// `out[offset..offset + 16]`: the local matrix of a glTF node (glTF 2.0 §3.5.3).
///
/// The rotation is used as given; callers keep it normalised.
///
/// # Panics
/// When `out` is shorter than `offset + 16`.
#[doc(alias = "composeMat4IntoBuffer")]
#[inline]
pub fn compose_mat4_into(out: &mut [f32], offset: usize, t: [f32; 3], r: [f32; 4], s: [f32; 3]) {
    let m = Mat4::from_scale_rotation_translation(
        Vec3::from_array(s),
        Quat::from_array(r),
        Vec3::from_array(t),
    );
    store_mat4(out, offset, &m);
}

/// Writes `a · b` into `out[out_offset..out_offset + 16]`, with `a` read at `a_offset` and `b` at
/// `b_offset`. `out` may not alias the inputs (Rust's borrow rules ensure it); copy first when a
/// product must land on one of its factors.
///
/// # Panics
/// When a slice is shorter than its offset + 16.
#[doc(alias = "multiplyMat4IntoBuffer")]
#[inline]
pub fn multiply_mat4_into(
    out: &mut [f32],
    out_offset: usize,
    a: &[f32],
    a_offset: usize,
    b: &[f32],
    b_offset: usize,
) {
    let m = load_mat4(a, a_offset) * load_mat4(b, b_offset);
    store_mat4(out, out_offset, &m);
}

/// Writes the inverse of the matrix at `m[m_offset..]` into `out[out_offset..]`.
///
/// Returns `false`, and writes the identity, when the matrix is singular (determinant 0 or not
/// finite): a scaled-to-zero node has no inverse, and the caller decides what that means.
///
/// # Panics
/// When a slice is shorter than its offset + 16.
#[inline]
pub fn invert_mat4_into(out: &mut [f32], out_offset: usize, m: &[f32], m_offset: usize) -> bool {
    let src = load_mat4(m, m_offset);
    let det = src.determinant();
    if det == 0.0 || !det.is_finite() {
        store_mat4(out, out_offset, &Mat4::IDENTITY);
        return false;
    }
    store_mat4(out, out_offset, &src.inverse());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn compose_f64(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> [f64; 16] {
        let [x, y, z, w] = r.map(f64::from);
        let (sx, sy, sz) = (f64::from(s[0]), f64::from(s[1]), f64::from(s[2]));
        // glTF 2.0: rotation matrix of a unit quaternion, columns scaled by S.
        let r = [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y + z * w),
                2.0 * (x * z - y * w),
            ],
            [
                2.0 * (x * y - z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z + x * w),
            ],
            [
                2.0 * (x * z + y * w),
                2.0 * (y * z - x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ];
        let mut m = [0.0; 16];
        for (c, sc) in [sx, sy, sz].into_iter().enumerate() {
            for row in 0..3 {
                m[c * 4 + row] = r[c][row] * sc;
            }
        }
        m[12] = f64::from(t[0]);
        m[13] = f64::from(t[1]);
        m[14] = f64::from(t[2]);
        m[15] = 1.0;
        m
    }

    fn mul_f64(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
        let mut o = [0.0; 16];
        for c in 0..4 {
            for r in 0..4 {
                o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
            }
        }
        o
    }

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

    fn trs() -> impl Strategy<Value = ([f32; 3], [f32; 4], [f32; 3])> {
        (
            prop::array::uniform3(-10.0_f32..10.0),
            unit_quat(),
            prop::array::uniform3(0.1_f32..3.0),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn compose_matches_f64_reference((t, r, s) in trs()) {
            let mut out = [0.0_f32; 20];
            compose_mat4_into(&mut out, 4, t, r, s);
            let reference = compose_f64(t, r, s);
            for i in 0..16 {
                prop_assert!((f64::from(out[4 + i]) - reference[i]).abs() < 1e-4,
                    "element {i}: {} vs {}", out[4 + i], reference[i]);
            }
        }

        #[test]
        fn multiply_matches_f64_reference(a in trs(), b in trs()) {
            let mut ma = [0.0_f32; 16];
            let mut mb = [0.0_f32; 16];
            compose_mat4_into(&mut ma, 0, a.0, a.1, a.2);
            compose_mat4_into(&mut mb, 0, b.0, b.1, b.2);
            let mut out = [0.0_f32; 32];
            multiply_mat4_into(&mut out, 16, &ma, 0, &mb, 0);
            let reference = mul_f64(&ma.map(f64::from), &mb.map(f64::from));
            for i in 0..16 {
                let tol = 1e-5 * (1.0 + reference[i].abs());
                prop_assert!((f64::from(out[16 + i]) - reference[i]).abs() < tol * 10.0);
            }
        }

        #[test]
        fn multiply_of_general_matrices_matches_f64_reference(
            a in prop::array::uniform16(-10.0_f32..10.0),
            b in prop::array::uniform16(-10.0_f32..10.0),
        ) {
            // Not only affine TRS products: projective rows and arbitrary entries too, read and
            // written at offsets inside larger buffers.
            let mut abuf = [0.0_f32; 21];
            abuf[5..21].copy_from_slice(&a);
            let mut bbuf = [0.0_f32; 19];
            bbuf[3..19].copy_from_slice(&b);
            let mut out = [f32::NAN; 40];
            multiply_mat4_into(&mut out, 7, &abuf, 5, &bbuf, 3);
            let reference = mul_f64(&a.map(f64::from), &b.map(f64::from));
            for i in 0..16 {
                prop_assert!((f64::from(out[7 + i]) - reference[i]).abs() < 1e-3,
                    "element {i}: {} vs {}", out[7 + i], reference[i]);
            }
            // Nothing outside the 16 destination floats is written.
            prop_assert!(out[..7].iter().chain(&out[23..]).all(|v| v.is_nan()));
        }

        #[test]
        fn inverse_times_matrix_is_identity((t, r, s) in trs()) {
            let mut m = [0.0_f32; 16];
            compose_mat4_into(&mut m, 0, t, r, s);
            let mut inv = [0.0_f32; 16];
            prop_assert!(invert_mat4_into(&mut inv, 0, &m, 0));
            let mut p = [0.0_f32; 16];
            multiply_mat4_into(&mut p, 0, &m, 0, &inv, 0);
            for i in 0..16 {
                prop_assert!((p[i] - IDENTITY[i]).abs() < 1e-3, "{p:?}");
            }
        }
    }

    #[test]
    fn singular_matrix_inverts_to_identity_and_reports_it() {
        let mut m = IDENTITY;
        m[0] = 0.0;
        let mut out = [7.0_f32; 16];
        assert!(!invert_mat4_into(&mut out, 0, &m, 0));
        assert_eq!(out, IDENTITY);
    }

    #[test]
    fn handedness_matrix_mirrors_x_only() {
        let mut out = [0.0_f32; 16];
        let mut p = IDENTITY;
        p[12] = 3.0;
        p[13] = 4.0;
        multiply_mat4_into(&mut out, 0, &RH_TO_LH, 0, &p, 0);
        assert_eq!(out[12], -3.0);
        assert_eq!(out[13], 4.0);
        assert_eq!(out[0], -1.0);
    }
}
